"""Checks of assignment 02 (the perceptron by hand): how many updates fix a point, the two
quantities of Novikoff's proof along a run, the cycle of a run that never stops, a certificate
that no line separates two classes.

Nearest course code, and the probe that defeats a copy of it:

* ``repeats_to_fix`` (ex1): lecture 02's cell tagged ``gains`` prints the gain of one update and
  check your understanding 1 works one case by hand; neither counts repeated updates. Probes at
  exact multiples of the gain (dyadic numbers) catch a strict ``< 0`` test (``strict``) and a gain
  without the bias's share (``no_one``); counts near 2**40 defeat a loop that applies the update
  until the point is fixed.
* ``novikoff_slack`` (ex2): lecture 02's cell tagged ``novikoff`` computes R, γ and the bound (R/γ)²
  once, for one run, and the cell tagged ``novikoff-proof`` checks the proof's three steps where
  that run ends; the exercise asks for the proof's two inequalities after every update, for any
  order of updates, and the "forged" probes give orders no run makes, where the room goes negative.
* ``cycle_of`` (ex3): the package's primal loop stops after a clean epoch and ``trace_`` keeps the
  state after every step; nothing compares end-of-epoch states. XOR (the state is back at zero after
  every epoch) and points whose run cycles after tens of epochs defeat a stop on a clean epoch.
* ``separation_certificate`` (ex4): lecture 02's cell tagged ``certificate`` only looks for a -1
  point inside a triangle of +1 points, and the cell tagged ``lp``'s ``separable`` returns a bool
  from SciPy's ``linprog`` (absent when grading). Probes where a +1 point lies in a -1 triangle, or
  only two segments cross (XOR), defeat the first; a bool is not a certificate.
"""

from __future__ import annotations

import numpy as np

from kpcourse.checks._core import fmt, load_mistakes
from kpcourse.checks.exercise import Check, Exercise, Lesson, Probe, comparison

__all__ = ["LESSON", "test"]

#: The named mistakes, key -> hint, per exercise (``data/lesson02.mistakes.toml``).
MISTAKES = load_mistakes("lesson02")

#: Exercise 1: w = (0.5, -1), b = -0.25, learning rate 0.25. Scores y(w·x + b) -0.75 (exactly one
#: gain, 0.75, below 0), 0.75, -1.25, -1.25 and 0; the answers are 2, 0, 1, 2 and 1.
REP_W, REP_B, REP_LR = np.array([0.5, -1.0]), -0.25, 0.25
REP_X = np.array([[1.0, 1.0], [2.0, 0.0], [3.0, 0.0], [1.0, -1.0], [0.5, 0.0]])
REP_Y = np.array([1, 1, -1, -1, 1])
#: Lecture 02's check your understanding 1: score -0.3, ||x||² = 4 (learning rates 0.25 and 0.05).
CYU1 = (np.zeros(2), -0.3, np.array([[2.0, 0.0]]), np.array([1]))
#: A learning rate of 2**-20 and scores near -3·2**20: about 2**40 updates (a loop cannot count them).
#: Every ||x||² + 1 is a power of 2, so that -score/gain is exact in floating point.
BIG_LR = 2.0 ** -20
BIG = (np.array([1024.0, 0.0]), -3.0 * 2 ** 20, np.array([[1.0, 0.0], [0.0, -1.0], [0.0, 0.0], [-1.0, 0.0]]),
       np.array([1, 1, 1, -1]), BIG_LR)

#: Exercise 2: lecture 02's four points, trained with learning rate 0.25 from 0 (its worked example):
#: the points of its 9 updates in order, and a unit vector (w, b) = (-5, 4, -1)/√42 that separates them.
FOUR_X = np.array([[1.0, 2.0], [1.0, 1.0], [2.0, 4.0], [3.0, 2.0]])
FOUR_Y = np.array([1, -1, 1, -1])
FOUR_ORDER = [0, 1, 3, 0, 2, 3, 1, 2, 3]
FOUR_U = np.array([-5.0, 4.0, -1.0]) / np.sqrt(42.0)
#: Orders no run makes: point 0 again and again although it is right after the first update.
FORGED = [0, 0, 0, 2]
FORGED_LONG = [2, 2, 0, 0, 2, 2, 0, 0]

