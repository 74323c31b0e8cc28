"""Checks of assignment 05 (the Gaussian kernel): rbf_gram, rbf_predict, choose_sigma.

In the notebook: ``checks.lesson05.test("ex1-rbf-gram-tests-values", rbf_gram)``.
"""

from __future__ import annotations

import numpy as np

from kpcourse.checks._core import as_numbers, check_grid_choice, check_shape, fmt, load_mistakes
from kpcourse.checks.exercise import RBF_FORMULA, SIGN_AT_ZERO, Check, Exercise, Lesson, Probe, comparison

__all__ = ["LESSON", "test", "rings_probe", "SIGMA_TOL"]

#: The named mistakes, key -> hint, per exercise (``data/lesson05.mistakes.toml``).
MISTAKES = load_mistakes("lesson05")

_RNG_SHAPES, _RNG_LOOP = np.random.default_rng(5), np.random.default_rng(7)
#: rbf_gram: 4 x 3 points in 2-D, two bandwidths (σ, σ², 2σ and 2σ² all differ).
GRAM_X = np.array([[0.0, 0.0], [1.0, 2.0], [-1.5, 0.5], [2.0, -1.0]])
GRAM_Z = np.array([[0.5, 0.5], [1.0, 1.0], [-2.0, 0.0]])
#: shapes (n, m, d): rectangular, one row, one feature.
GRAM_SHAPES = [(_RNG_SHAPES.normal(size=(n, d)), _RNG_SHAPES.normal(size=(m, d))) for n, m, d in
               ((6, 2, 3), (1, 5, 2), (4, 1, 1))]
#: the loop-free cell's call: 300 x 300 points in 5-D.
GRAM_BIG = (_RNG_LOOP.normal(size=(300, 5)), _RNG_LOOP.normal(size=(300, 5)), 1.5)
#: rbf_predict: 5 training points in 3-D (one with alpha = 0), one query.
PREDICT = (np.array([[0.0, 1.0, 0.5], [1.0, -1.0, 0.0], [0.5, 0.5, 0.5], [-1.0, 0.0, 1.0], [2.0, 0.0, -1.0]]),
           np.array([1, -1, 1, -1, -1]), np.array([2, 1, 0, 3, 1]), np.array([0.2, 0.4, 0.3]), 0.8)
#: two points at the same distance from the query, opposite labels, same count: score exactly 0.
PREDICT_ZERO = (np.array([[0.0, 1.0], [0.0, -1.0]]), np.array([1, -1]), np.array([2, 2]), np.zeros(2), 1.0)
#: choose_sigma: a noisy ring inside a ring (datasets.circles), 150 + 100 points; a grid from far
#: too narrow to far too wide.
RINGS = {"n_train": 150, "n_val": 100, "noise": 0.1, "factor": 0.5, "random_state": 3}
CHOOSE_SIGMAS = (0.003, 0.03, 0.3, 3.0, 30.0)
#: What counts as "within reach of the best" validation error.
SIGMA_TOL = 0.05


def rings_probe():
    """The rings of the choose_sigma probe: ``(X_train, y_train, X_val, y_val)``."""
    from kpcourse.datasets import circles

    X, y = circles(RINGS["n_train"] + RINGS["n_val"], noise=RINGS["noise"], factor=RINGS["factor"],
                   random_state=RINGS["random_state"])
    n = RINGS["n_train"]
    return X[:n], y[:n], X[n:], y[n:]


# ------------------------------------------------------- lesson-specific comparisons
@comparison("gram_shape")
def _gram_shape(value, expected, name, check, probe, answer):
    """Shape (len(X), len(Z)), read from the probe (no stored output: the values are another cell's)."""
    check_shape(value, (len(probe.args[0]), len(probe.args[1])), name)


@comparison("kernel_range")
def _kernel_range(value, expected, name, check, probe, answer):
    """Shape (len(X), len(Z)) and finite values between 0 and 1."""
    _gram_shape(value, expected, name, check, probe, answer)
    K = np.asarray(value, dtype=float)
    if not (np.all(np.isfinite(K)) and K.min() >= 0 and K.max() <= 1 + 1e-12):
        raise AssertionError(f"{name}: kernel values must be finite and between 0 and 1")


@comparison("unit_diagonal")
def _unit_diagonal(value, expected, name, check, probe, answer):
    """K(X, X) has ones on its diagonal (only that: the values are judged on K(X, Z))."""
    check_shape(value, np.shape(expected), name)
    diag = np.diag(np.asarray(value, dtype=float))
    if not np.allclose(diag, 1.0, rtol=0, atol=1e-10):
        raise AssertionError(f"{name} has diagonal {fmt(diag)}: every point is at distance 0 from itself, so "
                             "k(x, x) = 1")


