"""Checks of assignment 04 (the kernel trick): phi, identity_gap, the kernel perceptron, count_features.

``identity_gap(feature_map, X, Z)`` takes a function: only the student's own functions can be handed
to it at grading time (:class:`~._core.Ref`, looked up by name in the notebook), so its probes use two
*given* maps that the assignment defines in a locked cell (copied here, :data:`FEATURE_MAPS`, a unit
test keeps them equal): they are inputs of the probes, neither is the answer of an exercise. The
student's ``phi`` is never passed: a wrong ``phi`` (or one that calls a reference) must not cost
points in exercise 2.
"""

from __future__ import annotations

import numpy as np

from kpcourse.checks._core import (
    Ref,
    check_close,
    check_labels,
    check_shape,
    counts_and_bias,
    fmt,
    load_mistakes,
    one_number,
)
from kpcourse.checks.exercise import COMPARISONS, SIGN_AT_ZERO, Check, Exercise, Lesson, Probe, comparison, same

__all__ = ["LESSON", "test", "FEATURE_MAPS"]

#: The named mistakes, key -> hint, per exercise (``data/lesson04.mistakes.toml``).
MISTAKES = load_mistakes("lesson04")


# ------------------------------------------------- the maps given for exercise 2
def phi_without_root(A):
    """(x1², x2², x1·x2): the quadratic map without the √2, a wrong map of (x·z)²."""
    A = np.asarray(A, dtype=float)
    return np.column_stack([A[:, 0] ** 2, A[:, 1] ** 2, A[:, 0] * A[:, 1]])


def all_ordered_products(A):
    """Every product x_i·x_j (d² features, x1·x2 and x2·x1 both): an exact map of (x·z)², any d."""
    A = np.asarray(A, dtype=float)
    return (A[:, :, None] * A[:, None, :]).reshape(len(A), -1)


#: Name (as in the assignment's locked cell) -> the map, for the visible run.
FEATURE_MAPS = {"phi_without_root": phi_without_root, "all_ordered_products": all_ordered_products}
WRONG_MAP, EXACT_MAP = Ref("phi_without_root"), Ref("all_ordered_products")

PHI_X = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.0], [-2.0, -1.5]])
# The products p = x1x2z1z2 range from -2.25 to +3 on (GAP_X, GAP_Z); with phi_without_root
# the differences are -p, so the largest |difference| is an undershoot (-3). Flipping the
# sign of z1 (GAP_ZF) makes it an overshoot (+3): a signed maximum fails one probe, a
# maximum of kernel - features the other.
GAP_X = np.array([[1.0, 2.0], [-0.5, 1.0], [2.0, 0.5], [1.5, -1.0], [0.0, 1.0]])
GAP_Z = np.array([[1.0, 1.5], [2.0, -0.5], [-1.0, 1.0], [0.5, 0.5]])
GAP_ZF = np.array([[-1.0, 1.5], [-2.0, -0.5], [1.0, 1.0], [-0.5, 0.5]])
GAP_A3, GAP_B3 = np.array([[1.0, 0.5, -1.0], [0.0, 2.0, 1.0]]), np.array([[1.0, 1.0, 1.0], [2.0, 0.0, -0.5],
                                                                          [0.5, -1.0, 0.0]])
# Multiples of 1/4: every kernel value and score is exact in floating point. Labelled by
# the unit circle; 3 epochs, one point corrected twice; every common mistake differs.
TRAIN_X = np.array([[-0.5, 0.5], [0.0, 0.75], [0.5, 1.5], [0.25, 0.0], [1.0, -1.25], [-1.5, -1.75],
                    [0.0, -0.5], [-1.25, -0.5]])