#: Exercise 3: XOR (the weights are back at 0 after every epoch), and five points whose run cycles.
XOR_X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])
XOR_Y = np.array([1, 1, -1, -1])
LOOP_X = np.array([[2.0, 1.0], [-1.0, 2.0], [0.0, -2.0], [1.0, 1.0], [-2.0, -1.0]])
LOOP_Y = np.array([1, -1, -1, -1, 1])

#: Exercise 4: a -1 point inside a triangle of +1 points, a +1 point inside a triangle of -1 points,
#: two crossing segments (no point in a triangle of the other class), and separable points.
IN_PLUS = (np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0], [1.0, 1.0]]), np.array([1, 1, 1, -1]))
IN_MINUS = (np.array([[0.0, 0.0], [6.0, 0.0], [5.0, 5.0], [0.0, 6.0], [2.0, 1.0]]), np.array([-1, -1, 1, -1, 1]))
CROSS = (np.array([[0.0, 0.0], [0.0, 4.0], [4.0, 5.0], [5.0, 1.0]]), np.array([1, -1, 1, -1]))
CROSS6 = (np.array([[0.0, 0.0], [1.0, 5.0], [6.0, 6.0], [7.0, 1.0], [-3.0, 2.0], [3.0, 9.0]]),
          np.array([1, -1, 1, -1, 1, -1]))
SEPARABLE = (FOUR_X, FOUR_Y)


# ------------------------------------------------------- lesson-specific comparisons
@comparison("l02_cycle")
def _cycle(value, expected, name, check, probe, answer):
    """``None`` exactly where no state repeats, else three whole numbers, each equal to the expected one."""
    if expected is None:
        if value is not None:
            raise AssertionError(f"{name} is not correct: no end-of-epoch state repeats within max_epochs "
                                 f"epochs here, so return None (you returned {fmt(value)})")
        return
    if value is None:
        raise AssertionError(f"{name} returned None, but an end-of-epoch state repeats within max_epochs epochs "
                             "here: return (mu, lam, mistakes)")
    if not isinstance(value, (tuple, list)) or len(value) != 3 or not all(
            isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in value):
        raise AssertionError(f"{name} should return None or a tuple of three whole numbers (mu, lam, mistakes), "
                             f"got {fmt(value)}")
    for part, got, exp in zip(("mu", "lam", "mistakes"), value, expected, strict=True):
        if int(got) != int(exp):
            raise AssertionError(f"{name}: {part} is not correct (you returned {int(got)})")


@comparison("l02_certificate")
def _certificate(value, expected, name, check, probe, answer):
    """``None`` exactly where a line separates the points (``expected is None``), else a valid certificate:
    at most 4 points, convex weights on each side, the same point of the plane from both sides."""
    X, y = np.asarray(probe.args[0], dtype=float), np.asarray(probe.args[1])
    if expected is None:
        if value is not None:
            raise AssertionError(f"{name} is not correct: a line separates these points (the perceptron "
                                 "converges on them), so no certificate exists: return None")
        return
    if value is None:
        raise AssertionError(f"{name} returned None, but no line separates these points: return a certificate "
                             "(think of every way at most 4 points of the two classes can block each other)")
    if not isinstance(value, (tuple, list)) or len(value) != 4:
        raise AssertionError(f"{name} should return None or a tuple (plus, lam, minus, mu), got {fmt(value)}")
    parts = []
    for idx, weights, label, side in ((value[0], value[1], 1, "plus"), (value[2], value[3], -1, "minus")):
        i, c = np.asarray(idx), np.asarray(weights)
        if i.ndim != 1 or c.shape != i.shape or i.size == 0 or i.dtype.kind not in "iu" or c.dtype.kind not in "iuf":
            raise AssertionError(f"{name}: {side} must be a non-empty list of row indices and its weights a list "
                                 f"of as many numbers (got {fmt(idx)} and {fmt(weights)})")
        if i.min() < 0 or i.max() >= len(y) or len(set(i.tolist())) != i.size:
            raise AssertionError(f"{name}: {side} holds an index that is not a row of X, or one twice: {fmt(idx)}")
        if not np.all(y[i] == label):
            raise AssertionError(f"{name}: {side} must hold points labelled {label:+d} only: {fmt(idx)}")
        if not (np.all(np.isfinite(c)) and np.all(c >= -1e-12) and abs(c.sum() - 1.0) <= 1e-9):
            raise AssertionError(f"{name}: the weights of {side} must be >= 0 and sum to 1 (a convex "
                                 f"combination): {fmt(weights)}")
        parts.append(c.astype(float) @ X[i])
    used = len(value[0]) + len(value[2])
    if used > 4:
        raise AssertionError(f"{name}: a certificate uses at most 4 points in all (in the plane, 4 are always "
                             f"enough), you used {used}")
    if not np.allclose(parts[0], parts[1], rtol=0.0, atol=1e-9 * (1.0 + np.abs(X).max())):
        raise AssertionError(f"{name}: the two convex combinations are different points, {fmt(parts[0])} from "
                             f"the +1 side and {fmt(parts[1])} from the -1 side: they must be the same point")


