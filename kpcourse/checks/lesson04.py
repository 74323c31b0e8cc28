"""Checks of assignment 04 (the kernel trick): phi, identity_gap, the kernel perceptron, count_features.

Each ``diagnose_*`` runs fixed probes on the student's function and names the likely
mistake; ``*_tests(aspect)`` returns the same probes as :class:`~._core.Test` objects,
which the grader replays on the student's answers. The expected outputs and the
outputs of common mistakes are data (``data/lesson04.json``, written from the
grader's references); no feature map of the exercise, no kernel perceptron and no
feature count lives here.

``identity_gap(feature_map, X, Z)`` takes a function. Only the student's own
functions can be handed to it at grading time (:class:`~._core.Ref`, looked up by
name in the notebook), so its probes use two *given* maps that the assignment defines
in a locked cell and that are copied here for the visible run (:data:`FEATURE_MAPS`):
they are inputs of the probes, neither is the answer of an exercise. The student's
``phi`` is never passed: a wrong ``phi`` (or one that calls a reference) must not cost
points in exercise 2.
"""

from __future__ import annotations

import functools

import numpy as np

from kpcourse.checks._core import (
    Call,
    Ref,
    Test,
    check_close,
    check_labels,
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

__all__ = ["diagnose_phi", "diagnose_identity_gap", "diagnose_kernel_train", "diagnose_kernel_predict",
           "diagnose_count_features", "phi_tests", "gap_tests", "train_tests", "predict_tests", "count_tests",
           "FEATURE_MAPS"]


# ------------------------------------------------- the maps given for exercise 2
# The same two functions are defined in a locked cell of the assignment (a unit test
# keeps them equal): the grader calls the student's identity_gap with those, by name.
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

#: The probes (inputs only).
PROBES = {
    "phi_X": np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.0], [-2.0, -1.5]]),
    # The products p = x1x2z1z2 range from -2.25 to +3 on (gap_X, gap_Z); with phi_without_root
    # the differences are -p, so the largest |difference| is an undershoot (-3). Flipping the
    # sign of z1 (gap_Zf) makes it an overshoot (+3): a signed maximum fails one probe, a
    # maximum of kernel - features the other.
    "gap_X": np.array([[1.0, 2.0], [-0.5, 1.0], [2.0, 0.5], [1.5, -1.0], [0.0, 1.0]]),
    "gap_Z": np.array([[1.0, 1.5], [2.0, -0.5], [-1.0, 1.0], [0.5, 0.5]]),
    "gap_Zf": np.array([[-1.0, 1.5], [-2.0, -0.5], [1.0, 1.0], [-0.5, 0.5]]),
    "gap_A3": np.array([[1.0, 0.5, -1.0], [0.0, 2.0, 1.0]]),
    "gap_B3": np.array([[1.0, 1.0, 1.0], [2.0, 0.0, -0.5], [0.5, -1.0, 0.0]]),
    # Multiples of 1/4: every kernel value and score is exact in floating point. Labelled by
    # the unit circle; 3 epochs, one point corrected twice; every common mistake differs.
    "train_X": np.array([[-0.5, 0.5], [0.0, 0.75], [0.5, 1.5], [0.25, 0.0], [1.0, -1.25], [-1.5, -1.75],
                         [0.0, -0.5], [-1.25, -0.5]]),
    "train_y": np.array([-1, -1, 1, -1, 1, 1, -1, 1]),
    "train_epochs": 20,
    # Two copies of one point with opposite labels: every visit is a mistake.
    "twin_X": np.array([[1.0, 0.5], [1.0, 0.5]]), "twin_y": np.array([1, -1]),
    # Two separable points: every variant of the rule converges in 2 epochs.
    "far_X": np.array([[2.0, 0.0], [-2.0, 0.0]]), "far_y": np.array([1, -1]),
    # alpha·y = (2, -1, 1), b = -0.5; the labels of predict_new differ from every mistake's.
    "predict_X": np.array([[1.0, 0.0], [0.0, 2.0], [-1.0, 1.0]]),
    "predict_y": np.array([1, -1, 1]),
    "predict_alpha": np.array([2, 1, 1]),
    "predict_b": -0.5,
    "predict_new": np.array([[-2.0, -2.0], [-2.0, -1.5], [-2.0, -1.0], [-1.5, 2.0]]),
    # (1 + x·z)² is 2.25 for both training points at x = (0.5, 0.5): its score is exactly 0.
    "zero": (np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1, -1]), np.array([1, 1]), 0.0,
             np.array([[0.5, 0.5], [2.0, 0.0]])),
    "count_types": ((2, 2), (784, 5)),
    "count_errors": ((0, 2, "d = 0 (no coordinates)"), (3, 0, "degree = 0"), (-2, 3, "d is negative")),
    "count_values": ((2, 2), (3, 2), (2, 3), (10, 3), (1, 4), (784, 5), (1000, 8)),
}

