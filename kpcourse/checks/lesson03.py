"""Checks of assignment 03 (the dual form): merged copies, a dual loop with shrinking steps,
leave-one-out predictions, and a smaller support for the same perceptron.

Nearest course code, and the probe that defeats a copy of it:

* ``merge_duplicates`` (ex1): lecture 05's cell tagged ``duplicates`` finds the copies of a point with ``np.unique``
  and counts them; the exercise pools the signed coefficients alpha_i y_i of the copies and drops
  those that cancel; every probe has copies with both labels.
* ``dual_train_decay`` (ex2): the package's engine, lecture 06's and lecture 08's loops and the
  notebook's locked ``dual_train`` take a constant step; every check holds probes with
  ``power > 0`` and compares the summed steps ``a``, which a constant step never gives.
* ``loo_predictions`` (ex3): no course code leaves a point out (lecture 08's ``cross_val_score``
  is scikit-learn's, absent here, and retrains on folds); the full model's predictions
  (``KernelPerceptron.predict``) differ on the probes where a point's removal changes the run.
* ``caratheodory`` (ex4): no course code shrinks a support; appendix 03's ``lstsq`` projection
  has no sign constraint. Answers are judged by their properties (any correct one passes).

The visible probes use the four points of lessons 02-03 (:func:`kpcourse.datasets.worked_example`)
and the perceptron quiz's 20 points (:func:`kpcourse.datasets.quiz_points`), rescaled as the
quiz does and without its constant-1 column: ``Z = quiz_transform(X)[:, :2]``, ``K = Z Zᵀ``.
"""

from __future__ import annotations

import numpy as np

from kpcourse.checks._core import as_numbers, fmt, load_mistakes
from kpcourse.checks.exercise import SIGN_AT_ZERO, Check, Exercise, Lesson, Probe, comparison
from kpcourse.datasets import quiz_points, quiz_transform, worked_example

__all__ = ["LESSON", "test", "QUIZ", "FOUR"]

#: The named mistakes, key -> hint, per exercise (``data/lesson03.mistakes.toml``).
MISTAKES = load_mistakes("lesson03")

#: The four points of lessons 02 and 03: ``(X, y, K)``.
_X4, _Y4 = worked_example()
FOUR = (_X4, _Y4, _X4 @ _X4.T)
#: The quiz's points as the checks use them: ``(Z, y, K)``.
_QX, _QY = quiz_points()
_QZ = quiz_transform(_QX)[:, :2]
QUIZ = (_QZ, _QY, _QZ @ _QZ.T)
#: The quiz's dual counts (lesson 03's rule, learning rate 1): five points with alpha > 0.
QUIZ_ALPHA = np.array([1, 1, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0])

# Exercise 1: three copies of (1, 2) (labels +1, -1, +1), two of (0, 1) that cancel, (2, 0) never erred.
MX = np.array([[1.0, 2.0], [0.0, 1.0], [2.0, 0.0], [1.0, 2.0], [3.0, -1.0], [0.0, 1.0], [1.0, 2.0], [-1.0, 2.0]])
MY = np.array([1, 1, -1, -1, 1, -1, 1, -1])
MA = np.array([2, 1, 0, 1, 3, 1, 1, 2])
# Exercise 3: the quiz with the label of point 9 flipped: no line separates it, the run stops at max_epochs.
_FLIP = np.where(np.arange(len(_QY)) == 9, -_QY, _QY)
# Exercise 4: eight 3-D points, two of them repeated, one the sum of two others.
CX = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0], [2.0, 2.0, 0.0], [1.0, 0.0, 2.0], [1.0, 1.0, 1.0],
               [-1.0, 2.0, 0.0], [3.0, 1.0, 1.0], [0.0, 1.0, -1.0]])
CY = np.array([1, -1, 1, 1, -1, 1, -1, -1])
CA = np.array([2, 1, 3, 1, 2, 1, 1, 2])


