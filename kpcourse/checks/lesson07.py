"""Checks of assignment 07 (MNIST on the GPU): a prediction that may abstain, a one-vs-one scheme of
the student's own, one-vs-rest trained in blocks of visits, and data on which the batch rule lags.

Nearest course code, and the probe that defeats a copy of it:

* ``predict_with_reject`` (ex1): the package's prediction from scores and lecture 07 cell 46's
  ``report`` take the argmax (and count ties); no course code compares the top score with the
  runner-up. Every probe of both cells has rows to reject.
* ``ovo_predict`` (ex2): lecture 07 trains one-vs-rest and appendix 07 cell 5 the multi-class
  (Crammer-Singer) perceptron, C models on all the points; no course code trains on pairs or votes.
  Every probe has three classes or more, where one-vs-rest and one-vs-one disagree.
* ``minibatch_ovr`` (ex3): lecture 07 cell 46's ``lecture_fit`` applies a whole epoch's mistakes at
  once (a block of n) and the package's trainer one visit at a time (a block of 1); every cell has a
  block size from 2 to n - 1 with a shorter last block.
* ``batch_trap`` (ex4): lecture 07 cells 53-56 measure the batch rule on MNIST and appendix 07's
  extension asks for its bound in words; no course code builds data. The grader checks the data's
  properties and runs both rules itself.
"""

from __future__ import annotations

import numpy as np

from kpcourse.checks._core import check_shape, fmt, load_mistakes
from kpcourse.checks.exercise import Check, Exercise, Lesson, Probe, comparison

__all__ = ["LESSON", "test", "MARGIN"]

#: The named mistakes, key -> hint, per exercise (``data/lesson07.mistakes.toml``).
MISTAKES = load_mistakes("lesson07")

#: Exercise 4: the smallest margin y_i u·x_i the data may have.
MARGIN = 0.01

# Exercise 1: scores in halves (exact), string and integer labels.
S1 = np.array([[2.0, 0.5, 1.0], [1.0, 1.5, 1.0], [0.0, -1.0, 3.0], [2.5, 2.5, 0.0], [-1.0, 0.0, -0.5]])
ANIMALS = np.array(["cat", "dog", "emu"])
S2 = np.array([[1.0, 4.0, 3.5, 0.0], [0.0, -2.0, 1.0, 2.0], [3.0, 3.0, 3.0, 3.0], [0.5, 2.0, 1.0, -3.0]])
DIGITS = np.array([3, 5, 8, 9])

# Exercises 2 and 3: points around three centres (halves), labels 'a', 'b', 'c' and 7, 1, 4.
_R = np.random.default_rng(707)
_CENTRES = np.array([[0.0, 2.0], [2.0, -1.0], [-2.0, -1.0]])
LAB = np.r_[np.arange(3), _R.integers(0, 3, size=15)]
PX = _CENTRES[LAB] + _R.integers(-3, 4, size=(18, 2)) / 2.0
TX = np.array([[0.0, 0.0], [1.0, 0.5], [-1.0, 0.5], [0.0, -1.5], [2.0, 1.0], [-2.0, 1.0], [0.5, 3.0]])
KL, KT = PX @ PX.T, TX @ PX.T                      # linear kernels: whole numbers and quarters
# test points where the three pairwise votes go round (1, 1, 1), for the kernel (x·z + 1)² (exact)
QX = np.array([[-0.5, -3.0], [0.0, -2.5], [4.0, -1.5], [0.0, 0.0], [1.0, 0.5]])
KQ, KQT = (PX @ PX.T + 1) ** 2, (QX @ PX.T + 1) ** 2
ABC, NUMS = np.array(["a", "b", "c"]), np.array([7, 1, 4])


# ------------------------------------------------------- lesson-specific comparisons
@comparison("l07_labels")
def _labels_or_reject(value, expected, name, check, probe, answer):
    """One label per row, each the expected label (or the reject value), compared by equality."""
    want = list(expected)
    try:
        got = list(value)
    except TypeError:
        raise AssertionError(f"{name} should return one label per row, got {fmt(value)}") from None
    if len(got) != len(want):
        raise AssertionError(f"{name} should return {len(want)} labels (one per row), got {len(got)}")
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        same = (g is None and w is None) or (g is not None and w is not None and type(g) is not bool and g == w)
        if not same:
            raise AssertionError(f"{name}: row {i} is {g!r}, which is not right")


