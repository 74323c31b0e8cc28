"""Checks of assignment 03 (the dual form): dual_train, dual_predict, primal_from_dual.

Besides small hand-made probes, the checks use the perceptron quiz's 20 points
(:func:`kpcourse.datasets.quiz_points`), rescaled as the quiz does and without its
constant-1 column (our perceptron has its own bias): ``Z = quiz_transform(X)[:, :2]``,
``K = Z Zᵀ``.
"""

from __future__ import annotations

import numpy as np

from kpcourse.checks._core import check_close, check_shape, counts_and_bias, fmt, load_mistakes
from kpcourse.checks.exercise import SIGN_AT_ZERO, Check, Exercise, Lesson, Probe, comparison, same
from kpcourse.datasets import quiz_points, quiz_transform

__all__ = ["LESSON", "test", "QUIZ"]

#: The named mistakes, key -> hint, per exercise (``data/lesson03.mistakes.toml``).
MISTAKES = load_mistakes("lesson03")

# dual_train. Counts: points far from the origin, separable through it, so the bias
# never decides a mistake. Bias and learning rate: a small set where the bias matters.
XC = 10.0 * np.array([[1.0, 3.0], [2.0, 3.0], [-2.0, -1.0], [-2.0, -2.0], [-2.0, 3.0], [0.0, 2.0]])
YC = np.array([1, 1, -1, -1, -1, 1])
XB = np.array([[2.0, 3.0], [0.0, 1.0], [0.0, 3.0], [0.0, 0.0], [1.0, 1.0]])
YB = np.array([1, -1, 1, -1, -1])
EPOCHS = 20
#: The quiz's points as the checks use them: ``(Z, y, K)``.
_QX, _QY = quiz_points()
_QZ = quiz_transform(_QX)[:, :2]
QUIZ = (_QZ, _QY, _QZ @ _QZ.T)
#: The quiz's dual counts and bias (the answer of dual_train on the quiz, an input of primal_from_dual).
QUIZ_ALPHA, QUIZ_B = np.array([1, 1, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]), 2.0
# dual_predict: K_test_train (4 new points x 3 training points); with alpha·y = (1, 0, -2)
# and b = -0.5 the scores are -3.5, 1.5, -0.3 and exactly 0.
PK = np.array([[1.0, 0.0, 2.0], [0.0, 3.0, -1.0], [0.2, 0.0, 0.0], [0.5, 0.0, 0.0]])
PA, PY, PB = np.array([1, 0, 2]), np.array([1, -1, -1]), -0.5
#: The learning rate: kernel sum 2 and b = -1.5, so the score is 0.5·2 - 1.5 < 0 for rate 0.5.
PLR = (np.array([[2.0, 0.0, 0.0]]), np.array([1, 0, 2]), np.array([1, 1, -1]), -1.5, 0.5)
# primal_from_dual: 4 training points with 2 features; Σ_i alpha_i y_i = 3, b = learning_rate·3.
WX = np.array([[1.0, 2.0], [3.0, -1.0], [0.0, 1.0], [2.0, 2.0]])
WA, WY = np.array([2, 1, 1, 3]), np.array([1, -1, -1, 1])

_W = "w = learning_rate·Σ_i alpha_i y_i x_i"
_NOT_B = "b is not learning_rate·Σ_i alpha_i y_i (here Σ_i alpha_i y_i = 3): "


# ------------------------------------------------------- lesson-specific comparisons
@comparison("dual_counts")
def _counts(value, expected, name, check, probe, answer):
    """alpha: never all 0 (sign(0) is a mistake), never negative; then close. b: close."""
    if np.ndim(expected) == 1:
        check_shape(value, np.shape(expected), name)
        alpha = np.asarray(value, dtype=float)
        if np.all(alpha == 0):
            raise AssertionError(MISTAKES["dual_train"]["sign0"])
        if np.any(alpha < 0):
            raise AssertionError(MISTAKES["dual_train"]["negative"])
    check_close(value, expected, name, rtol=check.rtol, atol=check.atol)