# ------------------------------------------------------- lesson-specific comparisons
@comparison("caratheodory")
def _caratheodory(value, expected, name, check, probe, answer):
    """Any alpha' that keeps the perceptron: >= 0, inside alpha's support, independent points, same (w, b)."""
    X, y, alpha = (np.asarray(a, dtype=float) for a in probe.args)
    new = as_numbers(value, alpha.shape, name)
    if not np.all(np.isfinite(new)):
        raise AssertionError(f"{name} contains NaN or infinite values: {fmt(new)}")
    hints = MISTAKES["caratheodory"]
    if np.any(new < 0):
        raise AssertionError(hints["negative"] + f" (smallest entry: {fmt(new.min())})")
    S = np.flatnonzero(new > 0)
    if np.any(alpha[S] <= 0):
        raise AssertionError(hints["outside"])
    V = y[:, None] * np.c_[X, np.ones(len(X))]
    w_b, new_w_b = alpha @ V, new @ V
    scale = max(1.0, float(np.abs(w_b).max(initial=0.0)))
    if not np.allclose(new_w_b[:-1], w_b[:-1], rtol=0, atol=check.atol * scale):
        raise AssertionError(hints["w"])
    if not np.isclose(new_w_b[-1], w_b[-1], rtol=0, atol=check.atol * scale):
        raise AssertionError(hints["no_bias"])
    if len(S) and np.linalg.matrix_rank(V[S]) < len(S):
        raise AssertionError(f"{hints['dependent']} (you kept {len(S)} points; their vectors span "
                             f"{np.linalg.matrix_rank(V[S])} dimensions)")


# ----------------------------------------------------------------- the exercises
MERGE = Exercise(
    "merge_duplicates", "ex1-merge", "the merged copies", returns=("X_merged", "coef"), time_limit=5.0,
    mistakes=MISTAKES["merge_duplicates"], checks=[
        Check("ex1-merge-tests-values", part=(0, 1), pure="in_place", hidden_label="new points with copies",
              mistakes=("counts", "keeps_zero", "first_seen", "no_merge"),
              hint="coef[u] is the sum of alpha_i·y_i over the copies i of the distinct point X_merged[u]", probes=[
                  Probe((MX, MY, MA), label=f"X={fmt(MX)}, y={fmt(MY)}, alpha={fmt(MA)}")]),
        Check("ex1-merge-tests-cancel", part=(0, 1), hidden_label="new points, lists and errors",
              mistakes=("keeps_zero", "counts"), probes=[
                  Probe((MX[[1, 5]], MY[[1, 5]], MA[[1, 5]]),
                        label="the two copies of (0, 1), labels +1 and -1, alpha=[1, 1] (they cancel)"),
                  Probe((MX.tolist(), MY.tolist(), MA.tolist()), label="the same X, y, alpha as lists"),
                  Probe((MX[:, :1], MY, MA), label="points with one coordinate (the first column of X)"),
                  Probe((MX, MY, -MA), raises="ValueError", why="alpha is negative"),
                  Probe((MX, MY[:5], MA), raises="ValueError", why="y has 5 labels but X has 8 rows")]),
    ])

_FOUR = "the four points of lesson 02 (K = X Xᵀ)"
_QUIZ = "the quiz's Gram matrix (K = Z Zᵀ, Z = quiz_transform(X)[:, :2], 20 points)"
DECAY = Exercise(
    "dual_train_decay", "ex2-decay", "the dual training with shrinking steps", returns=("alpha", "a", "b"),
    mistakes=MISTAKES["dual_train_decay"], checks=[
        Check("ex2-decay-tests-steps", part=(0, 1, 2), pure="in_place", hidden_label="random Gram matrices",
              mistakes=("strict", "mistake_clock", "epoch_clock", "score_counts", "bias_eta0", "no_bias"),
              hint="visit t (counting every visit from 1, across the epochs) steps eta0·t**(-power); on a mistake "
                   "alpha[i] += 1, a[i] += step and b += step·y[i]", probes=[
                  Probe((FOUR[2], FOUR[1]), {"eta0": 1.0, "power": 0.5, "max_epochs": 100},
                        label=f"{_FOUR}, eta0=1, power=0.5"),
                  Probe((QUIZ[2], QUIZ[1]), {"eta0": 1.0, "power": 0.5, "max_epochs": 100},
                        label=f"{_QUIZ}, eta0=1, power=0.5"),
                  Probe((FOUR[2], FOUR[1]), {"eta0": 0.25, "power": 0.0, "max_epochs": 100},
                        label=f"{_FOUR}, eta0=0.25, power=0 (lesson 02's constant step)")]),
        Check("ex2-decay-tests-inputs", part=(0, 1, 2), hidden_label="runs stopped early, lists and errors",
              mistakes=("mistake_clock", "epoch_clock", "score_counts"), probes=[
                  Probe((FOUR[2].tolist(), FOUR[1].tolist()), {"eta0": 1.0, "power": 1.0, "max_epochs": 100},
                        label=f"{_FOUR} as lists, eta0=1, power=1"),
                  Probe((QUIZ[2], QUIZ[1]), {"eta0": 3.0, "power": 1.0, "max_epochs": 2},
                        label=f"{_QUIZ}, eta0=3, power=1, max_epochs=2"),
                  Probe((FOUR[2], FOUR[1]), {"eta0": 0.0, "power": 0.5, "max_epochs": 10}, raises="ValueError",
                        why="eta0 must be positive"),
                  Probe((FOUR[2], FOUR[1]), {"eta0": 1.0, "power": -0.5, "max_epochs": 10}, raises="ValueError",
                        why="power must be at least 0"),
                  Probe((FOUR[2][:3], FOUR[1]), {"eta0": 1.0, "power": 0.5, "max_epochs": 10}, raises="ValueError",
                        why="K has 3 rows but there are 4 labels")]),
    ])

