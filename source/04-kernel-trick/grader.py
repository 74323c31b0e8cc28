"""Grader of assignment 04 (the kernel trick): references and hidden probes.

Hidden inputs are multiples of 1/2 where the answer is a sum of products (every value exact in
floating point), drawn from the per-notebook seed.
"""

import numpy as np

from kpcourse.checks import lesson04 as visible
from kpcourse.checks.exercise import Probe
from kpcourse.grading.judge import declared

#: kpcourse (its kernels and feature maps), scikit-learn and SciPy (scipy.special, ...).
FORBIDDEN = ("kpcourse", "sklearn", "scipy")

#: The largest dimension whose 2**d subset features are listed.
MAX_SUBSET_DIM = 20


# ----------------------------------------------------------------- references
def _pair(X, Z):
    X0, Z0 = np.asarray(X), np.asarray(Z)
    if X0.ndim != 2 or Z0.ndim != 2 or X0.shape[1] != Z0.shape[1]:
        raise ValueError("X and Z must be 2-D with the same number of columns")
    return X0, Z0


def subset_kernel(X, Z, mistake=None):
    """Π_k (1 + x_k z_k) for every pair of rows, or a mistake's."""
    X0, Z0 = _pair(X, Z)
    if mistake == "uint8_wrap":
        P = X0[:, None, :] * Z0[None, :, :]
        return np.prod((P + np.ones(1, dtype=P.dtype)).astype(float), axis=2)
    X, Z = X0.astype(float), Z0.astype(float)
    P = X[:, None, :] * Z[None, :, :]
    return {"transposed": lambda: np.prod(1.0 + P, axis=2).T, "sum": lambda: np.sum(1.0 + P, axis=2),
            "no_one": lambda: np.prod(P, axis=2), "power": lambda: (1.0 + X @ Z.T) ** X.shape[1],
            }.get(mistake, lambda: np.prod(1.0 + P, axis=2))()


def quadratic_form(X_train, y_train, alpha, b, mistake=None):
    """(A, v, c) with Σ_j alpha_j y_j (1 + x_j·x)² + b = xᵀAx + v·x + c, A symmetric, or a mistake's."""
    X = np.asarray(X_train, dtype=float)
    y, alpha = np.asarray(y_train, dtype=float), np.asarray(alpha, dtype=float)
    if X.ndim != 2 or y.shape != (len(X),) or alpha.shape != (len(X),):
        raise ValueError("X_train must be (n, d), y_train and alpha of length n")
    w = alpha if mistake == "no_y" else alpha * y
    A = (X * w[:, None]).T @ X
    if mistake in ("cross_doubled", "upper"):
        off = A - np.diag(np.diag(A))
        A = A + off if mistake == "cross_doubled" else np.diag(np.diag(A)) + 2 * np.triu(off)
    v = {"homogeneous": 0.0, "linear_factor": 1.0}.get(mistake, 2.0) * (X.T @ w)
    c = {"no_bias": w.sum(), "no_sum": float(b), "homogeneous": float(b)}.get(mistake, w.sum() + b)
    return A, v, float(c)


def subset_features(X, mistake=None):
    """Column c: the product of the x_k whose bit k is set in c (2**d columns), or a mistake's."""
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] > MAX_SUBSET_DIM:
        raise ValueError(f"X must be 2-D with at most {MAX_SUBSET_DIM} columns")
    d = X.shape[1]
    bits = (np.arange(2 ** d)[:, None] >> np.arange(d)[None, :]) & 1  # (2**d, d)
    if mistake == "bit_order":
        bits = bits[:, ::-1]
    if mistake == "sums":
        return X @ bits.T.astype(float)
    Phi = np.prod(np.where(bits[None, :, :] == 1, X[:, None, :], 1.0), axis=2)
    return Phi[:, 1:] if mistake == "no_empty" else Phi


def anova_kernel(X, Z, degree, mistake=None):
    """Σ over sets S of `degree` distinct coordinates of Π_{k∈S} x_k z_k, by the recursion over k."""
    X, Z = _pair(np.asarray(X, dtype=float), np.asarray(Z, dtype=float))
    if degree < 0:
        raise ValueError("degree must be at least 0")
    if mistake == "power":
        return (X @ Z.T) ** degree
    P = X[:, None, :] * Z[None, :, :]
    E = [np.ones(P.shape[:2])] + [np.zeros(P.shape[:2]) for _ in range(degree)]  # E[p]: sets of size p so far
    for k in range(P.shape[2]):
        for p in (range(1, degree + 1) if mistake == "repeats" else range(degree, 0, -1)):
            E[p] = E[p] + P[:, :, k] * E[p - 1]
    return sum(E) if mistake == "up_to" else E[degree]


