"""Golden submissions of assignment 03 (the dual form): common mistakes.

Each case is the release with every solution cell filled in from the source, except the
cells in ``replace`` (grade_id -> the whole cell as a student would have typed it).
``expect``: scores of the graded cells listed (every other autograded cell gets full
marks); ``message``: what the failing visible test must say.
"""

_HEAD = '''def dual_train(K, y, max_epochs=10, learning_rate=1.0):
    K = np.asarray(K, dtype=float)
    n = len(y)
    if K.shape != (n, n):
        raise ValueError("K must be a square matrix with one row per label")
'''

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
        "expect": {"ex1-dual-train-tests-counts": 0, "ex1-dual-train-tests-bias": 0,
                   "ex1-dual-train-tests-rate": 0},
        "message": "this exercise asks you to write the dual training yourself; calling "
                   "kpcourse.perceptron.KernelPerceptron gets no credit",
    },
}
