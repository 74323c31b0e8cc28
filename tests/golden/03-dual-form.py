"""Golden submissions of assignment 03 (the dual form): common mistakes and reference calls.

Each case is the release with every solution cell filled in from the source, except the
cells in ``replace`` (grade_id -> the whole cell as a student would have typed it).
``expect``: scores of the graded cells listed (every other autograded cell gets full
marks); ``message``: what the failing visible test must say (for a reference call: what the
grader says). A reference call costs the attacked exercise only, whichever way it is reached:
by import, by ``importlib``, by ``getattr`` on a module, or by reading a file and ``exec``-ing it.
"""

_MERGE_HEAD = '''def merge_duplicates(X, y, alpha):
    X, y, alpha = np.asarray(X, dtype=float), np.asarray(y), np.asarray(alpha, dtype=float)
    if X.ndim != 2 or y.shape != (len(X),) or alpha.shape != (len(X),) or np.any(alpha < 0):
        raise ValueError("X must be 2-D, y and alpha one entry per row, alpha >= 0")
'''

_DECAY_HEAD = '''def dual_train_decay(K, y, eta0=1.0, power=0.5, max_epochs=100):
    K, y = np.asarray(K, dtype=float), np.asarray(y)
    n = len(y)
    if K.shape != (n, n) or eta0 <= 0 or power < 0:
        raise ValueError("K must be (n, n), eta0 > 0 and power >= 0")
'''

def _decay_loop(clock, on_visit, on_mistake, weights):
    """The decaying-step loop as a student writes it: ``clock`` counts what ``on_visit``/``on_mistake`` add to it,
    and the score weighs the points by ``weights`` (``a`` right, ``alpha`` a mistake)."""
    return _DECAY_HEAD + f'''    alpha, a, b, {clock} = np.zeros(n, dtype=int), np.zeros(n), 0.0, 0
    for _ in range(max_epochs):
        errors = 0
        for i in range(n):
{on_visit}            if y[i] * (np.dot({weights} * y, K[:, i]) + b) <= 0:
{on_mistake}                step = eta0 * {clock} ** (-power)
                alpha[i] += 1
                a[i] += step
                b += step * y[i]
                errors += 1
        if errors == 0:
            break
    return alpha, a, b
'''


# The steps shrink with the number of mistakes made so far, not with the visits.
_MISTAKE_CLOCK = _decay_loop("made", "", "                made += 1\n", "a")
# The visits counted right, the score of lesson 03's loop: counts, not the summed steps.
_SCORE_COUNTS = _decay_loop("t", "            t += 1\n", "", "alpha")

_LOO_HEAD = '''def loo_predictions(K, y, max_epochs=100):
    K, y = np.asarray(K, dtype=float), np.asarray(y)
    n = len(y)
    if K.shape != (n, n):
        raise ValueError("K must be (n, n)")
'''

_CARATH_HEAD = '''def caratheodory(X, y, alpha):
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    alpha = np.array(alpha, dtype=float)
    if X.ndim != 2 or y.shape != (len(X),) or alpha.shape != (len(X),) or np.any(alpha < 0):
        raise ValueError("X must be 2-D, y and alpha one entry per row, alpha >= 0")
    V = y[:, None] * np.c_[X, np.ones(len(X))]
'''

# The reduction loop of the solution, after V and alpha are set (``null`` finds z).
_REDUCE = '''    while True:
        S = np.flatnonzero(alpha > 0)
        if len(S) == 0 or np.linalg.matrix_rank(V[S]) == len(S):
            return alpha
        z = null(V[S].T)
        if z[np.argmax(np.abs(z))] < 0:
            z = -z
        up = np.flatnonzero(z > 1e-12 * np.abs(z).max())
        k = up[np.argmin(alpha[S][up] / z[up])]
        alpha[S] = np.maximum(alpha[S] - alpha[S][k] / z[k] * z, 0.0)
        alpha[S[k]] = 0.0
'''

_SVD_NULL = "    null = lambda M: np.linalg.svd(M)[2][-1]\n"
_REST = "    out = np.empty(n, dtype=int)\n"

