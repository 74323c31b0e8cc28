"""Checks of assignment 07 (MNIST on the GPU): the one-vs-rest prediction, and the trainer
(``fixed_train``) and predictor (``fixed_predict``) of the debugging exercise judged on what they
do once fixed; the flaws of the trainer handed out, alone and together, are named mistakes.

The hints of the debugging exercise say which behaviour is wrong and where to look,
never which line to change: finding the flaws is the exercise.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

import numpy as np

from kpcourse.checks._core import check_shape, fmt, load_mistakes
from kpcourse.checks.exercise import Check, Exercise, Lesson, Probe, comparison, same

__all__ = ["LESSON", "test", "OvrProbe", "digit_like"]

#: The named mistakes, key -> hint, per exercise (``data/lesson07.mistakes.toml``).
MISTAKES = load_mistakes("lesson07")


def digit_like(labels, seed):
    """Points that look like flattened 28 x 28 digits: ink in [0.5, 1] on 784 pixels.

    Each class (``label % 4``) has its own strokes (a random fifth of the pixels), and
    every point shares some common ink and a little noise, so that pairs of points
    have dot products of tens to hundreds, as MNIST digits with pixels in [0, 1] do.
    Inputs of the probes only: seeded, nothing is computed from them here.
    """
    rng = np.random.default_rng(seed)
    strokes = rng.random((4, 784)) < 0.2
    common = rng.random(784) < 0.1
    X = np.empty((len(labels), 784))
    for i, c in enumerate(labels):
        ink = (strokes[int(c) % 4] & (rng.random(784) < 0.6)) | (common & (rng.random(784) < 0.8))
        ink |= rng.random(784) < 0.08
        X[i] = ink * rng.uniform(0.5, 1.0, 784)
    return X


_X4 = np.array([[1.0, 2.0], [1.0, 1.0], [2.0, 4.0], [3.0, 2.0]])  # the lessons' four points
_Y4 = np.array([1, -1, 1, -1])
_TINY = np.array([[1.0, 0.0], [-2.0, 0.0], [1.0, -2.0], [-2.0, -2.0], [2.0, -2.0], [1.0, -1.0], [-1.0, 2.0],
                  [-2.0, -1.0], [0.0, -1.0]])

#: The probes (inputs only). Kernel arguments are (degree, gamma, coef0).
PROBES = {
    # ovr_predict: 4 training points, classes (3, 5, 8), 6 test points; argmin, indices,
    # scores without Y_pm, without b or without alpha all give other labels
    "ovr": {"classes": np.array([3, 5, 8]), "alpha": np.array([[3, 2, 1, 0], [2, 3, 0, 2], [1, 0, 2, 3]]),
            "Y_pm": np.array([[-1, -1, 1], [1, -1, -1], [-1, -1, 1], [-1, 1, -1]]), "b": np.array([1.0, 2.0, 0.0]),
            "K": np.array([[2.0, 3.0, 1.0, 2.5], [0.5, 1.0, 2.0, 2.0], [0.5, 2.0, 2.0, 3.0],
                           [2.0, 3.0, 3.0, 0.0], [0.0, 1.5, 1.5, 1.5], [2.5, 1.0, 0.5, 2.0]])},
    # fixed_train, "online": small data sets whose kernel values are small whole numbers or
    # quarters, labels without 0 — whatever precision or label mapping, only the training counts
    "online": {
        "tiny": (_TINY, np.array([1, 2, 3, 1, 2, 3, 1, 2, 3]), np.array([1, 2, 3]), 20, 2, 1.0, 1.0),
        "four": (_X4, _Y4, np.array([-1, 1]), 10, 1, 1.0, 0.0),
        "twins": (np.array([[1.0, 0.5], [1.0, 0.5]]), np.array([1, 2]), np.array([1, 2]), None, 1, 1.0, 0.0),
    },
    # fixed_train, "labels": only Y_pm is judged (one epoch, linear kernel, tiny X)
    "labels": {
        "digits": (np.array([0, 3, 1, 0, 9, 2, 0, 7]), np.arange(10)),
        "general": ((np.array([-1, 2, 7, 2, -1]), np.array([-1, 2, 7])),
                    (np.array([1, 0, 1, 1]), np.array([0, 1])),
                    (np.array([2.5, -7.0, 2.5, 10.0]), np.array([10.0, 2.5, -7.0]))),
    },
    # fixed_train, "precision": digit-like points, labels without 0, the trainer's default kernel
    "precision": (np.tile([1, 2, 3], 8), np.array([1, 2, 3]), 7, 5, 4, 1.0, 1.0),
    # fixed_train, "new": digit-like points, labels 0, 1, 2 — every flaw matters
    "new": (np.tile([0, 1, 2], 10), np.array([0, 1, 2]), 8, 5, ((4, 1.0, 1.0), (3, 0.5, 2.0))),
    # fixed_predict, "labels": small whole-number kernels, classes with -1 (and 0)
    "predict_four": (np.vstack([_X4, [[0.0, 0.0], [2.0, 3.0]]]), _X4, np.array([[2, 2, 2, 3], [2, 2, 2, 3]]),
                     np.array([[-1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [1.0, -1.0]]), np.array([1.0, -1.0]),
                     np.array([-1, 1]), 1, 1.0, 0.0),
    "predict_three": (np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 1.0], [1.0, 1.0], [0.0, -1.0], [-1.0, -1.0]]),
                      np.array([[1.0, 1.0], [-1.0, 0.0], [0.0, -1.0], [2.0, 0.0], [0.0, 2.0]]),
                      np.array([[1, 0, 2, 1, 0], [0, 2, 1, 0, 1], [2, 1, 0, 0, 2]]),
                      np.array([[-1.0, -1.0, 1.0], [1.0, -1.0, -1.0], [-1.0, 1.0, -1.0], [-1.0, -1.0, 1.0],
                                [1.0, -1.0, -1.0]]),
                      np.array([0.0, 1.0, -1.0]), np.array([-1, 0, 4]), 2, 1.0, 1.0),
    # fixed_predict, "precision": digit-like points, the trainer's default kernel, classes (2, 5, 8)
    "predict_precision": (20, 12, 9, np.array([2, 5, 8]), 4, 1.0, 1.0),
}


@functools.cache
def _points(key):
    """The digit-like inputs of a probe, made once: (X, y) or (X_new, X, alpha, Y_pm, b)."""
    if key != "predict_precision":
        y, seed = PROBES[key][0], PROBES[key][2]
        return digit_like(y, seed), y
    m_new, n, seed, classes = PROBES[key][:4]
    rng = np.random.default_rng(seed)
    y = classes[rng.integers(0, len(classes), n + m_new)]
    X_all = digit_like(y, seed)  # one call: the new points have the same strokes per class
    X, X_new, y = X_all[:n], X_all[n:], y[:n]
    Y_pm = np.where(y[:, None] == classes[None, :], 1.0, -1.0)
    # each class counts mistakes on its own points only: its score sums kernel values with them
    alpha = (y[None, :] == classes[:, None]) * rng.integers(1, 3, (len(classes), n)).astype(float)
    return X_new, X, alpha, Y_pm, rng.integers(-3, 4, len(classes)).astype(float)


# --------------------------------------------------------------- Exercise 1
@dataclass
class OvrProbe(Probe):
    """A probe of ``ovr_predict`` whose scores are judged with the student's own pick of the extreme score.

    ``argmin``: the labels of the lowest scores, also accepted (the basic check judges the pick);
    the grader sets it on its hidden probes, the visible ones read it from the data.
    """

    argmin: object = None


def _labels_of(value, probe, name):
    check_shape(value, (len(probe.args[0]),), name)
    return np.asarray(value)


@comparison("l07_ovr_labels")
def _ovr_labels(value, expected, name, check, probe, answer):
    """Labels taken from ``classes`` (column indices named), then equal to the expected ones."""
    arr, classes = _labels_of(value, probe, name), np.asarray(probe.args[4])
    if not np.all(np.isin(arr, classes)):
        if np.all(np.isin(arr, np.arange(len(classes)))):
            raise AssertionError(OVR.mistakes["indices"])
        raise AssertionError(f"{name} returned {fmt(arr)}, not labels from classes={fmt(classes)}")
    if not same(arr, expected):
        raise AssertionError(f"{name} gave {fmt(arr)}: {int((arr != np.asarray(expected)).sum())} label(s) are wrong")


@comparison("l07_ovr_scores")
def _ovr_scores(value, expected, name, check, probe, answer):
    """The labels of the right scores, with the student's own choice of argmax or argmin."""
    arr = _labels_of(value, probe, name)
    argmin = probe.argmin if probe.argmin is not None else LESSON.data["ex1-ovr-tests"]["mistaken"][0]["argmin"]
    if not (same(arr, expected) or same(arr, argmin)):
        raise AssertionError(f"the scores behind the labels of {name} are not "
                             "S[t, c] = Σ_j alpha[c, j] Y_pm[j, c] K_test_train[t, j] + b[c]")