@functools.cache
def _data():
    return load_data("lesson04")


# ----------------------------------------------------------------------- phi
def phi_tests(aspect="all"):
    """Tests of ``phi(X)``: ``"shape"`` (shapes, input unchanged, ValueError) and ``"values"``."""
    X, tests = PROBES["phi_X"], []
    if aspect in ("all", "shape"):
        calls = [Call("phi", X), Call("phi", X[:1]), Call("phi", np.ones((4, 3))), Call("phi", np.array([1.0, 2.0]))]
        tests.append(Test(calls, _judge_phi_shape))
    if aspect in ("all", "values"):
        tests.append(Test([Call("phi", X)], _judge_phi_values))
    return tests


def _judge_phi_shape(answers):
    __tracebackhide__ = True
    problems = []
    check_shape(answers[0].get(), (4, 3), "phi(X) for X of shape (4, 2)")
    if answers[0].mutated:
        problems.append("phi changed the array X passed in: compute new columns instead of writing into X")
    check_shape(answers[1].get(), (1, 3), "phi(X) for X of shape (1, 2)")
    for a, why in ((answers[2], "X has shape (4, 3): φ maps 2-D points only"),
                   (answers[3], "X has shape (2,): one point must be given as shape (1, 2)")):
        problems.append(problem(expect_raises, a, "ValueError", why))
    fail("phi", problems)


def _judge_phi_values(answers):
    __tracebackhide__ = True
    d, problems = _data()["phi"], []
    got = answers[0].get()
    check_shape(got, (4, 3), "phi(X) for X of shape (4, 2)")
    try:
        arr = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError(f"phi should return numbers, got {type(got).__name__}") from None
    ref = d["features"]
    if not same(arr, ref):
        if not np.all(np.isfinite(arr)):
            problems.append("phi returned NaN or infinite values (a square root of a negative "
                            "product?): the third feature is √2 times x1·x2")
        elif same(arr, d["no_root"]):
            problems.append("the cross term needs the factor √2: φ(x) = (x1², x2², √2·x1·x2). "
                            "Without it φ(x)·φ(z) = x1²z1² + x2²z2² + x1x2z1z2, which misses half "
                            "of the term 2·x1x2z1z2 of (x·z)²")
        elif same(arr, d["doubled"]):
            problems.append("the cross term is 2·x1·x2, but φ(x)·φ(z) multiplies two cross terms: "
                            "(2·x1x2)(2·z1z2) = 4·x1x2z1z2, twice too much; the factor is √2")
        elif same(np.sort(arr, axis=1), np.sort(ref, axis=1)):
            problems.append("the right features in the wrong order: the columns are x1², x2², "
                            "then √2·x1·x2")
        else:
            problems.append(problem(check_close, arr, ref, "phi(X)",
                                     hint="each row must be (x1², x2², √2·x1·x2)"))
    fail("phi", problems)


