"""Checks of assignment 05 (the Gaussian kernel): rbf_gram, rbf_predict, choose_sigma.

Each ``diagnose_*`` runs fixed probes on the student's function and names the likely
mistake; ``*_tests(aspect)`` returns the same probes as :class:`~._core.Test` objects,
which the grader replays on the student's answers. The expected outputs and the
outputs of common mistakes (σ instead of σ², the factor 2 forgotten, …) are data
(``data/lesson05.json``, written from the grader's references); no kernel formula and
no kernel perceptron live here. Whether ``rbf_gram`` is loop-free is read from its
source (:func:`~._core.check_loop_free`), never timed.
"""

from __future__ import annotations

import functools

import numpy as np

from kpcourse.checks._core import (
    Call,
    Test,
    check_close,
    check_loop_free,
    check_shape,
    expect_raises,
    fail,
    fmt,
    load_data,
    name_mistake,
    problem,
    run,
    same,
    unpack,
)

__all__ = ["diagnose_rbf_gram", "diagnose_rbf_predict", "diagnose_choose_sigma", "check_sigma_choice",
           "unpack_predict", "unpack_choice", "rbf_gram_tests", "rbf_predict_tests", "choose_sigma_tests",
           "KERNEL_HINTS"]

_RNG_SHAPES = np.random.default_rng(5)
_RNG_LOOP = np.random.default_rng(7)

#: The probes (inputs only).
PROBES = {
    # rbf_gram: 4 x 3 points in 2-D, two bandwidths (σ, σ², 2σ and 2σ² all differ)
    "gram_X": np.array([[0.0, 0.0], [1.0, 2.0], [-1.5, 0.5], [2.0, -1.0]]),
    "gram_Z": np.array([[0.5, 0.5], [1.0, 1.0], [-2.0, 0.0]]),
    "gram_sigmas": (0.7, 2.5),
    "gram_diag_sigma": 1.3,
    # shapes (n, m, d): rectangular, one row, one feature
    "gram_shapes": [(_RNG_SHAPES.normal(size=(n, d)), _RNG_SHAPES.normal(size=(m, d)))
                    for n, m, d in ((6, 2, 3), (1, 5, 2), (4, 1, 1))],
    "gram_errors": [((np.ones((3, 2)), np.ones((4, 3)), 1.0),
                     "X has 2 columns but Z has 3 (points of different dimensions)"),
                    ((np.ones((3, 2)), np.ones((4, 2)), 0.0), "sigma is 0"),
                    ((np.ones((3, 2)), np.ones((4, 2)), -1.5), "sigma is negative")],
    # a larger call for the loop-free cell: 300 x 300 points in 5-D
    "gram_big": (_RNG_LOOP.normal(size=(300, 5)), _RNG_LOOP.normal(size=(300, 5)), 1.5),
    # rbf_predict: 5 training points in 3-D (one with alpha = 0), one query
    "predict": (np.array([[0.0, 1.0, 0.5], [1.0, -1.0, 0.0], [0.5, 0.5, 0.5], [-1.0, 0.0, 1.0],
                          [2.0, 0.0, -1.0]]),
                np.array([1, -1, 1, -1, -1]), np.array([2, 1, 0, 3, 1]), np.array([0.2, 0.4, 0.3]), 0.8),
    # two points at the same distance from the query, opposite labels, same count: score exactly 0
    "predict_zero": (np.array([[0.0, 1.0], [0.0, -1.0]]), np.array([1, -1]), np.array([2, 2]),
                     np.zeros(2), 1.0),
    # choose_sigma: a noisy ring inside a ring (datasets.circles), 150 + 100 points; a grid
    # from far too narrow to far too wide
    "choose_rings": {"n_train": 150, "n_val": 100, "noise": 0.1, "factor": 0.5, "random_state": 3},
    "choose_sigmas": (0.003, 0.03, 0.3, 3.0, 30.0),
}
#: What counts as "within reach of the best" validation error.
SIGMA_TOL = 0.05