_NO_EX2 = {"ex2-decay-tests-steps": 0, "ex2-decay-tests-inputs": 0}
_NO_EX3 = {"ex3-loo-tests-values": 0, "ex3-loo-tests-stopped": 0}
_NO_EX4 = {"ex4-caratheodory-tests-values": 0, "ex4-caratheodory-tests-degenerate": 0}

CASES = {
    # The clock counts mistakes instead of visits: other steps, other mistakes (graded for real).
    "decay-mistake-clock": {
        "replace": {"ex2-decay": _MISTAKE_CLOCK},
        "expect": _NO_EX2,
        "message": "the clock t counts every visit, mistake or not",
    },
    # The score of lesson 03's loop, with counts: the summed steps are kept but never used.
    "decay-score-counts": {
        "replace": {"ex2-decay": _SCORE_COUNTS},
        "expect": _NO_EX2,
        "message": "your score adds the counts alpha_j",
    },
    # Exercise 3's locked dual_train copied and wrapped: right for a constant step only.
    "decay-constant-step": {
        "replace": {"ex2-decay": _DECAY_HEAD + '''    alpha, b = np.zeros(n), 0.0
    for _ in range(max_epochs):
        mistakes = 0
        for i in range(n):
            if y[i] * (1.0 * np.dot(alpha * y, K[:, i]) + b) <= 0:
                alpha[i] += 1
                b += 1.0 * y[i]
                mistakes += 1
        if mistakes == 0:
            break
    return alpha.astype(int), eta0 * alpha, eta0 * b
'''},
        "expect": _NO_EX2,
        "message": "visit t (counting every visit from 1, across the epochs) steps eta0·t**(-power)",
    },
    # Each copy's count added, its label forgotten.
    "merge-counts": {
        "replace": {"ex1-merge": _MERGE_HEAD + '''    rows, which = np.unique(X, axis=0, return_inverse=True)
    coef = np.zeros(len(rows))
    np.add.at(coef, which.ravel(), alpha)
    return rows[coef != 0], coef[coef != 0]
'''},
        "expect": {"ex1-merge-tests-values": 0, "ex1-merge-tests-cancel": 0},
        "message": "each copy contributes alpha_i·y_i",
    },
    # The distinct points in the order they first appear (a dict), not np.unique's.
    "merge-first-seen": {
        "replace": {"ex1-merge": _MERGE_HEAD + '''    coef = {}
    for row, c in zip(map(tuple, X), alpha * y):
        coef[row] = coef.get(row, 0.0) + c
    kept = [row for row in coef if coef[row] != 0]
    return np.array(kept, dtype=float).reshape(len(kept), X.shape[1]), np.array([coef[r] for r in kept])
'''},
        "expect": {"ex1-merge-tests-values": 0, "ex1-merge-tests-cancel": 0},
        "message": "in the order np.unique(X, axis=0) gives",
    },
    # The full model's predictions: nothing left out.
    "loo-full-model": {
        "replace": {"ex3-loo": _LOO_HEAD + '''    alpha, b = dual_train(K, y, max_epochs)
    return np.where(K @ (alpha * y) + b > 0, 1, -1)
'''},
        "expect": _NO_EX3,
        "message": "these are the full model's predictions",
    },
    # The shortcut misapplied: a point that never erred is assumed right, though the run may have stopped early.
    "loo-assumes-right": {
        "replace": {"ex3-loo": _LOO_HEAD + '''    alpha, _ = dual_train(K, y, max_epochs)
    predictions = y.copy()
    for i in np.flatnonzero(alpha > 0):
        rest = np.delete(np.arange(n), i)
        alpha_i, b_i = dual_train(K[np.ix_(rest, rest)], y[rest], max_epochs)
        predictions[i] = 1 if np.dot(alpha_i * y[rest], K[rest, i]) + b_i > 0 else -1
    return predictions
'''},
        "expect": {"ex3-loo-tests-stopped": 0},
        "message": "a point with alpha_i = 0 keeps the full model's prediction",
    },
    # n retrainings, no shortcut: slower, and right (points never depend on speed).
    "loo-every-point": {
        "replace": {"ex3-loo": _LOO_HEAD + '''    predictions = np.empty(n, dtype=int)
    for i in range(n):
        rest = [j for j in range(n) if j != i]
        alpha, b = dual_train(K[np.ix_(rest, rest)], y[rest], max_epochs)
        predictions[i] = 1 if np.dot(alpha * y[rest], K[rest, i]) + b > 0 else -1
    return predictions
'''},
        "expect": {},
        "message": None,
    },
    # Least squares on d + 1 points of the support: the same (w, b), with negative coefficients.
    "carath-least-squares": {
        "replace": {"ex4-caratheodory": _CARATH_HEAD + '''    S = np.flatnonzero(alpha > 0)[:V.shape[1]]
    new = np.zeros(len(X))
    new[S] = np.linalg.lstsq(V[S].T, alpha @ V, rcond=None)[0]
    return new
'''},
        "expect": _NO_EX4,
        "message": "a coefficient is negative",
    },
    # The reduction without the constant 1: w is kept, b is not (unless the points lie on a line that
    # misses the origin, where the 1 is a combination of the coordinates: the degenerate cell's line).
    "carath-no-bias": {
        "replace": {"ex4-caratheodory": _CARATH_HEAD.replace("np.c_[X, np.ones(len(X))]", "X") + _SVD_NULL + _REDUCE},
        "expect": {"ex4-caratheodory-tests-values": 0},
        "message": "w is right but b is not",
    },
    # The reduction on alpha itself: a float array passed in is changed (an integer one is copied by asarray).
    "carath-in-place": {
        "replace": {"ex4-caratheodory": _CARATH_HEAD.replace("alpha = np.array(alpha, dtype=float)",
                                                             "alpha = np.asarray(alpha, dtype=float)")
                    + _SVD_NULL + _REDUCE},
        "expect": {"ex4-caratheodory-tests-values": 0},
        "message": "caratheodory changed the array alpha passed in",
    },
    # The package's kernel perceptron on the precomputed Gram matrix, imported by name.
    "reference-call": {
        "replace": {"ex3-loo": "from kpcourse.perceptron import KernelPerceptron\n\n\n" + _LOO_HEAD + _REST
                    + '''    for i in range(n):
        rest = np.delete(np.arange(n), i)
        kp = KernelPerceptron(kernel="precomputed", shuffle=False, max_epochs=max_epochs, device="cpu")
        kp.fit(K[np.ix_(rest, rest)], y[rest])
        out[i] = kp.predict(K[i:i + 1, rest])[0]
    return out
'''},
        "expect": _NO_EX3,
        "message": "calling kpcourse.perceptron.KernelPerceptron gets no credit",
    },
    # SciPy's null space, reached through importlib.
    "reference-importlib": {
        "replace": {"ex4-caratheodory": _CARATH_HEAD + '''    import importlib
    null_space = importlib.import_module("scipy.linalg").null_space
    null = lambda M: null_space(M)[:, 0]
''' + _REDUCE},
        "expect": _NO_EX4,
        "message": "calling scipy.linalg gets no credit",
    },
    # The same, reached with getattr on the imported module.
    "reference-getattr": {
        "replace": {"ex4-caratheodory": "import scipy.linalg as la\n\n\n" + _CARATH_HEAD
                    + '    null = lambda M: getattr(la, "null_" + "space")(M)[:, 0]\n' + _REDUCE},
        "expect": _NO_EX4,
        "message": "uses `getattr`",
    },
    # The package's training engine, read from its file and exec-ed, behind the decaying step's name.
    "reference-exec": {
        "replace": {"ex2-decay": _DECAY_HEAD + '''    import kpcourse._dual
    path = kpcourse._dual.__file__.replace("__init__.py", "train.py")
    namespace = {"__name__": "kpcourse._dual._copy", "__package__": "kpcourse._dual"}
    exec(open(path).read(), namespace)
    return namespace["dual_train"](K, y, eta0, power, max_epochs)
'''},
        "expect": _NO_EX2,
        "message": "uses `exec`, which the grader cannot check",
    },
}