def diagnose_phi(phi, aspect="all"):
    """Probe ``phi(X) -> (n, 3)``, the feature map of (x·z)², and name the mistake.

    Aspects: ``"shape"`` (shape (n, 3) for (n, 2) input, the input left unchanged, a
    ``ValueError`` for 3 columns and for a single point of shape (2,)) and
    ``"values"`` (the features x₁², x₂², √2·x₁x₂ in this order; a missing √2, a factor 2
    or a wrong column order are named).

    Raises
    ------
    AssertionError
        Listing every problem found, e.g. "the cross term needs the factor √2".

    Lesson 04 (the kernel trick).
    """
    __tracebackhide__ = True
    run(phi_tests(aspect), phi=phi)


# -------------------------------------------------------------- identity gap
def gap_value(answer):
    """One float from an answer of ``identity_gap``, with clear failures for anything else."""
    __tracebackhide__ = True
    got = answer.get()
    if np.ndim(got) != 0:
        raise AssertionError(f"identity_gap should return one number (the largest absolute "
                             f"difference), got shape {np.shape(got)}")
    try:
        return float(got)
    except (TypeError, ValueError):
        raise AssertionError(f"identity_gap should return a number, got {type(got).__name__}") from None


def gap_tests(aspect="all"):
    """Tests of ``identity_gap(feature_map, X, Z)``: ``"values"`` and ``"errors"``.

    The feature maps are the two given in the assignment (:data:`FEATURE_MAPS`), by name.
    """
    P, tests = PROBES, []
    if aspect in ("all", "values"):
        calls = [Call("identity_gap", EXACT_MAP, P["gap_X"], P["gap_Z"]),
                 Call("identity_gap", WRONG_MAP, P["gap_X"], P["gap_Z"]),
                 Call("identity_gap", WRONG_MAP, P["gap_X"], P["gap_Zf"])]
        tests.append(Test(calls, _judge_gap_values))
    if aspect in ("all", "errors"):
        calls = [Call("identity_gap", EXACT_MAP, P["gap_A3"], P["gap_B3"]),
                 Call("identity_gap", EXACT_MAP, np.ones((2, 2)), np.ones((3, 3)))]
        tests.append(Test(calls, _judge_gap_errors))
    return tests


_GAP_HINTS = {
    "signed": "the largest absolute difference is needed: take np.abs of the differences before the "
              "maximum (a feature map can undershoot)",
    "flipped": "the largest absolute difference is needed: take np.abs of the differences before the "
               "maximum (a feature map can overshoot)",
    "mean": "return the largest absolute difference (max), not the mean",
    "sum": "return the largest absolute difference (max), not the sum",
}


def _judge_gap_values(answers):
    __tracebackhide__ = True
    d = _data()["gap"]
    exact = gap_value(answers[0])
    if not np.isfinite(exact) or abs(exact) > 1e-9:
        fail("identity_gap", [
            f"with an exact feature map (all_ordered_products: every product x_i·x_j) your gap is "
            f"{fmt(exact)}, not rounding-size: compare feature_map(X) @ feature_map(Z).T with the "
            "kernel values (X @ Z.T) ** 2, each entry squared"])
    for a, key in ((answers[1], "wrong"), (answers[2], "wrong_flipped")):
        got = gap_value(a)
        if np.isclose(got, d[key]["max"]):
            continue
        found = [hint for how, hint in _GAP_HINTS.items() if np.isclose(got, d[key][how])]
        fail("identity_gap", [found[0] if found else
                              f"for the map phi_without_root (third feature x1·x2, no √2) you returned "
                              f"{fmt(got)}: the gap is max |feature_map(X) @ feature_map(Z).T − "
                              "(X @ Z.T) ** 2| over all pairs"])


def _judge_gap_errors(answers):
    __tracebackhide__ = True
    problems = []
    got = gap_value(answers[0])
    if not (np.isfinite(got) and abs(got) < 1e-9):
        problems.append(f"for 3-D points (2 of them in X, 3 in Z) and an exact feature map "
                        f"(all_ordered_products) you returned {fmt(got)}: the gap must work for any "
                        "dimension and for X and Z of different lengths (a (2, 3) table of pairs)")
    problems.append(problem(expect_raises, answers[1], "ValueError",
                             "X has 2 columns and Z has 3: their points cannot be compared"))
    fail("identity_gap", problems)