def _one_number(value, what, hint=""):
    if np.ndim(value) != 0:
        raise AssertionError(f"the {what} returned by rbf_predict should be one number, got shape "
                             f"{np.shape(value)}{hint}")


def _score_label(value):
    """``(score, label)`` of an answer of rbf_predict: one number each."""
    score, label = value
    _one_number(score, "score", " (sum the weighted kernel values)")
    _one_number(label, "label")
    try:
        return float(score), label
    except (TypeError, ValueError):
        raise AssertionError(f"the score should be a number, got {type(score).__name__}") from None


@comparison("score")
def _score(value, expected, name, check, probe, answer):
    score, _ = _score_label(value)
    if not np.isclose(score, expected[0], rtol=check.rtol, atol=check.atol):
        raise AssertionError(f"{name} gave the score {fmt(score)}: not Σ αᵢ yᵢ exp(-‖xᵢ − q‖² / (2σ²))")


@comparison("label_rule")
def _label_rule(value, expected, name, check, probe, answer):
    """The label follows the student's own score: +1 when positive, -1 otherwise."""
    score, label = _score_label(value)
    if isinstance(label, (bool, np.bool_)):
        raise AssertionError("the label is True/False; return the number +1 or -1")
    if label not in (-1, 1):
        raise AssertionError(f"the label should be +1 or -1, got {fmt(label)}")
    if label != (1 if score > 0 else -1):
        raise AssertionError(f"for the score {fmt(score)} you returned the label {fmt(label)}: a positive score "
                             "predicts +1, any other score -1")


@comparison("zero_label")
def _zero_label(value, expected, name, check, probe, answer):
    """A score of exactly 0 (judged only when the student's own score is 0) gives -1."""
    score, label = _score_label(value)
    if score == 0 and label != -1:
        raise AssertionError(f"a score of exactly 0 gave the label {fmt(label)}: a score that is not positive "
                             "predicts -1")


@comparison("error_rates")
def _error_rates(value, expected, name, check, probe, answer):
    """One validation error rate per σ, within SIGMA_TOL of the reference's."""
    sigmas = probe.args[4]
    err = as_numbers(value, (len(sigmas),), f"the errors returned for {len(sigmas)} values of sigma")
    ref = np.asarray(expected, dtype=float)
    if np.allclose(err, ref, rtol=0, atol=SIGMA_TOL):
        return
    if np.any(err > 1):
        raise AssertionError(CHOOSE.mistakes["counts"])
    if np.allclose(err, 1 - ref, rtol=0, atol=SIGMA_TOL):
        raise AssertionError(CHOOSE.mistakes["accuracy"])
    i = int(np.argmax(np.abs(err - ref)))
    raise AssertionError(f"{name}: your validation error for σ = {sigmas[i]:g} is {err[i]:.3f}, far from what "
                         "KernelPerceptron(kernel='rbf', sigma=σ, max_epochs=10, random_state=0) trained on "
                         "X_train makes on X_val")


@comparison("sigma_choice")
def _sigma_choice(value, expected, name, check, probe, answer):
    """The σ returned has a reference validation error within SIGMA_TOL of the best of the grid."""
    check_grid_choice(value[0], probe.args[4], expected[1], name, tol=SIGMA_TOL)


@comparison("sigma_choice_shaped")
def _sigma_choice_shaped(value, expected, name, check, probe, answer):
    """As ``sigma_choice``, and the errors returned are one per σ (the hidden twin checks that too)."""
    check_shape(value[1], (len(probe.args[4]),), f"the errors returned for {len(probe.args[4])} values of sigma")
    _sigma_choice(value, expected, name, check, probe, answer)


# ----------------------------------------------------------------- the exercises
#: The mistakes of the kernel formula, shared by rbf_gram and rbf_predict (most specific first).
_KERNEL = tuple(RBF_FORMULA)
_ERRORS = (((np.ones((3, 2)), np.ones((4, 3)), 1.0), "X has 2 columns but Z has 3 (points of different dimensions)"),
           ((np.ones((3, 2)), np.ones((4, 2)), 0.0), "sigma is 0"),
           ((np.ones((3, 2)), np.ones((4, 2)), -1.5), "sigma is negative"))