_O = PROBES["ovr"]
_OVR_ARGS = (_O["K"], _O["alpha"], _O["Y_pm"], _O["b"], _O["classes"])
_OVR_LABEL = f"6 test points (classes={fmt(_O['classes'])})"

OVR = Exercise(
    "ovr_predict", "ex1-ovr", "the one-vs-rest prediction",
    mistakes=MISTAKES["ovr_predict"],
    checks=[
        Check("ex1-ovr-tests", compare="l07_ovr_labels", mistakes=("argmin", "indices"), hidden_label="new digits",
              probes=[Probe(_OVR_ARGS, label=_OVR_LABEL),
                      Probe((np.ones((2, 5)), *_OVR_ARGS[1:]), raises="ValueError",
                            why="K_test_train has 5 columns but alpha has 4 (one per training point)")]),
        # judged with the student's own choice of argmax or argmin: one mistake fails one cell
        Check("ex1-ovr-tests-scores", compare="l07_ovr_scores", mistakes=("no_y", "no_b", "no_alpha"),
              hidden_label="new digits (classes 2, 5, 9, fractional coefficients)",
              probes=[OvrProbe(_OVR_ARGS, label=_OVR_LABEL)]),
    ])


# --------------------------------------------------------------- Exercise 2
def _train_probe(X, y, classes, max_epochs, degree, gamma, coef0, label="", mistake=None):
    return Probe((X, y, classes), {"max_epochs": max_epochs, "degree": degree, "gamma": gamma, "coef0": coef0},
                 label=label, mistake=mistake)


