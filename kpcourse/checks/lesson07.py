"""Checks of assignment 07 (MNIST on the GPU): the one-vs-rest prediction, and the trainer
and predictor of the debugging exercise judged on what they do once fixed.

Each ``diagnose_*`` runs fixed probes on the student's function and names the likely
mistake; ``*_tests(aspect)`` returns the same probes as :class:`~._core.Test` objects,
which the grader replays on the student's answers. The expected outputs and the
outputs of common mistakes (among them the flaws of the trainer the assignment hands
out, alone and together) are data (``data/lesson07.json``, written from the grader's
references); no perceptron and no kernel lives here.

The hints of the debugging exercise say which behaviour is wrong and where to look,
never which line to change: finding the flaws is the exercise.
"""

from __future__ import annotations

import functools

import numpy as np

from kpcourse.checks._core import (
    Call,
    Test,
    check_shape,
    expect_raises,
    fail,
    fmt,
    load_data,
    problem,
    run,
    same,
    unpack,
)

__all__ = ["diagnose_ovr_predict", "diagnose_fixed_train", "diagnose_fixed_predict", "ovr_tests",
           "train_tests", "predict_tests", "unpack_train", "unpack_labels", "digit_like"]


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


def _args(probe):
    """``(degree, gamma, coef0)`` as keywords."""
    return {"degree": probe[0], "gamma": probe[1], "coef0": probe[2]}


# --------------------------------------------------------------- Exercise 1
def ovr_tests(aspect="all"):
    """Tests of ``ovr_predict(K_test_train, alpha, Y_pm, b, classes)``: ``"basic"``, ``"scores"``."""
    P, tests = PROBES["ovr"], []
    main = Call("ovr_predict", P["K"], P["alpha"], P["Y_pm"], P["b"], P["classes"])
    if aspect in ("all", "basic"):
        bad = Call("ovr_predict", np.ones((2, 5)), P["alpha"], P["Y_pm"], P["b"], P["classes"])
        tests.append(Test([main, bad], _judge_ovr_basic))
    if aspect in ("all", "scores"):
        tests.append(Test([main], _judge_ovr_scores))
    return tests


def unpack_labels(answer, m, name):
    """The labels an answer holds, as an array of shape (m,)."""
    __tracebackhide__ = True
    got = answer.get()
    check_shape(got, (m,), name)
    return np.asarray(got)


def _ovr_text():
    P = PROBES["ovr"]
    return (f"ovr_predict(K_test_train={fmt(P['K'])}, alpha={fmt(P['alpha'])}, Y_pm={fmt(P['Y_pm'])}, "
            f"b={fmt(P['b'])}, classes={fmt(P['classes'])})")


def _judge_ovr_basic(answers):
    __tracebackhide__ = True
    P, d, problems = PROBES["ovr"], _data()["ovr"], []
    arr = unpack_labels(answers[0], len(P["K"]), "ovr_predict for 6 test points")
    if not np.all(np.isin(arr, P["classes"])):
        if np.all(np.isin(arr, np.arange(len(P["classes"])))):
            problems.append("you returned column indices 0..C-1; return the labels classes[index]")
        else:
            problems.append(f"ovr_predict returned {fmt(arr)}, not labels from classes={fmt(P['classes'])}")
    elif same(arr, d["argmin"]) and not same(arr, d["labels"]):
        problems.append("you picked the class with the lowest score (argmin): one-vs-rest predicts the "
                        "class whose scorer is most confident, the largest score (argmax)")
    elif not same(arr, d["labels"]):
        problems.append(f"{_ovr_text()} gave {fmt(arr)}: {int((arr != d['labels']).sum())} label(s) are wrong")
    problems.append(problem(expect_raises, answers[1], "ValueError",
                            "K_test_train has 5 columns but alpha has 4 (one per training point)"))
    fail("ovr_predict", problems)


_OVR_HINTS = {
    "no_y": "your scores ignore the labels Y_pm: S[t, c] = Σ_j alpha[c, j] Y_pm[j, c] K[t, j] + b[c]",
    "no_b": "your scores ignore the bias b: S[t, c] = Σ_j alpha[c, j] Y_pm[j, c] K[t, j] + b[c]",
    "no_alpha": "your scores ignore the mistake counts alpha: S[t, c] = Σ_j alpha[c, j] Y_pm[j, c] K[t, j] + b[c]",
}


def _judge_ovr_scores(answers):
    """The scores, judged with the student's own choice of argmax or argmin (one mistake, one cell)."""
    __tracebackhide__ = True
    P, d = PROBES["ovr"], _data()["ovr"]
    arr = unpack_labels(answers[0], len(P["K"]), "ovr_predict for 6 test points")
    pick = "argmin" if same(arr, d["argmin"]) and not same(arr, d["labels"]) else "argmax"
    ok = d["labels"] if pick == "argmax" else d["argmin"]
    if same(arr, ok):
        return
    named = [hint for key, hint in _OVR_HINTS.items() if same(arr, d["mistakes"][pick][key])]
    fail("ovr_predict", [named[0] if named else
                         f"the scores behind your labels {fmt(arr)} are not "
                         "S[t, c] = Σ_j alpha[c, j] Y_pm[j, c] K_test_train[t, j] + b[c]"])


