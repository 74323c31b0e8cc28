"""Golden submissions of assignment 08 (averaging, margins, model selection): mistakes and reference calls.

Each case is the release with every solution cell filled in from the source, except the
cells in ``replace`` (grade_id -> the whole cell as a student would have typed it).
``expect``: scores of the graded cells listed (every other autograded cell gets full
marks); ``message``: what the failing visible test must say (for a reference call: what the
grader says). Two or more common mistakes per exercise, each named by its hint; the
reference calls reach the package's averaged perceptron (by import, ``importlib``,
``getattr``, and by reading its file and ``exec``-ing it) and scikit-learn's ``KFold``.
"""

_AVG_HEAD = '''def averaged_dual_train(K, y, max_epochs=10):
    K = np.asarray(K, dtype=float)
    y = np.asarray(y)
    n = len(y)
    if K.shape != (n, n):
        raise ValueError("K must be a square matrix with one row per label")
'''

# the dual loop with the timestamp sums; {update} is what a mistake does, {result} the return
_AVG_LOOP = _AVG_HEAD + '''    alpha, tau = np.zeros(n), np.zeros(n)
    b, tau_b, t = 0.0, 0.0, 0
    for epoch in range(max_epochs):
        mistakes = 0
        for i in range(n):
            t += 1
            if y[i] * (K[i] @ (alpha * y) + b) <= 0:
                alpha[i] += 1
                b += y[i]
                tau[i] += t
                tau_b += t * y[i]
                mistakes += 1
        if mistakes == 0:
            break
    T = t
'''

_MARGIN_HEAD = '''def geometric_margin(w, b, X, y):
    w = np.asarray(w, dtype=float)
    if not np.any(w):
        raise ValueError("w is all zeros")
'''

_MP_HEAD = '''def margin_dual_train(K, y, tau, max_epochs=100):
    K = np.asarray(K, dtype=float)
    y = np.asarray(y)
    n = len(y)
    if K.shape != (n, n) or tau < 0:
        raise ValueError("K must be (n, n) and tau >= 0")
    alpha, b = np.zeros(n, dtype=int), 0.0
'''

_CV_HEAD = '''def choose_sigma(X_train, y_train, sigmas, n_folds=5, seed=0):
    X_train = np.asarray(X_train, dtype=float)
    y_train = np.asarray(y_train)
    n = len(y_train)
'''
_CV_SEEDED = '''    folds = np.array_split(np.random.default_rng(seed).permutation(n), n_folds)
'''

_CV_FOLDS = '''    scores = []
    for sigma in sigmas:
        errors = []
        for fold in folds:
            rest = np.setdiff1d(np.arange(n), fold)
            errors.append(validation_error(X_train[rest], y_train[rest], X_train[fold], y_train[fold],
                                           sigma))
        scores.append(np.mean(errors))
    scores = np.array(scores)
'''

_NO_EX1 = {"ex1-averaged-tests-alpha": 0, "ex1-averaged-tests-bias": 0, "ex1-averaged-tests-stop": 0}
_NO_EX4 = {"ex4-choose-sigma-tests": 0, "ex4-choose-sigma-tests-choice": 0}
_ALL_ZERO = {**_NO_EX1, "ex2-margin-tests": 0, "ex2-margin-tests-details": 0, "ex3-margin-perceptron-tests": 0,
             "ex3-margin-perceptron-tests-stop": 0, **_NO_EX4}

