"""Golden submissions of assignment 07 (MNIST on the GPU): common mistakes.

Each case is the release with every solution cell filled in from the source, except the
cells in ``replace`` (grade_id -> the whole cell as a student would have typed it).
``expect``: scores of the graded cells listed (every other autograded cell gets full
marks); ``message``: what the failing visible test must say.
"""

CASES = {
    # The class with the smallest score: the scores are right, the choice is not.
    "argmin": {
        "replace": {"ex1-ovr": '''def ovr_predict(K_test_train, alpha, Y_pm, b, classes):
    K = np.asarray(K_test_train, dtype=float)
    if K.shape[1] != np.shape(alpha)[1]:
        raise ValueError("K_test_train does not match alpha")
    scores = K @ (np.asarray(alpha) * np.asarray(Y_pm).T).T + b
    return np.asarray(classes)[np.argmin(scores, axis=1)]
'''},
        "expect": {"ex1-ovr-tests": 0, "ex1-ovr-tests-scores": 1},
        "message": "you picked the class with the lowest score (argmin)",
    },
    # Two of the three flaws fixed: the kernel is still computed in float16.
    "float16-kept": {
        "replace": {"ex3-kernel": '''def fixed_kernel_precision(X, Z, degree=4, gamma=1.0, coef0=1.0):
    Xh, Zh = torch.tensor(X, dtype=torch.float16), torch.tensor(Z, dtype=torch.float16)
    return ((gamma * (Xh @ Zh.T) + coef0) ** degree).double().numpy()
'''},
        "expect": {"ex3-kernel-tests-overflow": 0, "ex3-kernel-tests-accuracy": 0},
        "message": "above 65 504, the largest float16",
    },
    # Two of the three flaws fixed: still every mistake of an epoch at once.
    "batch-kept": {
        "replace": {"ex2-update": '''def fixed_update_rule(K, Y_pm, max_epochs=10):
    K, Y_pm = np.asarray(K, dtype=float), np.asarray(Y_pm, dtype=float)
    n, C = Y_pm.shape
    if K.shape != (n, n):
        raise ValueError("K must be (n, n)")
    alpha, b = np.zeros((C, n)), np.zeros(C)
    for epoch in range(max_epochs):
        wrong = Y_pm * (K @ (alpha * Y_pm.T).T + b) <= 0
        if not wrong.any():
            break
        alpha += wrong.T
        b += (wrong * Y_pm).sum(axis=0)
    return alpha, b
'''},
        "expect": {"ex2-update-tests-online": 0, "ex2-update-tests-bias": 1},
        "message": "you still update every misclassified point of the epoch at once",
    },
    # Two of the three flaws fixed: the binary habit 0 -> -1 kept.
    "zero-to-minus-one-kept": {
        "replace": {"ex4-labels": '''def fixed_label_mapping(y, classes):
    y = np.where(np.asarray(y) == 0, -1, y)
    return np.where(y[:, None] == np.asarray(classes)[None, :], 1.0, -1.0)
'''},
        "expect": {"ex4-labels-tests-zero": 0, "ex4-labels-tests-general": 0},
        "message": "digit 0 never gets a +1",
    },
    # Calling the reference perceptron instead of writing the update rule: no credit for Exercise 2.
    "reference-call": {
        "replace": {"ex2-update": '''from kpcourse.perceptron import KernelPerceptron


def fixed_update_rule(K, Y_pm, max_epochs=10):
    y = np.argmax(Y_pm, axis=1)
    model = KernelPerceptron(kernel="precomputed", shuffle=False, max_epochs=max_epochs).fit(K, y)
    return model.alpha_, model.intercept_
'''},
        "expect": {"ex2-update-tests-online": 0, "ex2-update-tests-bias": 0},
        "message": "this exercise asks you to write the online update rule yourself; calling "
                   "kpcourse.perceptron.KernelPerceptron gets no credit",
    },
}
