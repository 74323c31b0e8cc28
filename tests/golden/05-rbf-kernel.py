"""Golden submissions of assignment 05 (the Gaussian kernel): common mistakes and reference calls.

Each case is the release with every solution cell filled in from the source, except the
cells in ``replace`` (grade_id -> the whole cell as a student would have typed it).
``expect``: scores of the graded cells listed (every other autograded cell gets full
marks); ``message``: what the failing visible test must say (for a reference call: what the
grader says). A reference call costs the attacked exercise only, whichever way it is reached:
by import, by ``importlib``, by ``getattr`` on a module, or by reading a file and ``exec``-ing it.
"""

_TRUNC_HEAD = '''def rbf_truncated(X, Z, sigma, degree):
    X, Z = np.asarray(X, dtype=float), np.asarray(Z, dtype=float)
    if X.ndim != 2 or Z.ndim != 2 or X.shape[1] != Z.shape[1] or not sigma > 0 or degree < 0:
        raise ValueError("X, Z must be 2-D alike, sigma > 0 and degree >= 0")
'''

_ALIGN_HEAD = '''def kernel_alignment(X, y, sigmas):
    X, y, sigmas = np.asarray(X, dtype=float), np.asarray(y, dtype=float), np.asarray(sigmas, dtype=float)
    if X.ndim != 2 or y.shape != (len(X),) or sigmas.ndim != 1 or len(sigmas) == 0 or np.any(sigmas <= 0):
        raise ValueError("X 2-D, one label per row, sigmas positive and not empty")
    n = len(y)
    D2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=-1)
    H = np.eye(n) - 1.0 / n
'''

_BOUND_HEAD = '''def interpolation_bound(X, y, sigma):
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    if X.ndim != 2 or y.shape != (len(X),) or not sigma > 0:
        raise ValueError("X 2-D, one label per row, sigma > 0")
    D2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=-1)
    if np.any(np.triu(D2 == 0, k=1)):
        i, j = np.argwhere(np.triu(D2 == 0, k=1))[0]
        raise ValueError(f"rows {i} and {j} of X are equal")
'''

_FLIPS_HEAD = '''def sign_changes(X, y, alpha, query, lo, hi):
    X, q = np.asarray(X, dtype=float), np.asarray(query, dtype=float)
    c = np.asarray(alpha, dtype=float) * np.asarray(y, dtype=float)
    if X.ndim != 2 or c.shape != (len(X),) or q.shape != (X.shape[1],) or not 0 < lo < hi:
        raise ValueError("shapes must fit and 0 < lo < hi")
    d2 = ((X - q) ** 2).sum(axis=1)
'''

_NO_EX1 = {"ex1-truncated-tests-values": 0, "ex1-truncated-tests-limits": 0}
_NO_EX2 = {"ex2-alignment-tests-values": 0, "ex2-alignment-tests-choice": 0}
_NO_EX3 = {"ex3-bound-tests-values": 0, "ex3-bound-tests-inputs": 0}
_NO_EX4 = {"ex4-flips-tests-msdn": 0, "ex4-flips-tests-several": 0}

