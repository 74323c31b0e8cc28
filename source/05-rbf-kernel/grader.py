"""Grader of assignment 05 (the Gaussian kernel): references and hidden probes.

Hidden inputs are drawn from the per-notebook seed: points with small integer or half-integer
coordinates (squared distances exact in floating point), rings with unbalanced classes, and
queries whose score changes sign at bandwidths at least 5 % apart.
"""

import numpy as np

from kpcourse.checks import lesson05 as visible
from kpcourse.checks.exercise import Probe
from kpcourse.grading.judge import declared

_shared = declared.shared(__file__)
rbf, squared_distances = _shared.rbf, _shared.squared_distances

#: kpcourse (its kernels and perceptrons), scikit-learn and SciPy (scipy.special, scipy.optimize, ...).
FORBIDDEN = ("kpcourse", "sklearn", "scipy")


# ----------------------------------------------------------------- references
def _pair(X, Z):
    X, Z = np.asarray(X, dtype=float), np.asarray(Z, dtype=float)
    if X.ndim != 2 or Z.ndim != 2 or X.shape[1] != Z.shape[1]:
        raise ValueError("X and Z must be 2-D with the same number of columns")
    return X, Z


def rbf_truncated(X, Z, sigma, degree, mistake=None):
    """exp(-‖x‖²/2σ²) exp(-‖z‖²/2σ²) Σ_{n <= degree} (x·z/σ²)ⁿ / n! for every pair of rows."""
    X, Z = _pair(X, Z)
    if not sigma > 0 or degree < 0:
        raise ValueError("sigma must be positive and degree at least 0")
    s2 = sigma if mistake == "sigma" else sigma ** 2
    G = X @ Z.T / s2
    term, total = np.ones_like(G), np.ones_like(G)
    for n in range(1, degree + (0 if mistake == "short" else 1)):
        term = term * G / (1 if mistake == "no_factorial" else n)
        total = total + term
    if mistake == "no_envelope":
        return total
    return np.exp(-(X ** 2).sum(1) / (2 * s2))[:, None] * np.exp(-(Z ** 2).sum(1) / (2 * s2))[None, :] * total


def _labelled(X, y):
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    if X.ndim != 2 or y.shape != (len(X),):
        raise ValueError("X must be (n, d) and y of length n")
    return X, y


def kernel_alignment(X, y, sigmas, mistake=None):
    """Raw and centred alignments of the RBF Gram matrix with y yᵀ per σ, and the σ of the best centred one."""
    X, y = _labelled(X, y)
    sigmas = np.asarray(sigmas, dtype=float)
    if sigmas.ndim != 1 or len(sigmas) == 0 or np.any(sigmas <= 0):
        raise ValueError("sigmas must be a non-empty list of positive numbers")
    n = len(y)
    H = np.eye(n) - 1.0 / n
    yc = y - y.mean()
    raw, centred = [], []
    for s in sigmas:
        K = rbf(X, X, s)
        Kc = H @ K @ H
        raw.append(y @ K @ y / (n * np.linalg.norm(K)))
        if mistake == "half_centred":  # K centred, y yᵀ not
            centred.append(y @ Kc @ y / (np.linalg.norm(Kc) * n))
        else:
            centred.append(yc @ Kc @ yc / (np.linalg.norm(Kc) * (yc @ yc)))
    raw, centred = np.array(raw), np.array(centred)
    return raw, centred, float(sigmas[int(np.argmax(raw if mistake == "raw_choice" else centred))])


