"""Golden submissions of assignment 02 (the perceptron by hand): common mistakes, the nearest
course code adapted, the lazy answer, and reference calls.

Every reference that comes near an exercise is tried (kpcourse's perceptron for the cycle,
scikit-learn's perceptron, SciPy's ``linprog`` for the certificate), by import, by
``importlib``, by ``getattr`` on its module or by ``exec``-ing its file: the attacked exercise
gets 0, every other exercise full marks.

Each case is the release with every solution cell filled in from the source, except the
cells in ``replace`` (grade_id -> the whole cell as a student would have typed it).
``expect``: scores of the graded cells listed (every other autograded cell gets full
marks); ``message``: what the failing visible test must say.
"""

_REPEATS_HEAD = '''def repeats_to_fix(w, b, X, y, learning_rate):
    w, X, y = np.asarray(w, dtype=float), np.asarray(X, dtype=float), np.asarray(y)
    if X.ndim != 2 or X.shape[1] != w.shape[0] or y.shape != (len(X),):
        raise ValueError("X must have len(w) columns and y one label per row")
    if learning_rate <= 0:
        raise ValueError("learning_rate must be positive")
    score = y * (X @ w + b)
'''

_NOVIKOFF_HEAD = '''def novikoff_slack(X, y, order, u, learning_rate):
    X, y, u = np.asarray(X, dtype=float), np.asarray(y, dtype=float), np.asarray(u, dtype=float)
    Xt = np.hstack([X, np.ones((len(X), 1))])
    if u.shape != (Xt.shape[1],) or abs(np.linalg.norm(u) - 1.0) > 1e-9:
        raise ValueError("u must be a unit vector with d + 1 entries")
    gamma = np.min(y * (Xt @ u))
    if gamma <= 0:
        raise ValueError("u does not separate the points")
    order = np.asarray(order, dtype=int)
    k = np.arange(1, len(order) + 1)
'''

_CYCLE_HEAD = '''def cycle_of(X, y, max_epochs):
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    if len(X) != len(y) or max_epochs < 1:
        raise ValueError("X and y must match and max_epochs be at least 1")
'''

_CERTIFICATE_HEAD = '''def separation_certificate(X, y):
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    if X.ndim != 2 or X.shape[1] != 2 or y.shape != (len(X),):
        raise ValueError("X must have shape (n, 2) and y one label per row")
    plus = [int(i) for i in np.flatnonzero(y == 1)]
    minus = [int(i) for i in np.flatnonzero(y == -1)]
'''

# Lesson 02 cell 30's search (a -1 point inside a triangle of +1 points), made a function: the
# nearest course code, and the first half of the answer.
_MINUS_IN_PLUS = '''    for j in minus:
        for tri in itertools.combinations(plus, 3):
            A = np.vstack([X[list(tri)].T, np.ones(3)])
            if abs(np.linalg.det(A)) < 1e-9:
                continue
            c = np.linalg.solve(A, np.append(X[j], 1.0))
            if c.min() >= 0:
                return list(tri), c.tolist(), [j], [1.0]
'''

_PLUS_IN_MINUS = _MINUS_IN_PLUS.replace("minus", "MINUS").replace("plus", "minus").replace("MINUS", "plus").replace(
    "return list(tri), c.tolist(), [j], [1.0]", "return [j], [1.0], list(tri), c.tolist()")

# SciPy's linprog finds convex weights on both sides with the same sum: a basic solution has at
# most 4 weights different from 0 (4 equations). Right, and a reference call.
_LINPROG = '''    from scipy.optimize import linprog

    A = np.vstack([np.c_[X[plus].T, -X[minus].T],
                   np.r_[np.ones(len(plus)), np.zeros(len(minus))],
                   np.r_[np.zeros(len(plus)), np.ones(len(minus))]])
    res = linprog(np.zeros(len(X)), A_eq=A, b_eq=[0, 0, 1, 1], bounds=(0, None), method="highs-ds")
    if res.status != 0:
        return None
    lam, mu = res.x[:len(plus)], res.x[len(plus):]
    keep_p, keep_m = np.flatnonzero(lam > 1e-12), np.flatnonzero(mu > 1e-12)
    return ([plus[i] for i in keep_p], (lam[keep_p] / lam[keep_p].sum()).tolist(),
            [minus[i] for i in keep_m], (mu[keep_m] / mu[keep_m].sum()).tolist())
'''

# The cycle from the package's perceptron: one epoch at a time, the end state read off its trace.
_BY_PERCEPTRON = '''    seen, made = {(0.0,) * (X.shape[1] + 1): 0}, [0]
    for epoch in range(1, max_epochs + 1):
        clf = Perceptron(learning_rate=1.0, max_epochs=epoch).fit(X, y)
        state = tuple(clf.trace_[-1, 3:])
        made.append(int(clf.trace_[clf.trace_[:, 0] == clf.trace_[-1, 0], 2].sum()))
        if state in seen:
            return seen[state], epoch - seen[state], sum(made[seen[state] + 1:])
        seen[state] = epoch
    return None
'''

