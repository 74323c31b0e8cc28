"""Grader of assignment 07 (MNIST on the GPU): references and hidden probes.

Hidden inputs are drawn from the per-notebook seed: score tables with near-ties and labels of
any type, Gram matrices of points in 3 to 5 classes (linear or Gaussian kernel) with test
points, block sizes between 2 and n - 1 that leave a shorter last block, and sizes for the data
on which the batch rule lags.
"""

import numpy as np

from kpcourse.checks import lesson07 as visible
from kpcourse.checks.exercise import Probe
from kpcourse.grading.judge import declared

_shared = declared.shared(__file__)

#: kpcourse (its perceptrons and one-vs-rest), scikit-learn (its multi-class wrappers) and SciPy.
FORBIDDEN = ("kpcourse", "sklearn", "scipy")


# ----------------------------------------------------------------- references
def _classes_of(classes, C=None):
    classes = np.asarray(classes)
    if classes.ndim != 1 or len(classes) < 2 or len(set(classes.tolist())) != len(classes):
        raise ValueError("classes must hold at least two distinct labels")
    if C is not None and C != len(classes):
        raise ValueError(f"S has {C} columns but there are {len(classes)} classes")
    return classes


def predict_with_reject(S, classes, threshold, reject, mistake=None):
    """classes[argmax] per row, or ``reject`` where the top score beats the runner-up by less than threshold."""
    S = np.asarray(S, dtype=float)
    if S.ndim != 2:
        raise ValueError("S must be 2-D")
    classes = _classes_of(classes, S.shape[1])
    if not threshold >= 0:
        raise ValueError("threshold must be >= 0")
    ordered = np.sort(S, axis=1)
    runner_up = ordered[:, 1] if mistake == "second_smallest" else ordered[:, -2]
    margin = ordered[:, -1] - runner_up
    rejected = margin <= threshold if mistake == "at_threshold" else margin < threshold
    best = S.argmax(axis=1)
    picked = best if mistake == "index" else classes[best]
    return [reject if r else p for r, p in zip(rejected, picked.tolist(), strict=True)]


def _labelled(K, y, classes):
    K, y, classes = np.asarray(K, dtype=float), np.asarray(y), _classes_of(classes)
    if K.shape != (len(y), len(y)):
        raise ValueError("K must be (n, n) with one label per row")
    missing = [c for c in classes.tolist() if c not in set(y.tolist())]
    if missing or not set(y.tolist()) <= set(classes.tolist()):
        raise ValueError("every label must be a class, and every class must have a training point")
    return K, y, classes


def _pairwise(K, y, K_test, classes, max_epochs, mistake=None):
    """(i, j, f) for every pair i < j of classes: the test scores of the pair's perceptron (+1: classes[i])."""
    out = []
    for i in range(len(classes)):
        for j in range(i + 1, len(classes)):
            if mistake == "all_points":
                idx = np.arange(len(y))
            else:
                idx = np.flatnonzero((y == classes[i]) | (y == classes[j]))
            y_pm = np.where(y[idx] == classes[i], 1.0, -1.0)
            alpha, b = _shared.dual_perceptron(K[np.ix_(idx, idx)], y_pm, max_epochs)
            f = K_test[:, idx] @ (alpha * y_pm) + (0.0 if mistake == "no_bias" else b)
            out.append((i, j, -f if mistake == "flipped_vote" else f))
    return out


def ovo_predict(K, y, K_test, classes, max_epochs=10, mistake=None):
    """One binary perceptron per pair of classes, trained on that pair's points; votes, ties broken by the
    summed pairwise scores, then by the order of ``classes``. Returns (labels, votes)."""
    K, y, classes = _labelled(K, y, classes)
    K_test = np.asarray(K_test, dtype=float)
    if K_test.ndim != 2 or K_test.shape[1] != len(y):
        raise ValueError("K_test must be (m, n)")
    votes, summed = np.zeros((len(K_test), len(classes)), dtype=int), np.zeros((len(K_test), len(classes)))
    for i, j, f in _pairwise(K, y, K_test, classes, max_epochs, mistake):
        votes[:, i] += f > 0
        votes[:, j] += f <= 0
        summed[:, i] += f
        summed[:, j] -= f
    if mistake == "first_tie":
        winner = votes.argmax(axis=1)
    else:
        top = votes == votes.max(axis=1, keepdims=True)
        winner = np.where(top, summed, -np.inf).argmax(axis=1)
    return classes[winner], votes