def interpolation_bound(X, y, sigma, mistake=None):
    """(yᵀK⁻¹y, c) with K c = y for the RBF Gram matrix of distinct points: ‖f*‖² bounds the mistakes."""
    X, y = _labelled(X, y)
    if not sigma > 0:
        raise ValueError("sigma must be positive")
    D = squared_distances(X, X)
    same = np.argwhere(np.triu(D == 0, k=1))
    if len(same):
        raise ValueError(f"rows {same[0][0]} and {same[0][1]} of X are equal: K is singular")
    K = rbf(X, X, sigma, mistake)
    L = np.linalg.cholesky(K)
    c = np.linalg.solve(L.T, np.linalg.solve(L, y))
    bound = {"sqrt": np.sqrt(y @ c), "sum_c": c.sum()}.get(mistake, y @ c)
    return float(bound), c


def sign_changes(X, y, alpha, query, lo, hi, mistake=None):
    """The bandwidths σ in (lo, hi) at which Σ αᵢ yᵢ exp(-‖xᵢ − q‖²/2σ²) changes sign, in increasing order."""
    X, y = _labelled(X, y)
    alpha, q = np.asarray(alpha, dtype=float), np.asarray(query, dtype=float)
    if alpha.shape != y.shape or q.shape != (X.shape[1],) or not 0 < lo < hi:
        raise ValueError("alpha must match y, query must be one point, and 0 < lo < hi")
    d2 = ((X - q) ** 2).sum(axis=1)
    c = alpha * y
    e = d2 - (0.0 if mistake == "count" else d2[c != 0].min(initial=0.0))  # the plain score, or divided

    def g(s):
        return (c[None, :] * np.exp(-e[None, :] / (2 * np.asarray(s, dtype=float)[:, None] ** 2))).sum(axis=1)

    grid = np.geomspace(lo, hi, 100_001)
    values = g(grid)
    if mistake in ("count", "precision"):  # a change of np.sign (0 included), at the grid's precision
        signs = np.sign(values)
        where = np.flatnonzero(signs[:-1] != signs[1:])
        return grid[where] * (1 + 1e-4 if mistake == "precision" else 1.0)
    roots = []
    for k in np.flatnonzero(values[:-1] * values[1:] < 0):
        a, b, ga = grid[k], grid[k + 1], values[k]
        for _ in range(80):
            m = 0.5 * (a + b)
            gm = g([m])[0]
            if gm * ga > 0:
                a, ga = m, gm
            else:
                b = m
        roots.append(0.5 * (a + b))
    return np.array(roots)


REFERENCES = {"rbf_truncated": rbf_truncated, "kernel_alignment": kernel_alignment,
              "interpolation_bound": interpolation_bound, "sign_changes": sign_changes}


# --------------------------------------------------------------- hidden probes
def _halves(rng, shape, low=-4, high=5):
    return rng.integers(low, high, size=shape) / 2


def _truncated_values(rng):
    return [Probe((_halves(rng, (n, d)), _halves(rng, (m, d)), float(rng.choice([0.8, 1.5, 2.5])), int(N)))
            for (n, m, d), N in zip(((5, 4, 3), (3, 6, 6), (4, 4, 1)), rng.integers(2, 12, size=3), strict=True)]


def _truncated_limits(rng):
    X, Z = _halves(rng, (4, 2)), _halves(rng, (3, 2))
    return [Probe((X, Z, 1.0, 0)), Probe((X, Z, 2.0, 40)), Probe((X.tolist(), Z.tolist(), 1.5, 3)),
            Probe((X, Z, 0.0, 3), raises="ValueError", why="sigma is 0"),
            Probe((X, Z, 1.0, -1), raises="ValueError", why="degree is negative")]


def _rings(rng, n_minority, n_majority):
    """Two noisy rings, the inner one with n_minority points, the outer with n_majority."""
    r = np.r_[np.full(n_minority, 0.5), np.ones(n_majority)] + rng.normal(0, 0.08, n_minority + n_majority)
    t = rng.uniform(0, 2 * np.pi, n_minority + n_majority)
    X = np.c_[r * np.cos(t), r * np.sin(t)]
    y = np.r_[-np.ones(n_minority, dtype=int), np.ones(n_majority, dtype=int)]
    order = rng.permutation(len(y))
    return X[order], y[order]


