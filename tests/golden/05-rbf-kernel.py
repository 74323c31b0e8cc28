"""Golden submissions of assignment 05 (the Gaussian kernel): common mistakes.

Each case is the release with every solution cell filled in from the source, except the
cells in ``replace`` (grade_id -> the whole cell as a student would have typed it).
``expect``: scores of the graded cells listed (every other autograded cell gets full
marks); ``message``: what the failing test cell must say.

The reference-call cases call each implementation this lesson forbids (kpcourse's
``kernels.rbf``, ``kernels.squared_distances``, ``gram.gram_matrix``, scikit-learn's
``rbf_kernel``, ``euclidean_distances`` and ``GridSearchCV``, SciPy's ``cdist``, the
σ-error reference that used to ship in ``kpcourse.checks``), by import, through
``importlib.import_module``, ``getattr`` on a module, and by reading the package's file
and ``exec``-ing it, each inside one graded function: only that exercise gets 0 — except
where the grader cannot tell what the call may redefine (``exec``, a function of
``kpcourse.checks``): the release's scratch cells call every graded function at top level,
so such an escape costs every exercise (``kpcourse.grading.policy``, READING_ESCAPES).
"""

_GRAM_HEAD = '''def rbf_gram(X, Z, sigma):
    X = np.asarray(X, dtype=float)
    Z = np.asarray(Z, dtype=float)
    if X.shape[1] != Z.shape[1]:
        raise ValueError("X and Z need the same number of columns")
    if sigma <= 0:
        raise ValueError("sigma must be positive")
'''

_PREDICT_HEAD = '''def rbf_predict(X, y, alpha, query, sigma):
    X = np.asarray(X, dtype=float)
    query = np.asarray(query, dtype=float)
    if len(y) != len(X) or len(alpha) != len(X):
        raise ValueError("one label and one count per training point")
    if query.shape != (X.shape[1],):
        raise ValueError("the query needs one coordinate per column of X")
    k = np.exp(-((X - query) ** 2).sum(axis=1) / (2 * sigma ** 2))
'''

_GRAM_ONLY = {"ex1-rbf-gram-tests-shape": 1, "ex1-rbf-gram-tests-loop-free": 2}

CASES = {
    # σ where σ² belongs: exp(-d²/(2σ)). Shapes, errors and speed are right.
    "gram-sigma-not-squared": {
        "replace": {"ex1-rbf-gram": _GRAM_HEAD + '''    d2 = ((X ** 2).sum(axis=1)[:, None] - 2 * X @ Z.T
          + (Z ** 2).sum(axis=1)[None, :])
    return np.exp(-d2 / (2 * sigma))
'''},
        "expect": {"ex1-rbf-gram-tests-values": 0, **_GRAM_ONLY},
        "message": "σ instead of σ²: you divided the squared distance by 2σ",
    },
    # The factor 2 forgotten: exp(-d²/σ²), with broadcasting.
    "gram-missing-2": {
        "replace": {"ex1-rbf-gram": _GRAM_HEAD + '''    d2 = ((X[:, None, :] - Z[None, :, :]) ** 2).sum(axis=2)
    return np.exp(-d2 / sigma ** 2)
'''},
        "expect": {"ex1-rbf-gram-tests-values": 0, **_GRAM_ONLY},
        "message": "the factor 2 is missing: you divided by σ², the denominator is 2σ²",
    },
    # Right values, but a double loop over the pairs: only the loop-free test fails.
    "gram-double-loop": {
        "replace": {"ex1-rbf-gram": _GRAM_HEAD + '''    K = np.zeros((X.shape[0], Z.shape[0]))
    for i in range(X.shape[0]):
        for j in range(Z.shape[0]):
            K[i, j] = np.exp(-np.sum((X[i] - Z[j]) ** 2) / (2 * sigma ** 2))
    return K
'''},
        "expect": {"ex1-rbf-gram-tests-values": 2, "ex1-rbf-gram-tests-shape": 1,
                   "ex1-rbf-gram-tests-loop-free": 0},
        "message": "rbf_gram uses a Python loop (for, while or a comprehension)",
    },
    # Calling the package's kernel (imported by name) instead of writing it: no credit.
    "reference-call": {
        "replace": {"ex1-rbf-gram": '''from kpcourse.kernels import rbf


def rbf_gram(X, Z, sigma):
    return rbf(X, Z, sigma=sigma)
'''},
        "expect": {"ex1-rbf-gram-tests-values": 0, "ex1-rbf-gram-tests-shape": 0,
                   "ex1-rbf-gram-tests-loop-free": 0},
        "message": "this exercise asks you to write the RBF Gram matrix yourself; calling "
                   "kpcourse.kernels.rbf gets no credit",
    },
    # np.sign for the label: a score of exactly 0 gives 0.
    "predict-sign": {
        "replace": {"ex2-rbf-predict": _PREDICT_HEAD + '''    score = float(np.sum(alpha * y * k))
    return score, int(np.sign(score))
'''},
        "expect": {"ex2-rbf-predict-tests-score": 2, "ex2-rbf-predict-tests-label": 0},
        "message": "a score of exactly 0 gave the label 0 (np.sign(0) is 0)",
    },
    # The labels left out of the vote: the score is wrong, the labelling rule is right.
    "predict-no-labels": {
        "replace": {"ex2-rbf-predict": _PREDICT_HEAD + '''    score = float(np.sum(alpha * k))
    return score, 1 if score > 0 else -1
'''},
        "expect": {"ex2-rbf-predict-tests-score": 0, "ex2-rbf-predict-tests-label": 1},
        "message": "your score ignores the labels y",
    },
    # σ chosen by the training error: the narrowest bump wins (training error 0).
    "choose-by-training-error": {
        "replace": {"ex3-choose-sigma": '''def choose_sigma(X_train, y_train, X_val, y_val, sigmas):
    errors, train_errors = [], []
    for s in sigmas:
        model = KernelPerceptron(kernel="rbf", sigma=s, max_epochs=10, random_state=0, device="cpu")
        model.fit(X_train, y_train)
        errors.append(np.mean(model.predict(X_val) != y_val))
        train_errors.append(np.mean(model.predict(X_train) != y_train))
    return sigmas[int(np.argmin(train_errors))], np.array(errors)
'''},
        "expect": {"ex3-choose-sigma-tests-errors": 2, "ex3-choose-sigma-tests-choice": 0},
        "message": "by the training error",
    },
}