@comparison("dual_rate")
def _rate(value, expected, name, check, probe, answer):
    """(alpha, b) with learning_rate r against the student's own run with 1: same alpha, r times b.

    On the visible probe, the stored right answer for r passes whatever the run with 1
    gave, and the stored output of "bias_no_lr" is named (its alpha changes with r).
    """
    lr = probe.kwargs.get("learning_rate", probe.args[3] if len(probe.args) > 3 else 1.0)
    n = len(probe.args[1])
    a, b = counts_and_bias(value, n, name)
    a1, b1 = counts_and_bias(expected, n, f"{name} with learning_rate=1")
    if not np.allclose(a, np.round(a)):
        raise AssertionError(f"{MISTAKES['dual_train']['alpha_lr']} (learning_rate={lr:g} gave alpha={fmt(a)})")
    if any(p is probe for p in check.probes):  # a visible probe: its twin (check.options["absolute"]) holds the data
        data = LESSON.data[check.cell]
        k = check.options["absolute"]
        if same((a, b), tuple(data["expected"][k])):
            return
        wrong = data["mistaken"][k].get("bias_no_lr")
        if wrong is not None and same((a, b), tuple(wrong)):
            raise AssertionError(MISTAKES["dual_train"]["bias_no_lr"])
    if b1 != 0 and np.allclose(a, a1) and np.isclose(b, b1):
        raise AssertionError(MISTAKES["dual_train"]["bias_no_lr"])
    if not np.allclose(a, a1):
        raise AssertionError(f"alpha changed with the learning rate ({fmt(a1)} for 1, {fmt(a)} for {lr:g}): "
                             "alpha and b start at 0, so the learning rate only rescales every score and the "
                             "mistakes stay the same; apply it to the kernel sum and to the bias step alike")
    if not np.isclose(b, lr * b1):
        raise AssertionError(f"b should be proportional to the learning rate: you returned b={fmt(b1)} for "
                             f"learning_rate=1 and b={fmt(b)} for {lr:g}")


@comparison("dual_w")
def _w(value, expected, name, check, probe, answer):
    """w of shape (n_features,): a pair, one entry per point or one entry too many get their own message."""
    n, d = np.shape(probe.args[0])[0], np.shape(expected)[0]
    if isinstance(value, tuple) and len(value) == 2 and np.ndim(value[0]) == 1 and np.ndim(value[1]) == 0:
        raise AssertionError(MISTAKES["primal_from_dual"]["pair"])
    shape = np.shape(value) if isinstance(value, (np.ndarray, list, tuple)) else None
    if shape == (n,) and n != d:
        raise AssertionError(MISTAKES["primal_from_dual"]["wrong_axis"])
    if shape == (d + 1,):
        raise AssertionError(MISTAKES["primal_from_dual"]["with_b"])
    check_close(value, expected, name, rtol=check.rtol, atol=check.atol)


# ----------------------------------------------------------------- the exercises
def _dual(K, y, lr=1.0, **kw):
    return Probe((K, y, EPOCHS, lr), **kw)


_BIAS_LABEL = f"K = X Xᵀ for X={fmt(XB)}, y={fmt(YB)}"
DUAL = Exercise(
    "dual_train", "ex1-dual-train", "the dual training", returns=("alpha", "b"), mistakes=MISTAKES["dual_train"],
    checks=[
        Check("ex1-dual-train-tests-counts", compare="dual_counts", part=0, mistakes=("sign0", "negative", "set"),
              hidden_label="random data", hint="alpha[i] counts the mistakes on sample i, visiting samples "
              "0..n-1 in order; the score is learning_rate·Σ_j alpha_j y_j K[j, i] + b", probes=[
                  _dual(XC @ XC.T, YC, label="a Gram matrix of 6 samples"),
                  Probe((np.ones((3, 4)), np.array([1, -1, 1]), 5, 1.0), raises="ValueError",
                        why="K has shape (3, 4), not (n, n) for n = len(y) labels")]),
        Check("ex1-dual-train-tests-bias", compare="dual_counts", part=(0, 1), hidden_label="hidden data",
              mistakes=("sign0", "negative", "set", "no_bias", "bias_out"),
              hint="check the mistake counts and the bias (b += learning_rate·y_i on a mistake, added to every "
                   "score)", probes=[
                  _dual(XB @ XB.T, YB, label=_BIAS_LABEL),
                  _dual(QUIZ[2], QUIZ[1], label="the quiz's Gram matrix (K = Z Zᵀ, Z = quiz_transform(X)[:, :2], "
                                                "20 points)")]),
        Check("ex1-dual-train-tests-rate", compare="dual_rate", hidden_label="hidden data",
              mistakes=("alpha_lr", "bias_no_lr"), options={"absolute": 2}, probes=[
                  _dual(XB @ XB.T, YB, compare="none", label=_BIAS_LABEL),
                  _dual(XB @ XB.T, YB, 0.25, like=0, label=f"{_BIAS_LABEL}, learning_rate=0.25"),
                  _dual(XB @ XB.T, YB, 0.25, compare="none", label=f"{_BIAS_LABEL}, learning_rate=0.25")]),
    ])