CASES = {
    # The plain score: below σ ≈ 0.026 it underflows to exactly 0, and np.sign sees a change there.
    "flips-underflow": {
        "replace": {"ex4-flips": _FLIPS_HEAD + '''
    def g(s):
        return (c * np.exp(-d2 / (2 * s[:, None] ** 2))).sum(axis=1)

    grid = np.geomspace(lo, hi, 20_001)
    signs = np.sign(g(grid))
    roots = []
    for k in np.flatnonzero(signs[:-1] != signs[1:]):
        a, b = grid[k], grid[k + 1]
        while b - a > 1e-10 * b:
            m = 0.5 * (a + b)
            if np.sign(g(np.array([m]))[0]) == signs[k]:
                a = m
            else:
                b = m
        roots.append(0.5 * (a + b))
    return np.array(roots)
'''},
        "expect": {"ex4-flips-tests-msdn": 0},
        "message": "the plain score underflows to exactly 0",
    },
    # The roots read off the scan, never refined.
    "flips-grid-only": {
        "replace": {"ex4-flips": _FLIPS_HEAD + '''    e = d2 - d2[c != 0].min()
    grid = np.geomspace(lo, hi, 20_001)
    values = (c * np.exp(-e / (2 * grid[:, None] ** 2))).sum(axis=1)
    return grid[np.flatnonzero(values[:-1] * values[1:] < 0)]
'''},
        "expect": _NO_EX4,
        "message": "refine each bracket",
    },
    # The series without the envelope: a sum of polynomial kernels only.
    "truncated-no-envelope": {
        "replace": {"ex1-truncated": _TRUNC_HEAD + '''    G = X @ Z.T / sigma ** 2
    term, total = np.ones_like(G), np.ones_like(G)
    for n in range(1, degree + 1):
        term = term * G / n
        total = total + term
    return total
'''},
        "expect": _NO_EX1,
        "message": "you summed the series alone",
    },
    # σ chosen by the raw alignment: on unbalanced rings it picks the widest bandwidth.
    "alignment-raw-choice": {
        "replace": {"ex2-alignment": _ALIGN_HEAD + '''    y_c = y - y.mean()
    raw, centred = [], []
    for s in sigmas:
        K = np.exp(-D2 / (2 * s ** 2))
        K_c = H @ K @ H
        raw.append(y @ K @ y / (n * np.linalg.norm(K)))
        centred.append(y_c @ K_c @ y_c / (np.linalg.norm(K_c) * (y_c @ y_c)))
    return np.array(raw), np.array(centred), float(sigmas[np.argmax(raw)])
'''},
        "expect": {"ex2-alignment-tests-choice": 0},
        "message": "you chose σ by the raw alignment",
    },
    # K centred, the labels not.
    "alignment-half-centred": {
        "replace": {"ex2-alignment": _ALIGN_HEAD + '''    raw, centred = [], []
    for s in sigmas:
        K = np.exp(-D2 / (2 * s ** 2))
        K_c = H @ K @ H
        raw.append(y @ K @ y / (n * np.linalg.norm(K)))
        centred.append(y @ K_c @ y / (np.linalg.norm(K_c) * n))
    centred = np.array(centred)
    return np.array(raw), centred, float(sigmas[np.argmax(centred)])
'''},
        "expect": {"ex2-alignment-tests-values": 0},
        "message": "centre the labels too",
    },
    # The margin's square root: ‖f*‖ instead of ‖f*‖².
    "bound-sqrt": {
        "replace": {"ex3-bound": _BOUND_HEAD + '''    K = np.exp(-D2 / (2 * sigma ** 2))
    c = np.linalg.solve(K, y)
    return float(np.sqrt(y @ c)), c
'''},
        "expect": _NO_EX3,
        "message": "not its square root",
    },
    # The kernel with σ for σ² (a slip of the formula, named course-wide).
    "bound-sigma-slip": {
        "replace": {"ex3-bound": _BOUND_HEAD + '''    K = np.exp(-D2 / (2 * sigma))
    c = np.linalg.solve(K, y)
    return float(y @ c), c
'''},
        "expect": _NO_EX3,
        "message": "σ instead of σ²",
    },
    # The package's kernel, imported by name, behind the truncated one.
    "reference-call": {
        "replace": {"ex1-truncated": "from kpcourse.kernels import rbf\n\n\n" + _TRUNC_HEAD
                    + "    return rbf(X, Z, sigma=sigma)\n"},
        "expect": _NO_EX1,
        "message": "calling kpcourse.kernels.rbf gets no credit",
    },
    # SciPy's root finder, reached through importlib.
    "reference-importlib": {
        "replace": {"ex4-flips": _FLIPS_HEAD + '''    import importlib
    brentq = importlib.import_module("scipy.optimize").brentq
    e = d2 - d2[c != 0].min()

    def g(s):
        return (c * np.exp(-e / (2 * np.asarray(s, dtype=float).reshape(-1)[:, None] ** 2))).sum(axis=1)

    grid = np.geomspace(lo, hi, 20_001)
    values = g(grid)
    brackets = np.flatnonzero(values[:-1] * values[1:] < 0)
    return np.array([brentq(lambda s: g(s)[0], grid[k], grid[k + 1], xtol=1e-14) for k in brackets])
'''},
        "expect": _NO_EX4,
        "message": "calling scipy.optimize gets no credit",
    },
    # scikit-learn's Gram matrix, reached with getattr on the imported module.
    "reference-getattr": {
        "replace": {"ex2-alignment": "import sklearn.metrics.pairwise as pairwise\n\n\n" + _ALIGN_HEAD
                    + '''    kernel = getattr(pairwise, "rbf_" + "kernel")
    y_c = y - y.mean()
    raw, centred = [], []
    for s in sigmas:
        K = kernel(X, gamma=1 / (2 * s ** 2))
        K_c = H @ K @ H
        raw.append(y @ K @ y / (n * np.linalg.norm(K)))
        centred.append(y_c @ K_c @ y_c / (np.linalg.norm(K_c) * (y_c @ y_c)))
    centred = np.array(centred)
    return np.array(raw), centred, float(sigmas[np.argmax(centred)])
'''},
        "expect": _NO_EX2,
        "message": "uses `getattr`",
    },
    # The package's kernels file, read and exec-ed.
    "reference-exec": {
        "replace": {"ex3-bound": _BOUND_HEAD + '''    import kpcourse.kernels
    namespace = {"__name__": "kpcourse.kernels", "__package__": "kpcourse"}
    exec(open(kpcourse.kernels.__file__).read(), namespace)
    K = namespace["rbf"](X, sigma=sigma)
    c = np.linalg.solve(K, y)
    return float(y @ c), c
'''},
        "expect": _NO_EX3,
        "message": "which the grader cannot check",
    },
}
