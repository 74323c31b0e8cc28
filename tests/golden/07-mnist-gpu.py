"""Golden submissions of assignment 07 (MNIST on the GPU): common mistakes, kept flaws, reference calls.

Each case is the release with every solution cell filled in from the source, except the
cells in ``replace`` (grade_id -> the whole cell as a student would have typed it).
``expect``: scores of the graded cells listed (every other autograded cell gets full
marks); ``message``: what the failing test must say.

The debugging exercise is graded by behaviour: a trainer that keeps one flaw of the
handed-out code loses the cell of that behaviour and the cell that checks everything
together, nothing else; the hint names the behaviour, not the fix.

Reference calls: every reference a student could reach (the package's ``KernelPerceptron``,
its polynomial kernel and Gram matrix, scikit-learn's ``polynomial_kernel``), by import, by
``importlib.import_module``, by ``getattr`` on a module and by reading a file and
``exec``-ing it, each inside the graded function. Import, ``importlib`` and ``getattr``: 0 for
the attacked exercise only. ``exec``: 0 for every exercise, because the scratch cells call
the functions from top-level code, and code that top-level code runs through ``exec`` could
have redefined any function of the notebook (kpcourse.grading.judge.policy, ``top_level_escapes``).
The messages checked for ``importlib``/``getattr``/``exec`` are the cell's verdict line
(``<exercise>: no credit``): the policy names the reference or the escape it found.
"""

_LABELS = '''    y, classes = np.asarray(y), np.asarray(classes)
    Y_pm = np.where(y[:, None] == classes[None, :], 1.0, -1.0)
'''
_LABELS_KEPT = '''    y = np.where(y == 0, -1, y)
    Y_pm = np.where(y[:, None] == classes[None, :], 1.0, -1.0)
'''
_KERNEL = '''    X = np.asarray(X, dtype=np.float64)
    K = (gamma * (X @ X.T) + coef0) ** degree
'''
_KERNEL_KEPT = '''    Xh = torch.tensor(X, dtype=torch.float16)
    K = ((gamma * (Xh @ Xh.T) + coef0) ** degree).double().numpy()
'''
_ONLINE = '''    n, C = Y_pm.shape
    alpha, b, F = np.zeros((C, n)), np.zeros(C), np.zeros((n, C))
    for epoch in range(max_epochs):
        mistakes = 0
        for i in range(n):
            wrong = Y_pm[i] * F[i] <= 0
            if wrong.any():
                alpha[wrong, i] += 1
                b += wrong * Y_pm[i]
                F += np.outer(K[:, i] + 1.0, wrong * Y_pm[i])
                mistakes += 1
        if mistakes == 0:
            break
    return alpha, b, Y_pm
'''
_ONLINE_KEPT = '''    n, C = Y_pm.shape
    alpha, b = np.zeros((C, n)), np.zeros(C)
    for epoch in range(max_epochs):
        wrong = Y_pm * (K @ (alpha * Y_pm.T).T + b) <= 0
        if not wrong.any():
            break
        alpha += wrong.T
        b += (wrong * Y_pm).sum(axis=0)
    return alpha, b, Y_pm
'''
_TRAIN_HEAD = "def fixed_train(X, y, classes, max_epochs=5, degree=4, gamma=1.0, coef0=1.0):\n"
_PREDICT_HEAD = "def fixed_predict(X_new, X, alpha, Y_pm, b, classes, degree=4, gamma=1.0, coef0=1.0):\n"
_SCORES = '''    S = K_new @ (np.asarray(alpha) * np.asarray(Y_pm).T).T + b
    return np.asarray(classes)[np.argmax(S, axis=1)]
'''

_EX1 = {"ex1-ovr-tests": 0, "ex1-ovr-tests-scores": 0}
_EX2 = {"ex2-train-tests-online": 0, "ex2-train-tests-labels": 0, "ex2-train-tests-precision": 0,
        "ex2-train-tests-new": 0}
_EX3 = {"ex3-predict-tests-labels": 0, "ex3-predict-tests-precision": 0}


def _no_credit(what, ref):
    return f"this exercise asks you to write {what} yourself; calling {ref} gets no credit"


def _verdict(exercise):
    return f"{exercise}: no credit"


_ALL = {**_EX1, **_EX2, **_EX3}