def _labels_probe(y, classes):
    """Only Y_pm is judged: one epoch, linear kernel, a tiny X of small whole coordinates."""
    X = (np.arange(2 * len(y)).reshape(len(y), 2) % 3).astype(float)
    return _train_probe(X, y, classes, 1, 1, 1.0, 0.0, label=f"y={y.tolist()} and classes={classes.tolist()}")


#: The flaws of the handed-out trainer, by the earlier test that looks for each.
_FLAW_TESTS = {"labels": "the test of Y_pm", "precision": "the test on pixel data with gamma = 1",
               "online": "the test on small data sets"}


def _flawed(flaws):
    names = [_FLAW_TESTS[f] for f in flaws]
    if len(names) == 1:
        return f"your alpha, b and Y_pm are wrong in the way {names[0]} looks for: see its hint"
    return (f"your alpha, b and Y_pm are wrong in {len(names)} ways, those {', '.join(names[:-1])} and "
            f"{names[-1]} look for: see their hints")


#: "labels+online" -> its hint: every combination of flaws the "new" cell names (the reference's mistake= keys).
_FLAWED = {"+".join(f): _flawed(f) for r in (3, 2, 1) for f in itertools.combinations(_FLAW_TESTS, r)}
_ON, _PR, _NEW = PROBES["online"], PROBES["precision"], PROBES["new"]