TRAIN_Y = np.array([-1, -1, 1, -1, 1, 1, -1, 1])
EPOCHS = 20
#: Two copies of one point with opposite labels: every visit is a mistake.
TWIN = (np.array([[1.0, 0.5], [1.0, 0.5]]), np.array([1, -1]))
#: Two separable points: every variant of the rule converges in 2 epochs.
FAR = (np.array([[2.0, 0.0], [-2.0, 0.0]]), np.array([1, -1]))
#: alpha·y = (2, -1, 1), b = -0.5; the labels of PREDICT_NEW differ from every mistake's.
PREDICT_ARGS = (np.array([[1.0, 0.0], [0.0, 2.0], [-1.0, 1.0]]), np.array([1, -1, 1]), np.array([2, 1, 1]), -0.5)
PREDICT_NEW = np.array([[-2.0, -2.0], [-2.0, -1.5], [-2.0, -1.0], [-1.5, 2.0]])
#: (1 + x·z)² is 2.25 for both training points at x = (0.5, 0.5): its score is exactly 0.
ZERO = (np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1, -1]), np.array([1, 1]), 0.0,
        np.array([[0.5, 0.5], [2.0, 0.0]]))
COUNT_VALUES = ((2, 2), (3, 2), (2, 3), (10, 3), (1, 4), (784, 5), (1000, 8))

_ROUNDING = ("for an exact feature map (all_ordered_products: every product x_i·x_j) your gap is {}, not "
             "rounding-size: compare feature_map(X) @ feature_map(Z).T with the kernel values (X @ Z.T) ** 2, "
             "each entry squared; the gap must work for any dimension and for X and Z of different lengths")


# ------------------------------------------------------- lesson-specific comparisons
@comparison("l04_shape")
def _shape_only(value, expected, name, check, probe, answer):
    check_shape(value, np.shape(expected), name)


@comparison("l04_features")
def _features(value, expected, name, check, probe, answer):
    check_shape(value, np.shape(expected), name)
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError(f"phi should return numbers, got {type(value).__name__}") from None
    if not np.all(np.isfinite(arr)):
        raise AssertionError("phi returned NaN or infinite values (a square root of a negative product?): the "
                             "third feature is √2 times x1·x2")
    if not same(arr, expected) and same(np.sort(arr, axis=1), np.sort(np.asarray(expected, float), axis=1)):
        raise AssertionError(MISTAKES["phi"]["order"])
    check_close(arr, expected, name)


@comparison("l04_rounding")
def _rounding(value, expected, name, check, probe, answer):
    """The gap of an exact map: rounding-size."""
    got = one_number(value, name)
    if not (np.isfinite(got) and abs(got) < 1e-9):
        raise AssertionError(f"{name}: " + _ROUNDING.format(fmt(got)))


@comparison("l04_gap")
def _gap(value, expected, name, check, probe, answer):
    got = one_number(value, name)
    if not np.isclose(got, expected):
        raise AssertionError(f"{name}: you returned {fmt(got)}: the gap is max |feature_map(X) @ feature_map(Z).T "
                             "− (X @ Z.T) ** 2| over all pairs")


@comparison("l04_counts")
def _counts(value, expected, name, check, probe, answer):
    """(alpha, b): alpha whole counts >= 0, the first point counted (its score is 0); values not judged."""
    alpha, _ = counts_and_bias(value, len(probe.args[1]), name)
    if np.all(alpha == 0) or alpha[0] < 1:
        raise AssertionError(MISTAKES["kernel_perceptron_train"]["sign0"])
    if np.any(alpha < 0) or not np.allclose(alpha, np.round(alpha)):
        raise AssertionError(f"{MISTAKES['kernel_perceptron_train']['negative']}; you returned {fmt(alpha)}")