_ALL_CERTIFICATE = {"ex4-certificate-tests-triangle": 0, "ex4-certificate-tests-crossing": 0,
                    "ex4-certificate-tests-random": 0}
_ALL_CYCLE = {"ex3-cycle-tests-values": 0, "ex3-cycle-tests-limit": 0}

CASES = {
    # A point is fixed when its score reaches 0 (ceil instead of floor + 1): wrong exactly at the
    # multiples of the gain, which the probes plant, far away too.
    "repeats-strict": {
        "replace": {"ex1-repeats": _REPEATS_HEAD + '''    gain = learning_rate * (np.sum(X * X, axis=1) + 1.0)
    return np.where(score >= 0, 0, np.ceil(-score / gain)).astype(int)
'''},
        "expect": {"ex1-repeats-tests-values": 0, "ex1-repeats-tests-large": 0},
        "message": "a point whose score y(w·x + b) is exactly 0 is still a mistake",
    },
    # Right, by applying the update again and again: hopeless for 2**40 updates.
    "repeats-loop": {
        "replace": {"ex1-repeats": _REPEATS_HEAD + '''    counts = np.zeros(len(X), dtype=int)
    for i in range(len(X)):
        w_i, b_i = w.copy(), b
        while y[i] * (X[i] @ w_i + b_i) <= 0:
            w_i, b_i = w_i + learning_rate * y[i] * X[i], b_i + learning_rate * y[i]
            counts[i] += 1
    return counts
'''},
        "expect": {"ex1-repeats-tests-values": 1, "ex1-repeats-tests-large": 0},
        "message": "repeats_to_fix ran for more than",
    },
    # The gain without the bias's share: each update adds η||x||² only.
    "repeats-no-one": {
        "replace": {"ex1-repeats": _REPEATS_HEAD + '''    gain = learning_rate * np.sum(X * X, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(score > 0, 0, np.floor(-score / gain) + 1).astype(int)
'''},
        "expect": {"ex1-repeats-tests-values": 0, "ex1-repeats-tests-large": 0},
        "message": "each update also moves the bias",
    },
    # R without the constant feature.
    "novikoff-no-constant": {
        "replace": {"ex2-novikoff": _NOVIKOFF_HEAD + '''    R2 = np.max(np.sum(X * X, axis=1))
    W = learning_rate * np.cumsum(y[order, None] * Xt[order], axis=0)
    return W @ u - learning_rate * k * gamma, learning_rate ** 2 * k * R2 - np.sum(W * W, axis=1)
'''},
        "expect": {"ex2-novikoff-tests-values": 0, "ex2-novikoff-tests-forged": 0, "ex2-novikoff-tests-inputs": 0},
        "message": "R is the largest length of a point with its constant feature",
    },
    # The weights before each update.
    "novikoff-before": {
        "replace": {"ex2-novikoff": _NOVIKOFF_HEAD + '''    R2 = np.max(np.sum(Xt * Xt, axis=1))
    steps = learning_rate * y[order, None] * Xt[order]
    W = np.cumsum(steps, axis=0) - steps
    return W @ u - learning_rate * k * gamma, learning_rate ** 2 * k * R2 - np.sum(W * W, axis=1)
'''},
        "expect": {"ex2-novikoff-tests-values": 0, "ex2-novikoff-tests-forged": 0, "ex2-novikoff-tests-inputs": 0},
        "message": "use the weights right after the k-th update",
    },
    # The state before the first epoch is never recorded: XOR's cycle is found one epoch late.
    "cycle-from-one": {
        "replace": {"ex3-cycle": _CYCLE_HEAD + '''    w, b, seen, made = np.zeros(X.shape[1]), 0.0, {}, [0]
    for epoch in range(1, max_epochs + 1):
        made.append(0)
        for i in range(len(X)):
            if y[i] * (X[i] @ w + b) <= 0:
                w, b = w + y[i] * X[i], b + y[i]
                made[-1] += 1
        if (b, *w) in seen:
            mu = seen[(b, *w)]
            return mu, epoch - mu, sum(made[mu + 1:])
        seen[(b, *w)] = epoch
    return None
'''},
        "expect": _ALL_CYCLE,
        "message": "the state before the first epoch, all zeros, is epoch 0",
    },
    # The lesson's loop, which stops on a clean epoch: right on separable data only.
    "cycle-stop-when-clean": {
        "replace": {"ex3-cycle": _CYCLE_HEAD + '''    w, b = np.zeros(X.shape[1]), 0.0
    for epoch in range(1, max_epochs + 1):
        made = 0
        for i in range(len(X)):
            if y[i] * (X[i] @ w + b) <= 0:
                w, b = w + y[i] * X[i], b + y[i]
                made += 1
        if made == 0:
            return epoch - 1, 1, 0
    return None
'''},
        "expect": _ALL_CYCLE,
        "message": "returned None, but an end-of-epoch state repeats",
    },
    # The lesson's triangle search only: no certificate when a +1 point is the one inside.
    "certificate-one-way": {
        "replace": {"ex4-certificate": "import itertools\n\n\n" + _CERTIFICATE_HEAD + _MINUS_IN_PLUS
                    + "    return None\n"},
        "expect": _ALL_CERTIFICATE,
        "message": "no line separates these points",
    },
    # Both triangle searches, no crossing segments: XOR-like points get None.
    "certificate-no-crossing": {
        "replace": {"ex4-certificate": "import itertools\n\n\n" + _CERTIFICATE_HEAD + _MINUS_IN_PLUS + _PLUS_IN_MINUS
                    + "    return None\n"},
        "expect": {"ex4-certificate-tests-triangle": 1, "ex4-certificate-tests-crossing": 0,
                   "ex4-certificate-tests-random": 0},
        "message": "no line separates these points",
    },
    # The lazy answer: None, as if every set were separable.
    "certificate-always-none": {
        "replace": {"ex4-certificate": '''def separation_certificate(X, y):
    return None
'''},
        "expect": _ALL_CERTIFICATE,
        "message": "no line separates these points",
    },
    # Crossing segments found, but the weights of each segment's ends swapped: two different points.
    "certificate-crossing-weights": {
        "replace": {"ex4-certificate": "import itertools\n\n\n" + _CERTIFICATE_HEAD + _MINUS_IN_PLUS + _PLUS_IN_MINUS
                    + '''    for p in itertools.combinations(plus, 2):
        for m in itertools.combinations(minus, 2):
            M = np.column_stack([X[p[1]] - X[p[0]], X[m[0]] - X[m[1]]])
            if abs(np.linalg.det(M)) < 1e-12:
                continue
            s, t = np.linalg.solve(M, X[m[0]] - X[p[0]])
            if 0 <= s <= 1 and 0 <= t <= 1:
                return list(p), [s, 1 - s], list(m), [t, 1 - t]
    return None
'''},
        "expect": {"ex4-certificate-tests-triangle": 1, "ex4-certificate-tests-crossing": 0,
                   "ex4-certificate-tests-random": 0},
        "message": "they must be the same point",
    },
    # SciPy's linprog, imported by name.
    "reference-linprog": {
        "replace": {"ex4-certificate": _CERTIFICATE_HEAD + _LINPROG},
        "expect": _ALL_CERTIFICATE,
        "message": "calling scipy.optimize.linprog gets no credit",
    },
    # The package's perceptron, imported by name.
    "reference-call": {
        "replace": {"ex3-cycle": "from kpcourse.perceptron import Perceptron\n\n\n" + _CYCLE_HEAD + _BY_PERCEPTRON},
        "expect": _ALL_CYCLE,
        "message": "calling kpcourse.perceptron.Perceptron gets no credit",
    },
    # The package's perceptron reached through importlib.
    "reference-importlib": {
        "replace": {"ex3-cycle": _CYCLE_HEAD + '''    import importlib
    Perceptron = importlib.import_module("kpcourse.perceptron").Perceptron
''' + _BY_PERCEPTRON},
        "expect": _ALL_CYCLE,
        "message": "calling kpcourse.perceptron gets no credit",
    },
    # The package's perceptron reached through getattr on its module.
    "reference-getattr": {
        "replace": {"ex3-cycle": "import kpcourse.perceptron as module\n\n\n" + _CYCLE_HEAD
                    + '''    Perceptron = getattr(module, "Percep" + "tron")
''' + _BY_PERCEPTRON},
        "expect": _ALL_CYCLE,
        "message": "uses `getattr`",
    },
    # The package's perceptron file read and exec-ed.
    "reference-exec-file": {
        "replace": {"ex3-cycle": _CYCLE_HEAD + '''    import kpcourse.perceptron._primal as primal
    namespace = {"__name__": "kpcourse.perceptron._primal", "__package__": "kpcourse.perceptron"}
    exec(open(primal.__file__).read(), namespace)
    Perceptron = namespace["Perceptron"]
''' + _BY_PERCEPTRON},
        "expect": _ALL_CYCLE,
        "message": "which the grader cannot check",
    },
    # scikit-learn's perceptron, one epoch at a time (partial_fit), the state read off coef_.
    "reference-sklearn": {
        "replace": {"ex3-cycle": "from sklearn.linear_model import Perceptron\n\n\n" + _CYCLE_HEAD
                    + '''    clf = Perceptron(eta0=1.0, shuffle=False)
    seen = {(0.0,) * (X.shape[1] + 1): 0}
    for epoch in range(1, max_epochs + 1):
        clf.partial_fit(X, y, classes=[-1, 1])
        state = (float(clf.intercept_[0]), *clf.coef_[0].tolist())
        if state in seen:
            return seen[state], epoch - seen[state], 0
        seen[state] = epoch
    return None
'''},
        "expect": _ALL_CYCLE,
        "message": "calling sklearn.linear_model.Perceptron gets no credit",
    },
}
