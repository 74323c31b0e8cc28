"""Golden submissions of assignment 04 (the kernel trick): common mistakes and reference calls.

Every reference that comes near an exercise is tried (kpcourse's polynomial kernel for the
all-subsets kernel, scikit-learn's ``PolynomialFeatures(interaction_only=True)`` for its
features), by import, by ``importlib``, by ``getattr`` on its module or by ``exec``-ing its
file: the attacked exercise gets 0, every other exercise full marks.

Each case is the release with every solution cell filled in from the source, except the
cells in ``replace`` (grade_id -> the whole cell as a student would have typed it).
``expect``: scores of the graded cells listed (every other autograded cell gets full
marks); ``message``: what the failing visible test must say.
"""

_SUBSETS_HEAD = '''def subset_kernel(X, Z):
    X, Z = np.asarray(X, dtype=float), np.asarray(Z, dtype=float)
    if X.ndim != 2 or Z.ndim != 2 or X.shape[1] != Z.shape[1]:
        raise ValueError("X and Z must be 2-D with the same number of columns")
'''

_QUAD_HEAD = '''def quadratic_form(X_train, y_train, alpha, b):
    X = np.asarray(X_train, dtype=float)
    w = np.asarray(alpha, dtype=float) * np.asarray(y_train, dtype=float)
    if X.ndim != 2 or w.shape != (len(X),):
        raise ValueError("X_train must be 2-D, with one label and one alpha per row")
'''

_FEATURES_HEAD = '''def subset_features(X):
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] > 20:
        raise ValueError("X must be 2-D with at most 20 columns")
    n, d = X.shape
'''

_ANOVA_HEAD = '''def anova_kernel(X, Z, degree):
    X, Z = np.asarray(X, dtype=float), np.asarray(Z, dtype=float)
    if X.ndim != 2 or Z.ndim != 2 or X.shape[1] != Z.shape[1]:
        raise ValueError("X and Z must be 2-D with the same number of columns")
    if degree < 0:
        raise ValueError("degree must be at least 0")
'''

# The all-subsets kernel as a product, over the coordinates, of the package's polynomial kernel of
# degree 1 on that coordinate alone: right, and a reference call (the body after _SUBSETS_HEAD).
_BY_POLYNOMIAL = '''    K = np.ones((len(X), len(Z)))
    for k in range(X.shape[1]):
        K = K * polynomial(X[:, k:k + 1], Z[:, k:k + 1], degree=1, coef0=1.0)
    return K
'''

