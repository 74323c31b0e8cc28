"""Checks of assignment 02 (the perceptron by hand): predict, update, train."""

from __future__ import annotations

import numpy as np

from kpcourse.checks._core import check_shape, fmt, load_mistakes
from kpcourse.checks.exercise import SIGN_AT_ZERO, Check, Exercise, Lesson, Probe, comparison, same

__all__ = ["LESSON", "test", "check_trace", "stop_problems"]

#: The named mistakes, key -> hint, per exercise (``data/lesson02.mistakes.toml``).
MISTAKES = load_mistakes("lesson02")

TRACE_COLUMNS = ("epoch", "index", "mistake", "intercept")

W, B = np.array([2.0, -1.0]), 0.5
#: Scores 1.5, -1.5, -1.5, 5.5, 0.4 (-0.1 without b).
X5 = np.array([[1.0, 1.0], [0.0, 2.0], [-1.0, 0.0], [3.0, 1.0], [0.2, 0.5]])
#: Scores 0, 2.5, 0, 0.
X0 = np.array([[0.25, 1.0], [1.0, 0.0], [1.0, 2.5], [-1.0, -1.5]])
#: (w, b, x, y, learning_rate); the score y(w·x + b) in the comment.
PLUS = (np.array([1.0, -2.0]), 0.5, np.array([1.0, 2.0]), 1, 0.625)       # -2.5: mistake
MINUS = (np.array([1.0, -2.0]), 0.5, np.array([2.0, 0.5]), -1, 1.5)       # -1.5: mistake
OK_PLUS = (np.array([1.0, -2.0]), 0.5, np.array([2.0, 1.0]), 1, 0.75)     # 0.5: correct
OK_MINUS = (np.array([1.0, -2.0]), 0.5, np.array([1.0, 2.0]), -1, 0.75)   # 2.5: correct
ZERO_PLUS = (np.array([1.0, -1.0]), 0.0, np.array([3.0, 3.0]), 1, 0.5)    # 0
ZERO_MINUS = (np.array([1.0, 1.0]), -3.0, np.array([1.0, 2.0]), -1, 0.5)  # 0
TRAIN = (np.array([[3.0, 2.0], [2.0, 2.0], [-1.0, 3.0], [-3.0, -3.0], [-1.0, 0.0]]),
         np.array([-1, -1, 1, -1, -1]), 0.5, 20)
XOR = (np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]]), np.array([1, 1, -1, -1]), 1.0, 3)


def _update_text(case):
    w, b, x, y, lr = case
    return f"w={fmt(w)}, b={fmt(b)}, x={fmt(x)}, y={y:+d}, learning_rate={fmt(lr)}"


#: One step on each kind of point, named by its inputs.
_UPDATES = [Probe(case, label=f"{label} ({_update_text(case)})") for case, label in [
    (PLUS, "a misclassified point (y = +1)"), (MINUS, "a misclassified point (y = -1)"),
    (OK_PLUS, "a correctly classified point (y = +1)"), (OK_MINUS, "a correctly classified point (y = -1)")]]


# ------------------------------------------------------- lesson-specific comparisons
@comparison("trace")
def _trace(value, expected, name, check, probe, answer):
    """(w, b, trace): the trace row by row, and w, b those of its last row."""
    w, b, trace = value
    check_trace(trace, expected[2], f"your trace on {probe.label}")
    if not same(np.asarray(trace, float)[-1, 3:], np.r_[np.asarray(b, float), np.asarray(w, float)]):
        raise AssertionError("the w and b you return must be those of the last trace row")


@comparison("stopping")
def _stopping(value, expected, name, check, probe, answer):
    """When the loop stopped, judged by the student's own trace (not by a rule)."""
    X, y, _, max_epochs = probe.args
    found = stop_problems(_trace_array(value[2], 4 + np.shape(X)[1]), len(y), max_epochs)
    if found:
        raise AssertionError(found[0])


