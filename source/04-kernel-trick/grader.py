"""Grader of assignment 04 (the kernel trick): references and hidden probes.

The kernel perceptron is the online rule of ``KernelPerceptron(kernel="poly", degree=2,
coef0=1.0, shuffle=False)`` in plain NumPy (a unit test checks that they agree).
``identity_gap`` is called with the maps the assignment gives in a locked cell, passed by
name, never with the student's ``phi``: exercise 2 is graded on its own.
"""

import math

import numpy as np

from kpcourse.checks import lesson04 as visible
from kpcourse.checks.exercise import Probe
from kpcourse.datasets import unit_disc
from kpcourse.grading import declared
from kpcourse.grading.testdata import new_seed

_shared = declared.shared(__file__)
dual_perceptron, labels_or_mistake = _shared.dual_perceptron, _shared.labels_or_mistake

#: kpcourse (its feature maps, kernels, KernelPerceptron, n_polynomial_features),
#: scikit-learn (PolynomialFeatures, ...) and SciPy (scipy.special.comb, ...).
FORBIDDEN = ("kpcourse", "sklearn", "scipy")


# ----------------------------------------------------------------- references
def _kernel(A, B, kernel="quadratic"):
    G = np.asarray(A, dtype=float) @ np.asarray(B, dtype=float).T
    return {"quadratic": (1.0 + G) ** 2, "homogeneous": G ** 2, "linear": G}[kernel]


def kernel_train(X, y, max_epochs, *, kernel="quadratic", **options):
    """The kernel perceptron with k = (1 + x·z)² and its common mistakes (the default is right)."""
    alpha, b = dual_perceptron(_kernel(X, X, kernel), y, max_epochs, **options)
    return alpha, float(b)


def count(d, n):
    """Monomials of degree 0..n in d variables: C(d + n, n) (stars and bars)."""
    return math.comb(d + n, n)


_TRAIN_OPTIONS = {"homogeneous": {"kernel": "homogeneous"}, "linear": {"kernel": "linear"},
                  "no_bias": {"bias": False}, "bias_not_in_score": {"bias_in_score": False},
                  "set_one": {"step": "set"}, "sign0": {"zero_is_mistake": False}}


def phi(X, mistake=None):
    """(x1², x2², √2·x1x2): the exercise's φ, or a mistake's (cross factor 1 or 2, columns reordered)."""
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError("X must have shape (n, 2)")
    cross = {"no_root": 1.0, "doubled": 2.0}.get(mistake, math.sqrt(2.0))
    features = np.column_stack([X[:, 0] ** 2, X[:, 1] ** 2, cross * X[:, 0] * X[:, 1]])
    return features[:, [2, 0, 1]] if mistake == "order" else features


def identity_gap(feature_map, X, Z, mistake=None):
    """max |φ(X) φ(Z)ᵀ − (X Zᵀ)²|, or a mistake's (signed, flipped, mean, sum)."""
    X, Z = np.asarray(X, dtype=float), np.asarray(Z, dtype=float)
    if X.ndim != 2 or Z.ndim != 2 or X.shape[1] != Z.shape[1]:
        raise ValueError("X and Z must be 2-D with the same number of columns")
    D = feature_map(X) @ feature_map(Z).T - (X @ Z.T) ** 2
    return float({"signed": D.max(), "flipped": (-D).max(), "mean": np.abs(D).mean(),
                  "sum": np.abs(D).sum()}.get(mistake, np.abs(D).max()))


def kernel_perceptron_train(X, y, max_epochs, mistake=None):
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    if X.ndim != 2 or len(y) != len(X):
        raise ValueError("X must be (n, d) and y must hold n labels")
    alpha, b = kernel_train(X, y, max_epochs + (mistake == "epochs"), **_TRAIN_OPTIONS.get(mistake, {}))
    return (alpha * y if mistake == "negative" else alpha), b


def kernel_perceptron_predict(X_train, y_train, alpha, b, X_new, mistake=None):
    """Labels of f(x) = Σ_j alpha_j y_j k(x_j, x) + b for the rows of X_new, or a mistake's."""
    X_train, X_new = np.asarray(X_train, dtype=float), np.asarray(X_new, dtype=float)
    if X_new.ndim != 2 or X_new.shape[1] != X_train.shape[1]:
        raise ValueError("X_new and X_train must have the same number of columns")
    weights = np.asarray(alpha, dtype=float) * (1.0 if mistake == "no_y" else np.asarray(y_train))
    kernel = mistake if mistake in ("homogeneous", "linear") else "quadratic"
    scores = _kernel(X_new, X_train, kernel) @ weights + (0.0 if mistake == "no_b" else b)
    return labels_or_mistake(scores, mistake)


