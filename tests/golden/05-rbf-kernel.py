"""Golden submissions of assignment 05 (the Gaussian kernel): common mistakes.

Each case is the release with every solution cell filled in from the source, except the
cells in ``replace`` (grade_id -> the whole cell as a student would have typed it).
``expect``: scores of the graded cells listed (every other autograded cell gets full
marks); ``message``: what the failing visible test must say.
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
        "message": "rbf_gram contains a `for` loop",
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