def diagnose_ovr_predict(predict, aspect="all"):
    """Probe ``ovr_predict(K_test_train, alpha, Y_pm, b, classes) -> labels`` and name the mistake.

    The scores are S[t, c] = Σ_j alpha[c, j] Y_pm[j, c] K_test_train[t, j] + b[c] and the
    label of test point t is ``classes[argmax_c S[t, c]]``. Aspects: ``"basic"`` (shape,
    labels taken from ``classes``, argmax not argmin, a ``ValueError`` when the columns of
    K_test_train do not match alpha) and ``"scores"`` (the labels Y_pm and the bias b enter
    the scores; judged with the student's own choice of argmax or argmin, so that one
    mistake fails one cell).

    Raises
    ------
    AssertionError
        Listing every problem found.

    Lesson 07 (MNIST on the GPU).
    """
    __tracebackhide__ = True
    run(ovr_tests(aspect), ovr_predict=predict)


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
def _predict_call(X_new, X, alpha, Y_pm, b, classes, degree, gamma, coef0):
    return Call("fixed_predict", X_new, X, alpha, Y_pm, b, classes, degree=degree, gamma=gamma, coef0=coef0)


def predict_tests(aspect="all"):
    """Tests of ``fixed_predict(X_new, X, alpha, Y_pm, b, classes, degree, gamma, coef0)``.

    Aspects ``"labels"`` and ``"precision"``.
    """
    tests = []
    if aspect in ("all", "labels"):
        tests.append(Test([_predict_call(*PROBES["predict_four"]), _predict_call(*PROBES["predict_three"])],
                          _judge_predict_labels))
    if aspect in ("all", "precision"):
        classes, *kernel = PROBES["predict_precision"][3:]
        tests.append(Test([_predict_call(*_points("predict_precision"), classes, *kernel)], _judge_predict_precision))
    return tests


def _judge_predict_labels(answers):
    __tracebackhide__ = True
    d, problems = _data()["predict_labels"], []
    for a, key, want in zip(answers, ("predict_four", "predict_three"), d["expected"], strict=True):
        classes = PROBES[key][5]
        arr = unpack_labels(a, len(PROBES[key][0]), f"fixed_predict for {len(PROBES[key][0])} new points")
        if same(arr, want):
            continue
        if not np.all(np.isin(arr, classes)):
            outside = sorted(set(np.unique(arr).tolist()) - set(classes.tolist()))
            problems.append(f"with classes={classes.tolist()} your predictions hold {outside}, which "
                            "is not one of the classes: follow what happens to the labels after the argmax "
                            "(Experiment 1 predicts the four points)")
        elif same(arr, d["argmin"][key]):
            problems.append("you picked the class with the lowest score (argmin): the class whose scorer is most "
                            "confident has the largest score")
        else:
            problems.append(f"with classes={classes.tolist()} {int((arr != want).sum())} of your {len(arr)} "
                            "predictions are wrong (small whole-number kernel values: check your scores, "
                            "sum_j alpha[c, j] Y_pm[j, c] k(x_j, x) + b[c])")
        break
    fail("fixed_predict", problems)


def _judge_predict_precision(answers):
    __tracebackhide__ = True
    d = _data()["predict_precision"]
    m = len(_points("predict_precision")[0])
    arr = unpack_labels(answers[0], m, f"fixed_predict for {m} new points")
    if same(arr, d["expected"]):
        return
    where = f"on {m} new digit-like points (pixels in [0, 1], degree 4, gamma 1, coef0 1)"
    if same(arr, d["overflow"]) or len(np.unique(arr)) == 1:
        found = (f"{where} your predictions are those of scores that are not numbers (inf or NaN): kernel "
                 f"values here reach {d['kmax']:.3g}. Look at the kernel values your predictor computes "
                 "(the probe of Experiment 3)")
    else:
        found = (f"{where} {int((arr != d['expected']).sum())} of your {m} predictions differ from those of "
                 "the exact scores: are your kernel values exact enough? (the probe of Experiment 3)")
    fail("fixed_predict", [found])


def diagnose_fixed_predict(predict, aspect="all"):
    """Probe ``fixed_predict(X_new, X, alpha, Y_pm, b, classes, degree, gamma, coef0) -> labels``.

    The right labels are ``classes[argmax_c S[t, c]]`` with the scores
    S[t, c] = Σ_j alpha[c, j] Y_pm[j, c] (gamma x_j·x_t + coef0)^degree + b[c]. Aspects:
    ``"labels"`` (small whole-number kernels, classes that include -1 and 0: every label
    comes from ``classes``) and ``"precision"`` (digit-like points with gamma = 1, whose
    kernel values pass 10^8). The hints say which behaviour is wrong and where to look.

    Raises
    ------
    AssertionError
        Listing every problem found.

    Lesson 07 (MNIST on the GPU).
    """
    __tracebackhide__ = True
    run(predict_tests(aspect), fixed_predict=predict)
