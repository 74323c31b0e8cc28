"""Golden submissions of assignment 04 (the kernel trick): common mistakes and reference calls.

Every reference that exists for this lesson is tried (kpcourse's feature maps, kernel,
KernelPerceptron and feature count, scikit-learn's PolynomialFeatures, SciPy's comb), each
by import, by ``importlib``, by ``getattr`` on its module or by ``exec``-ing its file: the
attacked exercise gets 0, every other exercise full marks.

Each case is the release with every solution cell filled in from the source, except the
cells in ``replace`` (grade_id -> the whole cell as a student would have typed it).
``expect``: scores of the graded cells listed (every other autograded cell gets full
marks); ``message``: what the failing visible test must say.
"""

_PHI_HEAD = '''def phi(X):
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError("X must have shape (n, 2)")
'''

_TRAIN_HEAD = '''def kernel_perceptron_train(X, y, max_epochs):
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    if len(y) != len(X):
        raise ValueError("one label per row of X")
'''

_COUNT_HEAD = '''def count_features(d, degree):
    if d < 1 or degree < 1:
        raise ValueError("d and degree must be at least 1")
'''

_GAP_HEAD = '''def identity_gap(feature_map, X, Z):
    X, Z = np.asarray(X, dtype=float), np.asarray(Z, dtype=float)
    if X.shape[1] != Z.shape[1]:
        raise ValueError("X and Z must have the same number of columns")
'''

_PREDICT_HEAD = '''def kernel_perceptron_predict(X_train, y_train, alpha, b, X_new):
    X_train, X_new = np.asarray(X_train, dtype=float), np.asarray(X_new, dtype=float)
    if X_new.shape[1] != X_train.shape[1]:
        raise ValueError("X_new and X_train must have the same number of columns")
'''