def minibatch_ovr(K, y, classes, batch, max_epochs=10, mistake=None):
    """One-vs-rest dual perceptrons trained in blocks of ``batch`` visits: scores frozen within a block,
    its mistakes applied together; stops after an epoch without a mistake in any class."""
    K, y, classes = _labelled(K, y, classes)
    n = len(y)
    if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or not 1 <= batch <= n:
        raise ValueError("batch must be a whole number from 1 to n")
    Y = np.where(y[:, None] == classes[None, :], 1.0, -1.0).T  # (C, n)
    alpha, b = np.zeros((len(classes), n)), np.zeros(len(classes))
    starts = range(0, n - batch + 1 if mistake == "last_block" else n, batch)
    for _ in range(max_epochs):
        made = 0
        for s in starts:
            blk = np.arange(s, min(s + batch, n))
            if mistake == "live":  # the scores move inside the block: the online rule
                for i in blk:
                    wrong = Y[:, i] * ((alpha * Y) @ K[:, i] + b) <= 0
                    alpha[:, i] += wrong
                    b += wrong * Y[:, i]
                    made += int(wrong.sum())
                continue
            F = (alpha * Y) @ K[:, blk] + b[:, None]
            margin = Y[:, blk] * F
            wrong = margin < 0 if mistake == "strict" else margin <= 0
            alpha[:, blk] += wrong
            if mistake != "no_bias":
                b += (wrong * Y[:, blk]).sum(axis=1)
            made += int(wrong.sum())
        if made == 0:
            break
    return alpha, b


def batch_trap(n, epochs, mistake=None):
    """n - 1 points of one class nearly along one direction and one of the other class just across: the
    batch rule's first step overshoots and each later epoch takes back one point's worth."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 3:
        raise ValueError("n must be a whole number >= 3")
    X = np.r_[np.c_[np.ones(n - 1), 0.1 + 0.001 * np.arange(n - 1)], [[1.0, -0.1]]]
    X /= np.linalg.norm(X, axis=1).max()
    return X, np.r_[np.ones(n - 1), -1.0], np.array([0.0, 1.0])


REFERENCES = {"predict_with_reject": predict_with_reject, "ovo_predict": ovo_predict,
              "minibatch_ovr": minibatch_ovr, "batch_trap": batch_trap}


# --------------------------------------------------------------- hidden probes
_NAMES = ("ant", "bee", "cat", "dog", "eel")


def _labels(rng, C):
    """C labels of a random type: small ints, strings, or floats."""
    kind = int(rng.integers(3))
    if kind == 0:
        return rng.permutation(10)[:C]
    if kind == 1:
        return np.array(rng.permutation(np.array(_NAMES))[:C])
    return np.sort(rng.choice(np.arange(-3.0, 4.0, 0.5), size=C, replace=False))


def _scores(rng, m, C, threshold):
    """Scores with some rows' top two exactly threshold apart, some nearer, some farther (halves: exact)."""
    S = rng.integers(-8, 9, size=(m, C)) / 2.0
    for r in rng.choice(m, size=m // 3, replace=False):
        top, second = rng.choice(C, size=2, replace=False)
        S[r, second] = S[r].max() + 1.0
        S[r, top] = S[r, second] + threshold + float(rng.choice([-0.5, 0.0, 0.5]))
    return S


def _reject_labels(rng):
    probes = []
    for C in (3, 4, 6):
        classes = _labels(rng, C) if C <= 5 else rng.permutation(20)[:C]
        threshold = float(rng.choice([0.5, 1.0, 1.5]))
        probes.append(Probe((_scores(rng, 12, C, threshold), classes, threshold, "?")))
    return probes


def _reject_edges(rng):
    C = int(rng.integers(3, 6))
    classes, S = _labels(rng, C), rng.integers(-4, 5, size=(10, 5)) / 2.0
    S = S[:, :C]
    return [Probe((S, classes, 0.0, -1)), Probe((_scores(rng, 10, C, 1.0), classes, 1.0, "none")),
            Probe((S, classes[:2], 1.0, "?"), raises="ValueError", why="S has more columns than classes")]


def _classified(rng, n, C, d=2):
    """n points around C centres, every class present, shuffled; and 15 test points."""
    centres = rng.normal(scale=2.0, size=(C, d))
    labels = np.r_[np.arange(C), rng.integers(0, C, size=n - C)]
    labels = labels[rng.permutation(n)]
    X = centres[labels] + rng.normal(size=(n, d))
    Xt = centres[rng.integers(0, C, size=15)] + rng.normal(scale=1.5, size=(15, d))
    return X, labels, Xt


def _kernel(rng):
    """A kernel of a random kind: linear, (x·z/2 + 1)², or Gaussian."""
    kind, sigma = int(rng.integers(3)), float(rng.choice([1.0, 1.5, 2.0]))
    if kind == 0:
        return lambda A, B: A @ B.T
    if kind == 1:
        return lambda A, B: (A @ B.T / 2 + 1) ** 2
    return lambda A, B: np.exp(-((A[:, None] - B[None]) ** 2).sum(-1) / (2 * sigma ** 2))


def _clear(K, y, K_test, classes, max_epochs):
    """Test points whose every pairwise score is at least 1e-6 from 0 (no vote hangs on rounding)."""
    f = np.array([abs(f) for _, _, f in _pairwise(K, y, K_test, classes, max_epochs)])
    return f.min(axis=0) > 1e-6


def _ovo_probe(rng, C, n):
    X, labels, Xt = _classified(rng, n, C)
    classes, k, epochs = _labels(rng, C), _kernel(rng), int(rng.integers(3, 12))
    K, y, Kt = k(X, X), classes[labels], k(Xt, X)
    Kt = Kt[_clear(K, y, Kt, classes, epochs)]
    right, first = (ovo_predict(K, y, Kt, classes, epochs, mistake=m)[0] for m in (None, "first_tie"))
    return Probe((K, y, Kt[right == first], classes, epochs))  # tie-breaking is the other cell's


def _ovo_votes(rng):
    return [_ovo_probe(rng, C, n) for C, n in ((3, 24), (4, 30), (5, 40))]


def _ovo_ties(rng):
    """Three classes and test points where the votes go round and the summed scores do not pick the first."""
    for _ in range(100):
        X, labels, _ = _classified(rng, int(rng.integers(15, 25)), 3)
        classes, k, epochs = _labels(rng, 3), _kernel(rng), int(rng.integers(3, 12))
        Xt = rng.uniform(-5, 5, size=(400, 2))
        K, y, Kt = k(X, X), classes[labels], k(Xt, X)
        Kt = Kt[_clear(K, y, Kt, classes, epochs)]
        right, first = (ovo_predict(K, y, Kt, classes, epochs, mistake=m)[0] for m in (None, "first_tie"))
        ties = np.flatnonzero(right != first)
        if len(ties) >= 2:
            keep = np.r_[ties[:3], np.flatnonzero(right == first)[:7]]
            return [Probe((K, y, Kt[np.sort(keep)], classes, epochs)),
                    Probe((K, y, Kt[:3], classes[:2], epochs), raises="ValueError",
                          why="a label is not one of the classes")]
    raise RuntimeError("no tied votes found")  # pragma: no cover - a few draws always find some


def _ovr_probe(rng, C, n, batch, max_epochs):
    X, labels, _ = _classified(rng, n, C)
    classes = _labels(rng, C)
    sigma = float(rng.choice([1.0, 1.5, 2.0]))
    K = X @ X.T if rng.integers(2) else np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / (2 * sigma ** 2))
    return Probe((K, classes[labels], classes, batch, max_epochs))


