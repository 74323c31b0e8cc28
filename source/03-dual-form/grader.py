"""Grader of assignment 03 (the dual form): references and hidden probes.

Hidden inputs are drawn from the per-notebook seed: Gram matrices of random points (linear,
quadratic and Gaussian kernels), separable or not, and small integer coordinates where the
answer is a sum (every value exact in floating point). ``loo_predictions`` retrains with the
notebook's locked helper, lesson 03's rule: ``dual_perceptron`` of ``source/references.py``.
"""

import numpy as np

from kpcourse.checks import lesson03 as visible
from kpcourse.checks.exercise import Probe
from kpcourse.grading.judge import declared
from kpcourse.grading.judge.testdata import random_separable

_shared = declared.shared(__file__)
dual_perceptron = _shared.dual_perceptron

#: kpcourse (its perceptrons and kernels), scikit-learn and SciPy (scipy.linalg.null_space, ...).
FORBIDDEN = ("kpcourse", "sklearn", "scipy")


# ----------------------------------------------------------------- references
def _model(X, y, alpha):
    X, y, alpha = np.asarray(X, dtype=float), np.asarray(y), np.asarray(alpha, dtype=float)
    if X.ndim != 2 or y.shape != (len(X),) or alpha.shape != (len(X),):
        raise ValueError("X must be (n, d), y and alpha of length n")
    if np.any(alpha < 0):
        raise ValueError("alpha must not be negative")
    return X, y, alpha


def merge_duplicates(X, y, alpha, mistake=None):
    """The distinct rows with a non-zero Σ_copies alpha_i y_i (np.unique order), and those sums."""
    X, y, alpha = _model(X, y, alpha)
    c = alpha * (1 if mistake == "counts" else y)
    if mistake == "no_merge":
        return X[c != 0], c[c != 0]
    rows, first, inverse = np.unique(X, axis=0, return_index=True, return_inverse=True)
    total = np.zeros(len(rows))
    np.add.at(total, inverse.ravel(), c)
    keep = np.ones(len(rows), dtype=bool) if mistake == "keeps_zero" else total != 0
    order = np.argsort(first[keep], kind="stable") if mistake == "first_seen" else slice(None)
    return rows[keep][order], total[keep][order]


def _gram(K, y):
    K, y = np.asarray(K, dtype=float), np.asarray(y)
    if K.shape != (len(y), len(y)):
        raise ValueError("K must be (n, n) for n = len(y)")
    return K, y


def dual_train_decay(K, y, eta0=1.0, power=0.5, max_epochs=100, mistake=None):
    """Counts, summed steps a and bias of the dual perceptron whose visit t steps eta0·t**(-power)."""
    K, y = _gram(K, y)
    if eta0 <= 0 or power < 0:
        raise ValueError("eta0 must be positive and power at least 0")
    n = len(y)
    alpha, a, b, t, epoch, made = np.zeros(n, dtype=np.int64), np.zeros(n), 0.0, 0, 0, 0
    for epoch in range(1, max_epochs + 1):
        errors = 0
        for i in range(n):
            t += 1
            score = np.dot((alpha if mistake == "score_counts" else a) * y, K[:, i]) + b
            if (y[i] * score < 0) if mistake == "strict" else (y[i] * score <= 0):
                made += 1
                clock = {"mistake_clock": made, "epoch_clock": epoch}.get(mistake, t)
                step = eta0 * float(clock) ** (-power)
                alpha[i] += 1
                a[i] += step
                b += {"no_bias": 0.0, "bias_eta0": eta0}.get(mistake, step) * y[i]
                errors += 1
        if errors == 0:
            break
    return alpha, a, float(b)


def loo_predictions(K, y, max_epochs=100, mistake=None):
    """For each i, the label the dual perceptron trained without point i gives x_i (score 0 -> -1)."""
    K, y = _gram(K, y)
    n = len(y)
    full_alpha, full_b = dual_perceptron(K, y, max_epochs)
    full = np.where(K @ (full_alpha * y) + full_b > 0, 1, -1)
    if mistake == "full":
        return full
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        if full_alpha[i] == 0:  # never erred: the run without it is the same run
            out[i] = y[i] if mistake == "truth" else full[i]
            continue
        rest = np.delete(np.arange(n), i)
        alpha, b = dual_perceptron(K[np.ix_(rest, rest)], y[rest], max_epochs)
        score = np.dot(alpha * y[rest], K[rest, i]) + (0.0 if mistake == "no_bias" else b)
        out[i] = 1 if score > 0 or (mistake == "zero_plus" and score == 0) else -1
    return out


