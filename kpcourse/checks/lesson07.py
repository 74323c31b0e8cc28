"""Checks of assignment 07 (MNIST on the GPU): the one-vs-rest prediction, and the trainer
and predictor of the debugging exercise judged on what they do once fixed.

Exercise 1 (``ovr_predict``) is declared once (:mod:`kpcourse.checks.exercise`): probes,
comparisons, named mistakes; in the notebook ``checks.lesson07.test("ex1-ovr-tests",
ovr_predict)``; so is Exercise 3 (``fixed_predict``). Exercise 2 (``fixed_train``) keeps its
own tests: ``diagnose_fixed_train`` runs fixed probes on the student's function and names
the likely mistake from the whole of a cell's answers; ``train_tests(aspect)`` returns the same probes as
:class:`~._core.Test` objects, which the grader replays. The expected outputs and the
outputs of common mistakes (among them the flaws of the trainer the assignment hands
out, alone and together) are data (``data/lesson07.json``, written from the grader's
references); no perceptron and no kernel lives here.

The hints of the debugging exercise say which behaviour is wrong and where to look,
never which line to change: finding the flaws is the exercise.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from kpcourse.checks._core import (
    Call,
    Test,
    check_shape,
    fail,
    fmt,
    load_data,
    run,
    unpack,
)
from kpcourse.checks.exercise import Check, Exercise, Lesson, Probe, comparison, same

__all__ = ["LESSON", "test", "OvrProbe", "diagnose_fixed_train", "train_tests",
           "unpack_train", "unpack_labels", "digit_like"]


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
_DIGITS = {}


@functools.cache
def _data():
    return load_data("lesson07")


def _points(key):
    """The digit-like inputs of a probe, made once: (X, y) or (X_new, X, alpha, Y_pm, b)."""
    if key not in _DIGITS:
        if key == "predict_precision":
            m_new, n, seed, classes = PROBES[key][:4]
            rng = np.random.default_rng(seed)
            y = classes[rng.integers(0, len(classes), n + m_new)]
            X_all = digit_like(y, seed)  # one call: the new points have the same strokes per class
            X, X_new, y = X_all[:n], X_all[n:], y[:n]
            Y_pm = np.where(y[:, None] == classes[None, :], 1.0, -1.0)
            # each class counts mistakes on its own points only: its score sums kernel values with them
            alpha = (y[None, :] == classes[:, None]) * rng.integers(1, 3, (len(classes), n)).astype(float)
            b = rng.integers(-3, 4, len(classes)).astype(float)
            _DIGITS[key] = (X_new, X, alpha, Y_pm, b)
        else:
            y, seed = PROBES[key][0], PROBES[key][2]
            _DIGITS[key] = (digit_like(y, seed), y)
    return _DIGITS[key]


# --------------------------------------------------------------- Exercise 1
def unpack_labels(answer, m, name):
    """The labels an answer holds, as an array of shape (m,)."""
    __tracebackhide__ = True
    got = answer.get()
    check_shape(got, (m,), name)
    return np.asarray(got)


@dataclass
class OvrProbe(Probe):
    """A probe of ``ovr_predict`` whose scores are judged with the student's own pick of the extreme score.

    ``argmin``: the labels of the lowest scores, also accepted (the basic check judges the pick);
    the grader sets it on its hidden probes, the visible ones read it from the data.
    """

    argmin: object = None


def _labels_of(value, probe, name):
    __tracebackhide__ = True
    check_shape(value, (len(probe.args[0]),), name)
    return np.asarray(value)


@comparison("l07_ovr_labels")
def _ovr_labels(value, expected, name, check, probe, answer):
    """Labels taken from ``classes`` (column indices named), then equal to the expected ones."""
    __tracebackhide__ = True
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
    __tracebackhide__ = True
    arr = _labels_of(value, probe, name)
    argmin = probe.argmin if probe.argmin is not None else LESSON.data["ex1-ovr-tests"]["mistaken"][0]["argmin"]
    if not (same(arr, expected) or same(arr, argmin)):
        raise AssertionError(f"the scores behind the labels of {name} are not "
                             "S[t, c] = Σ_j alpha[c, j] Y_pm[j, c] K_test_train[t, j] + b[c]")


_S = "S[t, c] = Σ_j alpha[c, j] Y_pm[j, c] K[t, j] + b[c]"
_O = PROBES["ovr"]
_OVR_ARGS = (_O["K"], _O["alpha"], _O["Y_pm"], _O["b"], _O["classes"])
_OVR_LABEL = f"6 test points (classes={fmt(_O['classes'])})"

OVR = Exercise(
    "ovr_predict", "ex1-ovr", "the one-vs-rest prediction",
    mistakes={
        "indices": "you returned column indices 0..C-1; return the labels classes[index]",
        "argmin": "you picked the class with the lowest score (argmin): one-vs-rest predicts the class whose "
                  "scorer is most confident, the largest score (argmax)",
        "no_y": f"your scores ignore the labels Y_pm: {_S}",
        "no_b": f"your scores ignore the bias b: {_S}",
        "no_alpha": f"your scores ignore the mistake counts alpha: {_S}",
    },
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
def unpack_train(answer):
    """``(alpha, b, Y_pm)`` from an answer of ``fixed_train``, as float arrays of the right shapes."""
    __tracebackhide__ = True
    alpha, b, Y_pm = unpack(answer.get(), "fixed_train", ("alpha", "b", "Y_pm"))
    n, C = len(answer.call.args[0]), len(answer.call.args[2])
    check_shape(alpha, (C, n), f"the alpha returned by fixed_train for {n} points and {C} classes (one row per class)")
    check_shape(b, (C,), f"the b returned by fixed_train for {C} classes (one bias per class)")
    check_shape(Y_pm, (n, C), f"the Y_pm returned by fixed_train for {n} points and {C} classes")
    try:
        return tuple(np.asarray(v, dtype=float) for v in (alpha, b, Y_pm))
    except (TypeError, ValueError):
        raise AssertionError("fixed_train should return arrays of numbers (alpha, b, Y_pm)") from None


def _train_call(X, y, classes, max_epochs, degree, gamma, coef0):
    return Call("fixed_train", X, y, classes, max_epochs=max_epochs, degree=degree, gamma=gamma, coef0=coef0)


def _labels_X(n):
    """A tiny input for the label probes: n points with small whole coordinates."""
    return (np.arange(2 * n).reshape(n, 2) % 3).astype(float)


def train_tests(aspect="all"):
    """Tests of ``fixed_train(X, y, classes, max_epochs, degree, gamma, coef0)``.

    Aspects ``"online"``, ``"labels"``, ``"precision"``, ``"new"``.
    """
    P, tests = PROBES, []
    if aspect in ("all", "online"):
        on = P["online"]
        calls = [_train_call(*on["tiny"]), _train_call(*on["four"])]
        calls += [_train_call(*on["twins"][:3], epochs, *on["twins"][4:]) for epochs in (1, 3)]
        tests.append(Test(calls, _judge_online))
    if aspect in ("all", "labels"):
        y, classes = P["labels"]["digits"]
        calls = [_train_call(_labels_X(len(y)), y, classes, 1, 1, 1.0, 0.0)]
        calls += [_train_call(_labels_X(len(y)), y, classes, 1, 1, 1.0, 0.0) for y, classes in P["labels"]["general"]]
        tests.append(Test(calls, _judge_labels))
    if aspect in ("all", "precision"):
        X, y = _points("precision")
        _, classes, _, epochs, *kernel = P["precision"]
        tests.append(Test([_train_call(X, y, classes, epochs, *kernel)], _judge_precision))
    if aspect in ("all", "new"):
        X, y = _points("new")
        _, classes, _, epochs, kernels = P["new"]
        tests.append(Test([_train_call(X, y, classes, epochs, *k) for k in kernels], _judge_new))
    return tests


_ONLINE_HINTS = {  # data/lesson07.json holds what each gives on the "tiny" probe
    "batch": "on these 9 points your alpha and b are those of the trainer as it was handed out: the flaw that "
             "decides which samples get corrected, and when, is still there. Compare what it gives on the "
             "lessons' four points with your run by hand of lessons 02 and 03 (Experiment 1)",
    "only_current": "your alpha match a trainer that, after a correction on sample i, moves only the score of "
                    "sample i: a correction of class c changes f_c at every training point",
    "no_bias": "your alpha match a trainer whose running scores leave the bias out: a correction moves b[c], "
               "so every score of class c moves by Y_pm[i, c] too",
    "strict": "a score of exactly 0 must count as a mistake (y f(x) <= 0): alpha and b start at 0, so the "
              "first visit is a mistake for every class",
}


def _judge_online(answers):
    __tracebackhide__ = True
    d, problems = _data()["online"], []
    alpha, b, _ = unpack_train(answers[0])
    if not (same(alpha, d["tiny"]["alpha"]) and same(b, d["tiny"]["b"])):
        named = [hint for key, hint in _ONLINE_HINTS.items()
                 if same(alpha, d["mistakes"][key]["alpha"]) and same(b, d["mistakes"][key]["b"])]
        if named:
            problems.append(named[0])
        elif np.all(alpha == 0):
            problems.append("all your alpha are 0 on 9 small points: your trainer found no mistake at all, not "
                            "even at the first visit, where every score is 0")
        else:
            problems.append(f"on 9 points with small whole kernel values (classes 1, 2, 3, degree 2, gamma 1, "
                            f"coef0 1) {int((alpha != d['tiny']['alpha']).sum())} of your {alpha.size} alpha "
                            "differ from the perceptron's mistake counts (see Experiment 1: the perceptron of "
                            "lessons 02-06, one perceptron per class)")
    if not problems:
        alpha, b, _ = unpack_train(answers[1])
        if not (same(alpha, d["four"]["alpha"]) and same(b, d["four"]["b"])):
            problems.append(f"on the lessons' four points (classes [-1, 1], linear kernel: degree 1, gamma 1, "
                            f"coef0 0) you returned alpha={fmt(alpha)}, b={fmt(b)}: not the mistakes of the run "
                            "by hand in lessons 02 and 03 (Experiment 1)")
    for a, epochs in zip(answers[2:], (1, 3), strict=True):
        if problems:  # the counts are judged once the mistakes are right
            break
        alpha, _, _ = unpack_train(a)
        if not np.all(alpha == epochs):
            problems.append(f"on two copies of one point with different classes every visit is a mistake for "
                            f"both classes, so with max_epochs={epochs} each alpha should count {epochs}; you "
                            f"returned {fmt(alpha)}: run at most max_epochs epochs")
            break
    fail("fixed_train", problems)


def _judge_labels(answers):
    __tracebackhide__ = True
    d, problems = _data()["labels"], []
    _, _, Y = unpack_train(answers[0])
    right = d["digits"]
    if not same(Y, right):
        y = PROBES["labels"]["digits"][0]
        if same(Y[:, 1:], right[:, 1:]) and np.all(Y[:, 0] == -1):
            problems.append(f"for y={y.tolist()} and classes 0..9 the column of the class 0 holds no +1 although y "
                            "has three 0s: print Y_pm for tiny label sets (Experiment 2) and follow what happens "
                            "to the labels before Y_pm is built")
        elif same(Y, -right):
            problems.append("your signs are flipped: Y_pm[i, c] is +1 where y[i] == classes[c]")
        elif np.isin(Y, (0, 1)).all():
            problems.append("Y_pm holds 0/1; the perceptron needs -1 and +1")
        else:
            problems.append(f"for y={y.tolist()} and classes 0..9 your Y_pm is wrong in {int((Y != right).sum())} "
                            "entries")
    if answers[0].mutated and 1 in answers[0].mutated:
        problems.append("fixed_train changed the y passed in (in place); build new arrays")
    for a, (y, classes), right in zip(answers[1:], PROBES["labels"]["general"], d["general"], strict=True):
        if problems:
            break
        _, _, Y = unpack_train(a)
        if 1 in a.mutated:
            problems.append("fixed_train changed the y passed in (in place); build new arrays")
        elif not same(Y, right):
            problems.append(f"for y={y.tolist()} and classes={classes.tolist()} your Y_pm is wrong in "
                            f"{int((Y != right).sum())} entries: +1 exactly where y[i] == classes[c], "
                            "-1 elsewhere (one +1 per row)")
    fail("fixed_train", problems)


def _judge_precision(answers):
    """alpha and b on digit-like points with gamma = 1, judged with the student's own order of updates."""
    __tracebackhide__ = True
    d = _data()["precision"]
    alpha, b, _ = unpack_train(answers[0])
    if any(same(alpha, ok["alpha"]) and same(b, ok["b"]) for ok in d["accepted"].values()):
        return
    n = len(alpha[0])
    where = f"on {n} digit-like points (pixels in [0, 1], degree 4, gamma 1, coef0 1)"
    if not (np.all(np.isfinite(alpha)) and np.all(np.isfinite(b))):
        found = f"{where} your alpha or b hold inf or NaN"
    elif any(same(alpha, m["alpha"]) and same(b, m["b"]) for m in d["overflow"].values()) or np.all(alpha == 0):
        found = (f"{where} your alpha and b are those of a trainer whose scores are not numbers (inf or NaN): "
                 f"kernel values here reach {d['kmax']:.3g}. Look at the largest value of the Gram matrix "
                 "your trainer computes (the probe of Experiment 3)")
    else:
        found = (f"{where} your alpha and b are not those of the perceptron, whether it corrects the samples "
                 "one by one or all at once: are your kernel values exact enough? (the probe of Experiment 3)")
    fail("fixed_train", [found])