CASES = {
    # ------------------------------------------------------------ Exercise 1: common mistakes
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
    # The bias left out of the scores.
    "ovr-no-bias": {
        "replace": {"ex1-ovr": '''def ovr_predict(K_test_train, alpha, Y_pm, b, classes):
    K = np.asarray(K_test_train, dtype=float)
    if K.shape[1] != np.shape(alpha)[1]:
        raise ValueError("K_test_train does not match alpha")
    scores = K @ (np.asarray(alpha) * np.asarray(Y_pm).T).T
    return np.asarray(classes)[np.argmax(scores, axis=1)]
'''},
        "expect": _EX1,
        "message": "your scores ignore the bias b",
    },
    # ------------------------------------------------------------ Exercise 2: flaws kept, slips
    # Two of the three flaws fixed: still every mistake of an epoch at once.
    "batch-kept": {
        "replace": {"ex2-train": _TRAIN_HEAD + _LABELS + _KERNEL + _ONLINE_KEPT},
        "expect": {"ex2-train-tests-online": 0, "ex2-train-tests-new": 0},
        "message": "your alpha and b are those of the trainer as it was handed out",
    },
    # Two of the three flaws fixed: the kernel is still computed in float16.
    "float16-kept": {
        "replace": {"ex2-train": _TRAIN_HEAD + _LABELS + _KERNEL_KEPT + _ONLINE},
        "expect": {"ex2-train-tests-precision": 0, "ex2-train-tests-new": 0},
        "message": "your alpha and b are those of a trainer whose scores are not numbers (inf or NaN)",
    },
    # Two of the three flaws fixed: the binary habit 0 -> -1 kept.
    "zero-to-minus-one-kept": {
        "replace": {"ex2-train": _TRAIN_HEAD + _LABELS_KEPT + _KERNEL + _ONLINE},
        "expect": {"ex2-train-tests-labels": 0, "ex2-train-tests-new": 0},
        "message": "the column of the class 0 holds no +1",
    },
    # Every flaw kept: the handed-out trainer under the new name.
    "all-flaws-kept": {
        "replace": {"ex2-train": _TRAIN_HEAD + _LABELS_KEPT + _KERNEL_KEPT + _ONLINE_KEPT},
        "expect": _EX2,
        "message": "your alpha, b and Y_pm are wrong in 3 ways",
    },
    # A new slip while making it online: only the corrected sample's score moves.
    "only-current": {
        "replace": {"ex2-train": _TRAIN_HEAD + _LABELS + _KERNEL + _ONLINE.replace(
            "F += np.outer(K[:, i] + 1.0, wrong * Y_pm[i])", "F[i] += (K[i, i] + 1.0) * wrong * Y_pm[i]")},
        "expect": {"ex2-train-tests-online": 0, "ex2-train-tests-precision": 0, "ex2-train-tests-new": 0},
        "message": "moves only the score of sample i",
    },
    # ------------------------------------------------------------ Exercise 3: flaws kept
    "minus-one-to-zero-kept": {
        "replace": {"ex3-predict": _PREDICT_HEAD + '''\
    X_new, X = np.asarray(X_new, dtype=np.float64), np.asarray(X, dtype=np.float64)
    K_new = (gamma * (X_new @ X.T) + coef0) ** degree
    S = K_new @ (np.asarray(alpha) * np.asarray(Y_pm).T).T + b
    pred = np.asarray(classes)[np.argmax(S, axis=1)]
    return np.where(pred == -1, 0, pred)
'''},
        "expect": {"ex3-predict-tests-labels": 0},
        "message": "which is not one of the classes",
    },
    "predict-float16-kept": {
        "replace": {"ex3-predict": _PREDICT_HEAD + '''\
    Xh, Nh = torch.tensor(X, dtype=torch.float16), torch.tensor(X_new, dtype=torch.float16)
    K_new = ((gamma * (Nh @ Xh.T) + coef0) ** degree).double().numpy()
''' + _SCORES},
        "expect": {"ex3-predict-tests-precision": 0},
        "message": "your predictions are those of scores that are not numbers (inf or NaN)",
    },
    # ------------------------------------------------------------ Exercise 1: references
    "ref-ovr-kp": {
        "replace": {"ex1-ovr": '''from kpcourse.perceptron import KernelPerceptron


def ovr_predict(K_test_train, alpha, Y_pm, b, classes):
    model = KernelPerceptron(kernel="precomputed")
    model.alpha_, model.intercept_, model.classes_ = np.asarray(alpha, float), np.asarray(b, float), classes
    model.y_pm_ = np.asarray(Y_pm, float)
    return model.predict(K_test_train)
'''},
        "expect": _EX1,
        "message": _no_credit("the one-vs-rest prediction", "kpcourse.perceptron.KernelPerceptron"),
    },
    # ------------------------------------------------------------ Exercise 2: references
    "ref-kp-import": {
        "replace": {"ex2-train": '''from kpcourse.perceptron import KernelPerceptron


''' + _TRAIN_HEAD + '''    Y_pm = np.where(np.asarray(y)[:, None] == np.asarray(classes)[None, :], 1.0, -1.0)
    model = KernelPerceptron(kernel="poly", degree=degree, gamma=gamma, coef0=coef0, shuffle=False,
                             max_epochs=max_epochs, device="cpu").fit(X, y)
    return model.alpha_, model.intercept_, Y_pm
'''},
        "expect": _EX2,
        "message": _no_credit("the fixed trainer", "kpcourse.perceptron.KernelPerceptron"),
    },
    "ref-kp-importlib": {
        "replace": {"ex2-train": '''import importlib


''' + _TRAIN_HEAD + '''    module = importlib.import_module("kpcourse.perceptron")
    Y_pm = np.where(np.asarray(y)[:, None] == np.asarray(classes)[None, :], 1.0, -1.0)
    model = module.KernelPerceptron(kernel="poly", degree=degree, gamma=gamma, coef0=coef0, shuffle=False,
                                    max_epochs=max_epochs, device="cpu").fit(X, y)
    return model.alpha_, model.intercept_, Y_pm
'''},
        "expect": _EX2,
        "message": _verdict("ex2-train"),
    },
    "ref-kp-getattr": {
        "replace": {"ex2-train": '''import kpcourse.perceptron as kpp


''' + _TRAIN_HEAD + '''    cls = getattr(kpp, "Kernel" + "Perceptron")
    Y_pm = np.where(np.asarray(y)[:, None] == np.asarray(classes)[None, :], 1.0, -1.0)
    model = cls(kernel="poly", degree=degree, gamma=gamma, coef0=coef0, shuffle=False, max_epochs=max_epochs,
                device="cpu").fit(X, y)
    return model.alpha_, model.intercept_, Y_pm
'''},
        "expect": _EX2,
        "message": _verdict("ex2-train"),
    },
    "ref-kp-exec-file": {
        "replace": {"ex2-train": _TRAIN_HEAD + '''    import kpcourse
    namespace = {}
    exec(open(kpcourse.__path__[0] + "/perceptron/_kernel.py").read(), namespace)
    Y_pm = np.where(np.asarray(y)[:, None] == np.asarray(classes)[None, :], 1.0, -1.0)
    model = namespace["KernelPerceptron"](kernel="poly", degree=degree, gamma=gamma, coef0=coef0, shuffle=False,
                                          max_epochs=max_epochs).fit(X, y)
    return model.alpha_, model.intercept_, Y_pm
'''},
        "expect": _ALL,
        "message": _verdict("ex2-train"),
    },
    # The package's kernel inside an online loop written by hand: the kernel was part of the fix.
    "ref-poly-kernel-import": {
        "replace": {"ex2-train": '''from kpcourse.kernels import polynomial


''' + _TRAIN_HEAD + _LABELS + '''    K = polynomial(X, degree=degree, gamma=gamma, coef0=coef0)
''' + _ONLINE},
        "expect": _EX2,
        "message": _no_credit("the fixed trainer", "kpcourse.kernels.polynomial"),
    },
    # ------------------------------------------------------------ Exercise 3: references
    "ref-gram-import": {
        "replace": {"ex3-predict": '''from kpcourse.gram import gram_matrix


''' + _PREDICT_HEAD + '''\
    K_new = gram_matrix(X_new, X, kernel="poly", degree=degree, gamma=gamma, coef0=coef0, device="cpu")
''' + _SCORES},
        "expect": _EX3,
        "message": _no_credit("the fixed predictor", "kpcourse.gram.gram_matrix"),
    },
    "ref-sklearn-import": {
        "replace": {"ex3-predict": '''from sklearn.metrics.pairwise import polynomial_kernel


''' + _PREDICT_HEAD + '''    K_new = polynomial_kernel(X_new, X, degree=degree, gamma=gamma, coef0=coef0)
''' + _SCORES},
        "expect": _EX3,
        "message": _no_credit("the fixed predictor", "sklearn.metrics.pairwise.polynomial_kernel"),
    },
    "ref-poly-importlib": {
        "replace": {"ex3-predict": '''import importlib


''' + _PREDICT_HEAD + '''    kernels = importlib.import_module("kpcourse.kernels")
    K_new = kernels.polynomial(X_new, X, degree=degree, gamma=gamma, coef0=coef0)
''' + _SCORES},
        "expect": _EX3,
        "message": _verdict("ex3-predict"),
    },
    "ref-poly-getattr": {
        "replace": {"ex3-predict": '''import kpcourse.kernels as kk


''' + _PREDICT_HEAD + '''    K_new = getattr(kk, "poly" + "nomial")(X_new, X, degree=degree, gamma=gamma, coef0=coef0)
''' + _SCORES},
        "expect": _EX3,
        "message": _verdict("ex3-predict"),
    },
    "ref-poly-exec-file": {
        "replace": {"ex3-predict": _PREDICT_HEAD + '''    import kpcourse
    namespace = {"__name__": "kpcourse.kernels", "__package__": "kpcourse"}
    exec(open(kpcourse.__path__[0] + "/kernels.py").read(), namespace)
    K_new = namespace["polynomial"](X_new, X, degree=degree, gamma=gamma, coef0=coef0)
''' + _SCORES},
        "expect": _ALL,
        "message": _verdict("ex3-predict"),
    },
}
