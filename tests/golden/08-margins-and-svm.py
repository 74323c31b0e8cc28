"""Golden submissions of assignment 08 (margins, the SVM, honest model selection): common mistakes and
reference calls.

Each case is the release with every solution cell filled in from the source, except the
cells in ``replace`` (grade_id -> the whole cell as a student would have typed it).
``expect``: scores of the graded cells listed (every other autograded cell gets full
marks); ``message``: what the failing visible test must say (for a reference call: what the
grader says). A reference call costs the attacked exercise only, whichever way it is reached:
by import, by ``importlib``, by ``getattr`` on a module, or by reading a file and ``exec``-ing it.
"""

_KKT_HEAD = '''def kkt_violations(K, y, alpha, b, C, tol):
    K, y, alpha = np.asarray(K, dtype=float), np.asarray(y, dtype=float), np.asarray(alpha, dtype=float)
    if not C > 0 or not 0 <= tol < 1 or np.any(alpha < 0) or np.any(alpha > C):
        raise ValueError("C > 0, 0 <= tol < 1, 0 <= alpha <= C")
    m = y * (K @ (alpha * y) + b)
'''

_PEGASOS_HEAD = '''def kernel_pegasos(K, y, lam, steps):
    K, y, steps = np.asarray(K, dtype=float), np.asarray(y, dtype=float), np.asarray(steps)
    if not lam > 0 or len(steps) == 0 or np.any(steps < 0) or np.any(steps >= len(y)):
        raise ValueError("lam > 0 and point indices")
    alpha, s = np.zeros(len(y), dtype=int), np.zeros(len(y))
'''

_NESTED_HEAD = '''def nested_cv(X, y, sigmas, k_out, k_in, seed):
    X, y, sigmas = np.asarray(X, dtype=float), np.asarray(y), np.asarray(sigmas, dtype=float)
    if len(sigmas) == 0 or np.any(sigmas <= 0) or k_out < 2 or k_in < 2 or k_out * k_in > len(y):
        raise ValueError("positive sigmas, k_out, k_in >= 2, k_out * k_in <= n")

    def error(fit, test, sigma):
        return float(np.mean(fit_predict(X[fit], y[fit], X[test], sigma) != y[test]))
'''

_EMA_HEAD = '''def ema_average(steps, index, label, n, T, rho):
    steps, index, label = np.asarray(steps, dtype=float), np.asarray(index), np.asarray(label, dtype=float)
    if not 0 < rho <= 1 or np.any(steps < 1) or np.any(steps > T) or np.any(index < 0) or np.any(index >= n):
        raise ValueError("0 < rho <= 1, steps and indices in range")
'''

_EMA_TAIL = '''    return np.bincount(index.astype(int), weights=weight, minlength=n), float(label @ weight)
'''

_NO_EX1 = {"ex1-kkt-tests-values": 0, "ex1-kkt-tests-edges": 0}
_NO_EX2 = {"ex2-pegasos-tests-runs": 0, "ex2-pegasos-tests-steps": 0}
_NO_EX3 = {"ex3-nested-tests-values": 0, "ex3-nested-tests-inputs": 0}
_NO_EX4 = {"ex4-ema-tests-small": 0, "ex4-ema-tests-large": 0}