# ----------------------------------------------------------------- reference calls
_GRAM_ZERO = {"ex1-rbf-gram-tests-values": 0, "ex1-rbf-gram-tests-shape": 0, "ex1-rbf-gram-tests-loop-free": 0}
_PREDICT_ZERO = {"ex2-rbf-predict-tests-score": 0, "ex2-rbf-predict-tests-label": 0}
_CHOOSE_ZERO = {"ex3-choose-sigma-tests-errors": 0, "ex3-choose-sigma-tests-choice": 0}
_ALL_ZERO = {**_GRAM_ZERO, **_PREDICT_ZERO, **_CHOOSE_ZERO}


def _no_credit(what, ref):
    return f"this exercise asks you to write {what} yourself; calling {ref} gets no credit"


def _gram_via(imports, body):
    """An rbf_gram that checks its inputs like the solution, then lets a reference compute K."""
    return imports + "\n\n\n" + _GRAM_HEAD + body


_PREDICT_KERNEL = "    k = np.exp(-((X - query) ** 2).sum(axis=1) / (2 * sigma ** 2))\n"
_PREDICT_TAIL = '''    score = float(np.sum(alpha * y * k))
    return score, 1 if score > 0 else -1
'''


def _predict_via(imports, kernel_column):
    return imports + "\n\n\n" + _PREDICT_HEAD.replace(_PREDICT_KERNEL, kernel_column) + _PREDICT_TAIL


_CHOOSE_HEAD = '''def choose_sigma(X_train, y_train, X_val, y_val, sigmas):
'''