CASES = {
    # Exercise 1: alpha summed at the end of each epoch and divided by the number of epochs.
    "avg-over-epochs": {
        "replace": {"ex1-averaged": _AVG_HEAD + '''    alpha, b = np.zeros(n), 0.0
    alpha_sum, b_sum, epochs = np.zeros(n), 0.0, 0
    for epoch in range(max_epochs):
        mistakes = 0
        for i in range(n):
            if y[i] * (K[i] @ (alpha * y) + b) <= 0:
                alpha[i] += 1
                b += y[i]
                mistakes += 1
        alpha_sum += alpha
        b_sum += b
        epochs += 1
        if mistakes == 0:
            break
    return alpha_sum / epochs, b_sum / epochs
'''},
        "expect": _NO_EX1,
        "message": "you averaged over the epochs",
    },
    # Exercise 1: the trick without its + 1, (alpha T - tau) / T.
    "avg-off-by-one": {
        "replace": {"ex1-averaged": _AVG_LOOP + '''    return (alpha * T - tau) / T, (b * T - tau_b) / T
'''},
        "expect": _NO_EX1,
        "message": "off by one: ᾱ = (α·(T + 1) − τ)/T, not (α·T − τ)/T",
    },
    # Exercise 1: alpha averaged right, the bias left as it ends.
    "avg-bias-not-averaged": {
        "replace": {"ex1-averaged": _AVG_LOOP + '''    return (alpha * (T + 1) - tau) / T, b
'''},
        "expect": {"ex1-averaged-tests-bias": 0, "ex1-averaged-tests-stop": 0},
        "message": "b_avg is the final b: average the bias like alpha",
    },
    # An honest program the old source policy refused: a local named like a top-level name bound to
    # the package's perceptron (compared with in an ungraded part), iterated by a comprehension (its
    # first iterable is the function's own name), and comprehension variables at the top level.
    "honest-comprehensions": {
        "replace": {"ex1-averaged": _AVG_LOOP + '''    ref = (alpha * (T + 1) - tau) / T
    return np.array([a for a in ref]), float((b * (T + 1) - tau_b) / T)


try:  # the package's own averaged perceptron, to compare mine with (absent while grading)
    from kpcourse.perceptron import KernelPerceptron
    ref = KernelPerceptron(kernel="precomputed", mode="averaged")
except ImportError:
    ref = None
sizes = [len(ref) for ref in ([1.0], [2.0, 3.0])]
'''},
        "expect": {},
    },
    # Exercise 1: the package's averaged perceptron instead of the timestamp trick.
    "reference-call": {
        "replace": {"ex1-averaged": '''from kpcourse.perceptron import KernelPerceptron


def averaged_dual_train(K, y, max_epochs=10):
    kp = KernelPerceptron(kernel="precomputed", mode="averaged", shuffle=False, max_epochs=max_epochs,
                          device="cpu").fit(K, y)
    return kp.alpha_avg_, kp.intercept_avg_
'''},
        "expect": _NO_EX1,
        "message": "this exercise asks you to write the averaged perceptron (timestamp trick) yourself; "
                   "calling kpcourse.perceptron.KernelPerceptron gets no credit",
    },
    # The same reference through importlib.
    "reference-importlib": {
        "replace": {"ex1-averaged": '''import importlib


def averaged_dual_train(K, y, max_epochs=10):
    KP = importlib.import_module("kpcourse.perceptron").KernelPerceptron
    kp = KP(kernel="precomputed", mode="averaged", shuffle=False, max_epochs=max_epochs, device="cpu").fit(K, y)
    return kp.alpha_avg_, kp.intercept_avg_
'''},
        "expect": _NO_EX1,
        "message": "calling kpcourse.perceptron gets no credit",
    },
    # The same reference through getattr on the imported module.
    "reference-getattr": {
        "replace": {"ex1-averaged": '''import kpcourse.perceptron as engine


def averaged_dual_train(K, y, max_epochs=10):
    KP = getattr(engine, "KernelPerceptron")
    kp = KP(kernel="precomputed", mode="averaged", shuffle=False, max_epochs=max_epochs, device="cpu").fit(K, y)
    return kp.alpha_avg_, kp.intercept_avg_
'''},
        "expect": _NO_EX1,
        "message": "calling kpcourse.perceptron.KernelPerceptron gets no credit",
    },
    # The package's kernel perceptron read from its file and exec-ed. The grader cannot know what exec
    # defines, and the ungraded "Try your function" cell calls averaged_dual_train at top level: by the
    # source policy (escapes that spread) this costs every exercise.
    "reference-exec": {
        "replace": {"ex1-averaged": '''import kpcourse.perceptron


def averaged_dual_train(K, y, max_epochs=10):
    path = kpcourse.perceptron.__file__.replace("__init__.py", "_kernel.py")
    namespace = {"__name__": "kpcourse.perceptron._copy", "__package__": "kpcourse.perceptron"}
    exec(open(path).read(), namespace)
    kp = namespace["KernelPerceptron"](kernel="precomputed", mode="averaged", shuffle=False,
                                       max_epochs=max_epochs, device="cpu").fit(K, y)
    return kp.alpha_avg_, kp.intercept_avg_
'''},
        "expect": _ALL_ZERO,
        "message": "uses `exec`, which the grader cannot check",
    },
    # Exercise 2: the distance of the closest point, unsigned.
    "margin-abs": {
        "replace": {"ex2-margin": _MARGIN_HEAD
                    + '''    return float(np.min(np.abs(y * (X @ w + b))) / np.linalg.norm(w))
'''},
        "expect": {"ex2-margin-tests-details": 0},
        "message": "the margin is signed",
    },
    # Exercise 2: the functional margin, ||w|| forgotten.
    "margin-no-norm": {
        "replace": {"ex2-margin": _MARGIN_HEAD + '''    return float(np.min(y * (X @ w + b)))
'''},
        "expect": {"ex2-margin-tests": 0, "ex2-margin-tests-details": 0},
        "message": "divide by ‖w‖ to get a distance",
    },
    # Exercise 2: right values, a Python loop over the points: only the loop-free cell fails.
    "margin-loop": {
        "replace": {"ex2-margin": _MARGIN_HEAD + '''    distances = []
    for x_i, y_i in zip(X, y):
        distances.append(y_i * (x_i @ w + b) / np.linalg.norm(w))
    return float(min(distances))
'''},
        "expect": {"ex2-margin-tests-details": 0},
        "message": "uses a Python loop",
    },
    # Exercise 3: y f < tau, a score exactly at the threshold skipped.
    "mp-strict": {
        "replace": {"ex3-margin-perceptron": _MP_HEAD + '''    for epoch in range(max_epochs):
        updates = 0
        for i in range(n):
            if y[i] * (K[i] @ (alpha * y) + b) < tau:
                alpha[i] += 1
                b += y[i]
                updates += 1
        if updates == 0:
            break
    return alpha, b
'''},
        "expect": {"ex3-margin-perceptron-tests": 0, "ex3-margin-perceptron-tests-stop": 0},
        "message": "update when y_i f_i <= tau, equality included",
    },
    # Exercise 3: the label left out of the condition, f <= tau.
    "mp-no-label": {
        "replace": {"ex3-margin-perceptron": _MP_HEAD + '''    for epoch in range(max_epochs):
        updates = 0
        for i in range(n):
            if K[i] @ (alpha * y) + b <= tau:
                alpha[i] += 1
                b += y[i]
                updates += 1
        if updates == 0:
            break
    return alpha, b
'''},
        "expect": {"ex3-margin-perceptron-tests": 0, "ex3-margin-perceptron-tests-stop": 0},
        "message": "the condition is on y_i f_i, the score times the label",
    },
    # Exercise 3: stops after an epoch without a mistake although it still made updates.
    "mp-stop-on-mistakes": {
        "replace": {"ex3-margin-perceptron": _MP_HEAD + '''    for epoch in range(max_epochs):
        mistakes = 0
        for i in range(n):
            score = y[i] * (K[i] @ (alpha * y) + b)
            if score <= tau:
                alpha[i] += 1
                b += y[i]
            if score <= 0:
                mistakes += 1
        if mistakes == 0:
            break
    return alpha, b
'''},
        "expect": {"ex3-margin-perceptron-tests": 0, "ex3-margin-perceptron-tests-stop": 0},
        "message": "stop after the first epoch without an update",
    },
    # Exercise 4: every model measured on the data it was fitted on (choosing on the whole set).
    "cv-whole-set": {
        "replace": {"ex4-choose-sigma": _CV_HEAD
                    + '''    scores = np.array([validation_error(X_train, y_train, X_train, y_train, s)
                       for s in sigmas])
    return sigmas[int(np.argmin(scores))], scores
'''},
        "expect": {"ex4-choose-sigma-tests": 0},  # the choice rule itself (argmin of its scores) is right
        "message": "you measured each model on the points it was fitted on",
    },
    # Exercise 4: folds in file order, no shuffle.
    "cv-no-shuffle": {
        "replace": {"ex4-choose-sigma": _CV_HEAD + '''    folds = np.array_split(np.arange(n), n_folds)
''' + _CV_FOLDS + '''    return sigmas[int(np.argmin(scores))], scores
'''},
        "expect": {"ex4-choose-sigma-tests": 0},
        "message": "your folds follow the order of the rows",
    },
    # Exercise 4: the global RNG instead of default_rng(seed): folds that change from call to call.
    "cv-global-rng": {
        "replace": {"ex4-choose-sigma": _CV_HEAD + '''    folds = np.array_split(np.random.permutation(n), n_folds)
''' + _CV_FOLDS + '''    return sigmas[int(np.argmin(scores))], scores
'''},
        "expect": {"ex4-choose-sigma-tests": 0},
        "message": "never from the global np.random",
    },
    # Exercise 4: right scores, the largest error chosen.
    "cv-argmax": {
        "replace": {"ex4-choose-sigma": _CV_HEAD + _CV_SEEDED + _CV_FOLDS
                    + '''    return sigmas[int(np.argmax(scores))], scores
'''},
        "expect": {"ex4-choose-sigma-tests-choice": 0},
        "message": "you chose the σ with the largest cross-validation error",
    },
    # Exercise 4: right scores, the last of the tied best sigmas.
    "cv-last-tie": {
        "replace": {"ex4-choose-sigma": _CV_HEAD + _CV_SEEDED + _CV_FOLDS
                    + '''    best = len(scores) - 1 - int(np.argmin(scores[::-1]))
    return sigmas[best], scores
'''},
        "expect": {"ex4-choose-sigma-tests-choice": 0},
        "message": "on a tie, return the first of them",
    },
    # Exercise 4: scikit-learn's KFold for the folds.
    "reference-kfold": {
        "replace": {"ex4-choose-sigma": '''from sklearn.model_selection import KFold


''' + _CV_HEAD + '''    folds = [test for _, test in KFold(n_folds, shuffle=True, random_state=seed).split(X_train)]
''' + _CV_FOLDS + '''    return sigmas[int(np.argmin(scores))], scores
'''},
        "expect": _NO_EX4,
        "message": "calling sklearn.model_selection.KFold gets no credit",
    },
}