@comparison("l07_ovo")
def _ovo(value, expected, name, check, probe, answer):
    """(labels, votes): the votes as whole numbers per test point and class, then the labels."""
    labels, votes = value
    want_labels, want_votes = expected
    check_shape(votes, np.shape(want_votes), f"the votes returned by {name}")
    if not np.array_equal(np.asarray(votes, dtype=float), np.asarray(want_votes, dtype=float)):
        bad = np.argwhere(np.asarray(votes, dtype=float) != np.asarray(want_votes, dtype=float))[0]
        raise AssertionError(f"the votes returned by {name} are not right (first at test point {bad[0]}, class "
                             f"{bad[1]}): each pair's perceptron gives one vote, to its +1 class where its score "
                             "is > 0, else to the other")
    _labels_or_reject(labels, want_labels, f"the labels returned by {name}", check, probe, answer)


@comparison("l07_ovr")
def _ovr(value, expected, name, check, probe, answer):
    """(alpha, b): alpha of shape (C, n) and b of shape (C,), whole numbers, each equal to the expected."""
    for part, got, want in zip(("alpha", "b"), value, expected, strict=True):
        check_shape(got, np.shape(want), f"the {part} returned by {name}")
        try:
            arr = np.asarray(got, dtype=float)
        except (TypeError, ValueError):
            raise AssertionError(f"the {part} returned by {name} should be numbers, got {fmt(got)}") from None
        if not np.array_equal(arr, np.asarray(want, dtype=float)):
            raise AssertionError(f"the {part} returned by {name} is not right: you returned {fmt(arr)}")


def _epochs_with_mistakes(rule, X, y, most):
    """Epochs in which ``rule`` ("online": file order; "batch": an epoch's mistakes applied together) makes
    mistakes before its first clean epoch, counted up to ``most`` (linear kernel, no bias, from w = 0)."""
    w = np.zeros(X.shape[1])
    for epoch in range(most):
        if rule == "online":
            made = 0
            for i in range(len(y)):
                if y[i] * (X[i] @ w) <= 0:
                    w = w + y[i] * X[i]
                    made += 1
        else:
            wrong = y * (X @ w) <= 0
            made = int(wrong.sum())
            w = w + (y[wrong, None] * X[wrong]).sum(axis=0)
        if made == 0:
            return epoch
    return most


@comparison("l07_trap")
def _trap(value, expected, name, check, probe, answer):
    """(X, y, u) with the stated properties, and the two rules run here on them."""
    n, epochs = probe.args
    try:
        X, y, u = (np.asarray(v, dtype=float) for v in value)
    except (TypeError, ValueError):
        raise AssertionError(f"{name} should return (X, y, u) as arrays of numbers, got {fmt(value)}") from None
    check_shape(X, (n, 2), f"the X returned by {name}")
    check_shape(y, (n,), f"the y returned by {name}")
    check_shape(u, (2,), f"the u returned by {name}")
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(u))):
        raise AssertionError(f"{name}: X and u must be finite")
    if not np.all(np.isin(y, (-1, 1))):
        raise AssertionError(f"{name}: every label must be -1 or +1")
    if len(np.unique(X, axis=0)) < n:
        raise AssertionError(f"{name}: the {n} points must be distinct")
    if np.linalg.norm(X, axis=1).max() > 1 + 1e-12:
        raise AssertionError(f"{name}: every point must have ‖x‖ <= 1 (the largest has "
                             f"{np.linalg.norm(X, axis=1).max():.6g})")
    if abs(np.linalg.norm(u) - 1) > 1e-9:
        raise AssertionError(f"{name}: u must be a unit vector (‖u‖ = {np.linalg.norm(u):.6g})")
    if (y * (X @ u)).min() < MARGIN:
        raise AssertionError(f"{name}: u must separate the data with a margin: y_i u·x_i >= {MARGIN} for every i "
                             f"(the smallest is {(y * (X @ u)).min():.6g})")
    online = _epochs_with_mistakes("online", X, y, 2)
    if online > 1:
        raise AssertionError(f"{name}: the online rule must reach a clean epoch by its second; it still made "
                             "mistakes in its second epoch")
    batch = _epochs_with_mistakes("batch", X, y, epochs)
    if batch < epochs:
        raise AssertionError(f"{name}: the batch rule made mistakes in {batch} epoch(s) before a clean one, not "
                             f"at least {epochs}: its first step must overshoot, and each later one take back "
                             "only a little")