def _alignment_values(rng):
    X, y = _halves(rng, (12, 2)), rng.choice([-1, 1], size=12)
    y[0] = -y[1]  # both labels: with one, y_c = 0 and the centred alignment is 0 / 0
    return [Probe((X, y, [0.5, 1.0, 3.0])), Probe((*_rings(rng, 30, 50), [0.1, 0.3, 1.0]))]


def _alignment_choice(rng):
    X, y = _rings(rng, int(rng.integers(15, 25)), int(rng.integers(150, 200)))
    return [Probe((X, y, [0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 5.0, 10.0])),
            Probe((X, y, []), raises="ValueError", why="sigmas is empty")]


def _distinct(rng, n, d, low=-4, high=5):
    while True:
        X = _halves(rng, (n, d), low, high)
        if len(np.unique(X, axis=0)) == n:
            return X


def _conditioned(rng, n, d, sigma):
    """Distinct points whose Gram matrix is far from singular (condition number below 10**6)."""
    while True:
        X = _distinct(rng, n, d)
        if np.linalg.cond(rbf(X, X, sigma)) < 1e6:
            return Probe((X, rng.choice([-1, 1], size=n), sigma))


def _bound_values(rng):
    return [_conditioned(rng, n, d, s) for n, d, s in ((8, 2, 1.0), (15, 3, 1.5), (6, 1, 0.7))]


def _bound_inputs(rng):
    X, y = _distinct(rng, 6, 2), rng.choice([-1, 1], size=6)
    copy = np.r_[X, X[2:3]]
    return [Probe((X.tolist(), y.tolist(), 1.2)),
            Probe((copy, np.r_[y, y[2]], 1.0), raises="ValueError", why="two rows of X are equal"),
            Probe((X, y, -1.0), raises="ValueError", why="sigma is negative")]


def _flips(rng, n_roots, lo=0.05, hi=20.0):
    """A small model and a query whose score changes sign n_roots times in (lo, hi), roots 5 % apart."""
    while True:
        n = int(rng.integers(4, 9))
        X = rng.integers(-4, 5, size=(n, 2)).astype(float)
        y, alpha = rng.choice([-1, 1], size=n), rng.integers(1, 5, size=n)
        q = rng.integers(-4, 5, size=2).astype(float)
        d2 = ((X - q) ** 2).sum(axis=1)
        if d2.min() == 0 or (alpha * y)[d2 == d2.min()].sum() == 0:  # the nearest group must decide at small σ
            continue
        roots = sign_changes(X, y, alpha, q, lo, hi)
        if len(roots) == n_roots and np.all(np.diff(np.r_[lo, roots, hi]) > 0.05 * np.r_[lo, roots]):
            return Probe((X, y, alpha, q, lo, hi))


def _flips_msdn(rng):  # lo = 0.01: the plain score underflows at the small end
    return [_flips(rng, 1, lo=0.01), _flips(rng, 0, lo=0.01)]


def _flips_several(rng):  # lo = 0.3: no squared distance here (at most 128) makes the plain score underflow
    return [_flips(rng, 2, lo=0.3), _flips(rng, 1, lo=0.3, hi=50.0),
            Probe((np.ones((3, 2)), np.ones(3), np.ones(3), np.zeros(2), 2.0, 1.0), raises="ValueError",
                  why="lo > hi")]


HIDDEN = {"ex1-truncated-tests-values": _truncated_values, "ex1-truncated-tests-limits": _truncated_limits,
          "ex2-alignment-tests-values": _alignment_values, "ex2-alignment-tests-choice": _alignment_choice,
          "ex3-bound-tests-values": _bound_values, "ex3-bound-tests-inputs": _bound_inputs,
          "ex4-flips-tests-msdn": _flips_msdn, "ex4-flips-tests-several": _flips_several}

visible_data, cells = declared.grader(visible.LESSON, REFERENCES, HIDDEN)