def count_features(d, degree, mistake=None):
    if d < 1 or degree < 1:
        raise ValueError("d and degree must be at least 1")
    n = degree
    return {"float": lambda: math.factorial(d + n) / (math.factorial(d) * math.factorial(n)),
            "exact_degree": lambda: math.comb(d + n - 1, n), "no_constant": lambda: count(d, n) - 1,
            "ordered_exact": lambda: d ** n, "ordered": lambda: (d + 1) ** n}.get(mistake, lambda: count(d, n))()


REFERENCES = {"phi": phi, "identity_gap": identity_gap, "kernel_perceptron_train": kernel_perceptron_train,
              "kernel_perceptron_predict": kernel_perceptron_predict, "count_features": count_features,
              **visible.FEATURE_MAPS}


# --------------------------------------------------------------- hidden probes
def _phi_shapes(rng):
    return [*(Probe((rng.normal(size=(rows, 2)),)) for rows in (1, 6, 25)), Probe(([[1.0, 2.0], [3.0, 4.0]],)),
            Probe((np.ones((5, 1)),), raises="ValueError", why="X has shape (5, 1)")]


def _phi_values(rng):
    return [Probe((rng.normal(scale=2.0, size=(40, 2)),)), Probe((rng.normal(size=(30, 2)),))]


def _gap_values(rng):
    X, Z = rng.normal(size=(25, 2)), rng.normal(size=(15, 2))
    return [Probe((visible.WRONG_MAP, X, Z)), Probe((visible.EXACT_MAP, X, Z), compare="l04_rounding")]


def _gap_dimensions(rng):
    return [*(Probe((visible.EXACT_MAP, rng.normal(size=(6, dim)), np.ones((3, dim)))) for dim in (1, 4)),
            Probe((visible.EXACT_MAP, np.ones((2, 4)), np.ones((2, 3))), raises="ValueError",
                  why="X has 4 columns and Z has 3")]


def _disc(n, margin, rng):
    """Points of the unit-disc problem on a 1/8 grid: every kernel value and score is exact."""
    X, _ = unit_disc(n, margin=margin, random_state=new_seed(rng))
    X = np.round(X * 8) / 8
    return X, np.where(np.linalg.norm(X, axis=1) < 1, -1, 1)


def _train_basic(rng):
    return [Probe((rng.normal(size=(12, 3)), np.where(rng.random(12) < 0.5, -1, 1), 5))]


def _train_rule(rng):
    X, y = _disc(60, 0.15, rng)
    return [Probe((X, y, e)) for e in (2, 30)]


def _train_stop(rng):
    point = rng.integers(-4, 5, size=(1, 2)) / 4
    pair_X, pair_y = np.vstack([point, point]), np.array([-1, 1])  # every visit is a mistake
    Xs, ys = np.array([[0.0, 0.25], [2.0, 0.0], [-0.25, 0.0], [0.0, -2.0]]), np.array([-1, 1, -1, 1])
    # separable: stops long before max_epochs; a loop that never stops early runs past the time
    # limit on any machine (4·10⁹ visits), whatever its speed
    return [*(Probe((pair_X, pair_y, e)) for e in (2, 5)), Probe((Xs, ys, 10 ** 9), compare="none")]


def _predict_points(rng):
    X, y = _disc(50, 0.1, rng)
    alpha, b = kernel_train(X, y, 20)
    return [Probe((X, y, alpha, b, np.round(rng.uniform(-2, 2, size=(80, 2)) * 8) / 8), compare="labels")]


def _predict_zero_and_kernel(rng):
    t = float(rng.integers(1, 1000)) / 8  # (1 + x·z)² is the same for both training points: scores of exactly 0
    return [Probe((np.array([[2.0 * t, 0.0], [0.0, 2.0 * t]]), np.array([1, -1]), np.array([3, 3]), 0.0,
                   np.array([[1.0, 1.0], [-0.5, -0.5]]))),
            Probe((np.array([[1.0, 0.0]]), np.array([1]), np.array([1]), -2.0, np.array([[-2.0, 0.0]])))]


def _count_types(rng):
    return [*(Probe(args) for args in ((1, 1), (int(rng.integers(20, 80)), 3), (3000, 6))),
            Probe((5, -1), raises="ValueError", why="degree = -1")]


def _count_values(rng):
    return [Probe((d, n)) for d in (1, 2, 5, int(rng.integers(6, 50)), 100, 784) for n in (1, 2, 3, 4, 5, 7)]


HIDDEN = {"ex1-phi-tests-shape": _phi_shapes, "ex1-phi-tests-values": _phi_values,
          "ex2-gap-tests-values": _gap_values, "ex2-gap-tests-errors": _gap_dimensions,
          "ex3-train-tests-basic": _train_basic, "ex3-train-tests-rule": _train_rule,
          "ex3-train-tests-stop": _train_stop, "ex4-predict-tests-basic": _predict_points,
          "ex4-predict-tests-details": _predict_zero_and_kernel, "ex5-count-tests-basic": _count_types,
          "ex5-count-tests-values": _count_values}

visible_data, cells = declared.grader(visible.LESSON, REFERENCES, HIDDEN)
