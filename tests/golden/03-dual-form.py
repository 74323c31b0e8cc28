"""Golden submissions of assignment 03 (the dual form): common mistakes and reference calls.

Each case is the release with every solution cell filled in from the source, except the
cells in ``replace`` (grade_id -> the whole cell as a student would have typed it).
``expect``: scores of the graded cells listed (every other autograded cell gets full
marks); ``message``: what the failing visible test must say (for a reference call: what the
grader says). A reference call costs the attacked exercise only, whichever way it is reached:
by import, by ``importlib``, by ``getattr`` on a module, or by reading a file and ``exec``-ing it.
"""

_HEAD = '''def dual_train(K, y, max_epochs=10, learning_rate=1.0):
    K = np.asarray(K, dtype=float)
    n = len(y)
    if K.shape != (n, n):
        raise ValueError("K must be a square matrix with one row per label")
'''

_PRIMAL_HEAD = '''def primal_from_dual(X, alpha, y, b, learning_rate=1.0):
    X = np.asarray(X, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    y = np.asarray(y)
    if len(X) != len(alpha) or len(y) != len(alpha):
        raise ValueError("X, y and alpha must have one entry per training point")
'''

_PRIMAL_CHECKED = _PRIMAL_HEAD + '''    if not np.isclose(b, learning_rate * np.sum(alpha * y)):
        raise ValueError("b does not fit alpha")
'''

_NO_EX1 = {"ex1-dual-train-tests-counts": 0, "ex1-dual-train-tests-bias": 0, "ex1-dual-train-tests-rate": 0}
_ALL_ZERO = {**_NO_EX1, "ex2-dual-predict-tests": 0, "ex2-dual-predict-tests-details": 0,
             "ex3-primal-from-dual-tests": 0, "ex3-primal-from-dual-tests-checks": 0,
             "ex3-primal-from-dual-tests-quiz": 0}
_NO_EX3 = {"ex3-primal-from-dual-tests": 0, "ex3-primal-from-dual-tests-checks": 0,
           "ex3-primal-from-dual-tests-quiz": 0}