TRAIN = Exercise(
    "fixed_train", "ex2-train", "the fixed trainer", returns=("alpha", "b", "Y_pm"),
    mistakes={**MISTAKES["fixed_train"], **_FLAWED},
    checks=[
        # small whole kernel values, labels without 0: whatever precision or label mapping, only the training counts
        Check("ex2-train-tests-online", part=(0, 1), mistakes=("batch", "only_current", "no_bias", "strict"),
              hidden_label="new small data sets (whole-number kernel values)",
              hint="see Experiment 1: one perceptron per class, each the perceptron of lessons 02-06 and of your "
                   "run by hand in lessons 02 and 03",
              probes=[_train_probe(*_ON["tiny"], label="9 points with small whole kernel values (classes 1, 2, 3, "
                                   "degree 2, gamma 1, coef0 1)"),
                      _train_probe(*_ON["four"], label="the lessons' four points (classes [-1, 1], linear kernel: "
                                   "degree 1, gamma 1, coef0 0)"),
                      *[_train_probe(*_ON["twins"][:3], epochs, *_ON["twins"][4:], mistake="epochs",
                                     label=f"two copies of one point with classes 1 and 2 (max_epochs={epochs})")
                        for epochs in (1, 3)]]),
        Check("ex2-train-tests-labels", part=2, mistakes=("zero", "flipped", "zero_one"), pure="in_place",
              hidden_label="new labels", hint="+1 exactly where y[i] == classes[c], -1 elsewhere (one +1 per row)",
              probes=[_labels_probe(y, c) for y, c in (PROBES["labels"]["digits"], *PROBES["labels"]["general"])]),
        # judged with the student's own order of updates: one by one or, as handed out, all at once
        Check("ex2-train-tests-precision", part=(0, 1), mistakes=("overflow", "overflow_batch"), accept=("batch",),
              hidden_label="new digits (pixels in [0, 1], degree 4, gamma 1, coef0 1)",
              hint="these are not the perceptron's, whether it corrects the samples one by one or all at once: are "
                   "your kernel values exact enough? (the probe of Experiment 3)",
              probes=[_train_probe(*_points("precision"), _PR[1], *_PR[3:], label=f"{len(_PR[0])} digit-like points "
                                   "(pixels in [0, 1], degree 4, gamma 1, coef0 1)")]),
        Check("ex2-train-tests-new", part=(2, 0, 1), mistakes=tuple(_FLAWED), hint="see the tests above",
              hidden_label="new digits (labels 0 to 9)",
              probes=[_train_probe(*_points("new"), _NEW[1], _NEW[3], *k, label=f"{len(_NEW[0])} digit-like points "
                                   f"with labels 0, 1, 2 (degree {k[0]}, gamma {k[1]:g}, coef0 {k[2]:g})")
                      for k in _NEW[4]]),
    ])


# --------------------------------------------------------------- Exercise 3
@comparison("l07_predict_labels")
def _predict_labels(value, expected, name, check, probe, answer):
    """Every label one of ``classes``, then equal to the expected ones."""
    arr, classes = _labels_of(value, probe, name), np.asarray(probe.args[5])
    if not np.all(np.isin(arr, classes)):
        outside = sorted(set(np.unique(arr).tolist()) - set(classes.tolist()))
        raise AssertionError(f"with classes={classes.tolist()} your predictions hold {outside}, which is not one "
                             "of the classes: follow what happens to the labels after the argmax (Experiment 1 "
                             "predicts the four points)")
    if not same(arr, expected):
        raise AssertionError(f"with classes={classes.tolist()} {int((arr != np.asarray(expected)).sum())} of your "
                             f"{len(arr)} predictions are wrong")


@comparison("l07_predict_precision")
def _predict_precision(value, expected, name, check, probe, answer):
    """The labels of the exact scores; one label for every point is what scores that are not numbers give."""
    arr = _labels_of(value, probe, name)
    if same(arr, expected):
        return
    if len(np.unique(arr)) == 1:
        raise AssertionError(f"{name}: {PREDICT.mistakes['precision']}")
    raise AssertionError(f"{name}: {int((arr != np.asarray(expected)).sum())} of your {len(arr)} predictions "
                         "differ from those of the exact scores: are your kernel values exact enough? (the probe "
                         "of Experiment 3)")


def _predict_probe(X_new, X, alpha, Y_pm, b, classes, degree, gamma, coef0, label=""):
    return Probe((X_new, X, alpha, Y_pm, b, classes), {"degree": degree, "gamma": gamma, "coef0": coef0},
                 label=label)


_PP = PROBES["predict_precision"]

PREDICT = Exercise(
    "fixed_predict", "ex3-predict", "the fixed predictor",
    mistakes=MISTAKES["fixed_predict"],
    checks=[
        Check("ex3-predict-tests-labels", compare="l07_predict_labels", mistakes=("argmin", "labels"),
              hidden_label="new points (classes with -1 and 0)",
              hint="small whole-number kernel values: check your scores, sum_j alpha[c, j] Y_pm[j, c] k(x_j, x) + b[c]",
              probes=[_predict_probe(*PROBES["predict_four"], label="the lessons' four points and two new ones "
                                     "(classes [-1, 1], linear kernel)"),
                      _predict_probe(*PROBES["predict_three"], label="6 new points (classes [-1, 0, 4], degree 2)")]),
        Check("ex3-predict-tests-precision", compare="l07_predict_precision", mistakes=("precision",),
              hidden_label="100 new digits",
              probes=[_predict_probe(*_points("predict_precision"), *_PP[3:],
                                     label=f"{_PP[0]} new digit-like points (pixels in [0, 1], degree 4, gamma 1, "
                                           "coef0 1)")]),
    ])


LESSON = Lesson("lesson07", [OVR, TRAIN, PREDICT])
test = LESSON.test