# ----------------------------------------------------------------- the exercises
_REP_LABEL = f"w={fmt(REP_W)}, b={fmt(REP_B)}, X={fmt(REP_X)}, y={fmt(REP_Y)}, learning_rate={fmt(REP_LR)}"
REPEATS = Exercise(
    "repeats_to_fix", "ex1-repeats", "the number of updates that fix a point", time_limit=5.0,
    mistakes=MISTAKES["repeats_to_fix"], checks=[
        Check("ex1-repeats-tests-values", compare="exact", hidden_label="new points and learning rates",
              mistakes=("strict", "no_one", "no_label", "flag"), probes=[
                  Probe((REP_W, REP_B, REP_X, REP_Y, REP_LR), label=_REP_LABEL),
                  Probe((*CYU1, 0.25), label="check your understanding 1 of lesson 02 (score -0.3, ||x||² = 4, "
                                             "learning_rate=0.25)"),
                  Probe((*CYU1, 0.05), label="check your understanding 1 with learning_rate=0.05"),
                  Probe((REP_W, REP_B, REP_X, REP_Y, 0.0), raises="ValueError",
                        why="learning_rate is 0: no number of updates fixes a mistake"),
                  Probe((REP_W, REP_B, REP_X[:, :1], REP_Y, REP_LR), raises="ValueError",
                        why="X has 1 column but w has 2 entries")]),
        Check("ex1-repeats-tests-large", compare="exact", hidden_label="new points far on the wrong side",
              mistakes=("strict", "no_label", "flag"), probes=[
                  Probe(BIG, label="learning_rate=2**-20 and points about 2**40 updates from their side")]),
    ])

_FOUR = "lesson 02's four points, the 9 updates of its run with learning_rate=0.25, u=(-5, 4, -1)/√42"
NOVIKOFF = Exercise(
    "novikoff_slack", "ex2-novikoff", "the two inequalities of Novikoff's proof", time_limit=5.0,
    returns=("progress", "room"), mistakes=MISTAKES["novikoff_slack"], checks=[
        Check("ex2-novikoff-tests-values", part=(0, 1), hidden_label="new runs of the perceptron",
              mistakes=("swapped", "before", "from_zero", "no_constant", "eta_once"), probes=[
                  Probe((FOUR_X, FOUR_Y, FOUR_ORDER, FOUR_U, 0.25), label=_FOUR),
                  Probe((FOUR_X, FOUR_Y, FOUR_ORDER, FOUR_U, 1.0), label="the same updates with learning_rate=1")]),
        Check("ex2-novikoff-tests-forged", part=(0, 1), hidden_label="new orders of updates that no run makes",
              mistakes=("swapped", "before", "from_zero", "no_constant", "eta_once"), probes=[
                  Probe((FOUR_X, FOUR_Y, FORGED, FOUR_U, 0.25),
                        label=f"lesson 02's four points with the updates {FORGED} (learning_rate=0.25)"),
                  Probe((FOUR_X, FOUR_Y, FORGED_LONG, FOUR_U, 0.5),
                        label=f"the four points with the updates {FORGED_LONG} (learning_rate=0.5)")]),
        Check("ex2-novikoff-tests-inputs", part=(0, 1), hidden_label="new lists and separators", probes=[
            Probe((FOUR_X.tolist(), FOUR_Y.tolist(), [3, 0], FOUR_U.tolist(), 1.0),
                  label="lists, and the updates [3, 0]"),
            Probe((FOUR_X, FOUR_Y, [], FOUR_U, 1.0), label="no update at all (an empty order)"),
            Probe((FOUR_X, FOUR_Y, FOUR_ORDER, 2 * FOUR_U, 1.0), raises="ValueError",
                  why="u has length 2 (it must be a unit vector)"),
            Probe((FOUR_X, FOUR_Y, FOUR_ORDER, -FOUR_U, 1.0), raises="ValueError",
                  why="u does not separate the points (gamma <= 0)"),
            Probe((FOUR_X, FOUR_Y, FOUR_ORDER, np.array([0.6, 0.8]), 1.0), raises="ValueError",
                  why="u has 2 entries, but (w, b) has 3 for points with 2 coordinates")]),
    ])