def diagnose_identity_gap(gap, aspect="all"):
    """Probe ``identity_gap(feature_map, X, Z) -> float`` and name the mistake.

    The function returns max over all pairs of |φ(x)·φ(z) − (x·z)²| with φ =
    ``feature_map``. Aspects: ``"values"`` (rounding-size for an exact map; the right
    gap for a wrong map on two probes, so that a signed maximum, a mean or a sum are
    named) and ``"errors"`` (one number for X and Z of different lengths and any
    dimension; a ``ValueError`` when X and Z have different numbers of columns). The
    maps are the two the assignment gives (``phi_without_root``, ``all_ordered_products``).

    Raises
    ------
    AssertionError
        Listing every problem found.

    Lesson 04 (the kernel trick).
    """
    __tracebackhide__ = True
    run(gap_tests(aspect), identity_gap=gap, **FEATURE_MAPS)


# ------------------------------------------------- kernel perceptron (train)
TRAIN = "kernel_perceptron_train"


def unpack_train(answer):
    """``(alpha, b)`` as floats from an answer of ``kernel_perceptron_train``, or a clear failure."""
    __tracebackhide__ = True
    alpha, b = unpack(answer.get(), TRAIN, ("alpha", "b"))
    n = len(answer.call.args[1]) if len(answer.call.args) > 1 else None
    check_shape(alpha, (n,), f"the alpha returned by {TRAIN}")
    if np.ndim(b) != 0:
        raise AssertionError(f"the b returned by {TRAIN} should be a number, got shape {np.shape(b)}")
    try:
        return np.asarray(alpha, dtype=float), float(b)
    except (TypeError, ValueError):
        raise AssertionError("alpha should hold numbers (mistake counts) and b should be a number") from None


_TRAIN_HINTS = {  # common mistakes (data/lesson04.json holds their outputs), in this order
    "homogeneous": "your kernel is (x·z)², without the 1: this exercise uses k(x, z) = (1 + x·z)²",
    "linear": "your kernel is the linear x·z: this exercise uses k(x, z) = (1 + x·z)²",
    "no_bias": "your training ignores the bias: b never changes; on each mistake b += y_i, and b enters "
               "every score",
    "bias_not_in_score": "your b changes but never enters the score: f(x_i) = Σ_j alpha_j y_j k(x_j, x_i) + b",
    "set_one": "alpha must count the mistakes on each sample (alpha[i] += 1), not just mark them with 1",
}


def train_tests(aspect="all"):
    """Tests of ``kernel_perceptron_train(X, y, max_epochs)``: ``"basic"``, ``"rule"``, ``"stop"``."""
    P, tests = PROBES, []
    X, y, E = P["train_X"], P["train_y"], P["train_epochs"]
    if aspect in ("all", "basic"):
        tests.append(Test([Call(TRAIN, X, y, E), Call(TRAIN, X, y[:-1], E)], _judge_train_basic))
    if aspect in ("all", "rule"):
        tests.append(Test([Call(TRAIN, X, y, E)], _judge_train_rule))
    if aspect in ("all", "stop"):
        tests.append(Test([Call(TRAIN, P["twin_X"], P["twin_y"], e) for e in (1, 3)], _judge_train_epochs))
        tests.append(Test([Call(TRAIN, P["far_X"], P["far_y"], 10 ** 6)], _judge_train_early_stop,
                          time_limit=3.0))
    return tests


def _judge_train_basic(answers):
    __tracebackhide__ = True
    problems, n = [], len(PROBES["train_y"])
    alpha, _ = unpack_train(answers[0])
    if answers[0].mutated:
        problems.append(f"{TRAIN} changed the X or y passed in")
    if np.all(alpha == 0):
        problems.append("sign(0) must count as a mistake: all your alpha are 0, but alpha = 0 and b = 0 "
                        "give the first point a score of exactly 0, which is a mistake")
    elif np.any(alpha < 0) or not np.allclose(alpha, np.round(alpha)):
        problems.append(f"alpha counts mistakes, so it holds whole numbers >= 0; you returned {fmt(alpha)} "
                        "(add 1 on a mistake: the label y_i enters the score, not alpha)")
    problems.append(problem(expect_raises, answers[1], "ValueError", f"X has {n} rows but y has {n - 1} labels"))
    fail(TRAIN, problems)