REFERENCES = {"subset_kernel": subset_kernel, "quadratic_form": quadratic_form, "subset_features": subset_features,
              "anova_kernel": anova_kernel}


# --------------------------------------------------------------- hidden probes
def _halves(rng, shape, low=-4, high=5):
    """Multiples of 1/2: products and sums exact in floating point."""
    return rng.integers(low, high, size=shape) / 2


def _subset_values(rng):
    return [Probe((_halves(rng, (n, d)), _halves(rng, (m, d)))) for n, m, d in ((7, 4, 5), (1, 9, 3), (12, 12, 8))]


def _subset_inputs(rng):
    P = rng.integers(0, 256, size=(5, 6)).astype(np.uint8)
    Q = rng.integers(0, 256, size=(3, 6)).astype(np.uint8)
    return [Probe((P, Q), like=1, mistake="uint8_wrap"), Probe((P.astype(float), Q.astype(float)), compare="none"),
            Probe((_halves(rng, (3, 2)).tolist(), _halves(rng, (2, 2)).tolist())),
            Probe((np.ones((4, 2)), np.ones((2, 5))), raises="ValueError", why="X has 2 columns but Z has 5")]


def _classifier(rng, n, d):
    return (_halves(rng, (n, d)), rng.choice([-1, 1], size=n), rng.integers(0, 5, size=n), float(_halves(rng, ())))


def _quad_values(rng):
    return [Probe(_classifier(rng, n, d)) for n, d in ((5, 2), (30, 4))]


def _quad_known(rng):
    r = float(rng.integers(1, 5))  # four points at distance r on the axes: f = 2r² (x1² + x2²) + 4 + b
    X = np.array([[r, 0.0], [-r, 0.0], [0.0, r], [0.0, -r]])
    X_train, y, _, _ = _classifier(rng, 6, 3)
    return [Probe((X, np.ones(4), np.ones(4), -4.0 - 2.0 * r ** 4)), Probe((X_train, y, np.zeros(6), -1.5))]


def _quad_inputs(rng):
    X, y, alpha, b = _classifier(rng, 3, 2)
    return [Probe((X.tolist(), y.tolist(), alpha.tolist(), b)), Probe(_classifier(rng, 4, 1)),
            Probe((np.ones(3), np.ones(3), np.ones(3), 0.0), raises="ValueError", why="X_train is 1-D"),
            Probe((X, y, alpha[:2], b), raises="ValueError", why="alpha has 2 entries but X_train has 3 rows")]


def _feature_values(rng):
    return [Probe((_halves(rng, (n, d)),)) for n, d in ((6, 4), (3, 2))]


def _feature_dimensions(rng):
    return [Probe((_halves(rng, (5, 7)),)), Probe((_halves(rng, (2, 1)).tolist(),)),
            Probe((np.ones((2, 22)),), raises="ValueError", why="X has 22 columns")]


def _anova_small(rng):
    X, Z = _halves(rng, (4, 5)), _halves(rng, (3, 5))
    return [*(Probe((X, Z, p)) for p in (1, 2, 3, 5, 0, 7)),
            Probe((X, Z, -2), raises="ValueError", why="degree is negative")]


def _anova_large(rng):
    d = int(rng.integers(60, 80))
    X, Z = rng.uniform(0.2, 1.0, size=(4, d)), rng.uniform(0.2, 1.0, size=(3, d))
    return [Probe((X, Z, d // 2)), Probe((X, Z, 2))]


HIDDEN = {"ex1-subsets-tests-values": _subset_values, "ex1-subsets-tests-inputs": _subset_inputs,
          "ex2-quadform-tests-values": _quad_values, "ex2-quadform-tests-known": _quad_known,
          "ex2-quadform-tests-inputs": _quad_inputs, "ex3-features-tests-values": _feature_values,
          "ex3-features-tests-identity": _feature_dimensions, "ex4-anova-tests-small": _anova_small,
          "ex4-anova-tests-large": _anova_large}

visible_data, cells = declared.grader(visible.LESSON, REFERENCES, HIDDEN)