PREDICT = Exercise(
    "dual_predict", "ex2-dual-predict", "the dual prediction", mistakes={**MISTAKES["dual_predict"], **SIGN_AT_ZERO},
    checks=[
        Check("ex2-dual-predict-tests", compare="labels", mistakes=("scores", "no_y", "no_b", "flipped"),
              hidden_label="new points", probes=[
                  Probe((PK[:3], PA, PY, PB, 1.0), label=f"K_test_train={fmt(PK[:3])}, alpha={fmt(PA)}, "
                                                         f"y={fmt(PY)}, b={fmt(PB)}"),
                  Probe((np.ones((2, 4)), PA, PY, 0.0, 1.0), raises="ValueError",
                        why="K_test_train has 4 columns but there are 3 training samples (len(alpha))")]),
        Check("ex2-dual-predict-tests-details", compare="labels", mistakes=("np_sign", "zero_plus", "no_lr"),
              options={"zero_at": -1},
              hidden_label="a grid with points on the boundary", hint="the score is learning_rate·Σ_j alpha_j "
              "y_j K[t, j] + b; a score of exactly 0 gives -1", probes=[
                  Probe((PK, PA, PY, PB, 1.0), compare="at_zero",
                        label="4 test points, the last with a score of exactly 0"),
                  Probe(PLR, mistake="no_lr", label="a test point with learning_rate=0.5")]),
    ])

_WEIGHTS = ("pair", "wrong_axis", "with_b", "no_y", "negated")
_WXY = f"X={fmt(WX)}, alpha={fmt(WA)}, y={fmt(WY)}"
PRIMAL = Exercise(
    "primal_from_dual", "ex3-primal-from-dual", "the primal weights from the dual counts",
    mistakes=MISTAKES["primal_from_dual"], checks=[
        Check("ex3-primal-from-dual-tests", compare="dual_w", mistakes=(*_WEIGHTS, "no_lr", "lr_twice"),
              hidden_label="random counts", hint=_W, probes=[
                  Probe((WX, WA, WY, 3.0, 1.0), label=f"{_WXY}, b=3, learning_rate=1"),
                  Probe((WX, WA, WY, 1.5, 0.5), label=f"{_WXY}, b=1.5, learning_rate=0.5")]),
        Check("ex3-primal-from-dual-tests-checks", compare="none", mistakes=("check_lr",),
              hidden_label="the counts of real runs", probes=[
                  Probe((WX, WA, WY, 4.0, 1.0), raises="ValueError", why=f"{_NOT_B}b + 1 for learning_rate=1"),
                  Probe((WX, WA, WY, -3.0, 1.0), raises="ValueError", why=f"{_NOT_B}its sign is wrong"),
                  Probe((WX, WA, WY, 3.0, 0.5), raises="ValueError",
                        why=f"{_NOT_B}b fits learning_rate=1, but learning_rate=0.5"),
                  Probe((WX, WA, WY, 1.5, 0.5), label="a consistent b with learning_rate=0.5"),
                  Probe((WX[:3], WA, WY, 3.0, 1.0), raises="ValueError", why="X has 3 rows but alpha has 4 entries"),
                  Probe((WX, WA, WY[:3], 3.0, 1.0), raises="ValueError",
                        why="y has 3 labels but alpha has 4 entries")]),
        Check("ex3-primal-from-dual-tests-quiz", compare="dual_w", mistakes=_WEIGHTS, hint=_W,
              hidden_label="the quiz's points and random data", probes=[
                  Probe((QUIZ[0], QUIZ_ALPHA, QUIZ[1], QUIZ_B, 1.0),
                        label=f"the quiz (Z = quiz_transform(X)[:, :2], its counts alpha and b = {QUIZ_B:g})")]),
    ])

LESSON = Lesson("lesson03", [DUAL, PREDICT, PRIMAL])
test = LESSON.test