CASES = {
    # The cross term without √2: phi(x) . phi(z) = x1²z1² + x2²z2² + x1x2z1z2, not (x . z)².
    "no-sqrt2": {
        "replace": {"ex1-phi": _PHI_HEAD + '''    x1, x2 = X[:, 0], X[:, 1]
    return np.column_stack([x1 ** 2, x2 ** 2, x1 * x2])
'''},
        "expect": {"ex1-phi-tests-shape": 1, "ex1-phi-tests-values": 0},
        "message": "the cross term needs the factor √2",
    },
    # Kernel perceptron whose bias never moves: the rule is wrong, the loop and counts are right.
    "no-bias": {
        "replace": {"ex3-train": _TRAIN_HEAD + '''    K = (1 + X @ X.T) ** 2
    alpha = np.zeros(len(y))
    b = 0.0
    for epoch in range(max_epochs):
        mistakes = 0
        for i in range(len(y)):
            if y[i] * (np.sum(alpha * y * K[:, i]) + b) <= 0:
                alpha[i] += 1
                mistakes += 1
        if mistakes == 0:
            break
    return alpha, b
'''},
        "expect": {"ex3-train-tests-basic": 1, "ex3-train-tests-rule": 0, "ex3-train-tests-stop": 1},
        "message": "your training ignores the bias",
    },
    # Counting only the monomials of degree exactly n: the features of (x . z)^n, not (1 + x . z)^n.
    "exact-degree": {
        "replace": {"ex5-count": _COUNT_HEAD + '''    return math.comb(d + degree - 1, degree)
'''},
        "expect": {"ex5-count-tests-basic": 1, "ex5-count-tests-values": 0},
        "message": "you counted only the monomials of degree exactly `degree`",
    },
    # The reference feature map, imported by name: no credit on exercise 1.
    "reference-phi": {
        "replace": {"ex1-phi": '''from kpcourse.kernels import quadratic_features


def phi(X):
    return quadratic_features(X)
'''},
        "expect": {"ex1-phi-tests-shape": 0, "ex1-phi-tests-values": 0},
        "message": "calling kpcourse.kernels.quadratic_features gets no credit",
    },
    # The reference kernel perceptron instead of the loop: no credit on exercise 3.
    "reference-train": {
        "replace": {"ex3-train": '''import torch  # noqa: F401  (loaded outside a time-limited call)

from kpcourse.perceptron import KernelPerceptron


def kernel_perceptron_train(X, y, max_epochs):
    model = KernelPerceptron(kernel="poly", degree=2, coef0=1.0, shuffle=False, max_epochs=max_epochs)
    model.fit(X, y)
    return model.alpha_, model.intercept_
'''},
        "expect": {"ex3-train-tests-basic": 0, "ex3-train-tests-rule": 0, "ex3-train-tests-stop": 0},
        "message": "calling kpcourse.perceptron.KernelPerceptron gets no credit",
    },
    # The largest signed difference instead of the largest absolute one.
    "gap-signed": {
        "replace": {"ex2-gap": _GAP_HEAD + '''    D = feature_map(X) @ feature_map(Z).T - (X @ Z.T) ** 2
    return float(D.max())
'''},
        "expect": {"ex2-gap-tests-values": 0, "ex2-gap-tests-errors": 1},
        "message": "take np.abs of the differences",
    },
    # np.sign: a score of exactly 0 gets the label 0.
    "predict-np-sign": {
        "replace": {"ex4-predict": _PREDICT_HEAD + '''    K = (1 + X_new @ X_train.T) ** 2
    return np.sign(K @ (np.asarray(alpha) * np.asarray(y_train)) + b)
'''},
        "expect": {"ex4-predict-tests-basic": 1, "ex4-predict-tests-details": 0},
        "message": "np.sign(0) is 0",
    },
    # The reference feature count.
    "reference-count": {
        "replace": {"ex5-count": '''from kpcourse.kernels import n_polynomial_features as how_many


def count_features(d, degree):
    return how_many(d, degree)
'''},
        "expect": {"ex5-count-tests-basic": 0, "ex5-count-tests-values": 0},
        "message": "calling kpcourse.kernels.n_polynomial_features gets no credit",
    },
    # The reference kernel inside identity_gap.
    "reference-gap": {
        "replace": {"ex2-gap": _GAP_HEAD + '''    from kpcourse import kernels
    K = kernels.polynomial(X, Z, degree=2, coef0=0.0)
    return float(np.abs(feature_map(X) @ feature_map(Z).T - K).max())
'''},
        "expect": {"ex2-gap-tests-values": 0, "ex2-gap-tests-errors": 0},
        "message": "calling kpcourse.kernels.polynomial gets no credit",
    },
    # scikit-learn's feature map (exercise 1) and SciPy's binomial coefficient (exercise 5).
    "reference-sklearn-scipy": {
        "replace": {"ex1-phi": '''from sklearn.preprocessing import PolynomialFeatures


def phi(X):
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError("X must have shape (n, 2)")
    P = PolynomialFeatures(degree=2, include_bias=False).fit_transform(X)
    return np.column_stack([P[:, 2], P[:, 4], np.sqrt(2.0) * P[:, 3]])
''', "ex5-count": '''import scipy.special


def count_features(d, degree):
    if d < 1 or degree < 1:
        raise ValueError("d and degree must be at least 1")
    return int(scipy.special.comb(d + degree, degree, exact=True))
'''},
        "expect": {"ex1-phi-tests-shape": 0, "ex1-phi-tests-values": 0,
                   "ex5-count-tests-basic": 0, "ex5-count-tests-values": 0},
        "message": "calling sklearn.preprocessing.PolynomialFeatures gets no credit",
    },
    # The references reached through importlib (exercises 1, 2 and 5). The kernel perceptron is
    # attacked by a plain import (reference-train): importing torch inside a graded call can be
    # cut by the call's time limit on a busy machine and crash the kernel, which would also cost
    # the later exercises their answers.
    "reference-importlib": {
        "replace": {"ex1-phi": '''def phi(X):
    import importlib
    return importlib.import_module("kpcourse.kernels").quadratic_features(X)
''', "ex2-gap": _GAP_HEAD + '''    import importlib
    K = importlib.import_module("kpcourse.kernels").polynomial(X, Z, degree=2, coef0=0.0)
    return float(np.abs(feature_map(X) @ feature_map(Z).T - K).max())
''', "ex5-count": '''def count_features(d, degree):
    import importlib
    return importlib.import_module("kpcourse.kernels").n_polynomial_features(d, degree)
'''},
        "expect": {"ex1-phi-tests-shape": 0, "ex1-phi-tests-values": 0, "ex2-gap-tests-values": 0,
                   "ex2-gap-tests-errors": 0, "ex5-count-tests-basic": 0, "ex5-count-tests-values": 0},
        "message": "calling kpcourse.kernels gets no credit",
    },
    # The references reached through getattr on their module (exercises 1, 2 and 4).
    "reference-getattr": {
        "replace": {"ex1-phi": '''import kpcourse.kernels as library


def phi(X):
    return getattr(library, "quadratic_" + "features")(X)
''', "ex2-gap": _GAP_HEAD + '''    import kpcourse.kernels as library
    K = getattr(library, "poly" + "nomial")(X, Z, degree=2, coef0=0.0)
    return float(np.abs(feature_map(X) @ feature_map(Z).T - K).max())
''', "ex4-predict": '''import kpcourse.kernels as library


def kernel_perceptron_predict(X_train, y_train, alpha, b, X_new):
    K = getattr(library, "poly" + "nomial")(X_new, X_train, degree=2, coef0=1.0)
    return np.where(K @ (np.asarray(alpha) * np.asarray(y_train)) + b > 0, 1, -1)
'''},
        "expect": {"ex1-phi-tests-shape": 0, "ex1-phi-tests-values": 0, "ex2-gap-tests-values": 0,
                   "ex2-gap-tests-errors": 0, "ex4-predict-tests-basic": 0, "ex4-predict-tests-details": 0},
        "message": "uses `getattr`",
    },
    # The reference's file read and exec-ed (exercises 1 and 5).
    "reference-exec-file": {
        "replace": {"ex1-phi": '''def phi(X):
    import kpcourse.kernels
    namespace = {"__name__": "kpcourse.kernels", "__package__": "kpcourse"}
    exec(open(kpcourse.kernels.__file__).read(), namespace)
    return namespace["quadratic_features"](X)
''', "ex5-count": '''def count_features(d, degree):
    import kpcourse.kernels
    namespace = {"__name__": "kpcourse.kernels", "__package__": "kpcourse"}
    exec(open(kpcourse.kernels.__file__).read(), namespace)
    return namespace["n_polynomial_features"](d, degree)
'''},
        "expect": {"ex1-phi-tests-shape": 0, "ex1-phi-tests-values": 0,
                   "ex5-count-tests-basic": 0, "ex5-count-tests-values": 0},
        "message": "which the grader cannot check",
    },
}