def _telling(draw, mistakes):
    """A minibatch_ovr probe from ``draw()`` on which every one of ``mistakes`` gives another answer."""
    return _shared.telling(draw, minibatch_ovr, mistakes)


def _minibatch_blocks(rng):
    probes = []
    for C, B in ((2, 2), (3, 3), (4, 7)):
        n = int(rng.integers(15, 30))
        n += (n % B == 0)  # a shorter last block
        probes.append(_telling(lambda C=C, n=n, B=B: _ovr_probe(rng, C, n, B, int(rng.integers(5, 20))),
                               ("last_block", "live", "no_bias", "strict")))
    return probes


def _minibatch_ends(rng):
    n = int(rng.integers(12, 20))
    return [_ovr_probe(rng, 3, n, 1, 10), _ovr_probe(rng, 3, n, n, 10),
            _telling(lambda: _ovr_probe(rng, 2, n, n - 1, 10), ("last_block",)),
            Probe((np.eye(3), np.array([0, 1, 0]), np.array([0, 1]), 0, 5), raises="ValueError",
                  why="batch is 0")]


def _trap_small(rng):
    return [Probe((int(rng.integers(5, 8)), 2)), Probe((2, 1), raises="ValueError", why="n is 2")]


def _trap_large(rng):
    return [Probe((n, n - 2)) for n in (int(rng.integers(8, 12)), int(rng.integers(15, 21)))]


HIDDEN = {"ex1-reject-tests-labels": _reject_labels, "ex1-reject-tests-edges": _reject_edges,
          "ex2-ovo-tests-votes": _ovo_votes, "ex2-ovo-tests-ties": _ovo_ties,
          "ex3-minibatch-tests-blocks": _minibatch_blocks, "ex3-minibatch-tests-ends": _minibatch_ends,
          "ex4-trap-tests-small": _trap_small, "ex4-trap-tests-large": _trap_large}

visible_data, cells = declared.grader(visible.LESSON, REFERENCES, HIDDEN)