# ----------------------------------------------------------------- the exercises
REJECT = Exercise(
    "predict_with_reject", "ex1-reject", "the prediction that may abstain", time_limit=5.0,
    mistakes=MISTAKES["predict_with_reject"], checks=[
        Check("ex1-reject-tests-labels", compare="l07_labels", hidden_label="new scores and labels",
              mistakes=("index", "at_threshold", "second_smallest"), probes=[
                  Probe((S1, ANIMALS, 1.0, "?"), label=f"S={fmt(S1)}, classes={ANIMALS.tolist()}, threshold=1, "
                                                      "reject='?'"),
                  Probe((S2, DIGITS, 1.0, -1), label=f"S={fmt(S2)}, classes={DIGITS.tolist()}, threshold=1, "
                                                     "reject=-1")]),
        Check("ex1-reject-tests-edges", compare="l07_labels", hidden_label="new scores, threshold 0, errors",
              mistakes=("index", "at_threshold"), probes=[
                  Probe((S2, DIGITS, 0.0, None), label="the same 4 x 4 scores, threshold=0, reject=None"),
                  Probe((S1, ANIMALS, 3.0, "?"), label="the 5 x 3 scores, threshold=3 (one margin is exactly 3)"),
                  Probe((S1, ANIMALS[:2], 1.0, "?"), raises="ValueError", why="S has 3 columns and 2 classes"),
                  Probe((S1, ANIMALS, -1.0, "?"), raises="ValueError", why="threshold is negative")]),
    ])

_PTS = "18 points around three centres (linear kernel)"
OVO = Exercise(
    "ovo_predict", "ex2-ovo", "the one-vs-one scheme", returns=("labels", "votes"), time_limit=10.0,
    mistakes=MISTAKES["ovo_predict"], checks=[
        Check("ex2-ovo-tests-votes", compare="l07_ovo", hidden_label="new data, 3 to 5 classes",
              mistakes=("flipped_vote", "all_points", "no_bias"), probes=[
                  Probe((KL, ABC[LAB], KT, ABC, 10), label=f"{_PTS}, labels 'a', 'b', 'c', 7 test points"),
                  Probe((KL, NUMS[LAB], KT, NUMS, 3), label="the same with labels 7, 1, 4, max_epochs=3")]),
        Check("ex2-ovo-tests-ties", part=0, compare="l07_labels", hidden_label="new data with tied votes",
              mistakes=("first_tie", "flipped_vote", "all_points"), probes=[
                  Probe((KQ, ABC[LAB], KQT, ABC, 10), label=f"the 18 points with the kernel (x·z + 1)², test points "
                                                            f"{fmt(QX)}"),
                  Probe((KQ, ABC[LAB], KQT, ABC[::-1], 10), label="the same with the classes in the order 'c', 'b', "
                                                                  "'a'"),
                  Probe((KL, ABC[LAB], KT, ABC[:2], 10), raises="ValueError",
                        why="the label 'c' is not one of the classes")]),
    ])

MINIBATCH = Exercise(
    "minibatch_ovr", "ex3-minibatch", "one-vs-rest trained in blocks", returns=("alpha", "b"), time_limit=10.0,
    mistakes=MISTAKES["minibatch_ovr"], checks=[
        Check("ex3-minibatch-tests-blocks", compare="l07_ovr", hidden_label="new data and block sizes",
              mistakes=("last_block", "no_bias", "live", "strict"), probes=[
                  Probe((KL, ABC[LAB], ABC, 4, 10), label=f"{_PTS}, labels 'a', 'b', 'c', batch=4"),
                  Probe((KL, NUMS[LAB], NUMS, 7, 5), label="the same with labels 7, 1, 4, batch=7, max_epochs=5")]),
        Check("ex3-minibatch-tests-ends", compare="l07_ovr",
              hidden_label="new data, batch 1, n and n - 1", mistakes=("no_bias", "live", "strict", "last_block"),
              probes=[
                  Probe((KL, ABC[LAB], ABC, 1, 10), label="the 18 points, batch=1 (one visit at a time)"),
                  Probe((KL, ABC[LAB], ABC, 18, 10), label="the 18 points, batch=18 (a whole epoch at once)"),
                  Probe((KL, ABC[LAB], ABC, 17, 10), label="the 18 points, batch=17 (a last block of one)"),
                  Probe((KL, ABC[LAB], ABC, 0, 10), raises="ValueError", why="batch must be at least 1")]),
    ])

TRAP = Exercise(
    "batch_trap", "ex4-trap", "data on which the batch rule lags", returns=(), time_limit=20.0, checks=[
        Check("ex4-trap-tests-small", compare="l07_trap", hidden_label="another small n", probes=[
            Probe((4, 2), label="n=4, epochs=2"),
            Probe((2, 1), raises="ValueError", why="n must be at least 3")]),
        Check("ex4-trap-tests-large", compare="l07_trap", hidden_label="larger n, epochs = n - 2", probes=[
            Probe((8, 6), label="n=8, epochs=6"), Probe((12, 10), label="n=12, epochs=10")]),
    ])

LESSON = Lesson("lesson07", [REJECT, OVO, MINIBATCH, TRAP])
test = LESSON.test