CASES.update({
    # ---- Exercise 1, by import: every RBF or distance implementation of the lesson's list
    "ref-gram-squared-distances": {
        "replace": {"ex1-rbf-gram": _gram_via("from kpcourse.kernels import squared_distances",
                                              "    return np.exp(-squared_distances(X, Z) / (2 * sigma ** 2))\n")},
        "expect": _GRAM_ZERO,
        "message": _no_credit("the RBF Gram matrix", "kpcourse.kernels.squared_distances"),
    },
    "ref-gram-gram-matrix": {
        "replace": {"ex1-rbf-gram": _gram_via(
            "from kpcourse.gram import gram_matrix",
            '    return gram_matrix(X, Z, kernel="rbf", sigma=sigma, device="cpu")\n')},
        "expect": _GRAM_ZERO,
        "message": _no_credit("the RBF Gram matrix", "kpcourse.gram.gram_matrix"),
    },
    "ref-gram-sklearn-rbf-kernel": {
        "replace": {"ex1-rbf-gram": _gram_via("from sklearn.metrics.pairwise import rbf_kernel",
                                              "    return rbf_kernel(X, Z, gamma=1 / (2 * sigma ** 2))\n")},
        "expect": _GRAM_ZERO,
        "message": _no_credit("the RBF Gram matrix", "sklearn.metrics.pairwise.rbf_kernel"),
    },
    "ref-gram-sklearn-euclidean": {
        "replace": {"ex1-rbf-gram": _gram_via(
            "from sklearn.metrics import pairwise",
            "    return np.exp(-pairwise.euclidean_distances(X, Z, squared=True) / (2 * sigma ** 2))\n")},
        "expect": _GRAM_ZERO,
        "message": _no_credit("the RBF Gram matrix", "sklearn.metrics.pairwise.euclidean_distances"),
    },
    "ref-gram-scipy-cdist": {
        "replace": {"ex1-rbf-gram": _gram_via(
            "import scipy.spatial.distance as ssd",
            '    return np.exp(-ssd.cdist(X, Z, "sqeuclidean") / (2 * sigma ** 2))\n')},
        "expect": _GRAM_ZERO,
        "message": _no_credit("the RBF Gram matrix", "scipy.spatial.distance.cdist"),
    },
    # ---- Exercise 1, the package's kernel reached without an import statement naming it
    "ref-gram-importlib": {
        "replace": {"ex1-rbf-gram": _gram_via(
            "import importlib",
            '    return importlib.import_module("kpcourse.kernels").rbf(X, Z, sigma=sigma)\n')},
        "expect": _GRAM_ZERO,
        "message": _no_credit("the RBF Gram matrix", "kpcourse.kernels"),
    },
    "ref-gram-getattr": {
        "replace": {"ex1-rbf-gram": _gram_via(
            "from kpcourse import kernels as _kernels",
            '    return getattr(_kernels, "r" + "bf")(X, Z, sigma=sigma)\n')},
        "expect": _GRAM_ZERO,
        "message": "rbf_gram uses `getattr`, which the grader cannot check: no credit for the RBF Gram matrix",
    },
    "ref-gram-exec-file": {
        "replace": {"ex1-rbf-gram": _gram_via(
            "import kpcourse.kernels as _kernels",
            '''    namespace = {"__name__": "kpcourse.kernels", "__package__": "kpcourse"}
    with open(_kernels.__file__) as f:
        exec(f.read(), namespace)
    return namespace["rbf"](X, Z, sigma=sigma)
''')},
        "expect": _ALL_ZERO,  # exec, run by the scratch cell's call, could redefine anything
        "message": "uses `exec`, which the grader cannot check: no credit for the RBF Gram matrix",
    },
    # ---- Exercise 2: the kernel column from the package (module alias), from scikit-learn (getattr)
    "ref-predict-kernels-rbf": {
        "replace": {"ex2-rbf-predict": _predict_via(
            "import kpcourse.kernels as kk",
            "    k = kk.rbf(X, query[None], sigma=sigma)[:, 0]\n")},
        "expect": _PREDICT_ZERO,
        "message": _no_credit("the RBF prediction", "kpcourse.kernels.rbf"),
    },
    "ref-predict-getattr-sklearn": {
        "replace": {"ex2-rbf-predict": _predict_via(
            "import sklearn.metrics.pairwise as skp",
            '    k = getattr(skp, "rbf_kernel")(X, query[None], gamma=1 / (2 * sigma ** 2))[:, 0]\n')},
        "expect": _PREDICT_ZERO,
        "message": _no_credit("the RBF prediction", "sklearn.metrics.pairwise.rbf_kernel"),
    },
    # ---- Exercise 3: the σ-error reference that used to ship with the checks; a grid search
    "ref-choose-checks-sigma-errors": {
        "replace": {"ex3-choose-sigma": _CHOOSE_HEAD + '''\
    _, errors = checks.sigma_errors(X_train, y_train, X_val, y_val, sigmas)
    return sigmas[int(np.argmin(errors))], np.asarray(errors)
'''},
        "expect": _CHOOSE_ZERO,  # the checks are part of kpcourse: forbidden in a graded function
        "message": _no_credit("the choice of σ", "kpcourse.checks.sigma_errors"),
    },
    "ref-choose-grid-search": {
        "replace": {"ex3-choose-sigma": '''from sklearn.model_selection import GridSearchCV, PredefinedSplit


''' + _CHOOSE_HEAD + '''    X = np.vstack([X_train, X_val])
    y = np.concatenate([y_train, y_val])
    split = PredefinedSplit(np.r_[-np.ones(len(y_train)), np.zeros(len(y_val))])
    model = KernelPerceptron(kernel="rbf", max_epochs=10, random_state=0, device="cpu")
    search = GridSearchCV(model, {"sigma": list(sigmas)}, cv=split, refit=False).fit(X, y)
    errors = 1 - search.cv_results_["mean_test_score"]
    return sigmas[int(np.argmin(errors))], errors
'''},
        "expect": _CHOOSE_ZERO,
        "message": _no_credit("the choice of σ", "sklearn.model_selection.GridSearchCV"),
    },
})