#: Common mistakes in the kernel formula, most specific first; data/lesson05.json holds
#: what each gives on the probes (same keys).
KERNEL_HINTS = {
    "sigma": "σ instead of σ²: you divided the squared distance by 2σ; the denominator is 2σ² "
             "(square the bandwidth)",
    "no2": "the factor 2 is missing: you divided by σ², the denominator is 2σ²",
    "over_sigma": "you divided by σ: the denominator is 2σ²",
    "gamma": "σ is the bandwidth, not scikit-learn's γ: you computed exp(-σ‖x − z‖²), the kernel is "
             "exp(-‖x − z‖² / (2σ²))",
    "times": "you multiplied by 2σ² instead of dividing: the kernel is exp(-‖x − z‖² / (2σ²))",
    "distance": "use the squared distance ‖x − z‖², not the distance ‖x − z‖",
    "sign": "the exponent must be negative: exp(-‖x − z‖² / (2σ²)) is 1 for x = z and falls towards 0",
    "d2": "you returned the squared distances, not the kernel values exp(-‖x − z‖² / (2σ²))",
}
_WEIGHT_HINTS = {
    "no_y": "your score ignores the labels y: it is Σ αᵢ yᵢ k(xᵢ, q)",
    "no_alpha": "your score ignores the mistake counts alpha: it is Σ αᵢ yᵢ k(xᵢ, q)",
    "plain": "your score is a plain sum of kernel values: it is Σ αᵢ yᵢ k(xᵢ, q)",
}

@functools.cache
def _data():
    return load_data("lesson05")


def rings_probe():
    """The rings of the choose_sigma probe: ``(X_train, y_train, X_val, y_val)``."""
    from kpcourse.datasets import circles

    r = PROBES["choose_rings"]
    X, y = circles(r["n_train"] + r["n_val"], noise=r["noise"], factor=r["factor"],
                   random_state=r["random_state"])
    n = r["n_train"]
    return X[:n], y[:n], X[n:], y[n:]


# ------------------------------------------------------------------ rbf_gram
def rbf_gram_tests(aspect="all"):
    """Tests of ``rbf_gram(X, Z, sigma)``: ``"values"``, ``"shape"``, ``"loop_free"``.

    The loop-free part itself is read from the source (visible: :func:`diagnose_rbf_gram`;
    grading: the cell's ``loop_free``); its test here only calls on 300 × 300 points.
    """
    P, tests = PROBES, []
    if aspect in ("all", "values"):
        calls = [Call("rbf_gram", P["gram_X"], P["gram_Z"], s) for s in P["gram_sigmas"]]
        calls.append(Call("rbf_gram", P["gram_X"], P["gram_X"], P["gram_diag_sigma"]))
        tests.append(Test(calls, _judge_gram_values))
    if aspect in ("all", "shape"):
        calls = [Call("rbf_gram", X, Z, 1.0) for X, Z in P["gram_shapes"]]
        calls += [Call("rbf_gram", *args) for args, _ in P["gram_errors"]]
        tests.append(Test(calls, _judge_gram_shape))
    if aspect in ("all", "loop_free"):
        tests.append(Test([Call("rbf_gram", *P["gram_big"])], _judge_gram_big))
    return tests


def _judge_gram_values(answers):
    __tracebackhide__ = True
    P, d, problems = PROBES, _data()["gram"], []
    X, Z = P["gram_X"], P["gram_Z"]
    for i, sigma in enumerate(P["gram_sigmas"]):
        K = answers[i].get()
        check_shape(K, (4, 3), f"rbf_gram(X with 4 rows, Z with 3 rows, sigma={sigma:g})")
        try:
            arr = np.asarray(K, dtype=float)
        except (TypeError, ValueError):
            raise AssertionError(f"rbf_gram should return an array of numbers, got {type(K).__name__}") from None
        if same(arr, d["K"][i], rtol=0, atol=1e-10):
            continue
        mistakes = {hint: d["mistakes"][i][key] for key, hint in KERNEL_HINTS.items()}
        named = name_mistake(arr, mistakes, rtol=1e-7, atol=1e-12)
        if named:
            problems.append(named + f" (seen with sigma={sigma:g})")
        else:
            problems.append(problem(check_close, arr, d["K"][i],
                                    f"rbf_gram(X={fmt(X)}, Z={fmt(Z)}, sigma={sigma:g})", rtol=0, atol=1e-10,
                                    hint="K[i, j] = exp(-‖X[i] − Z[j]‖² / (2σ²))"))
        break
    if not problems:
        s = P["gram_diag_sigma"]
        K = answers[2].get()
        check_shape(K, (4, 4), f"rbf_gram(X, X, {s:g}) for X with 4 rows")
        diag = np.diag(np.asarray(K, dtype=float))
        if not np.allclose(diag, 1.0, rtol=0, atol=1e-10):
            problems.append(f"rbf_gram(X, X, {s:g}) has diagonal {fmt(diag)}: every point is at distance 0 "
                            "from itself, so k(x, x) = 1")
    fail("rbf_gram", problems)


