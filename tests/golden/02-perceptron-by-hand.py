"""Golden submissions of assignment 02 (the perceptron by hand): common mistakes.

Each case is the release with every solution cell filled in from the source, except the
cells in ``replace`` (grade_id -> the whole cell as a student would have typed it).
``expect``: scores of the graded cells listed (every other autograded cell gets full
marks); ``message``: what the failing visible test must say.
"""

_UPDATE = '''def update(w, b, x, y, learning_rate):
    if y not in (-1, 1):
        raise ValueError("y must be -1 or +1")
    x = np.asarray(x, dtype=float)
'''

_TRAIN = '''def train(X, y, learning_rate=1.0, max_epochs=100):
    X = np.asarray(X, dtype=float)
    if len(X) != len(y):
        raise ValueError("X and y must have the same number of rows")
'''

CASES = {
    # `< 0` instead of `<= 0`: a point on the boundary is never updated.
    "sign0-correct": {
        "replace": {"ex2-update": _UPDATE + '''    if y * (np.dot(w, x) + b) < 0:
        w = w + learning_rate * y * x
        b = b + learning_rate * y
    return w, b
'''},
        "expect": {"ex2-update-tests-weights": 2, "ex2-update-tests-zero": 0, "ex2-update-tests-bias": 1},
        "message": "sign(0) must count as a mistake",
    },
    # The mistake test through predict(): a score of 0 looks right for y = -1.
    "mistake-via-predict": {
        "replace": {"ex2-update": _UPDATE + '''    if predict(w, b, x.reshape(1, -1))[0] != y:
        w = w + learning_rate * y * x
        b = b + learning_rate * y
    return w, b
'''},
        "expect": {"ex2-update-tests-weights": 2, "ex2-update-tests-zero": 0, "ex2-update-tests-bias": 1},
        "message": "treats a score of 0 as correct for the label -1",
    },
    # The bias is never updated.
    "no-bias": {
        "replace": {"ex2-update": _UPDATE + '''    if y * (np.dot(w, x) + b) <= 0:
        w = w + learning_rate * y * x
    return w, b
'''},
        "expect": {"ex2-update-tests-weights": 2, "ex2-update-tests-zero": 1, "ex2-update-tests-bias": 0},
        "message": "your update ignores the bias",
    },
    # np.sign gives 0 for a score of exactly 0.
    "np-sign": {
        "replace": {"ex1-predict": '''def predict(w, b, X):
    X = np.asarray(X, dtype=float)
    if X.shape[1] != len(w):
        raise ValueError("X and w do not match")
    return np.sign(X @ w + b)
'''},
        "expect": {"ex1-predict-tests": 2, "ex1-predict-tests-zero": 0},
        "message": "np.sign(0) is 0",
    },
    # Each trace row written before the step instead of after it.
    "trace-before-update": {
        "replace": {"ex3-train": _TRAIN + '''    w, b = np.zeros(X.shape[1]), 0.0
    trace = []
    for epoch in range(1, max_epochs + 1):
        mistakes = 0
        for i in range(len(X)):
            mistake = y[i] * (X[i] @ w + b) <= 0
            trace.append([epoch, i, int(mistake), b, *w])
            if mistake:
                w = w + learning_rate * y[i] * X[i]
                b = b + learning_rate * y[i]
                mistakes += 1
        if mistakes == 0:
            break
    return w, b, np.array(trace)
'''},
        "expect": {"ex3-train-tests-trace": 0, "ex3-train-tests-result": 2, "ex3-train-tests-stop": 1},
        "message": "a trace row holds b and w after that step, not before",
    },
    # Calling the reference instead of writing the loop: no credit for Exercise 3.
    "reference-call": {
        "replace": {"ex3-train": '''from kpcourse.perceptron import Perceptron


def train(X, y, learning_rate=1.0, max_epochs=100):
    clf = Perceptron(learning_rate=learning_rate, max_epochs=max_epochs).fit(X, y)
    return clf.coef_, clf.intercept_, clf.trace_
'''},
        "expect": {"ex3-train-tests-trace": 0, "ex3-train-tests-result": 0, "ex3-train-tests-stop": 0},
        "message": "this exercise asks you to write the training loop yourself; calling "
                   "kpcourse.perceptron.Perceptron gets no credit",
    },
    # The same reference reached by importlib, getattr on the module, or exec of its file.
    "reference-importlib": {
        "replace": {"ex1-predict": '''def predict(w, b, X):
    import importlib
    ref = importlib.import_module("kpcourse.perceptron")
    clf = ref.Perceptron()
    clf.coef_, clf.intercept_ = w, b
    return clf.predict(X)
'''},
        "expect": {"ex1-predict-tests": 0, "ex1-predict-tests-zero": 0},
        "message": "calling kpcourse.perceptron gets no credit",
    },
    "reference-getattr": {
        "replace": {"ex3-train": '''import kpcourse.perceptron as module


def train(X, y, learning_rate=1.0, max_epochs=100):
    cls = getattr(module, "Percep" + "tron")
    clf = cls(learning_rate=learning_rate, max_epochs=max_epochs).fit(X, y)
    return clf.coef_, clf.intercept_, clf.trace_
'''},
        "expect": {"ex3-train-tests-trace": 0, "ex3-train-tests-result": 0, "ex3-train-tests-stop": 0},
        "message": "uses `getattr`",
    },
    "reference-exec-file": {
        "replace": {"ex3-train": '''def train(X, y, learning_rate=1.0, max_epochs=100):
    import kpcourse
    path = kpcourse.__path__[0] + "/perceptron.py"
    namespace = {}
    exec(open(path).read(), namespace)
    clf = namespace["Perceptron"](learning_rate=learning_rate, max_epochs=max_epochs).fit(X, y)
    return clf.coef_, clf.intercept_, clf.trace_
'''},
        # exec can define anything, and the release's "try it" cell runs train at top level: the
        # grader cannot trust any exercise of this notebook
        "expect": {g: 0 for g in ("ex1-predict-tests", "ex1-predict-tests-zero", "ex2-update-tests-weights",
                                  "ex2-update-tests-zero", "ex2-update-tests-bias", "ex3-train-tests-trace",
                                  "ex3-train-tests-result", "ex3-train-tests-stop")},
        "message": "which the grader cannot check",
    },
    "reference-sklearn": {
        "replace": {"ex1-predict": '''from sklearn.linear_model import Perceptron as SkPerceptron


def predict(w, b, X):
    clf = SkPerceptron()
    clf.coef_, clf.intercept_, clf.classes_ = np.array([w]), np.array([b]), np.array([-1, 1])
    return clf.predict(X)
'''},
        "expect": {"ex1-predict-tests": 0, "ex1-predict-tests-zero": 0},
        "message": "calling sklearn.linear_model.Perceptron gets no credit",
    },
}
