"""Golden submissions of assignment 06 (Gram matrices at scale): common mistakes.

Each case is the release with every solution cell filled in from the source, except the
cells in ``replace`` (grade_id -> the whole cell as a student would have typed it).
``expect``: scores of the graded cells listed (every other autograded cell gets full
marks); ``message``: what the failing visible test must say.
"""

_GRAM_HEAD = '''def tiled_rbf_gram(X, Z, sigma, max_bytes):
    X, Z = np.asarray(X, dtype=float), np.asarray(Z, dtype=float)
    if X.shape[1] != Z.shape[1]:
        raise ValueError("X and Z need the same number of columns")
    n, m = len(X), len(Z)
    block_rows = max_bytes // (4 * 8 * m)
    if block_rows < 1:
        raise ValueError("max_bytes is too small for one row")
'''

_TRAIN_HEAD = '''def train_incremental(K, y, max_epochs=10):
    K = np.asarray(K, dtype=float)
    n = len(y)
    if K.shape != (n, n):
        raise ValueError("K must be a square matrix with one row per label")
    alpha, b, F = np.zeros(n, dtype=int), 0.0, np.zeros(n)
    for epoch in range(max_epochs):
        mistakes = 0
        for i in range(n):
            if y[i] * F[i] <= 0:
                alpha[i] += 1
                b += y[i]
                mistakes += 1
'''

_TRAIN_TAIL = '''        if mistakes == 0:
            break
    return alpha, b
'''

_UNTILED = '''    xx, zz = (X * X).sum(axis=1), (Z * Z).sum(axis=1)
    d2 = xx[:, None] - 2 * X @ Z.T + zz[None, :]
    return np.exp(-np.maximum(d2, 0) / (2 * sigma ** 2))
'''

CASES = {
    # The distance trick without the clamp: rounding makes some squared distances negative.
    "no-clamp": {
        "replace": {"ex1-tiled": _GRAM_HEAD + '''    K = np.empty((n, m))
    for a in range(0, n, block_rows):
        B = X[a:a + block_rows]
        d2 = (B * B).sum(axis=1)[:, None] - 2 * B @ Z.T + (Z * Z).sum(axis=1)[None, :]
        K[a:a + block_rows] = np.exp(-d2 / (2 * sigma ** 2))
    return K
'''},
        "expect": {"ex1-tiled-tests-values": 2, "ex1-tiled-tests-clamp": 0, "ex1-tiled-tests-memory": 2},
        "message": "clamp the squared distances at 0",
    },
    # Right values, but the whole matrix at once: the temporaries are several n x m arrays.
    "untiled": {
        "replace": {"ex1-tiled": _GRAM_HEAD + _UNTILED},
        "expect": {"ex1-tiled-tests-values": 2, "ex1-tiled-tests-clamp": 1, "ex1-tiled-tests-memory": 0},
        "message": "over the budget",
    },
    # The decision values move by the kernel column but not by the bias step.
    "no-bias-in-F": {
        "replace": {"ex2-incremental": _TRAIN_HEAD + '''                F += y[i] * K[:, i]
''' + _TRAIN_TAIL},
        "expect": {"ex2-incremental-tests-counts": 2, "ex2-incremental-tests-bias": 0,
                   "ex2-incremental-tests-first": 1},
        "message": "your decision values ignore the bias",
    },
    # Only the decision value of the misclassified sample is updated.
    "only-current": {
        "replace": {"ex2-incremental": _TRAIN_HEAD + '''                F[i] += y[i] * (K[i, i] + 1)
''' + _TRAIN_TAIL},
        "expect": {"ex2-incremental-tests-counts": 0, "ex2-incremental-tests-bias": 0,
                   "ex2-incremental-tests-first": 1},
        "message": "you updated only the decision value of the sample that was misclassified",
    },
    # Calling the package's Gram matrix instead of writing the tiles: no credit for Exercise 1.
    "reference-call": {
        "replace": {"ex1-tiled": '''from kpcourse.gram import gram_matrix


def tiled_rbf_gram(X, Z, sigma, max_bytes):
    if np.shape(X)[1] != np.shape(Z)[1] or max_bytes < 4 * 8 * len(Z):
        raise ValueError("bad input")
    return gram_matrix(X, Z, kernel="rbf", sigma=sigma, max_memory=max_bytes, device="cpu")
'''},
        "expect": {"ex1-tiled-tests-values": 0, "ex1-tiled-tests-clamp": 0, "ex1-tiled-tests-memory": 0},
        "message": "this exercise asks you to write the tiled Gram matrix yourself; calling "
                   "kpcourse.gram.gram_matrix gets no credit",
    },
}