@comparison("l04_named")
def _named(value, expected, name, check, probe, answer):
    """Labels; on the visible probe only the named mistakes fail (the other cell judges the rest)."""
    k = next((i for i, p in enumerate(check.probes) if p is probe), None)
    if k is None:  # a hidden probe
        return COMPARISONS["labels"](value, expected, name, check, probe, answer)
    mistaken = LESSON.data[check.cell]["mistaken"][k]
    if "scores" in mistaken and same(value, mistaken["scores"]):
        raise AssertionError(MISTAKES["kernel_perceptron_predict"]["scores"])
    check_labels(value, len(expected), name)
    if any(k in mistaken and same(value, mistaken[k]) for k in check.mistakes):
        raise AssertionError(f"{name} gave wrong labels")


@comparison("l04_count")
def _count(value, expected, name, check, probe, answer):
    """The count (a float equal to it passes here; the other cell asks for an int)."""
    try:
        val = int(value) if float(value) == int(value) else value
    except (TypeError, ValueError, OverflowError):
        val = value
    if _is_int(val) and not isinstance(value, (bool, np.bool_)) and val == expected:
        return
    d, n = probe.args
    if _is_int(value) and d == 1000:
        raise AssertionError(f"{name} is wrong although smaller cases are right: the count exceeds 64-bit "
                             "integers; use Python ints (math.comb)")
    raise AssertionError(f"{name} returned {fmt(value)}: count the monomials x1^k1 ... x{d}^k{d} with "
                         f"k1 + ... + k{d} <= {n}")