CASES = {
    # alpha += learning_rate, as w moved in lesson 02: alpha no longer counts mistakes.
    "alpha-lr": {
        "replace": {"ex1-dual-train": _HEAD + '''    alpha = np.zeros(n)
    b = 0.0
    for epoch in range(max_epochs):
        mistakes = 0
        for i in range(n):
            if y[i] * (np.sum(alpha * y * K[:, i]) + b) <= 0:
                alpha[i] += learning_rate
                b += learning_rate * y[i]
                mistakes += 1
        if mistakes == 0:
            break
    return alpha, b
'''},
        "expect": {"ex1-dual-train-tests-counts": 2, "ex1-dual-train-tests-bias": 2,
                   "ex1-dual-train-tests-rate": 0},
        "message": "the learning rate was applied to the dual counts alpha",
    },
    # b is never updated (and stays 0 in every score).
    "no-bias": {
        "replace": {"ex1-dual-train": _HEAD + '''    alpha = np.zeros(n, dtype=int)
    b = 0.0
    for epoch in range(max_epochs):
        mistakes = 0
        for i in range(n):
            if y[i] * (learning_rate * np.sum(alpha * y * K[:, i]) + b) <= 0:
                alpha[i] += 1
                mistakes += 1
        if mistakes == 0:
            break
    return alpha, b
'''},
        "expect": {"ex1-dual-train-tests-counts": 2, "ex1-dual-train-tests-bias": 0,
                   "ex1-dual-train-tests-rate": 1},
        "message": "your dual training ignores the bias",
    },
    # The prediction forgets the learning rate in front of the kernel sum.
    "predict-no-rate": {
        "replace": {"ex2-dual-predict": '''def dual_predict(K_test_train, alpha, y, b, learning_rate=1.0):
    K_test_train = np.asarray(K_test_train, dtype=float)
    if K_test_train.shape[1] != len(alpha):
        raise ValueError("K_test_train needs one column per training sample")
    scores = K_test_train @ (alpha * y) + b
    return np.where(scores > 0, 1, -1)
'''},
        "expect": {"ex2-dual-predict-tests": 2, "ex2-dual-predict-tests-details": 0},
        "message": "your prediction ignores the learning rate",
    },
    # Calling the reference instead of writing the dual loop: no credit for Exercise 1.
    "reference-call": {
        "replace": {"ex1-dual-train": '''from kpcourse.perceptron import KernelPerceptron


def dual_train(K, y, max_epochs=10, learning_rate=1.0):
    kp = KernelPerceptron(kernel="precomputed", shuffle=False, max_epochs=max_epochs).fit(K, y)
    return kp.alpha_, learning_rate * kp.intercept_
'''},
        "expect": _NO_EX1,
        "message": "this exercise asks you to write the dual training yourself; calling "
                   "kpcourse.perceptron.KernelPerceptron gets no credit",
    },
    # The same reference, reached through importlib.
    "reference-importlib": {
        "replace": {"ex1-dual-train": '''import importlib


def dual_train(K, y, max_epochs=10, learning_rate=1.0):
    KP = importlib.import_module("kpcourse.perceptron").KernelPerceptron
    kp = KP(kernel="precomputed", shuffle=False, max_epochs=max_epochs, device="cpu").fit(K, y)
    return kp.alpha_, learning_rate * kp.intercept_
'''},
        "expect": _NO_EX1,
        "message": "calling kpcourse.perceptron gets no credit",
    },
    # The former checks' simulator (kpcourse/_checks_legacy.py while it exists), reached with getattr.
    "reference-getattr": {
        "replace": {"ex1-dual-train": '''def dual_train(K, y, max_epochs=10, learning_rate=1.0):
    import kpcourse._checks_legacy as legacy
    K = np.asarray(K, dtype=float)
    if K.shape != (len(y), len(y)):
        raise ValueError("K must be a square matrix with one row per label")
    simulate = getattr(legacy, "_dual")
    alpha, b = simulate(K, np.asarray(y), max_epochs, learning_rate)
    return alpha.astype(int), b
'''},
        "expect": _NO_EX1,
        "message": "calling kpcourse._checks_legacy._dual gets no credit",
    },
    # The package's kernel perceptron, read from its file and exec-ed. The grader cannot know what
    # exec defines, and the ungraded "Try your function" cell calls dual_train at top level: by the
    # source policy (kpcourse/grading/policy.py, escapes that spread) this costs every exercise.
    "reference-exec": {
        "replace": {"ex1-dual-train": '''import kpcourse.perceptron


def dual_train(K, y, max_epochs=10, learning_rate=1.0):
    path = kpcourse.perceptron.__file__.replace("__init__.py", "_kernel.py")
    namespace = {"__name__": "kpcourse.perceptron._copy", "__package__": "kpcourse.perceptron"}
    exec(open(path).read(), namespace)
    kp = namespace["KernelPerceptron"](kernel="precomputed", shuffle=False, max_epochs=max_epochs,
                                       device="cpu").fit(K, y)
    return kp.alpha_, learning_rate * kp.intercept_
'''},
        "expect": _ALL_ZERO,
        "message": "uses `exec`, which the grader cannot check",
    },
    # The package's label rule for the prediction, reached with getattr on an imported module.
    "reference-predict": {
        "replace": {"ex2-dual-predict": '''import importlib


def dual_predict(K_test_train, alpha, y, b, learning_rate=1.0):
    K_test_train = np.asarray(K_test_train, dtype=float)
    if K_test_train.shape[1] != len(alpha):
        raise ValueError("K_test_train needs one column per training sample")
    scores = learning_rate * (K_test_train @ (np.asarray(alpha) * np.asarray(y))) + b
    labels = getattr(importlib.import_module("kpcourse.perceptron._common"), "predict_from_scores")
    return labels(np.array([-1, 1]), scores)
'''},
        "expect": {"ex2-dual-predict-tests": 0, "ex2-dual-predict-tests-details": 0},
        "message": "calling kpcourse.perceptron._common gets no credit",
    },
    # Exercise 3 through the primal perceptron: retrain it and return its w.
    "reference-primal": {
        "replace": {"ex3-primal-from-dual": "from kpcourse.perceptron import Perceptron\n\n\n" + _PRIMAL_CHECKED
                    + "    return Perceptron(learning_rate=learning_rate, max_epochs=100).fit(X, y).coef_\n"},
        "expect": _NO_EX3,
        "message": "this exercise asks you to write the primal weights from the dual counts yourself; "
                   "calling kpcourse.perceptron.Perceptron gets no credit",
    },
    # Exercise 3: the labels y forgotten, w = learning_rate * sum_i alpha_i x_i.
    "primal-no-y": {
        "replace": {"ex3-primal-from-dual": _PRIMAL_CHECKED + '''    return learning_rate * alpha @ X
'''},
        "expect": {"ex3-primal-from-dual-tests": 0, "ex3-primal-from-dual-tests-checks": 1,
                   "ex3-primal-from-dual-tests-quiz": 0},
        "message": "ignores the labels y",
    },
    # Exercise 3: the sum taken over the features (axis 1) instead of the training points.
    "primal-wrong-axis": {
        "replace": {"ex3-primal-from-dual": _PRIMAL_CHECKED
                    + "    return np.sum((learning_rate * alpha * y)[:, None] * X, axis=1)\n"},
        "expect": {"ex3-primal-from-dual-tests": 0, "ex3-primal-from-dual-tests-checks": 1,
                   "ex3-primal-from-dual-tests-quiz": 0},
        "message": "one entry per training point",
    },
    # Exercise 3: b never checked against learning_rate * sum_i alpha_i y_i.
    "primal-no-check": {
        "replace": {"ex3-primal-from-dual": _PRIMAL_HEAD + '''    return (learning_rate * alpha * y) @ X
'''},
        "expect": {"ex3-primal-from-dual-tests": 1, "ex3-primal-from-dual-tests-checks": 0,
                   "ex3-primal-from-dual-tests-quiz": 1},
        "message": "should raise ValueError when b is not",
    },
}
