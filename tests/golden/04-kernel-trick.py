"""Golden submissions of assignment 04 (the kernel trick): common mistakes and reference calls.

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
        "replace": {"ex3-train": '''from kpcourse.perceptron import KernelPerceptron


def kernel_perceptron_train(X, y, max_epochs):
    model = KernelPerceptron(kernel="poly", degree=2, coef0=1.0, shuffle=False, max_epochs=max_epochs)
    model.fit(X, y)
    return model.alpha_, model.intercept_
'''},
        "expect": {"ex3-train-tests-basic": 0, "ex3-train-tests-rule": 0, "ex3-train-tests-stop": 0},
        "message": "calling kpcourse.perceptron.KernelPerceptron gets no credit",
    },
}