def caratheodory(X, y, alpha, mistake=None):
    """alpha' >= 0 on at most d + 1 independent points of alpha's support, same Σ alpha_i y_i (x_i, 1)."""
    X, y, alpha = _model(X, y, alpha)
    V = y[:, None] * np.c_[X, np.ones(len(X))]
    if mistake in ("outside", "negative"):  # the least-squares coefficients: any sign, on all points or d + 1
        S = np.arange(len(X)) if mistake == "outside" else np.flatnonzero(alpha > 0)[:V.shape[1]]
        new = np.zeros(len(X))
        new[S] = np.linalg.lstsq(V[S].T, alpha @ V, rcond=None)[0]
        return new
    if mistake == "dependent":
        return alpha.copy()
    if mistake in ("no_bias", "w"):  # the null space of the vectors without the 1, or without the labels
        V = y[:, None] * X if mistake == "no_bias" else np.c_[X, np.ones(len(X))]
    new = alpha.copy()
    while True:
        S = np.flatnonzero(new > 0)
        m = next((m for m in range(1, len(S) + 1) if np.linalg.matrix_rank(V[S[:m]]) < m), None)
        if m is None:  # the support's vectors are independent
            return new
        S = S[:m]  # the first dependent points: v_last = Σ c_j v_j, one direction z = (-c, 1) up to scale
        c = np.linalg.lstsq(V[S[:-1]].T, V[S[-1]], rcond=None)[0]
        z = np.r_[-c, 1.0]  # Σ z_i v_i = 0, and its last entry is positive: some coefficient can reach 0
        pos = z > 1e-12 * np.abs(z).max()
        ratio = np.full(m, np.inf)
        ratio[pos] = new[S][pos] / z[pos]
        step = ratio.min()
        new[S] = np.maximum(new[S] - step * z, 0.0)
        new[S[ratio <= step * (1 + 1e-9)]] = 0.0  # every coefficient that reaches 0 (ties broken alike anywhere)


REFERENCES = {"merge_duplicates": merge_duplicates, "dual_train_decay": dual_train_decay,
              "loo_predictions": loo_predictions, "caratheodory": caratheodory}