def _is_int(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


# ----------------------------------------------------------------- the exercises
PHI = Exercise(
    "phi", "ex1-phi", "the feature map φ", mistakes=MISTAKES["phi"], checks=[
        Check("ex1-phi-tests-shape", compare="l04_shape", pure="in_place", hidden_label="new X", probes=[
            Probe((PHI_X,), label="X of shape (4, 2)"), Probe((PHI_X[:1],), label="X of shape (1, 2)"),
            Probe((np.ones((4, 3)),), raises="ValueError", why="X has shape (4, 3): φ maps 2-D points only"),
            Probe((np.array([1.0, 2.0]),), raises="ValueError",
                  why="X has shape (2,): one point must be given as shape (1, 2)")]),
        Check("ex1-phi-tests-values", compare="l04_features", mistakes=("no_root", "doubled", "order"),
              hint="each row must be (x1², x2², √2·x1·x2)", hidden_label="new points",
              probes=[Probe((PHI_X,), label=f"X={fmt(PHI_X)}")]),
    ])

GAP = Exercise(
    "identity_gap", "ex2-gap", "the identity check", helpers=tuple(FEATURE_MAPS),
    mistakes=MISTAKES["identity_gap"],
    checks=[
        Check("ex2-gap-tests-values", compare="l04_gap", mistakes=("signed", "flipped", "mean", "sum"),
              hidden_label="new points", probes=[
                  Probe((EXACT_MAP, GAP_X, GAP_Z), compare="l04_rounding", label="the exact map all_ordered_products"),
                  Probe((WRONG_MAP, GAP_X, GAP_Z), label="the map phi_without_root (third feature x1·x2, no √2)"),
                  Probe((WRONG_MAP, GAP_X, GAP_ZF), label="the map phi_without_root on other points")]),
        Check("ex2-gap-tests-errors", compare="l04_rounding", hidden_label="points of other dimensions", probes=[
            Probe((EXACT_MAP, GAP_A3, GAP_B3), label="3-D points (2 of them in X, 3 in Z)"),
            Probe((EXACT_MAP, np.ones((2, 2)), np.ones((3, 3))), raises="ValueError",
                  why="X has 2 columns and Z has 3: their points cannot be compared")]),
    ])

TRAIN = Exercise(
    "kernel_perceptron_train", "ex3-train", "the kernel perceptron", returns=("alpha", "b"), time_limit=3.0,
    mistakes=MISTAKES["kernel_perceptron_train"], checks=[
        Check("ex3-train-tests-basic", compare="l04_counts", pure="in_place", mistakes=("sign0", "negative"),
              hidden_label="new 3-D data", probes=[
                  Probe((TRAIN_X, TRAIN_Y, EPOCHS), label="8 points"),
                  Probe((TRAIN_X, TRAIN_Y[:-1], EPOCHS), raises="ValueError", why="X has 8 rows but y has 7 labels")]),
        Check("ex3-train-tests-rule", part=(0, 1), hidden_label="new points",
              mistakes=("homogeneous", "linear", "no_bias", "bias_not_in_score", "set_one", "sign0"),
              hint="not the kernel perceptron's. Visit the samples 0..n-1 in order; f(x_i) = Σ_j alpha_j y_j "
                   "(1 + x_j·x_i)² + b; on y_i f(x_i) <= 0 add 1 to alpha_i and y_i to b",
              probes=[Probe((TRAIN_X, TRAIN_Y, EPOCHS), label=f"X={fmt(TRAIN_X)}, y={fmt(TRAIN_Y)}, max_epochs=20")]),
        Check("ex3-train-tests-stop", part=0, hidden_label="points where every visit is a mistake, and "
              "separable points with max_epochs=10**9", probes=[
                  *(Probe((*TWIN, e), mistake="epochs",
                          label=f"two copies of one point with opposite labels, max_epochs={e}") for e in (1, 3)),
                  # a loop that never stops early runs past the time limit on any machine (2·10⁹ visits)
                  Probe((*FAR, 10 ** 9), compare="none", label="two separable points, max_epochs=10**9")]),
    ])

_PREDICT_LABEL = (f"3 training points (X_train of shape (3, 2)), y_train={fmt(PREDICT_ARGS[1])}, "
                  f"alpha={fmt(PREDICT_ARGS[2])}, b={fmt(PREDICT_ARGS[3])}, X_new={fmt(PREDICT_NEW)}")
PREDICT = Exercise(
    "kernel_perceptron_predict", "ex4-predict", "the kernel perceptron's prediction",
    mistakes={**MISTAKES["kernel_perceptron_predict"], **SIGN_AT_ZERO},
    checks=[
        Check("ex4-predict-tests-basic", compare="l04_named", mistakes=("scores", "flipped", "no_y", "no_b"),
              hidden_label="new points", probes=[
                  Probe((*PREDICT_ARGS, PREDICT_NEW), label=_PREDICT_LABEL),
                  Probe((*PREDICT_ARGS, PREDICT_NEW[:1]), compare="l04_shape", label="X_new with one row"),
                  Probe((*PREDICT_ARGS, np.ones((2, 3))), raises="ValueError",
                        why="X_new has 3 columns but the training points have 2")]),
        Check("ex4-predict-tests-details", compare="labels", options={"zero_at": 0},
              mistakes=("homogeneous", "linear", "np_sign", "zero_plus"),
              hidden_label="points with a score of exactly 0, and the kernel", probes=[
                  Probe((*PREDICT_ARGS, PREDICT_NEW), label=_PREDICT_LABEL),
                  Probe(ZERO, compare="at_zero", label="2 new points, the first with a score of exactly 0")]),
    ])

COUNT = Exercise(
    "count_features", "ex5-count", "the feature count",
    mistakes=MISTAKES["count_features"],
    checks=[
        Check("ex5-count-tests-basic", compare="none", types=(int, np.integer), mistakes=("float",),
              hidden_label="other sizes", probes=[
                  Probe((2, 2)), Probe((784, 5)),
                  Probe((0, 2), raises="ValueError", why="d = 0 (no coordinates)"),
                  Probe((3, 0), raises="ValueError", why="degree = 0"),
                  Probe((-2, 3), raises="ValueError", why="d is negative")]),
        Check("ex5-count-tests-values", compare="l04_count", hidden_label="other sizes",
              mistakes=("exact_degree", "no_constant", "ordered_exact", "ordered"),
              probes=[Probe(args) for args in COUNT_VALUES]),
    ])

LESSON = Lesson("lesson04", [PHI, GAP, TRAIN, PREDICT, COUNT])
test = LESSON.test