def _judge_gram_shape(answers):
    __tracebackhide__ = True
    P, problems = PROBES, []
    shapes = P["gram_shapes"]
    for a, (X, Z) in zip(answers[:len(shapes)], shapes, strict=True):
        check_shape(a.get(), (len(X), len(Z)), f"rbf_gram for X of shape {X.shape} and Z of shape {Z.shape}")
        if a.mutated:
            problems.append("rbf_gram changed the arrays passed in: leave X and Z as they are")
            break
    for a, (_, why) in zip(answers[len(shapes):], P["gram_errors"], strict=True):
        problems.append(problem(expect_raises, a, "ValueError", why))
    fail("rbf_gram", problems)


def _judge_gram_big(answers):
    __tracebackhide__ = True
    n = len(PROBES["gram_big"][0])
    check_shape(answers[0].get(), (n, n), f"rbf_gram for {n} x {n} points")


def diagnose_rbf_gram(rbf_gram, aspect="all"):
    """Probe ``rbf_gram(X, Z, sigma) -> K`` and name the mistake.

    Aspects: ``"values"`` (K[i, j] = exp(-‖X[i] − Z[j]‖² / (2σ²)) on a 4 × 3 probe for
    two bandwidths, ones on the diagonal of K(X, X); named mistakes: σ instead of σ²,
    the missing factor 2, γ instead of σ, the distance instead of its square, the
    sign), ``"shape"`` (shape (n, m) for rectangular, one-row and one-feature inputs,
    the inputs left unchanged, a ``ValueError`` for different numbers of columns and
    for σ <= 0) and ``"loop_free"`` (no ``for``, ``while`` or comprehension in the
    function's source — read, not timed — and a result of shape (300, 300) for
    300 × 300 points).

    Raises
    ------
    AssertionError
        Listing every problem found.
    """
    __tracebackhide__ = True
    if aspect in ("all", "loop_free"):
        check_loop_free(rbf_gram, "rbf_gram")
    run(rbf_gram_tests(aspect), rbf_gram=rbf_gram)


# --------------------------------------------------------------- rbf_predict
def unpack_predict(answer):
    """``(score, label)`` from an answer of ``rbf_predict``, with clear failures."""
    __tracebackhide__ = True
    score, label = unpack(answer.get(), "rbf_predict", ("score", "label"))
    if np.ndim(score) != 0:
        raise AssertionError(f"the score returned by rbf_predict should be one number, got shape "
                             f"{np.shape(score)} (sum the weighted kernel values)")
    if np.ndim(label) != 0:
        raise AssertionError(f"the label returned by rbf_predict should be one number, got shape "
                             f"{np.shape(label)}")
    try:
        return float(score), label
    except (TypeError, ValueError):
        raise AssertionError(f"the score should be a number, got {type(score).__name__}") from None


def rbf_predict_tests(aspect="all"):
    """Tests of ``rbf_predict(X, y, alpha, query, sigma)``: ``"score"``, ``"label"``."""
    X, y, alpha, q, s = PROBES["predict"]
    tests = []
    if aspect in ("all", "score"):
        tests.append(Test([Call("rbf_predict", X, y, alpha, q, s)], _judge_predict_score))
    if aspect in ("all", "label"):
        calls = [Call("rbf_predict", X, y, alpha, q, s), Call("rbf_predict", X, -y, alpha, q, s),
                 Call("rbf_predict", *PROBES["predict_zero"])]
        calls += [Call("rbf_predict", *args) for args, _ in _predict_errors()]
        tests.append(Test(calls, _judge_predict_label))
    return tests


def _predict_errors():
    X, y, alpha, q, s = PROBES["predict"]
    return [((X, y[:4], alpha, q, s), "y has 4 labels for 5 points"),
            ((X, y, alpha[:3], q, s), "alpha has 3 counts for 5 points"),
            ((X, y, alpha, q[:2], s), "query has 2 coordinates but the points have 3")]