_FLAW_TESTS = {"labels": "the test of Y_pm", "precision": "the test on pixel data with gamma = 1",
               "online": "the test on small data sets"}


def _judge_new(answers):
    __tracebackhide__ = True
    d, problems = _data()["new"], []
    for a, want, kernel in zip(answers, d["expected"], PROBES["new"][4], strict=True):
        alpha, b, Y = unpack_train(a)
        where = (f"on {len(Y)} digit-like points with labels 0, 1, 2 (degree {kernel[0]}, gamma {kernel[1]:g}, "
                 f"coef0 {kernel[2]:g})")
        if same(alpha, want["alpha"]) and same(b, want["b"]) and same(Y, want["Y_pm"]):
            continue
        named = [key for key, flawed in want["flawed"].items()
                 if same(alpha, flawed["alpha"]) and same(b, flawed["b"]) and same(Y, flawed["Y_pm"])]
        if named:
            flaws = named[0].split("+")
            names = [_FLAW_TESTS[f] for f in flaws]
            tests = " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
            if len(flaws) == 1:
                problems.append(f"{where} your alpha, b and Y_pm are wrong in the way {tests} looks for: "
                                "see its hint")
            else:
                problems.append(f"{where} your alpha, b and Y_pm are wrong in {len(flaws)} ways, those {tests} "
                                "look for: see their hints")
        elif not same(Y, want["Y_pm"]):
            problems.append(f"{where} your Y_pm is wrong in {int((Y != want['Y_pm']).sum())} entries (see the "
                            "test of Y_pm)")
        else:
            problems.append(f"{where} {int((alpha != want['alpha']).sum())} of your {alpha.size} alpha differ "
                            "from the one-vs-rest perceptron's (or b does): see the tests above")
        break
    fail("fixed_train", problems)