CASES = {
    # v = Σ w_j x_j, without the factor 2 of (1 + x_j·x)² = 1 + 2 x_j·x + ...: A and c are right, and so
    # is every probe whose v is 0 (the circle, alpha all 0).
    "quadform-linear-factor": {
        "replace": {"ex2-quadform": _QUAD_HEAD + '''    return (X * w[:, None]).T @ X, X.T @ w, float(w.sum() + b)
'''},
        "expect": {"ex2-quadform-tests-values": 0, "ex2-quadform-tests-known": 1, "ex2-quadform-tests-inputs": 0},
        "message": "so every training point adds twice its weighted coordinates to v",
    },
    # Products of uint8 pixels wrap around at 256: right on floats, wrong on images.
    "subsets-uint8": {
        "replace": {"ex1-subsets": '''def subset_kernel(X, Z):
    X, Z = np.asarray(X), np.asarray(Z)
    if X.ndim != 2 or Z.ndim != 2 or X.shape[1] != Z.shape[1]:
        raise ValueError("X and Z must be 2-D with the same number of columns")
    return np.prod(1 + X[:, None, :] * Z[None, :, :], axis=2).astype(float)
'''},
        "expect": {"ex1-subsets-tests-values": 1, "ex1-subsets-tests-inputs": 0},
        "message": "products of uint8 numbers wrap around at 256",
    },
    # The right values from a double loop over the pairs: the exercise asks for broadcasting.
    "subsets-loop": {
        "replace": {"ex1-subsets": _SUBSETS_HEAD + '''    K = np.ones((len(X), len(Z)))
    for i in range(len(X)):
        for j in range(len(Z)):
            K[i, j] = np.prod(1.0 + X[i] * Z[j])
    return K
'''},
        "expect": {"ex1-subsets-tests-values": 0, "ex1-subsets-tests-inputs": 1},
        "message": "uses a Python loop",
    },
    # The right products, the bits read from the highest: columns in another order.
    "features-bit-order": {
        "replace": {"ex3-features": _FEATURES_HEAD + '''    Phi = np.ones((n, 2 ** d))
    for c in range(2 ** d):
        for k in range(d):
            if c >> (d - 1 - k) & 1:
                Phi[:, c] *= X[:, k]
    return Phi
'''},
        "expect": {"ex3-features-tests-values": 0, "ex3-features-tests-identity": 0},
        "message": "bit 0 (the lowest) standing for the first coordinate",
    },
    # Listing the sets with itertools: right on small cases, hopeless for 60 coordinates and degree 30.
    "anova-list-subsets": {
        "replace": {"ex4-anova": '''from itertools import combinations


''' + _ANOVA_HEAD + '''    P = X[:, None, :] * Z[None, :, :]
    K = np.zeros(P.shape[:2])
    for S in combinations(range(X.shape[1]), degree):
        K += np.prod(P[:, :, list(S)], axis=2)
    return K
'''},
        "expect": {"ex4-anova-tests-small": 2, "ex4-anova-tests-large": 0},
        "message": "anova_kernel",
    },
    # The package's polynomial kernel, imported by name.
    "reference-polynomial": {
        "replace": {"ex1-subsets": "from kpcourse.kernels import polynomial\n\n\n" + _SUBSETS_HEAD + _BY_POLYNOMIAL},
        "expect": {"ex1-subsets-tests-values": 0, "ex1-subsets-tests-inputs": 0},
        "message": "calling kpcourse.kernels.polynomial gets no credit",
    },
    # scikit-learn's square-free monomials, put in the order of the bits.
    "reference-sklearn": {
        "replace": {"ex3-features": '''from sklearn.preprocessing import PolynomialFeatures


''' + _FEATURES_HEAD + '''    P = PolynomialFeatures(degree=d, interaction_only=True).fit(X)
    order = [sum(1 << k for k in range(d) if row[k]) for row in P.powers_]
    Phi = np.empty((n, 2 ** d))
    Phi[:, order] = P.transform(X)
    return Phi
'''},
        "expect": {"ex3-features-tests-values": 0, "ex3-features-tests-identity": 0},
        "message": "calling sklearn.preprocessing.PolynomialFeatures gets no credit",
    },
    # The package's kernel reached through importlib.
    "reference-importlib": {
        "replace": {"ex1-subsets": _SUBSETS_HEAD + '''    import importlib
    polynomial = importlib.import_module("kpcourse.kernels").polynomial
''' + _BY_POLYNOMIAL},
        "expect": {"ex1-subsets-tests-values": 0, "ex1-subsets-tests-inputs": 0},
        "message": "calling kpcourse.kernels gets no credit",
    },
    # The package's kernel reached through getattr on its module.
    "reference-getattr": {
        "replace": {"ex1-subsets": '''import kpcourse.kernels as library


''' + _SUBSETS_HEAD + '''    polynomial = getattr(library, "poly" + "nomial")
''' + _BY_POLYNOMIAL},
        "expect": {"ex1-subsets-tests-values": 0, "ex1-subsets-tests-inputs": 0},
        "message": "uses `getattr`",
    },
    # The package's kernels file read and exec-ed.
    "reference-exec-file": {
        "replace": {"ex1-subsets": _SUBSETS_HEAD + '''    import kpcourse.kernels
    namespace = {"__name__": "kpcourse.kernels", "__package__": "kpcourse"}
    exec(open(kpcourse.kernels.__file__).read(), namespace)
    polynomial = namespace["polynomial"]
''' + _BY_POLYNOMIAL},
        "expect": {"ex1-subsets-tests-values": 0, "ex1-subsets-tests-inputs": 0},
        "message": "which the grader cannot check",
    },
}