LOO = Exercise(
    "loo_predictions", "ex3-loo", "the leave-one-out predictions", time_limit=10.0,
    mistakes={**MISTAKES["loo_predictions"], "zero_plus": SIGN_AT_ZERO["zero_plus"]}, checks=[
        Check("ex3-loo-tests-values", compare="labels",
              hidden_label="random Gram matrices of separable points", mistakes=("full", "no_bias", "zero_plus"),
              hint="for point i: dual_train on K without row i and column i, then the label of "
                   "Σ_j alpha_j y_j K[j, i] + b over the other points j", probes=[
                  Probe((FOUR[2], FOUR[1]), {"max_epochs": 100}, label=_FOUR),
                  Probe((QUIZ[2], QUIZ[1]), {"max_epochs": 100}, label=_QUIZ)]),
        Check("ex3-loo-tests-stopped", compare="labels", hidden_label="runs stopped by max_epochs",
              mistakes=("truth", "full"), probes=[
                  Probe((QUIZ[2], _FLIP), {"max_epochs": 5},
                        label=f"{_QUIZ} with the label of point 9 flipped, max_epochs=5"),
                  Probe((np.ones((3, 4)), np.array([1, -1, 1])), {"max_epochs": 5}, raises="ValueError",
                        why="K has shape (3, 4), not (n, n) for n = len(y) labels")]),
    ])

CARATHEODORY = Exercise(
    "caratheodory", "ex4-caratheodory", "the smaller support", time_limit=10.0,
    mistakes=MISTAKES["caratheodory"], checks=[
        Check("ex4-caratheodory-tests-values", compare="caratheodory", pure="in_place", atol=1e-8,
              mistakes=("outside", "negative", "w", "no_bias", "dependent"),
              hidden_label="random supports of 30 points in 2, 3 and 5 dimensions", probes=[
                  Probe((QUIZ[0], QUIZ[1], QUIZ_ALPHA), label="the quiz's points Z and their counts alpha "
                                                             "(5 points with alpha > 0)"),
                  Probe((FOUR[0], FOUR[1], np.array([2.0, 2.0, 2.0, 3.0])),
                        label="the four points, alpha=[2.0, 2.0, 2.0, 3.0] (floats)"),
                  Probe((CX, CY, CA), label=f"X={fmt(CX)}, y={fmt(CY)}, alpha={fmt(CA)}")]),
        Check("ex4-caratheodory-tests-degenerate", compare="caratheodory", atol=1e-8,
              hidden_label="repeated points, points on a line, small supports and errors", probes=[
                  Probe((np.r_[CX, CX], np.r_[CY, -CY], np.r_[CA, CA]),
                        label="every point of X twice, once with each label"),
                  Probe((np.c_[np.arange(6.0), 1.0 - np.arange(6.0)], np.array([1, 1, -1, 1, -1, -1]),
                         np.array([1, 2, 1, 3, 1, 2])), label="six points on the line x1 + x2 = 1"),
                  Probe((CX[:3], CY[:3], np.array([0, 2, 1])), label="a support of 2 independent points"),
                  Probe((CX, CY, np.zeros(8, dtype=int)), label="alpha all 0"),
                  Probe((CX, CY, -CA), raises="ValueError", why="alpha is negative")]),
    ])

LESSON = Lesson("lesson03", [MERGE, DECAY, LOO, CARATHEODORY])
test = LESSON.test