def _judge_predict_score(answers):
    __tracebackhide__ = True
    X, y, alpha, q, s = PROBES["predict"]
    d = _data()["predict"]
    score, _ = unpack_predict(answers[0])
    if np.isclose(score, d["score"], rtol=1e-9, atol=1e-12):
        return
    named = [h for k, h in _WEIGHT_HINTS.items() if np.isclose(score, d["weights"][k], rtol=1e-9, atol=1e-12)]
    named += [h for k, h in KERNEL_HINTS.items() if np.isclose(score, d["kernel"][k], rtol=1e-9, atol=1e-12)]
    fail("rbf_predict", [named[0] if named else
                         f"rbf_predict(X={fmt(X)}, y={fmt(y)}, alpha={fmt(alpha)}, query={fmt(q)}, sigma={s:g}) "
                         f"gave the score {fmt(score)}: not Σ αᵢ yᵢ exp(-‖xᵢ − q‖² / (2σ²))"])


def _judge_predict_label(answers):
    __tracebackhide__ = True
    problems = []
    checked = [unpack_predict(a) for a in answers[:2]]
    score0, label0 = unpack_predict(answers[2])
    for score, label in checked:
        if isinstance(label, (bool, np.bool_)):
            problems.append("the label is True/False; return the number +1 or -1")
            break
        if label not in (-1, 1):
            problems.append(f"the label should be +1 or -1, got {fmt(label)}")
            break
        if score != 0 and label != (1 if score > 0 else -1):
            problems.append(f"for the score {fmt(score)} you returned the label {fmt(label)}: "
                            "a positive score predicts +1, any other score -1")
            break
    if not problems and score0 == 0:  # judged only when their own score is exactly 0
        if label0 == 0:
            problems.append("a score of exactly 0 gave the label 0 (np.sign(0) is 0): a score that is "
                            "not positive predicts -1")
        elif label0 == 1:
            problems.append("a score of exactly 0 gave +1: only a positive score predicts +1")
    for a, (_, why) in zip(answers[3:], _predict_errors(), strict=True):
        problems.append(problem(expect_raises, a, "ValueError", why))
    fail("rbf_predict", problems)


def diagnose_rbf_predict(rbf_predict, aspect="all"):
    """Probe ``rbf_predict(X, y, alpha, query, sigma) -> (score, label)`` and name the mistake.

    The score is Σᵢ αᵢ yᵢ exp(-‖xᵢ − q‖² / (2σ²)) (no bias, as in the MSDN article).
    Aspects: ``"score"`` (the score on a 5-point probe; named mistakes: labels or counts
    ignored, σ instead of σ², the missing factor 2, γ instead of σ, the distance instead of
    its square) and ``"label"`` (+1 for a positive score, −1 otherwise — a score of exactly
    0 included —, a ``ValueError`` when y, alpha or query do not match X).

    Raises
    ------
    AssertionError
        Listing every problem found.
    """
    __tracebackhide__ = True
    run(rbf_predict_tests(aspect), rbf_predict=rbf_predict)


