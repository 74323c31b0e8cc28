"""Grader of assignment 03 (the dual form): references and hidden probes.

The reference loop is ``dual_perceptron`` of ``source/references.py``; unit tests
check that it trains exactly like ``KernelPerceptron`` and that its counts are ``Perceptron.alpha_``
(this file imports neither: the kernel perceptron would load torch in the grader).
"""

import numpy as np

from kpcourse.checks import lesson03 as visible
from kpcourse.checks.exercise import Probe
from kpcourse.datasets import circles, worked_example
from kpcourse.grading import declared
from kpcourse.grading.testdata import new_seed, random_separable, separable_gram
from kpcourse.kernels import rbf

_shared = declared.shared(__file__)
dual_perceptron, labels_or_mistake = _shared.dual_perceptron, _shared.labels_or_mistake

FORBIDDEN = ("kpcourse", "sklearn", "scipy")


# ----------------------------------------------------------------- references
_DUAL_OPTIONS = {"sign0": {"zero_is_mistake": False}, "set": {"step": "set"}, "no_bias": {"bias": False},
                 "bias_out": {"bias_in_score": False}, "bias_no_lr": {"bias_lr": False}}


def dual_train(K, y, max_epochs=10, learning_rate=1.0, mistake=None):
    K, y = np.asarray(K, dtype=float), np.asarray(y)
    if K.shape != (len(y), len(y)):
        raise ValueError("K must be (n, n) for n = len(y)")
    alpha, b = dual_perceptron(K, y, max_epochs, learning_rate, **_DUAL_OPTIONS.get(mistake, {}))
    scale = {"negative": y, "alpha_lr": learning_rate}.get(mistake, 1)  # alpha += y_i, alpha += learning_rate
    return alpha * scale, float(b)


def dual_predict(K_test_train, alpha, y, b, learning_rate=1.0, mistake=None):
    K, alpha, y = np.asarray(K_test_train, dtype=float), np.asarray(alpha, dtype=float), np.asarray(y)
    if K.ndim != 2 or K.shape[1] != len(alpha):
        raise ValueError("K_test_train needs one column per training sample")
    lr = 1.0 if mistake == "no_lr" else learning_rate
    s = lr * (K @ (alpha * (1 if mistake == "no_y" else y))) + (0.0 if mistake == "no_b" else b)
    return labels_or_mistake(s, mistake)


def primal_from_dual(X, alpha, y, b, learning_rate=1.0, mistake=None):
    X, alpha, y = np.asarray(X, dtype=float), np.asarray(alpha, dtype=float), np.asarray(y)
    if len(X) != len(alpha) or len(y) != len(alpha):
        raise ValueError("X, y and alpha must have one entry per training point")
    if not np.isclose(b, (1.0 if mistake == "check_lr" else learning_rate) * np.sum(alpha * y)):
        raise ValueError("b is not learning_rate * sum_i alpha_i y_i")
    c = {"no_lr": 1.0, "lr_twice": learning_rate ** 2, "negated": -learning_rate}.get(mistake, learning_rate) \
        * alpha * (1 if mistake == "no_y" else y)
    if mistake == "wrong_axis":
        return np.sum(c[:, None] * X, axis=1)
    w = c @ X
    return {"with_b": lambda: np.append(w, b), "pair": lambda: (w, b)}.get(mistake, lambda: w)()


REFERENCES = {"dual_train": dual_train, "dual_predict": dual_predict, "primal_from_dual": primal_from_dual}


# --------------------------------------------------------------- hidden probes
def rbf_problem(random_state=5):
    """Rings and their RBF Gram matrix (sigma 0.5): the dual form beyond the linear kernel."""
    X, y = circles(40, noise=0.05, random_state=random_state)
    return rbf(X, sigma=0.5), y


def _run(K, y, lr=1.0):
    """The counts and bias of a real run (``Perceptron.alpha_``, ``intercept_``)."""
    alpha, b = dual_perceptron(K, y, 100, lr)
    return alpha.astype(np.int64), b


def _counts(rng):  # far from the origin, separable through it: the bias never decides a mistake
    return [Probe(separable_gram(40, 2, margin=0.05, offset=False, scale=100.0, random_state=rng), {"max_epochs": 100})
            for _ in range(3)]


def _bias(rng):
    probes = [Probe(separable_gram(30, 2, random_state=rng), {"max_epochs": 100}) for _ in range(2)]
    _, yq, Kq = visible.QUIZ
    # the RBF rings; the perceptron quiz: the whole run, and the run stopped after its first epoch
    return [*probes, Probe(rbf_problem(new_seed(rng)), {"max_epochs": 20}),
            Probe((Kq, yq), {"max_epochs": 100}), Probe((Kq, yq), {"max_epochs": 1})]


