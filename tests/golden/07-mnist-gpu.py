"""Golden submissions of assignment 07 (MNIST on the GPU): common mistakes and reference calls.

Each case is the release with every solution cell filled in from the source, except the
cells in ``replace`` (grade_id -> the whole cell as a student would have typed it).
``expect``: scores of the graded cells listed (every other autograded cell gets full
marks); ``message``: what the failing visible test must say (for a reference call: what the
grader says). A reference call costs the attacked exercise only, whichever way it is reached:
by import, by ``importlib``, by ``getattr`` on a module, or by reading a file and ``exec``-ing it.
"""

_REJECT_HEAD = '''def predict_with_reject(S, classes, threshold, reject):
    S, classes = np.asarray(S, dtype=float), np.asarray(classes)
    if S.ndim != 2 or S.shape[1] != len(classes) or len(classes) < 2 or threshold < 0:
        raise ValueError("S (m, C) with C = len(classes) >= 2, threshold >= 0")
    ordered = np.sort(S, axis=1)
    margin = ordered[:, -1] - ordered[:, -2]
'''

_OVO_HEAD = '''def ovo_predict(K, y, K_test, classes, max_epochs=10):
    K, K_test = np.asarray(K, dtype=float), np.asarray(K_test, dtype=float)
    y, classes = np.asarray(y), np.asarray(classes)
    if not set(y.tolist()) <= set(classes.tolist()) or not set(classes.tolist()) <= set(y.tolist()):
        raise ValueError("labels and classes do not match")
    C, m = len(classes), len(K_test)
    votes, summed = np.zeros((m, C), dtype=int), np.zeros((m, C))
'''

_OVO_PAIRS = '''    for i in range(C):
        for j in range(i + 1, C):
            idx = np.flatnonzero((y == classes[i]) | (y == classes[j]))
            y_pair = np.where(y[idx] == classes[i], 1.0, -1.0)
            alpha, b = binary_dual_fit(K[np.ix_(idx, idx)], y_pair, max_epochs)
            f = K_test[:, idx] @ (alpha * y_pair) + b
'''

_OVR_HEAD = '''def minibatch_ovr(K, y, classes, batch, max_epochs=10):
    K, y, classes = np.asarray(K, dtype=float), np.asarray(y), np.asarray(classes)
    n = len(y)
    if not isinstance(batch, (int, np.integer)) or not 1 <= batch <= n:
        raise ValueError("batch from 1 to n")
    if not set(y.tolist()) <= set(classes.tolist()):
        raise ValueError("batch from 1 to n, labels among the classes")
    Y = np.where(y[None, :] == classes[:, None], 1.0, -1.0)
    alpha, b = np.zeros((len(classes), n)), np.zeros(len(classes))
'''

_NO_EX1 = {"ex1-reject-tests-labels": 0, "ex1-reject-tests-edges": 0}
_NO_EX2 = {"ex2-ovo-tests-votes": 0, "ex2-ovo-tests-ties": 0}
_NO_EX3 = {"ex3-minibatch-tests-blocks": 0, "ex3-minibatch-tests-ends": 0}
_NO_EX4 = {"ex4-trap-tests-small": 0, "ex4-trap-tests-large": 0}