CASES = {
    # ------------------------------------------------------------ common mistakes
    # |m - 1| <= tol asked of every point, whatever its coefficient.
    "kkt-no-bounds": {
        "replace": {"ex1-kkt": _KKT_HEAD + '''    size = np.abs(m - 1)
    violating = np.flatnonzero(size > tol)
    return violating[np.lexsort((violating, -size[violating]))]
'''},
        "expect": _NO_EX1,
        "message": "the condition depends on alpha_i",
    },
    # The right points, in the order of their indices.
    "kkt-unordered": {
        "replace": {"ex1-kkt": _KKT_HEAD
            + '''    size = np.where(alpha <= tol * C, 1 - m, np.where(alpha >= (1 - tol) * C, m - 1, np.abs(m - 1)))
    return np.flatnonzero(size > tol)
'''},
        "expect": _NO_EX1,
        "message": "the largest first",
    },
    # The test y_i s_i < 1 without the 1/(lam (t - 1)) scale of w_t: the margin perceptron of lecture 08.
    "pegasos-no-scale": {
        "replace": {"ex2-pegasos": _PEGASOS_HEAD + '''    for i in steps.tolist():
        if y[i] * s[i] < 1:
            alpha[i] += 1
            s += y[i] * K[i]
    return alpha
'''},
        "expect": _NO_EX2,
        "message": "each step shrinks w by (1 − 1/t)",
    },
    # sigma chosen by folds that hold the outer test points.
    "nested-leak": {
        "replace": {"ex3-nested": _NESTED_HEAD
            + '''    outer = np.array_split(np.random.default_rng(seed).permutation(len(y)), k_out)
    scores = [np.mean([error(np.concatenate([outer[p] for p in range(k_out) if p != q]), outer[q], s)
                       for q in range(k_out)]) for s in sigmas]
    best = sigmas[int(np.argmin(scores))]
    errors = [error(np.concatenate([outer[p] for p in range(k_out) if p != o]), outer[o], best)
              for o in range(k_out)]
    return np.array(errors), np.full(k_out, float(best))
'''},
        "expect": _NO_EX3,
        "message": "the σ of outer fold o must be chosen on its training part alone",
    },
    # The states before each step: a mistake at step s weighs 1 - rho^(T - s).
    "ema-state-before": {
        "replace": {"ex4-ema": _EMA_HEAD
            + '''    weight = (1 - rho ** (T - steps)) / (1 - rho ** T) if rho < 1 else (T - steps) / T
''' + _EMA_TAIL},
        "expect": _NO_EX4,
        "message": "a mistake at step s counts from step s on",
    },
    # The timestamp trick, whatever rho.
    "ema-rho-one": {
        "replace": {"ex4-ema": _EMA_HEAD + '''    weight = (T - steps + 1) / T
''' + _EMA_TAIL},
        "expect": _NO_EX4,
        "message": "with ρ < 1 recent steps weigh more",
    },
    # ------------------------------------------------------------ reference calls
    # scikit-learn's KFold, imported by name, for the outer folds.
    "reference-call": {
        "replace": {"ex3-nested": "from sklearn.model_selection import KFold\n\n\n" + _NESTED_HEAD
            + '''    errors, chosen = [], []
    for train, test in KFold(k_out, shuffle=True, random_state=seed).split(X):
        inner = np.array_split(train, k_in)
        scores = [np.mean([error(np.concatenate([inner[p] for p in range(k_in) if p != q]), inner[q], s)
                           for q in range(k_in)]) for s in sigmas]
        best = sigmas[int(np.argmin(scores))]
        chosen.append(float(best))
        errors.append(error(train, test, best))
    return np.array(errors), np.array(chosen)
'''},
        "expect": _NO_EX3,
        "message": "calling sklearn.model_selection.KFold gets no credit",
    },
    # The package's perceptron, reached with getattr on the imported module.
    "reference-getattr": {
        "replace": {"ex2-pegasos": "import kpcourse.perceptron as kpp\n\n\n" + _PEGASOS_HEAD
            + '''    model = getattr(kpp, "Kernel" + "Perceptron")(kernel="precomputed", shuffle=False, max_epochs=1)
    model.fit(K, y)
    for t, i in enumerate(steps.tolist(), start=1):
        margin = 0.0 if t == 1 else y[i] * s[i] / (lam * (t - 1))
        if margin < 1:
            alpha[i] += 1
            s += y[i] * K[i]
    return alpha
'''},
        "expect": _NO_EX2,
        "message": "uses `getattr`",
    },
    # The package's replay of a run, reached through importlib.
    "reference-importlib": {
        "replace": {"ex4-ema": _EMA_HEAD + '''    import importlib
    importlib.import_module("kpcourse._dual.replay")
    if rho == 1:
        weight = (T - steps + 1) / T
    else:
        weight = -np.expm1((T - steps + 1) * math.log(rho)) / -math.expm1(T * math.log(rho))
''' + _EMA_TAIL},
        "expect": _NO_EX4,
        "message": "calling kpcourse._dual.replay gets no credit",
    },
    # The package's dual trainer file, read and exec-ed.
    "reference-exec": {
        "replace": {"ex1-kkt": _KKT_HEAD + '''    import kpcourse
    namespace = {"__name__": "kpcourse._dual.train", "__package__": "kpcourse._dual"}
    exec(open(kpcourse.__path__[0] + "/_dual/train.py").read(), namespace)
    size = np.where(alpha <= tol * C, 1 - m, np.where(alpha >= (1 - tol) * C, m - 1, np.abs(m - 1)))
    violating = np.flatnonzero(size > tol)
    return violating[np.lexsort((violating, -size[violating]))]
'''},
        "expect": _NO_EX1,
        "message": "which the grader cannot check",
    },
}