GRAM = Exercise(
    "rbf_gram", "ex1-rbf-gram", "the RBF Gram matrix", time_limit=60.0,  # a slow loop-free one passes
    mistakes={**MISTAKES["rbf_gram"], **RBF_FORMULA},
    checks=[
        Check("ex1-rbf-gram-tests-values", rtol=0, atol=1e-10, mistakes=_KERNEL, hidden_label="new data",
              hint="K[i, j] = exp(-‖X[i] − Z[j]‖² / (2σ²))", probes=[
                  *(Probe((GRAM_X, GRAM_Z, s), label=f"X={fmt(GRAM_X)}, Z={fmt(GRAM_Z)}, sigma={s:g}")
                    for s in (0.7, 2.5)),
                  Probe((GRAM_X, GRAM_X, 1.3), compare="unit_diagonal",
                        label="rbf_gram(X, X, 1.3) for X with 4 rows")]),
        Check("ex1-rbf-gram-tests-shape", compare="gram_shape", pure="in_place", hidden_label="new shapes",
              probes=[*(Probe((X, Z, 1.0), label=f"X of shape {X.shape} and Z of shape {Z.shape}")
                        for X, Z in GRAM_SHAPES),
                      *(Probe(args, raises="ValueError", why=why) for args, why in _ERRORS)]),
        # the 300 x 300 call is compared with the answer to the small one (like=0): its shape is read
        # from the probe, so no 300 x 300 output is kept as data
        Check("ex1-rbf-gram-tests-loop-free", compare="gram_shape", loop_free=True,
              hidden_label="1200 x 900 new points",
              probes=[Probe((GRAM_X, GRAM_Z, 0.7), label="X with 4 rows and Z with 3 rows"),
                      Probe(GRAM_BIG, like=0, label="300 x 300 points")]),
    ])

_P_X, _P_Y, _P_A, _P_Q, _P_S = PREDICT
_PREDICT_LABEL = f"X={fmt(_P_X)}, y={fmt(_P_Y)}, alpha={fmt(_P_A)}, query={fmt(_P_Q)}, sigma={_P_S:g}"
RBF_PREDICT = Exercise(
    "rbf_predict", "ex2-rbf-predict", "the RBF prediction", returns=("score", "label"),
    mistakes={**MISTAKES["rbf_predict"], **RBF_FORMULA, **SIGN_AT_ZERO},
    checks=[
        Check("ex2-rbf-predict-tests-score", compare="score", rtol=1e-9, atol=1e-12, hidden_label="new data",
              mistakes=("no_y", "no_alpha", "plain", *_KERNEL), probes=[Probe(PREDICT, label=_PREDICT_LABEL)]),
        Check("ex2-rbf-predict-tests-label", compare="label_rule", mistakes=("np_sign", "zero_plus"),
              hidden_label="new queries", probes=[
                  Probe(PREDICT, label=_PREDICT_LABEL),
                  Probe((_P_X, -_P_Y, _P_A, _P_Q, _P_S), label="the same with the labels flipped"),
                  Probe(PREDICT_ZERO, compare="zero_label", label="a score of exactly 0"),
                  *(Probe(args, raises="ValueError", why=why) for args, why in (
                      ((_P_X, _P_Y[:4], _P_A, _P_Q, _P_S), "y has 4 labels for 5 points"),
                      ((_P_X, _P_Y, _P_A[:3], _P_Q, _P_S), "alpha has 3 counts for 5 points"),
                      ((_P_X, _P_Y, _P_A, _P_Q[:2], _P_S), "query has 2 coordinates but the points have 3")))]),
    ])

_RINGS_LABEL = f"the rings with sigmas={fmt(np.array(CHOOSE_SIGMAS))}"
CHOOSE = Exercise(
    "choose_sigma", "ex3-choose-sigma", "the choice of σ", returns=("best_sigma", "errors"), time_limit=30.0,
    mistakes=MISTAKES["choose_sigma"],
    checks=[
        Check("ex3-choose-sigma-tests-errors", compare="error_rates", part=1, hidden_label="new data",
              mistakes=("counts", "accuracy", "train_errors"),
              probes=[Probe((*rings_probe(), CHOOSE_SIGMAS), label=_RINGS_LABEL)]),
        Check("ex3-choose-sigma-tests-choice", compare="sigma_choice", mistakes=("train",), hidden_label="new data",
              probes=[Probe((*rings_probe(), CHOOSE_SIGMAS), label=_RINGS_LABEL)]),
    ])

LESSON = Lesson("lesson05", [GRAM, RBF_PREDICT, CHOOSE])
test = LESSON.test