CASES = {
    # ------------------------------------------------------------ common mistakes
    # Column numbers where the labels belong.
    "reject-index": {
        "replace": {"ex1-reject": _REJECT_HEAD + '''    best = S.argmax(axis=1)
    return [reject if m < threshold else int(j) for m, j in zip(margin, best)]
'''},
        "expect": _NO_EX1,
        "message": "return the class labels (classes[j])",
    },
    # A margin equal to the threshold rejected too.
    "reject-at-threshold": {
        "replace": {"ex1-reject": _REJECT_HEAD + '''    best = classes[S.argmax(axis=1)].tolist()
    return [reject if m <= threshold else label for m, label in zip(margin, best)]
'''},
        "expect": _NO_EX1,
        "message": "reject only where the difference is smaller than threshold",
    },
    # Each pair trained with +1 for its later class, its votes read as if +1 were the earlier one.
    "ovo-flipped-vote": {
        "replace": {"ex2-ovo": _OVO_HEAD + _OVO_PAIRS.replace("== classes[i], 1.0", "== classes[j], 1.0") + '''\
            votes[:, i] += f > 0
            votes[:, j] += f <= 0
            summed[:, i] += f
            summed[:, j] -= f
    most = votes == votes.max(axis=1, keepdims=True)
    return classes[np.where(most, summed, -np.inf).argmax(axis=1)], votes
'''},
        "expect": _NO_EX2,
        "message": "a score > 0 is a vote for that class",
    },
    # Tied votes given to the first class, whatever the scores.
    "ovo-first-tie": {
        "replace": {"ex2-ovo": _OVO_HEAD + _OVO_PAIRS + '''            votes[:, i] += f > 0
            votes[:, j] += f <= 0
    return classes[votes.argmax(axis=1)], votes
'''},
        "expect": {"ex2-ovo-tests-ties": 0},
        "message": "the one with the larger summed pairwise score wins",
    },
    # The scores updated visit by visit: the online rule, whatever the block size.
    "minibatch-live": {
        "replace": {"ex3-minibatch": _OVR_HEAD + '''    for _ in range(max_epochs):
        made = 0
        for i in range(n):
            wrong = Y[:, i] * ((alpha * Y) @ K[:, i] + b) <= 0
            alpha[:, i] += wrong
            b += wrong * Y[:, i]
            made += int(wrong.sum())
        if made == 0:
            break
    return alpha, b
'''},
        "expect": _NO_EX3,
        "message": "you updated them visit by visit",
    },
    # The last, shorter block left out of every epoch.
    "minibatch-last-block": {
        "replace": {"ex3-minibatch": _OVR_HEAD + '''    for _ in range(max_epochs):
        made = 0
        for start in range(0, n - batch + 1, batch):
            block = np.arange(start, start + batch)
            F = (alpha * Y) @ K[:, block] + b[:, None]
            wrong = Y[:, block] * F <= 0
            alpha[:, block] += wrong
            b += (wrong * Y[:, block]).sum(axis=1)
            made += int(wrong.sum())
        if made == 0:
            break
    return alpha, b
'''},
        "expect": _NO_EX3,
        "message": "the last block may be shorter than batch",
    },
    # Data on which both rules are quick: one class, all on one side.
    "trap-one-class": {
        "replace": {"ex4-trap": '''def batch_trap(n, epochs):
    if n < 3:
        raise ValueError("n must be at least 3")
    X = np.array([[1.0, 0.01 * i] for i in range(n)]) / 1.01
    return X, np.ones(n), np.array([1.0, 0.0])
'''},
        "expect": _NO_EX4,
        "message": "the batch rule made mistakes in 1 epoch(s)",
    },
    # ------------------------------------------------------------ reference calls
    # The package's kernel perceptron, imported by name, behind the blocks.
    "reference-call": {
        "replace": {"ex3-minibatch": "from kpcourse.perceptron import KernelPerceptron\n\n\n" + _OVR_HEAD
                    + '''    model = KernelPerceptron(kernel="precomputed", max_epochs=max_epochs, shuffle=False)
    model.fit(K, y)
    alpha = np.asarray(model.alpha_, dtype=float).reshape(len(classes), n)
    return alpha, np.asarray(model.intercept_, dtype=float)
'''},
        "expect": _NO_EX3,
        "message": "calling kpcourse.perceptron.KernelPerceptron gets no credit",
    },
    # scikit-learn's one-vs-one, reached with getattr on the imported module.
    "reference-getattr": {
        "replace": {"ex2-ovo": "import sklearn.multiclass as multiclass\n\n\n" + _OVO_HEAD
                    + '''    from sklearn.linear_model import Perceptron
    model = getattr(multiclass, "OneVsOne" + "Classifier")(Perceptron()).fit(K, y)
    return model.predict(K_test), votes
'''},
        "expect": _NO_EX2,
        "message": "uses `getattr`",
    },
    # The package's prediction from scores, reached through importlib.
    "reference-importlib": {
        "replace": {"ex1-reject": _REJECT_HEAD + '''    import importlib
    common = importlib.import_module("kpcourse.perceptron._common")
    best = np.asarray(common.predict_from_scores(classes, S)).tolist()
    return [reject if m < threshold else label for m, label in zip(margin, best)]
'''},
        "expect": _NO_EX1,
        "message": "calling kpcourse.perceptron._common gets no credit",
    },
    # The package's dual trainer file, read and exec-ed.
    "reference-exec": {
        "replace": {"ex4-trap": '''def batch_trap(n, epochs):
    if n < 3:
        raise ValueError("n must be at least 3")
    import kpcourse
    namespace = {"__name__": "kpcourse._dual.train", "__package__": "kpcourse._dual"}
    exec(open(kpcourse.__path__[0] + "/_dual/train.py").read(), namespace)
    X = np.array([[1.0, 0.1 + 0.001 * i] for i in range(n - 1)] + [[1.0, -0.1]])
    X /= np.linalg.norm(X, axis=1).max()
    return X, np.r_[np.ones(n - 1), -1.0], np.array([0.0, 1.0])
'''},
        "expect": _NO_EX4,
        "message": "which the grader cannot check",
    },
}