def _judge_train_rule(answers):
    __tracebackhide__ = True
    d, P = _data()["train"], PROBES
    alpha, b = unpack_train(answers[0])
    if same(alpha, d["alpha"]) and np.isclose(b, d["b"]):
        return
    named = [_TRAIN_HINTS[k] for k, m in d["mistakes"].items() if same(alpha, m["alpha"]) and np.isclose(b, m["b"])]
    if named:
        found = named[0]
    elif np.all(alpha == 0):
        found = "sign(0) must count as a mistake: all your alpha are 0"
    elif same(alpha, d["alpha"]):
        found = (f"alpha is right but b is not (you returned b = {fmt(b)}): b starts at 0 and grows by "
                 "y_i on each mistake")
    else:
        found = (f"on X={fmt(P['train_X'])}, y={fmt(P['train_y'])}, max_epochs={P['train_epochs']} you "
                 f"returned alpha={fmt(alpha)}, b={fmt(b)}: not the kernel perceptron's. Visit the samples "
                 "0..n-1 in order; f(x_i) = Σ_j alpha_j y_j (1 + x_j·x_i)² + b; on y_i f(x_i) <= 0 add 1 "
                 "to alpha_i and y_i to b")
    fail(TRAIN, [found])


def _judge_train_epochs(answers):
    __tracebackhide__ = True
    for a, expected in zip(answers, _data()["train"]["twin_alpha"], strict=True):
        alpha, _ = unpack_train(a)
        if not same(alpha, expected):
            epochs = a.call.args[2]
            fail(TRAIN, [f"on two copies of one point with opposite labels every visit is a mistake, so "
                         f"with max_epochs={epochs} each alpha counts one mistake per epoch; you returned "
                         f"alpha={fmt(alpha)}: run at most max_epochs epochs, and stop early only after an "
                         "epoch without a mistake"])


def _judge_train_early_stop(answers):
    __tracebackhide__ = True
    if answers[0].error in ("TimeUp", "NoAnswer"):
        fail(TRAIN, ["with max_epochs=1000000 on two separable points your function did not return "
                     "within 3 s: stop after the first epoch without a mistake"])
    unpack_train(answers[0])


def diagnose_kernel_train(train, aspect="all"):
    """Probe ``kernel_perceptron_train(X, y, max_epochs) -> (alpha, b)`` and name the mistake.

    The rule: k(x, z) = (1 + x·z)²; visit 0..n-1; if y_i f(x_i) <= 0 with
    f(x_i) = Σ_j alpha_j y_j k(x_j, x_i) + b, then alpha_i += 1 and b += y_i; stop after
    an epoch without a mistake or after max_epochs. Aspects: ``"basic"`` (a tuple of an
    (n,) array of non-negative whole counts and a number, a score of 0 is a mistake, the
    inputs unchanged, a ``ValueError`` when y does not have one label per row of X),
    ``"rule"`` (alpha and b on a small data set; a wrong kernel, a missing bias, a bias
    outside the score and alpha set to 1 are named) and ``"stop"`` (exactly max_epochs
    epochs when every visit is a mistake, judged on two copies of one point with
    opposite labels, so a wrong kernel or bias does not fail it; an early stop on two
    separable points with max_epochs = 10⁶).

    Raises
    ------
    AssertionError
        Listing every problem found.

    Lesson 04 (the kernel trick).
    """
    __tracebackhide__ = True
    run(train_tests(aspect), kernel_perceptron_train=train)


# ----------------------------------------------- kernel perceptron (predict)
PREDICT = "kernel_perceptron_predict"


