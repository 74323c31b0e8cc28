"""Checks of assignment 03 (the dual form): dual_train, dual_predict, primal_from_dual.

Each ``diagnose_*`` runs fixed probes on the student's function and names the likely
mistake; ``*_tests(aspect)`` returns the same probes as :class:`~._core.Test` objects,
which the grader replays on the student's answers. The expected outputs and the
outputs of common mistakes are data (``data/lesson03.json``, written from the
grader's references); no dual perceptron lives here.

Besides small hand-made probes, the checks use the perceptron quiz's 20 points
(:func:`kpcourse.datasets.quiz_points`), rescaled as the quiz does and without its
constant-1 column (our perceptron has its own bias): ``Z = quiz_transform(X)[:, :2]``,
``K = Z Zᵀ``. They are read from the package when a check first needs them.
"""

from __future__ import annotations

import functools

import numpy as np

from kpcourse.checks._core import (
    Call,
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

__all__ = ["diagnose_dual", "diagnose_dual_predict", "diagnose_primal_from_dual", "dual_tests",
           "dual_predict_tests", "primal_tests", "unpack_dual", "unpack_w", "quiz_probe"]

# dual_train. Counts: points far from the origin, separable through it, so the bias
# never decides a mistake. Bias and learning rate: a small set where the bias matters.
_XC = 10.0 * np.array([[1.0, 3.0], [2.0, 3.0], [-2.0, -1.0], [-2.0, -2.0], [-2.0, 3.0], [0.0, 2.0]])
_XB = np.array([[2.0, 3.0], [0.0, 1.0], [0.0, 3.0], [0.0, 0.0], [1.0, 1.0]])

#: The probes (inputs only).
PROBES = {
    "counts_X": _XC, "counts_K": _XC @ _XC.T, "counts_y": np.array([1, 1, -1, -1, -1, 1]),
    "bias_X": _XB, "bias_K": _XB @ _XB.T, "bias_y": np.array([1, -1, 1, -1, -1]),
    "max_epochs": 20,
    # dual_predict: K_test_train (4 new points x 3 training points); with alpha·y =
    # (1, 0, -2) and b = -0.5 the scores are -3.5, 1.5, -0.3 and exactly 0.
    "predict_K": np.array([[1.0, 0.0, 2.0], [0.0, 3.0, -1.0], [0.2, 0.0, 0.0], [0.5, 0.0, 0.0]]),
    "predict_alpha": np.array([1, 0, 2]), "predict_y": np.array([1, -1, -1]), "predict_b": -0.5,
    # the learning rate: kernel sum 2 and b = -1.5, so the score is 0.5·2 - 1.5 < 0 for rate 0.5
    "predict_lr": (np.array([[2.0, 0.0, 0.0]]), np.array([1, 0, 2]), np.array([1, 1, -1]), -1.5, 0.5),
    # primal_from_dual: 4 training points with 2 features; sum_i alpha_i y_i = 3
    "primal_X": np.array([[1.0, 2.0], [3.0, -1.0], [0.0, 1.0], [2.0, 2.0]]),
    "primal_alpha": np.array([2, 1, 1, 3]), "primal_y": np.array([1, -1, -1, 1]),
    "primal_b": {1.0: 3.0, 0.5: 1.5},  # b = learning_rate * sum_i alpha_i y_i
}
_QUIZ = None


@functools.cache
def _data():
    return load_data("lesson03")


def quiz_probe():
    """The quiz's points as the checks use them: ``(Z, y, K)``, ``Z = quiz_transform(X)[:, :2]``."""
    global _QUIZ
    if _QUIZ is None:
        from kpcourse.datasets import quiz_points, quiz_transform

        X, y = quiz_points()
        Z = quiz_transform(X)[:, :2]
        _QUIZ = (Z, y, Z @ Z.T)
    Z, y, K = _QUIZ
    return Z.copy(), y.copy(), K.copy()


# ---------------------------------------------------------------- dual_train
def unpack_dual(answer, n):
    """``(alpha, b)`` from an answer of ``dual_train`` for ``n`` labels, with clear failures."""
    __tracebackhide__ = True
    alpha, b = unpack(answer.get(), "dual_train", ("alpha", "b"))
    check_shape(alpha, (n,), "the alpha returned by dual_train")
    if np.ndim(b) != 0:
        raise AssertionError(f"the b returned by dual_train should be a number, got shape {np.shape(b)}")
    try:
        alpha, b = np.asarray(alpha, dtype=float), float(b)
    except (TypeError, ValueError):
        raise AssertionError("alpha should be an array of numbers (mistake counts) and b a number") from None
    return alpha, b


def dual_tests(aspect="all"):
    """Tests of ``dual_train(K, y, max_epochs, learning_rate)``: ``"counts"``, ``"bias"``, ``"learning_rate"``."""
    P, E, tests = PROBES, PROBES["max_epochs"], []
    if aspect in ("all", "counts"):
        calls = [Call("dual_train", P["counts_K"], P["counts_y"], E, 1.0),
                 Call("dual_train", np.ones((3, 4)), np.array([1, -1, 1]), 5, 1.0)]
        tests.append(Test(calls, _judge_counts))
    if aspect in ("all", "bias"):
        _, yq, Kq = quiz_probe()
        calls = [Call("dual_train", P["bias_K"], P["bias_y"], E, 1.0), Call("dual_train", Kq, yq, E, 1.0)]
        tests.append(Test(calls, _judge_bias))
    if aspect in ("all", "learning_rate"):
        calls = [Call("dual_train", P["bias_K"], P["bias_y"], E, 1.0),
                 Call("dual_train", P["bias_K"], P["bias_y"], E, 0.25)]
        tests.append(Test(calls, _judge_rate))
    return tests


def _counting_problem(alpha, d):
    """Name a mistake in how alpha counts (``d``: the probe's data), or return None."""
    if np.all(alpha == 0):
        return ("sign(0) must count as a mistake: all your alpha are 0, but alpha = 0 and b = 0 at the "
                "first visit give a score of exactly 0, which is a mistake")
    if np.any(alpha < 0):
        return ("alpha counts mistakes, so it is never negative: add 1 (the label y_i enters the "
                "score, not alpha)")
    if same(alpha, d["set"]):
        return "alpha must count the mistakes on each sample (alpha[i] += 1), not just mark them with 1"
    return None


def _judge_counts(answers):
    __tracebackhide__ = True
    d, problems = _data()["counts"], []
    alpha, _ = unpack_dual(answers[0], len(PROBES["counts_y"]))
    if not same(alpha, d["alpha"]):
        named = _counting_problem(alpha, d)
        if named:
            problems.append(named)
        else:
            problems.append(problem(check_close, alpha, d["alpha"], "alpha on a Gram matrix of 6 samples",
                                    hint="alpha[i] counts the mistakes on sample i, visiting samples 0..n-1 in "
                                         "order; the score is learning_rate·Σ_j alpha_j y_j K[j, i] + b"))
    problems.append(problem(expect_raises, answers[1], "ValueError",
                            "K has shape (3, 4), not (n, n) for n = len(y) labels"))
    fail("dual_train", problems)


def _judge_bias(answers):
    __tracebackhide__ = True
    D = _data()
    where = {"bias": f"on K = X Xᵀ for X={fmt(PROBES['bias_X'])}, y={fmt(PROBES['bias_y'])}",
             "quiz": "on the quiz's Gram matrix (K = Z Zᵀ, Z = quiz_transform(X)[:, :2], 20 points)"}
    for a, key in zip(answers, ("bias", "quiz"), strict=True):
        d = D[key]
        alpha, b = unpack_dual(a, len(d["alpha"]))
        if same(alpha, d["alpha"]) and np.isclose(b, d["b"]):
            continue
        named = _counting_problem(alpha, d)
        if named:
            found = named
        elif b == 0 and same(alpha, d["no_bias"]):
            found = ("your dual training ignores the bias: b never changes; on each mistake "
                     "b += learning_rate·y_i, and b enters every score")
        elif same((*alpha, b), d["bias_out"]):
            found = ("your b changes but never enters the score: "
                     "f(x_i) = learning_rate·Σ_j alpha_j y_j K[j, i] + b")
        else:
            found = (f"{where[key]} you returned alpha={fmt(alpha)}, b={fmt(b)}: check the mistake "
                     "counts and the bias (b += learning_rate·y_i on a mistake, added to every score)")
        fail("dual_train", [found])


def _judge_rate(answers):
    __tracebackhide__ = True
    d, problems = _data()["rate"], []
    n = len(PROBES["bias_y"])
    a1, b1 = unpack_dual(answers[0], n)
    a4, b4 = unpack_dual(answers[1], n)
    if not np.allclose(a4, np.round(a4)):
        problems.append(f"the learning rate was applied to the dual counts alpha (learning_rate=0.25 "
                        f"gave alpha={fmt(a4)}): alpha[i] grows by exactly 1 per mistake, whatever the "
                        "learning rate; the learning rate multiplies the kernel sum and the bias step")
    elif same((*a4, b4), (*d["alpha"], 0.25 * d["b"])):
        pass  # right for 0.25 (a wrong alpha for 1 is the other aspects' business)
    elif same((*a4, b4), d["bias_step_no_lr"]) or (b1 != 0 and np.allclose(a4, a1) and np.isclose(b4, b1)):
        problems.append("the bias step must be scaled by the learning rate too (b += learning_rate·y_i)")
    elif not np.allclose(a4, a1):
        problems.append(f"alpha changed with the learning rate ({fmt(a1)} for 1, {fmt(a4)} for 0.25): "
                        "alpha and b start at 0, so the learning rate only rescales every score and the "
                        "mistakes stay the same; apply it to the kernel sum and to the bias step alike")
    elif not np.isclose(b4, 0.25 * b1):
        problems.append(f"b should be proportional to the learning rate: you returned b={fmt(b1)} for "
                        f"learning_rate=1 and b={fmt(b4)} for 0.25")
    fail("dual_train", problems)


def diagnose_dual(dual_train, aspect="all"):
    """Probe ``dual_train(K, y, max_epochs, learning_rate) -> (alpha, b)`` and name the mistake.

    Aspects: ``"counts"`` (alpha counts the mistakes per sample, a score of 0 is a
    mistake, a ``ValueError`` for a non-square K; on a Gram matrix where the bias
    never decides), ``"bias"`` (b grows by learning_rate·y on each mistake and enters
    every score; on a small set and on the quiz's 20 points) and ``"learning_rate"``
    (alpha does not depend on the learning rate, b is proportional to it).

    Raises
    ------
    AssertionError
        Listing every problem found, e.g. "the learning rate was applied to the dual
        counts alpha" or "your dual training ignores the bias".
    """
    __tracebackhide__ = True
    run(dual_tests(aspect), dual_train=dual_train)


# -------------------------------------------------------------- dual_predict
def dual_predict_tests(aspect="all"):
    """Tests of ``dual_predict(K_test_train, alpha, y, b, learning_rate)``: ``"basic"``, ``"details"``."""
    P, tests = PROBES, []
    args = (P["predict_alpha"], P["predict_y"])
    if aspect in ("all", "basic"):
        calls = [Call("dual_predict", P["predict_K"][:3], *args, P["predict_b"], 1.0),
                 Call("dual_predict", np.ones((2, 4)), *args, 0.0, 1.0)]
        tests.append(Test(calls, _judge_predict_basic))
    if aspect in ("all", "details"):
        calls = [Call("dual_predict", P["predict_K"], *args, P["predict_b"], 1.0),
                 Call("dual_predict", *P["predict_lr"])]
        tests.append(Test(calls, _judge_predict_details))
    return tests


def _judge_predict_basic(answers):
    __tracebackhide__ = True
    P, d, problems = PROBES, _data()["predict"], []
    got = answers[0].get()
    arr = np.asarray(got) if not isinstance(got, (str, type(None))) else np.asarray([])
    right = d["labels"]
    if arr.shape == (3,) and arr.dtype.kind in "fiu" and not np.isin(arr, (-1, 1)).all() \
            and same(arr, d["scores"]):
        problems.append("dual_predict returned the scores; return their labels -1/+1")
    else:
        check_labels(got, 3, "dual_predict for K_test_train of shape (3, 3)")
        if not np.array_equal(arr, right):
            if np.array_equal(arr, d["no_y"]):
                problems.append("your prediction ignores the labels y: the score is "
                                "learning_rate·Σ_j alpha_j y_j K[t, j] + b")
            elif np.array_equal(arr, d["no_b"]):
                problems.append("your prediction ignores the bias b: the score is "
                                "learning_rate·Σ_j alpha_j y_j K[t, j] + b")
            elif np.array_equal(arr, -right):
                problems.append("your labels are flipped: a positive score predicts +1")
            else:
                problems.append(f"dual_predict(K_test_train={fmt(P['predict_K'][:3])}, "
                                f"alpha={fmt(P['predict_alpha'])}, y={fmt(P['predict_y'])}, "
                                f"b={fmt(P['predict_b'])}) gave {fmt(arr)}: "
                                f"{int((arr != right).sum())} label(s) are wrong")
    problems.append(problem(expect_raises, answers[1], "ValueError",
                            "K_test_train has 4 columns but there are 3 training samples (len(alpha))"))
    fail("dual_predict", problems)


def _judge_predict_details(answers):
    __tracebackhide__ = True
    d, problems = _data()["predict"], []
    got = answers[0].get()
    check_shape(got, (4,), "dual_predict for 4 test points")
    z = float(np.asarray(got, float)[3])  # the new point whose score is exactly 0
    if z == 0:
        problems.append("a score of exactly 0 gave 0 (np.sign(0) is 0): a point whose score is not "
                        "positive is labelled -1")
    elif z == 1:
        problems.append("a score of exactly 0 gave +1: only a positive score predicts +1")
    got = answers[1].get()
    check_shape(got, (1,), "dual_predict for 1 test point")
    if not same(got, d["lr_label"]):
        problems.append("with learning_rate=0.5 your prediction ignores the learning rate: the score is "
                        "learning_rate·Σ_j alpha_j y_j K[t, j] + b (it multiplies the kernel sum, not b)")
    fail("dual_predict", problems)


def diagnose_dual_predict(dual_predict, aspect="all"):
    """Probe ``dual_predict(K_test_train, alpha, y, b, learning_rate) -> labels``.

    Aspects: ``"basic"`` (shape, labels -1/+1, labels y and bias used, a
    ``ValueError`` when the columns of K do not match alpha) and ``"details"`` (a
    score of exactly 0 predicts -1; the learning rate multiplies the kernel sum).

    Raises
    ------
    AssertionError
        Listing every problem found.
    """
    __tracebackhide__ = True
    run(dual_predict_tests(aspect), dual_predict=dual_predict)


# ---------------------------------------------------------- primal_from_dual
def unpack_w(answer, n, d):
    """The w of an answer of ``primal_from_dual`` for n points with d features, with clear failures."""
    __tracebackhide__ = True
    w = answer.get()
    if isinstance(w, tuple) and len(w) == 2 and np.ndim(w[0]) == 1 and np.ndim(w[1]) == 0:
        raise AssertionError("primal_from_dual returns w alone (an array of shape (n_features,)); "
                             "b needs no conversion")
    shape = np.shape(w) if not isinstance(w, (str, type(None))) else None
    if shape == (n,) and n != d:
        raise AssertionError(f"the w returned by primal_from_dual has shape ({n},), one entry per training "
                             f"point: w = Σ_i alpha_i y_i x_i sums over the training points (the rows of X, "
                             f"axis 0), so it has one entry per feature, shape ({d},)")
    if shape == (d + 1,):
        raise AssertionError(f"the w returned by primal_from_dual has shape ({d + 1},): w holds one weight "
                             f"per column of X, shape ({d},); b is not part of it")
    check_shape(w, (d,), "the w returned by primal_from_dual")
    try:
        return np.asarray(w, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError("w should be an array of numbers") from None


def _primal_call(lr, b=None, X=None, y=None, alpha=None):
    P = PROBES
    return Call("primal_from_dual", P["primal_X"] if X is None else X,
                P["primal_alpha"] if alpha is None else alpha, P["primal_y"] if y is None else y,
                P["primal_b"][lr] if b is None else b, lr)


def primal_tests(aspect="all"):
    """Tests of ``primal_from_dual(X, alpha, y, b, learning_rate)``: ``"weights"``, ``"checks"``, ``"quiz"``."""
    P, tests = PROBES, []
    if aspect in ("all", "weights"):
        tests.append(Test([_primal_call(1.0), _primal_call(0.5)], _judge_primal_weights))
    if aspect in ("all", "checks"):
        b1 = P["primal_b"][1.0]
        calls = [_primal_call(1.0, b=b1 + 1.0), _primal_call(1.0, b=-b1), _primal_call(0.5, b=b1),
                 _primal_call(0.5), _primal_call(1.0, X=P["primal_X"][:3]), _primal_call(1.0, y=P["primal_y"][:3])]
        tests.append(Test(calls, _judge_primal_checks))
    if aspect in ("all", "quiz"):
        Z, y, _ = quiz_probe()
        q = _data()["quiz"]
        tests.append(Test([Call("primal_from_dual", Z, q["alpha"], y, q["b"], 1.0)], _judge_primal_quiz))
    return tests


def _primal_problem(w, d, key, where):
    """Name the mistake of a wrong w (``d``: the probe's data, ``key``: which learning rate)."""
    if same(w, d["no_y"][key]):
        return (f"{where}, which ignores the labels y: w = learning_rate·Σ_i alpha_i y_i x_i (a mistake on a "
                "point labelled -1 moves w away from it)")
    if same(w, -d["w"][key]):
        return f"{where}: the sign is wrong (w = learning_rate·Σ_i alpha_i y_i x_i)"
    if key == "half" and same(w, d["no_lr"][key]):
        return f"{where}: the learning rate is not applied (w = learning_rate·Σ_i alpha_i y_i x_i)"
    if key == "half" and same(w, d["lr_twice"][key]):
        return f"{where}: the learning rate is applied twice (w = learning_rate·Σ_i alpha_i y_i x_i)"
    return f"{where}, not learning_rate·Σ_i alpha_i y_i x_i"


def _judge_primal_weights(answers):
    __tracebackhide__ = True
    P, d = PROBES, _data()["primal"]
    n, nf = P["primal_X"].shape
    for a, key, lr in zip(answers, ("one", "half"), (1.0, 0.5), strict=True):
        w = unpack_w(a, n, nf)
        if same(w, d["w"][key]):
            continue
        where = (f"primal_from_dual(X={fmt(P['primal_X'])}, alpha={fmt(P['primal_alpha'])}, "
                 f"y={fmt(P['primal_y'])}, b={fmt(P['primal_b'][lr])}, learning_rate={lr:g}) returned "
                 f"w={fmt(w)}")
        fail("primal_from_dual", [_primal_problem(w, d, key, where)])


def _judge_primal_checks(answers):
    __tracebackhide__ = True
    P, problems = PROBES, []
    total = f"learning_rate·Σ_i alpha_i y_i (here Σ_i alpha_i y_i = {fmt(P['primal_b'][1.0])})"
    for a, why in zip(answers[:3], (f"b is not {total}: b + 1 for learning_rate=1",
                                    f"b is not {total}: its sign is wrong",
                                    f"b is not {total}: b fits learning_rate=1, but learning_rate=0.5"),
                      strict=True):
        try:
            expect_raises(a, "ValueError", why)
        except AssertionError as exc:
            problems.append(str(exc))
            break
    consistent = answers[3]
    if consistent.error == "ValueError":
        problems.append(f"primal_from_dual raised ValueError ({consistent.message}) for a consistent b with "
                        f"learning_rate=0.5 (b = 0.5·Σ_i alpha_i y_i): the learning rate scales b too, "
                        "b = learning_rate·Σ_i alpha_i y_i; compare up to rounding (np.isclose)")
    else:
        consistent.get()  # any other error is reported as it is (w itself is the other aspects' business)
    for a, why in zip(answers[4:], ("X has 3 rows but alpha has 4 entries", "y has 3 labels but alpha has 4 entries"),
                      strict=True):
        problems.append(problem(expect_raises, a, "ValueError", why))
    fail("primal_from_dual", problems)


def _judge_primal_quiz(answers):
    __tracebackhide__ = True
    q = _data()["quiz"]
    w = unpack_w(answers[0], len(q["alpha"]), 2)
    if not same(w, q["w"]["one"]):
        where = (f"on the quiz (Z = quiz_transform(X)[:, :2], its counts alpha and b = {fmt(q['b'])}) your w "
                 f"is {fmt(w)}")
        fail("primal_from_dual", [_primal_problem(w, q, "one", where)])


def diagnose_primal_from_dual(primal_from_dual, aspect="all"):
    """Probe ``primal_from_dual(X, alpha, y, b, learning_rate) -> w`` and name the mistake.

    Aspects: ``"weights"`` (w = learning_rate·Σ_i alpha_i y_i x_i, shape (n_features,),
    for two learning rates), ``"checks"`` (a ``ValueError`` when b is not
    learning_rate·Σ_i alpha_i y_i or when X or y does not match alpha; none for a
    consistent b) and ``"quiz"`` (the quiz's counts give the quiz's weights).

    Raises
    ------
    AssertionError
        Listing the problem found, e.g. "ignores the labels y".
    """
    __tracebackhide__ = True
    run(primal_tests(aspect), primal_from_dual=primal_from_dual)