# --------------------------------------------------------------- hidden probes
def _copies(rng, n, d, low=-3, high=4):
    """n points with integer coordinates, many of them repeated, labels ±1 and counts 0-3."""
    distinct = rng.integers(low, high, size=(max(2, n // 2), d)).astype(float)
    X = distinct[rng.integers(0, len(distinct), size=n)]
    return X, rng.choice([-1, 1], size=n), rng.integers(0, 4, size=n)


def _merge_values(rng):
    return [Probe(_copies(rng, n, d)) for n, d in ((12, 2), (30, 3), (9, 1))]


def _merge_cancel(rng):
    X, y, alpha = _copies(rng, 10, 2)
    X2 = np.r_[X, X]  # every point twice, with the opposite label and the same count: everything cancels
    return [Probe((X2, np.r_[y, -y], np.r_[alpha, alpha])),
            Probe((X.tolist(), y.tolist(), alpha.tolist())),
            Probe((X, y, np.r_[alpha[:-1], 0])),
            Probe((X, y, np.r_[-1, alpha[1:]]), raises="ValueError", why="alpha[0] is negative"),
            Probe((X, y[:-1], alpha), raises="ValueError", why="y has one label fewer than X has rows")]


def _separable(rng, n, d, kernel="linear"):
    X, y = random_separable(n, d, random_state=int(rng.integers(2**31)))
    G = X @ X.T
    K = {"linear": G, "quadratic": (1.0 + G) ** 2}[kernel]
    return K, y


def _noisy(rng, n, d, flips=2):
    """Separable data with some labels flipped: no clean epoch, so max_epochs ends the run."""
    K, y = _separable(rng, n, d)
    y = y.copy()
    y[rng.choice(n, size=flips, replace=False)] *= -1
    return K, y


def _decay_steps(rng):
    probes = [Probe(_separable(rng, n, d), {"eta0": float(rng.choice([0.5, 1.0, 2.0])),
                                            "power": float(rng.choice([0.5, 1.0])), "max_epochs": 200})
              for n, d in ((20, 2), (30, 3))]
    K, y = _separable(rng, 25, 2, "quadratic")
    return [*probes, Probe((K, y), {"eta0": 1.0, "power": float(rng.uniform(0.2, 0.9)), "max_epochs": 200})]


def _decay_inputs(rng):
    K, y = _noisy(rng, 15, 2)
    K4, y4 = _separable(rng, 8, 2)
    return [Probe((K, y), {"eta0": 1.0, "power": 0.5, "max_epochs": int(rng.integers(3, 8))}),
            Probe((K4.tolist(), y4.tolist()), {"eta0": float(rng.choice([0.1, 3.0])), "power": 1.0,
                                               "max_epochs": 200}),
            Probe((K4, y4), {"eta0": 0.5, "power": 0.0, "max_epochs": 200}),
            Probe((K4[:, :-1], y4), {"eta0": 1.0, "power": 0.5, "max_epochs": 5}, raises="ValueError",
                  why="K has one column fewer than it has rows"),
            Probe((K4, y4), {"eta0": 0.0, "power": 0.5, "max_epochs": 5}, raises="ValueError", why="eta0 is 0"),
            Probe((K4, y4), {"eta0": 1.0, "power": -1.0, "max_epochs": 5}, raises="ValueError", why="power < 0")]


def _loo_values(rng):
    return [Probe(_separable(rng, n, d, kernel), {"max_epochs": 100})
            for n, d, kernel in ((20, 2, "linear"), (25, 3, "linear"), (15, 2, "quadratic"))]


def _loo_stopped(rng):
    stopped = [Probe(_noisy(rng, n, 2, flips), {"max_epochs": int(rng.integers(2, 6))})
               for n, flips in ((20, 2), (16, 3))]
    return [*stopped,
            Probe((np.ones((3, 4)), np.array([1, -1, 1])), {"max_epochs": 5}, raises="ValueError",
                  why="K has shape (3, 4)")]


def _support(rng, n, d):
    """n integer points (some repeated, some on one line) with labels and counts: a model to shrink."""
    X = rng.integers(-3, 4, size=(n, d)).astype(float)
    X[n // 3] = X[0]                                    # a repeated point
    X[n // 2] = 2 * X[1] - X[2]                         # three points on one line
    return X, rng.choice([-1, 1], size=n), rng.integers(0, 4, size=n)


def _carath_values(rng):
    probes = [Probe(_support(rng, n, d)) for n, d in ((30, 2), (30, 3), (30, 5))]
    X, y, alpha = _support(rng, 20, 4)
    return [*probes, Probe((X, y, alpha + rng.uniform(0.0, 1.0, size=20) * (alpha > 0)))]  # float coefficients


def _carath_degenerate(rng):
    X, y, alpha = _support(rng, 12, 2)
    line = np.c_[np.arange(8.0), 2.0 * np.arange(8.0) - 1.0]  # every point on one line
    return [Probe((np.r_[X, X], np.r_[y, -y], np.r_[alpha, alpha])),          # every point twice, both labels
            Probe((line, rng.choice([-1, 1], size=8), rng.integers(1, 4, size=8))),
            Probe((X[:3], y[:3], np.r_[0, rng.integers(1, 4, size=2)])),
            Probe((X, y, np.zeros(12, dtype=int))),
            Probe((X, y, np.r_[alpha[:-1], -2]), raises="ValueError", why="alpha[-1] is negative")]


HIDDEN = {"ex1-merge-tests-values": _merge_values, "ex1-merge-tests-cancel": _merge_cancel,
          "ex2-decay-tests-steps": _decay_steps, "ex2-decay-tests-inputs": _decay_inputs,
          "ex3-loo-tests-values": _loo_values, "ex3-loo-tests-stopped": _loo_stopped,
          "ex4-caratheodory-tests-values": _carath_values, "ex4-caratheodory-tests-degenerate": _carath_degenerate}

visible_data, cells = declared.grader(visible.LESSON, REFERENCES, HIDDEN)