def diagnose_fixed_train(train, aspect="all"):
    """Probe ``fixed_train(X, y, classes, max_epochs, degree, gamma, coef0) -> (alpha, b, Y_pm)``.

    The right outputs are those of C one-vs-rest kernel perceptrons (lessons 03-06) with
    the polynomial kernel (gamma x·z + coef0)^degree: Y_pm[i, c] = +1 if y[i] == classes[c]
    else -1, alpha (C, n) the mistake counts and b (C,) the biases. Aspects: ``"online"``
    (alpha and b on small data sets whose kernel values are small whole numbers, labels
    without 0; at most max_epochs epochs), ``"labels"`` (Y_pm for labels of every kind, the
    y passed in unchanged), ``"precision"`` (alpha and b on digit-like points with gamma = 1,
    whose kernel values pass 10^8; judged with the student's own order of updates) and
    ``"new"`` (alpha, b and Y_pm together on digit-like points with labels 0, 1, 2).
    The hints say which behaviour is wrong and where to look, not which line to change.

    Raises
    ------
    AssertionError
        Listing every problem found.

    Lesson 07 (MNIST on the GPU).
    """
    __tracebackhide__ = True
    run(train_tests(aspect), fixed_train=train)


# --------------------------------------------------------------- Exercise 3
@comparison("l07_predict_labels")
def _predict_labels(value, expected, name, check, probe, answer):
    """Every label one of ``classes``, then equal to the expected ones."""
    __tracebackhide__ = True
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
    __tracebackhide__ = True
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
    mistakes={
        "argmin": "you picked the class with the lowest score (argmin): the class whose scorer is most confident "
                  "has the largest score",
        "labels": "your predictions hold a label which is not one of the classes, or not the one the largest "
                  "score picked: follow what happens to the labels after the argmax (Experiment 1 predicts the "
                  "four points)",
        "precision": "your predictions are those of scores that are not numbers (inf or NaN): look at the kernel "
                     "values your predictor computes (the probe of Experiment 3)",
    },
    checks=[
        Check("ex3-predict-tests-labels", compare="l07_predict_labels", mistakes=("argmin", "labels"),
              hidden_label="new points (classes with -1 and 0)",
              hint="small whole-number kernel values: check your scores, "
                   "sum_j alpha[c, j] Y_pm[j, c] k(x_j, x) + b[c]",
              probes=[_predict_probe(*PROBES["predict_four"], label="the lessons' four points and two new ones "
                                     "(classes [-1, 1], linear kernel)"),
                      _predict_probe(*PROBES["predict_three"], label="6 new points (classes [-1, 0, 4], degree 2)")]),
        Check("ex3-predict-tests-precision", compare="l07_predict_precision", mistakes=("precision",),
              hidden_label="100 new digits",
              probes=[_predict_probe(*_points("predict_precision"), *_PP[3:],
                                     label=f"{_PP[0]} new digit-like points (pixels in [0, 1], degree 4, gamma 1, "
                                           "coef0 1)")]),
    ])


#: Exercise 2 keeps its own tests (``train_tests``): its hints are read from the whole of a cell's answers
#: (the student's own order of updates, flaws named together, y changed in place, the epochs counted on
#: twin points), which a per-probe declaration cannot say; declared here so that its function has a reference.
TRAIN = Exercise("fixed_train", "ex2-train", "the fixed trainer", checks=[])

LESSON = Lesson("lesson07", [OVR, TRAIN, PREDICT])
test = LESSON.test