def predict_tests(aspect="all"):
    """Tests of ``kernel_perceptron_predict(X_train, y_train, alpha, b, X_new)``: ``"basic"``, ``"details"``."""
    P, tests = PROBES, []
    args = (P["predict_X"], P["predict_y"], P["predict_alpha"], P["predict_b"])
    if aspect in ("all", "basic"):
        calls = [Call(PREDICT, *args, P["predict_new"]), Call(PREDICT, *args, P["predict_new"][:1]),
                 Call(PREDICT, *args, np.ones((2, 3)))]
        tests.append(Test(calls, _judge_predict_basic))
    if aspect in ("all", "details"):
        tests.append(Test([Call(PREDICT, *args, P["predict_new"]), Call(PREDICT, *P["zero"])],
                          _judge_predict_details))
    return tests


def _judge_predict_basic(answers):
    __tracebackhide__ = True
    d, problems = _data()["predict"], []
    got = answers[0].get()
    arr = np.asarray(got) if not isinstance(got, (str, type(None))) else np.asarray([])
    if arr.shape == (4,) and arr.dtype.kind in "fiu" and same(arr, d["scores"]):
        problems.append(f"{PREDICT} returned the scores; return their labels -1/+1")
    else:
        check_labels(got, 4, f"{PREDICT} for X_new of shape (4, 2)")
        if np.array_equal(arr, -d["labels"]):
            problems.append("your labels are flipped: a positive score predicts +1")
        elif np.array_equal(arr, d["no_y"]):
            problems.append("your prediction ignores the labels y: the score is Σ_j alpha_j y_j k(x_j, x) + b")
        elif np.array_equal(arr, d["no_b"]):
            problems.append("your prediction ignores the bias b: the score is Σ_j alpha_j y_j k(x_j, x) + b")
    one = answers[1].get()
    if np.shape(one) != (1,):
        problems.append(f"for X_new with one row (shape (1, 2)) return shape (1,), got {np.shape(one)}")
    problems.append(problem(expect_raises, answers[2], "ValueError",
                             "X_new has 3 columns but the training points have 2"))
    fail(PREDICT, problems)


def _judge_predict_details(answers):
    __tracebackhide__ = True
    d, P, problems = _data()["predict"], PROBES, []
    got = answers[0].get()
    check_labels(got, 4, f"{PREDICT} for X_new of shape (4, 2)")
    arr = np.asarray(got)
    if not np.array_equal(arr, d["labels"]):
        for kernel, name in (("homogeneous", "(x·z)², without the 1"), ("linear", "the linear x·z")):
            if np.array_equal(arr, d[kernel]):
                problems.append(f"your kernel is {name}: this exercise uses k(x, z) = (1 + x·z)²")
                break
        else:
            problems.append(f"{PREDICT}(X_train={fmt(P['predict_X'])}, y_train={fmt(P['predict_y'])}, "
                            f"alpha={fmt(P['predict_alpha'])}, b={fmt(P['predict_b'])}, "
                            f"X_new={fmt(P['predict_new'])}) gave {fmt(arr)}: "
                            f"{int((arr != d['labels']).sum())} label(s) are wrong")
    zero = answers[1].get()
    check_shape(zero, (2,), f"{PREDICT} for 2 new points")
    first = np.asarray(zero, dtype=float)[0]
    if first == 0:
        problems.append("a score of exactly 0 gave 0 (np.sign(0) is 0): a point whose score is not "
                        "positive is labelled -1")
    elif first == 1:
        problems.append("a score of exactly 0 gave +1: only a positive score predicts +1")
    fail(PREDICT, problems)


def diagnose_kernel_predict(predict, aspect="all"):
    """Probe ``kernel_perceptron_predict(X_train, y_train, alpha, b, X_new) -> labels``.

    Labels sign(Σ_j alpha_j y_j (1 + x_j·x)² + b) in {-1, +1}, a score of exactly 0
    giving -1. Aspects: ``"basic"`` (shape, labels rather than scores, the labels y
    and the bias used, a ``ValueError`` when X_new and X_train have different numbers
    of columns) and ``"details"`` (the kernel (1 + x·z)², not (x·z)² or x·z; a score of
    exactly 0 predicts -1).

    Raises
    ------
    AssertionError
        Listing every problem found.

    Lesson 04 (the kernel trick).
    """
    __tracebackhide__ = True
    run(predict_tests(aspect), kernel_perceptron_predict=predict)