def _rate(rng):
    problems = [*(separable_gram(30, 3, random_state=rng) for _ in range(2)), (visible.QUIZ[2], visible.QUIZ[1])]
    probes = []
    for K, y in problems:
        base = len(probes)
        probes += [Probe((K, y), {"max_epochs": 100, "learning_rate": 1.0}, compare="none"),
                   *(Probe((K, y), {"max_epochs": 100, "learning_rate": lr}, like=base) for lr in (0.5, 2.0))]
    return probes


def _new_points(rng):
    probes = []
    for _ in range(3):
        X, y = random_separable(30, 3, random_state=rng)
        alpha, b = _run(X @ X.T, y)
        probes.append(Probe((rng.uniform(-1, 1, size=(40, 3)) @ X.T, alpha, y, b)))
    Z, yq, Kq = visible.QUIZ
    alpha, b = _run(Kq, yq)
    grid = rng.uniform(-0.5, 2.0, size=(60, 2))  # around the rescaled quiz points
    return [*probes, Probe((grid @ Z.T, alpha, yq, b))]


def _rates(rng):
    X4, y4 = worked_example()
    grid = np.array([[i, j] for i in range(-4, 6) for j in range(-4, 6)], dtype=float)
    probes = []
    for lr in (0.25, 2.0):
        alpha, b = _run(X4 @ X4.T, y4, lr)
        K = grid @ X4.T
        assert np.sum(lr * (K @ (alpha * y4)) + b == 0) >= 2  # points on the boundary
        probes.append(Probe((K, alpha, y4, b), {"learning_rate": lr}))
    Z, yq, Kq = visible.QUIZ
    alpha, b = _run(Kq, yq, 0.5)
    grid_q = rng.uniform(-0.5, 2.0, size=(60, 2))
    return [*probes, Probe((grid_q @ Z.T, alpha, yq, b), {"learning_rate": 0.5})]


def _random_counts(rng):
    probes = []
    for n, d, lr in ((9, 3, 1.0), (5, 7, 0.3), (12, 2, 2.5)):
        X, y, alpha = rng.normal(size=(n, d)), rng.choice(np.array([-1, 1]), size=n), rng.integers(0, 4, size=n)
        probes.append(Probe((X, alpha, y, lr * float(alpha @ y)), {"learning_rate": lr}))
    return probes


def _checks(rng):
    probes = []
    for lr in (0.1, 0.7, 3.0):
        X, y = random_separable(25, 3, random_state=rng)
        alpha, b = _run(X @ X.T, y, lr)
        while lr == 0.1 and b == np.sum(lr * alpha * y):  # b of the run differs from the sum by rounding
            X, y = random_separable(25, 3, random_state=rng)
            alpha, b = _run(X @ X.T, y, lr)
        extra = np.r_[alpha[0] + 1, alpha[1:]]  # one count more than the run made: b no longer matches
        kw = {"learning_rate": lr}
        probes += [Probe((X, alpha, y, b), kw),
                   Probe((X, alpha, y, b + lr), kw, raises="ValueError",
                         why="b is one bias step away from learning_rate·Σ_i alpha_i y_i"),
                   Probe((X, extra, y, b), kw, raises="ValueError",
                         why="alpha has one count more than the run that gave b"),
                   Probe((X[:-1], alpha, y, b), kw, raises="ValueError",
                         why="X has one row fewer than alpha has entries")]
    return probes


def _primal_runs(rng):
    Z, yq, Kq = visible.QUIZ
    probes = []
    for lr in (0.5, 2.0):
        alpha, b = _run(Kq, yq, lr)
        probes.append(Probe((Z, alpha, yq, b), {"learning_rate": lr}))
    for _ in range(2):
        X, y = random_separable(30, 4, random_state=rng)
        alpha, b = _run(X @ X.T, y)
        probes.append(Probe((X, alpha, y, b), {"learning_rate": 1.0}))
    return probes


HIDDEN = {"ex1-dual-train-tests-counts": _counts, "ex1-dual-train-tests-bias": _bias,
          "ex1-dual-train-tests-rate": _rate, "ex2-dual-predict-tests": _new_points,
          "ex2-dual-predict-tests-details": _rates, "ex3-primal-from-dual-tests": _random_counts,
          "ex3-primal-from-dual-tests-checks": _checks, "ex3-primal-from-dual-tests-quiz": _primal_runs}

visible_data, cells = declared.grader(visible.LESSON, REFERENCES, HIDDEN)