CYCLE = Exercise(
    "cycle_of", "ex3-cycle", "the cycle of the perceptron's run", time_limit=5.0,
    mistakes=MISTAKES["cycle_of"], checks=[
        Check("ex3-cycle-tests-values", compare="l02_cycle", hidden_label="new integer points",
              mistakes=("sign0", "from_one", "repeat_epoch", "total"), probes=[
                  Probe((FOUR_X, FOUR_Y, 100), label="lesson 02's four points, max_epochs=100"),
                  Probe((XOR_X, XOR_Y, 100), label="XOR: (1, 1), (-1, -1) labelled +1, (1, -1), (-1, 1) "
                                                   "labelled -1, max_epochs=100"),
                  Probe((LOOP_X, LOOP_Y, 100), label=f"X={fmt(LOOP_X)}, y={fmt(LOOP_Y)}, max_epochs=100")]),
        Check("ex3-cycle-tests-limit", compare="l02_cycle", hidden_label="new points and limits",
              mistakes=("sign0", "repeat_epoch", "total"), probes=[
                  Probe((FOUR_X, FOUR_Y, 3), label="lesson 02's four points with max_epochs=3"),
                  Probe((FOUR_X, FOUR_Y, 4), label="lesson 02's four points with max_epochs=4"),
                  Probe((XOR_X, XOR_Y, 1), label="XOR with max_epochs=1"),
                  Probe((FOUR_X, FOUR_Y[:3], 10), raises="ValueError", why="X has 4 rows but y has 3 labels"),
                  Probe((FOUR_X, FOUR_Y, 0), raises="ValueError", why="max_epochs is 0 (at least 1)")]),
    ])

CERTIFICATE = Exercise(
    "separation_certificate", "ex4-certificate", "a certificate that no line separates the classes",
    time_limit=10.0, checks=[
        Check("ex4-certificate-tests-triangle", compare="l02_certificate", hidden_label="new points", probes=[
            Probe(IN_PLUS, label=f"X={fmt(IN_PLUS[0])}, y={fmt(IN_PLUS[1])}"),
            Probe(IN_MINUS, label=f"X={fmt(IN_MINUS[0])}, y={fmt(IN_MINUS[1])}"),
            Probe(SEPARABLE, label="lesson 02's four points (separable)")]),
        Check("ex4-certificate-tests-crossing", compare="l02_certificate", hidden_label="new points", probes=[
            Probe(CROSS, label=f"X={fmt(CROSS[0])}, y={fmt(CROSS[1])}"),
            Probe(CROSS6, label=f"X={fmt(CROSS6[0])}, y={fmt(CROSS6[1])}"),
            Probe((CROSS6[0][:4], np.array([1, 1, -1, -1])), label=f"X={fmt(CROSS6[0][:4])}, y=[1, 1, -1, -1]")]),
        Check("ex4-certificate-tests-random", compare="l02_certificate",
              hidden_label="8 to 20 new points, separable or not", probes=[
                  Probe((LOOP_X, LOOP_Y), label=f"X={fmt(LOOP_X)}, y={fmt(LOOP_Y)}"),
                  Probe((XOR_X * [1.0, 2.0] + [0.0, 1.0], XOR_Y), label="XOR, stretched and moved"),
                  Probe((FOUR_X[:, ::-1], FOUR_Y), label="lesson 02's four points with the coordinates swapped"),
                  Probe((FOUR_X, FOUR_Y[:3]), raises="ValueError", why="X has 4 rows but y has 3 labels"),
                  Probe((np.ones((3, 3)), np.array([1, -1, 1])), raises="ValueError",
                        why="the points have 3 coordinates (this exercise is in the plane)")]),
    ])

LESSON = Lesson("lesson02", [REPEATS, NOVIKOFF, CYCLE, CERTIFICATE])
test = LESSON.test