def _trace_array(trace, width):
    try:
        arr = np.asarray(trace, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError("the trace should be an array of numbers (one row per step)") from None
    check_shape(arr, (None, width), "the trace (rows: epoch, index, mistake, b, w_1, w_2, ...)")
    return arr


def check_trace(trace, reference, name="trace"):
    """Compare a trace row by row with a reference trace (data), without showing it."""
    ref = np.asarray(reference, dtype=float)
    arr = _trace_array(trace, ref.shape[1])
    if arr.shape[0] != ref.shape[0]:
        raise AssertionError(f"{name} has {arr.shape[0]} rows, which is not the number of steps of this run: one row "
                             "per visited sample, stopping after the first epoch without a mistake (or max_epochs)")
    bad = ~np.isclose(arr, ref, rtol=1e-7, atol=1e-9)
    if bad.any():
        r, c = (int(i) for i in np.argwhere(bad)[0])
        col = TRACE_COLUMNS[c] if c < 4 else f"coef_{c - 3}"
        raise AssertionError(f"{name} differs from step {r + 1} on (epoch {fmt(arr[r, 0])}, sample {fmt(arr[r, 1])}): "
                             f"your {col} there is {fmt(arr[r, c])}")


def stop_problems(t, n, max_epochs):
    """What is wrong with when a loop of ``n`` samples and ``max_epochs`` stopped (``[]`` if right)."""
    if len(t) == 0 or len(t) % n:
        return [f"your trace has {len(t)} rows for {n} points: one row per visited sample, every epoch "
                "visiting all of them"]
    epochs, flags = t[:, 0].reshape(-1, n), t[:, 2].reshape(-1, n)
    if not np.isin(flags, (0, 1)).all():
        return ["the mistake column holds 1 for a mistake and 0 otherwise"]
    if not (np.all(epochs == epochs[:, :1]) and np.all(np.diff(epochs[:, 0]) == 1)):
        return ["each epoch's rows carry the same epoch number, one more than the epoch before"]
    if not np.array_equal(t[:, 1].reshape(-1, n), np.tile(np.arange(n), (len(epochs), 1))):
        return ["each epoch visits the samples in order 0, 1, ..., n-1 (the index column)"]
    per_epoch = flags.sum(1)
    if len(epochs) > max_epochs:
        return [f"your loop ran {len(epochs)} epochs with max_epochs={max_epochs}"]
    if np.any(per_epoch[:-1] == 0):
        return ["your loop must stop after the first epoch without a mistake (it went on)"]
    if per_epoch[-1] > 0 and len(epochs) < max_epochs:
        return [f"your loop stopped after {len(epochs)} epochs although the last one had mistakes "
                "(and max_epochs was not reached)"]
    return []


# ----------------------------------------------------------------- the exercises

PREDICT = Exercise(
    "predict", "ex1-predict", "the prediction",
    mistakes={**MISTAKES["predict"], **SIGN_AT_ZERO},
    checks=[
        Check("ex1-predict-tests", compare="labels", mistakes=("scores", "flipped", "no_bias"),
              hidden_label="new points", probes=[
                  Probe((W, B, X5), label=f"w={fmt(W)}, b=0.5 and X={fmt(X5)}"),
                  Probe((W, B, X5[:1]), label="X with one row (shape (1, 2))"),
                  Probe((W, B, np.ones((3, 3))), raises="ValueError", why="X has 3 columns but w has 2 entries")]),
        Check("ex1-predict-tests-zero", compare="labels", mistakes=("np_sign", "zero_plus"),
              hidden_label="a grid with points on the boundary",
              probes=[Probe((W, B, X0), label="4 points, 3 of them with a score of exactly 0")]),
    ])

UPDATE = Exercise(
    "update", "ex2-update", "the update", returns=("w", "b"),
    mistakes=MISTAKES["update"],
    checks=[
        Check("ex2-update-tests-weights", part=0, pure="in_place", hidden_label="one step on random data",
              mistakes=("never", "no_y", "wrong_sign", "no_lr", "lr_on_w", "lr_on_both", "always"),
              probes=[*_UPDATES, Probe((PLUS[0], PLUS[1], PLUS[2], 0, PLUS[4]), raises="ValueError",
                                               why="y is 0 (labels are -1 or +1)")]),
        Check("ex2-update-tests-zero", part=0, mistakes=("via_predict", "sign0"),
              hidden_label="a point with score exactly 0",
              probes=[Probe(ZERO_PLUS, label=f"a point with score 0 ({_update_text(ZERO_PLUS)})"),
                      Probe(ZERO_MINUS, label=f"a point with score 0 ({_update_text(ZERO_MINUS)})")]),
        Check("ex2-update-tests-bias", part=1, hidden_label="one step on random data",
              mistakes=("no_bias", "bias_no_lr", "bias_wrong_sign", "always"), probes=list(_UPDATES)),
    ])

_TRAIN_LABEL = f"X={fmt(TRAIN[0])}, y={fmt(TRAIN[1])}, learning_rate={TRAIN[2]:g}"
TRAIN_EX = Exercise(
    "train", "ex3-train", "the training loop", returns=("w", "b", "trace"),
    mistakes=MISTAKES["train"],
    checks=[
        Check("ex3-train-tests-trace", compare="trace", hidden_label="new data",
              mistakes=("epochs", "index", "columns", "before", "only_mistakes", "no_stop", "sign0",
                        "no_bias", "bias_no_lr", "no_lr"), probes=[Probe(TRAIN, label=_TRAIN_LABEL)]),
        Check("ex3-train-tests-result", part=(0, 1), rtol=1e-6, hidden_label="new data",
              mistakes=("sign0", "no_bias", "bias_no_lr", "no_lr"), probes=[Probe(TRAIN, label=_TRAIN_LABEL)]),
        Check("ex3-train-tests-stop", compare="stopping", hidden_label="new data",
              probes=[Probe(XOR, label="4 points no line separates, max_epochs=3"),
                      Probe(TRAIN, label=_TRAIN_LABEL),
                      Probe((TRAIN[0], TRAIN[1][:-1], TRAIN[2], TRAIN[3]), raises="ValueError",
                            why="X has 5 rows but y has 4 labels")]),
    ])

LESSON = Lesson("lesson02", [PREDICT, UPDATE, TRAIN_EX])
test = LESSON.test