# ------------------------------------------------------- counting features
COUNT = "count_features"

_COUNT_HINTS = {  # common mistakes (data/lesson04.json holds their counts), in this order
    "exact_degree": "you counted only the monomials of degree exactly `degree` (the features of "
                    "(x·z)^degree); (1 + x·z)^degree has every degree from 0 (the constant 1) up to `degree`",
    "no_constant": "you forgot the constant feature 1 (degree 0)",
    "ordered_exact": "you counted ordered products (x1·x2 and x2·x1 twice) of degree exactly `degree`; "
                     "a monomial is a multiset of variables",
    "ordered": "you counted ordered products (x1·x2 and x2·x1 twice); a monomial is a multiset of "
               "variables (stars and bars)",
}


def is_int(value):
    """True for a Python or NumPy integer (not a bool)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def count_tests(aspect="all"):
    """Tests of ``count_features(d, degree)``: ``"basic"`` (an int, ValueError) and ``"values"``."""
    P, tests = PROBES, []
    if aspect in ("all", "basic"):
        calls = [Call(COUNT, d, n) for d, n in P["count_types"]]
        calls += [Call(COUNT, d, n) for d, n, _ in P["count_errors"]]
        tests.append(Test(calls, _judge_count_basic))
    if aspect in ("all", "values"):
        tests.append(Test([Call(COUNT, d, n) for d, n in P["count_values"]], _judge_count_values))
    return tests


def _judge_count_basic(answers):
    __tracebackhide__ = True
    problems, k = [], len(PROBES["count_types"])
    for a in answers[:k]:
        got = a.get()
        if not is_int(got):
            d, n = a.call.args
            problems.append(f"{COUNT}({d}, {n}) should return an int, got {type(got).__name__} {fmt(got)}: a "
                            "count is a whole number (use integer arithmetic, e.g. math.comb or //, not /)")
            break
    for a, (_, _, why) in zip(answers[k:], PROBES["count_errors"], strict=True):
        found = problem(expect_raises, a, "ValueError", why)
        if found:
            problems.append(found)
            break
    fail(COUNT, problems)


def _judge_count_values(answers):
    __tracebackhide__ = True
    for a, expected in zip(answers, _data()["count"], strict=True):
        got = a.get()
        d, n = a.call.args
        try:  # a float equal to the count passes here; "basic" asks for an int
            val = int(got) if float(got) == int(got) else got
        except (TypeError, ValueError, OverflowError):
            val = got
        if is_int(val) and not isinstance(got, (bool, np.bool_)) and val == expected["right"]:
            continue
        named = [_COUNT_HINTS[k] for k in _COUNT_HINTS if is_int(val) and val == expected[k]]
        if named:
            found = named[0]
        elif is_int(got) and d == 1000:
            found = (f"{COUNT}(1000, 8) is wrong although smaller cases are right: the count exceeds 64-bit "
                     "integers; use Python ints (math.comb)")
        else:
            found = (f"{COUNT}({d}, {n}) returned {fmt(got)}: count the monomials x1^k1 ... x{d}^k{d} "
                     f"with k1 + ... + k{d} <= {n}")
        fail(COUNT, [found])


def diagnose_count_features(count, aspect="all"):
    """Probe ``count_features(d, degree)``, the number of features of (1 + x·z)^degree.

    That number is the count of monomials of degree 0..degree in d variables.
    Aspects: ``"basic"`` (an integer, also when it is huge, and a ``ValueError`` for
    d < 1 or degree < 1) and ``"values"`` (small and large cases; counting only the
    monomials of degree exactly ``degree``, ordered products dⁿ or (d+1)ⁿ, or
    forgetting the constant feature are named).

    Raises
    ------
    AssertionError
        Listing every problem found.

    Lesson 04 (the kernel trick).
    """
    __tracebackhide__ = True
    run(count_tests(aspect), count_features=count)