# -------------------------------------------------------------- choose_sigma
def unpack_choice(answer, n_sigmas):
    """``(best_sigma, errors)`` from an answer of ``choose_sigma``; errors as floats of shape (n_sigmas,)."""
    __tracebackhide__ = True
    best, errors = unpack(answer.get(), "choose_sigma", ("best_sigma", "errors"))
    check_shape(errors, (n_sigmas,), f"the errors returned for {n_sigmas} values of sigma")
    try:
        errors = np.asarray(errors, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError("the errors should be numbers, one error rate per σ") from None
    return best, errors


def choose_sigma_tests(aspect="all"):
    """Tests of ``choose_sigma(X_train, y_train, X_val, y_val, sigmas)``: ``"errors"``, ``"choice"``."""
    main = Call("choose_sigma", *rings_probe(), PROBES["choose_sigmas"])
    tests = []
    if aspect in ("all", "errors"):
        tests.append(Test([main], _judge_choose_errors, time_limit=30.0))
    if aspect in ("all", "choice"):
        tests.append(Test([main], _judge_choose_choice, time_limit=30.0))
    return tests


def _judge_choose_errors(answers):
    __tracebackhide__ = True
    sigmas, d = PROBES["choose_sigmas"], _data()["choose"]
    _, err = unpack_choice(answers[0], len(sigmas))
    ref_val, ref_train = d["val"], d["train"]
    if np.allclose(err, ref_val, rtol=0, atol=SIGMA_TOL):
        return
    if np.any(err > 1):
        found = ("the errors should be fractions of the validation set (between 0 and 1), not counts: "
                 "divide by len(y_val)")
    elif np.allclose(err, 1 - ref_val, rtol=0, atol=SIGMA_TOL):
        found = "you returned accuracies; return error rates (the fraction of validation points misclassified)"
    elif np.allclose(err, ref_train, rtol=0, atol=SIGMA_TOL):
        found = "these are training errors: measure each model on X_val, y_val"
    else:
        i = int(np.argmax(np.abs(err - ref_val)))
        found = (f"on a probe with sigmas={fmt(np.array(sigmas))} your validation error for σ = {sigmas[i]:g} "
                 f"is {err[i]:.3f}, far from what KernelPerceptron(kernel='rbf', sigma=σ, max_epochs=10, "
                 "random_state=0) trained on X_train makes on X_val")
    fail("choose_sigma", [found])


def _judge_choose_choice(answers):
    __tracebackhide__ = True
    sigmas, d = PROBES["choose_sigmas"], _data()["choose"]
    best, _ = unpack(answers[0].get(), "choose_sigma", ("best_sigma", "errors"))
    try:
        check_sigma_choice(best, sigmas, d["val"], d["train"])
    except AssertionError as exc:
        fail("choose_sigma", [str(exc)])


def check_sigma_choice(best, sigmas, val_errors, train_errors=None, name="choose_sigma", tol=SIGMA_TOL):
    """Check that ``best`` is a σ of the grid whose reference validation error is within ``tol`` of the best.

    ``val_errors`` (and ``train_errors``) are the reference error rates of each σ (data
    the caller brings); nothing is trained here.

    Raises
    ------
    AssertionError
        Naming the mistake: an index instead of a value, a σ outside the grid, the choice by
        the training error, the largest error, or a choice that is clearly worse.
    """
    __tracebackhide__ = True
    sigmas = [float(s) for s in sigmas]
    if isinstance(best, (bool, np.bool_)) or np.ndim(best) != 0 or isinstance(best, str):
        raise AssertionError(f"{name} should return the chosen σ as one number, got {fmt(best)}")
    try:
        b = float(best)
    except (TypeError, ValueError):
        raise AssertionError(f"{name} should return the chosen σ as one number, got {fmt(best)}") from None
    if not any(np.isclose(b, s, rtol=1e-12, atol=0) for s in sigmas):
        if b.is_integer() and 0 <= b < len(sigmas):
            raise AssertionError(f"{name} returned {fmt(best)}, which looks like an index into sigmas: "
                                 "return the value σ itself (sigmas[i])")
        raise AssertionError(f"{name} returned {fmt(best)}, which is not one of sigmas={fmt(np.array(sigmas))}")
    i = int(np.argmin([abs(b - s) for s in sigmas]))
    val_errors = np.asarray(val_errors, float)
    if val_errors[i] <= val_errors.min() + tol:
        return
    if train_errors is not None and i == int(np.argmin(train_errors)):
        raise AssertionError(
            f"{name} chose σ = {sigmas[i]:g} by the training error: a narrow RBF fits every training "
            "point (training error 0) and says little about new points; choose by the validation error")
    if i == int(np.argmax(val_errors)):
        raise AssertionError(f"{name} chose σ = {sigmas[i]:g}, the largest validation error: pick the smallest")
    raise AssertionError(
        f"{name} chose σ = {sigmas[i]:g}, whose validation error is {val_errors[i]:.3f}; another σ of the grid "
        "does clearly better: pick the σ with the smallest validation error")


def diagnose_choose_sigma(choose_sigma, aspect="all"):
    """Probe ``choose_sigma(X_train, y_train, X_val, y_val, sigmas) -> (best_sigma, errors)``.

    On a ring-inside-a-ring probe with σ ∈ (0.003, 0.03, 0.3, 3, 30). Aspects:
    ``"errors"`` (one validation error rate per σ, within 0.05 of those of
    ``KernelPerceptron(kernel="rbf", sigma=σ, max_epochs=10, random_state=0)``, stored as
    data; named mistakes: counts, accuracies, training errors) and ``"choice"`` (the σ
    returned has a validation error within 0.05 of the best of the grid; named mistakes:
    an index, the choice by the training error, the largest error).

    Raises
    ------
    AssertionError
        Listing every problem found.
    """
    __tracebackhide__ = True
    run(choose_sigma_tests(aspect), choose_sigma=choose_sigma)
