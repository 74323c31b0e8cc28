"""Checks of assignment 08 (averaging, margins, model selection): averaged_dual_train,
geometric_margin, margin_dual_train, choose_sigma.

Each ``diagnose_*`` runs fixed probes on the student's function and names the likely
mistake; ``*_tests(aspect)`` returns the same probes as :class:`~._core.Test` objects,
which the grader replays on the student's answers. The expected outputs and the
outputs of common mistakes (averaging over epochs, an off-by-one T, an unsigned margin,
a strict threshold, a choice made on the whole set, …) are data (``data/lesson08.json``,
written from the grader's references); no perceptron, no margin formula and no
cross-validation live here.
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
    problem,
    run,
    same,
    unpack,
)

__all__ = ["diagnose_averaged", "diagnose_margin", "diagnose_margin_train", "diagnose_cv", "averaged_tests",
           "margin_tests", "margin_train_tests", "cv_tests", "unpack_averaged", "unpack_margin",
           "unpack_margin_train", "unpack_cv", "check_choice", "cv_probe"]

# averaged_dual_train: six points, the last one labelled against its neighbours (never separable)
_XN = np.array([[1.0, 2.0], [2.0, 0.5], [-1.0, -1.0], [0.5, -2.0], [-2.0, 1.0], [1.5, 1.5]])
# five separable points: mistakes in four epochs, then a clean epoch that stops training
_XS = np.array([[-1.0, -2.0], [-1.0, 3.0], [-3.0, -1.0], [2.0, 3.0], [2.0, -3.0]])
# margin_dual_train: small integer points, so that y·f hits the threshold exactly
_XM = np.array([[-1.0, 2.0], [-2.0, 0.0], [2.0, 0.0], [-2.0, 1.0], [2.0, 2.0]])
_XT = np.array([[-1.0, -1.0], [0.0, 1.0], [-1.0, 1.0], [1.0, -1.0]])

#: The probes (inputs only).
PROBES = {
    "avg_noisy_K": _XN @ _XN.T, "avg_noisy_y": np.array([1, 1, -1, -1, -1, -1]), "avg_noisy_epochs": 4,
    "avg_separable_K": _XS @ _XS.T, "avg_separable_y": np.array([-1, 1, -1, 1, 1]), "avg_separable_epochs": 10,
    # geometric_margin: (w, b, X, y); a line that separates the points, and one that crosses one of them
    "margin_separator": (np.array([3.0, 4.0]), -2.0,
                         np.array([[2.0, 1.0], [1.0, 2.0], [0.0, 0.0], [-1.0, 0.5], [1.5, 1.5]]),
                         np.array([1, 1, -1, -1, 1])),
    "margin_crossing": (np.array([1.0, -1.0]), 0.5,
                        np.array([[2.0, 0.0], [0.0, 2.0], [1.0, 2.0], [3.0, 1.0]]), np.array([1, -1, 1, 1])),
    # margin_dual_train: (K, y, tau, max_epochs)
    "mp_rule": (_XM @ _XM.T, np.array([1, -1, 1, -1, 1]), 2.0, 20),
    "mp_stop": (_XT @ _XT.T, np.array([-1, 1, -1, 1]), 2.0, 20),
    # choose_sigma: cv_probe() (42 points), the grid, the folds and the seed
    "cv_sigmas": (0.05, 0.3, 1.0, 4.0), "cv_folds": 4, "cv_seed": 0,
    # a grid where two σ (0.3 and 0.3000001) give the same models, hence the same smallest error
    "cv_tie_sigmas": (4.0, 0.3, 1.0, 0.3000001),
}


@functools.cache
def _data():
    return load_data("lesson08")


def cv_probe():
    """The points of the cross-validation probe: 42 points, XOR-like labels, 4 of them flipped."""
    rng = np.random.default_rng(808)
    X = rng.uniform(-1.0, 1.0, size=(42, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)
    return X, np.where(np.isin(np.arange(42), [3, 11, 20, 33]), -y, y)


# -------------------------------------------------------- averaged_dual_train
#: Common mistakes of the averaging, most specific first (data/lesson08.json: what each gives).
AVERAGING_HINTS = {
    "last": "alpha_avg equals the final counts alpha: average them over the T steps, "
            "ᾱ = (α·(T + 1) − τ)/T with τ_i the sum of the steps at which sample i was a mistake",
    "epochs": "you averaged over the epochs (alpha at the end of each epoch): the average runs over every "
              "step t = 1..T, one step per visited sample, T = n × (epochs run)",
    "no_plus_one": "off by one: ᾱ = (α·(T + 1) − τ)/T, not (α·T − τ)/T — a mistake at step s counts in "
                   "α(s), α(s+1), …, α(T), that is T − s + 1 times",
    "zero_based": "off by one: number the steps from 1 (the first visit is step t = 1), not from 0",
    "over_t1": "divide by T, the number of steps, not by T + 1",
    "mistake_clock": "the clock must tick at every visit (every step), not only at mistakes: t is the step "
                     "number, T the number of steps",
}


def unpack_averaged(answer, n):
    """``(alpha_avg, b_avg)`` from an answer of ``averaged_dual_train`` for ``n`` labels, with clear failures."""
    __tracebackhide__ = True
    alpha, b = unpack(answer.get(), "averaged_dual_train", ("alpha_avg", "b_avg"))
    check_shape(alpha, (n,), "the alpha_avg returned by averaged_dual_train")
    if np.ndim(b) != 0:
        raise AssertionError(f"the b_avg returned by averaged_dual_train should be a number, got shape {np.shape(b)}")
    try:
        return np.asarray(alpha, dtype=float), float(b)
    except (TypeError, ValueError):
        raise AssertionError("alpha_avg should be an array of numbers and b_avg a number") from None


def averaged_tests(aspect="all"):
    """Tests of ``averaged_dual_train(K, y, max_epochs)``: ``"alpha"``, ``"bias"``, ``"stop"``."""
    P, tests = PROBES, []
    noisy = Call("averaged_dual_train", P["avg_noisy_K"], P["avg_noisy_y"], P["avg_noisy_epochs"])
    if aspect in ("all", "alpha"):
        tests.append(Test([noisy, Call("averaged_dual_train", np.ones((3, 4)), np.array([1, -1, 1]), 2)],
                          _judge_avg_alpha))
    if aspect in ("all", "bias"):
        tests.append(Test([noisy], _judge_avg_bias))
    if aspect in ("all", "stop"):
        K, y = P["avg_separable_K"], P["avg_separable_y"]
        tests.append(Test([Call("averaged_dual_train", K, y, P["avg_separable_epochs"]),
                           Call("averaged_dual_train", K, y, 1)], _judge_avg_stop))
    return tests


_WHERE_NOISY = "on the 6-point probe (one label against its neighbours, max_epochs=4)"


def _judge_avg_alpha(answers):
    __tracebackhide__ = True
    d, problems = _data()["averaged"]["noisy"], []
    alpha, _ = unpack_averaged(answers[0], len(PROBES["avg_noisy_y"]))
    if not same(alpha, d["alpha"], rtol=0, atol=1e-12):
        named = next((h for k, h in AVERAGING_HINTS.items() if same(alpha, d[k]["alpha"])), None)
        problems.append(named or problem(
            check_close, alpha, d["alpha"], f"alpha_avg {_WHERE_NOISY}", rtol=0, atol=1e-12,
            hint="visit the samples 0..n-1 in order, a score y_i f_i <= 0 is a mistake; ᾱ = (α·(T + 1) − τ)/T"))
    problems.append(problem(expect_raises, answers[1], "ValueError", "K has shape (3, 4) for 3 labels"))
    fail("averaged_dual_train", problems)


def _judge_avg_bias(answers):
    __tracebackhide__ = True
    d = _data()["averaged"]["noisy"]
    alpha, b = unpack_averaged(answers[0], len(PROBES["avg_noisy_y"]))
    if abs(b - d["b"]) <= 1e-12:
        return
    if np.isclose(b, d["bias_last"]["b"]) and same(alpha, d["alpha"]):
        named = ("b_avg is the final b: average the bias like alpha, b̄ = (b·(T + 1) − τ_b)/T, where τ_b adds "
                 "t·y_i at each mistake (b moves by y_i at step t)")
    else:
        named = next((h for k, h in AVERAGING_HINTS.items() if np.isclose(b, d[k]["b"])), None)
    fail("averaged_dual_train", [named or f"b_avg {_WHERE_NOISY} is not correct: you returned {fmt(b)}; the bias "
                                          "is averaged over the T steps like alpha"])


def _judge_avg_stop(answers):
    __tracebackhide__ = True
    D, problems = _data()["averaged"], []
    d, n = D["separable"], len(PROBES["avg_separable_y"])
    alpha, b = unpack_averaged(answers[0], n)
    if not same(alpha, d["alpha"], rtol=0, atol=1e-12) or abs(b - d["b"]) > 1e-12:
        if same(alpha, d["no_clean"]["alpha"]):
            problems.append("on separable data (training stops after a clean epoch) your T leaves out the last, "
                            "clean epoch: T counts every visit, that epoch's included")
        else:
            problems.append(f"on 5 separable points (max_epochs=10) you returned alpha_avg={fmt(alpha)}, "
                            f"b_avg={fmt(b)}: stop after the first epoch without a mistake; T counts every visit")
    alpha1, _ = unpack_averaged(answers[1], n)
    if not same(alpha1, D["one_epoch"], rtol=0, atol=1e-12) and not problems:
        problems.append(f"with max_epochs=1 you returned alpha_avg={fmt(alpha1)}: train for at most max_epochs "
                        "epochs, then average over the steps made")
    fail("averaged_dual_train", problems)


def diagnose_averaged(averaged_dual_train, aspect="all"):
    """Probe ``averaged_dual_train(K, y, max_epochs) -> (alpha_avg, b_avg)`` and name the mistake.

    Aspects: ``"alpha"`` (ᾱ on a probe that never converges; a ``ValueError`` for a
    non-square K), ``"bias"`` (b̄ averaged like ᾱ) and ``"stop"`` (a run that stops
    after a clean epoch, and ``max_epochs=1``).

    Raises
    ------
    AssertionError
        Listing every problem found, e.g. "you averaged over the epochs".
    """
    __tracebackhide__ = True
    run(averaged_tests(aspect), averaged_dual_train=averaged_dual_train)


# ----------------------------------------------------------- geometric_margin
MARGIN_HINTS = {
    "functional": "you returned min_i y_i (w·x_i + b), the functional margin: divide by ‖w‖ to get a distance",
    "squared": "divide by ‖w‖, not by ‖w‖²",
    "norm_b": "‖w‖ is the norm of w alone: b shifts the line, it does not enter the norm",
    "no_b": "the bias is missing: the distance of x_i to the line is y_i (w·x_i + b)/‖w‖",
    "mean": "the margin is the smallest of the distances y_i (w·x_i + b)/‖w‖ (the closest point), not their mean",
    "max": "the margin is the smallest of the distances (the closest point), not the largest",
    "abs": "the margin is signed: a point on the wrong side has y_i (w·x_i + b) < 0 and the margin is then "
           "negative; do not take abs()",
}


def unpack_margin(answer):
    """The margin returned by ``geometric_margin`` as a float, with clear failures."""
    __tracebackhide__ = True
    value = answer.get()
    if np.ndim(value) != 0 or isinstance(value, (str, bool, np.bool_)):
        raise AssertionError(f"geometric_margin should return one number, got {fmt(value)}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise AssertionError(f"geometric_margin should return one number, got {fmt(value)}") from None


def margin_tests(aspect="all"):
    """Tests of ``geometric_margin(w, b, X, y)``: ``"value"``, ``"details"``."""
    tests = []
    if aspect in ("all", "value"):
        tests.append(Test([Call("geometric_margin", *PROBES["margin_separator"])], _judge_margin_value))
    if aspect in ("all", "details"):
        w, b, X, y = PROBES["margin_crossing"]
        tests.append(Test([Call("geometric_margin", w, b, X, y),
                           Call("geometric_margin", np.zeros(2), 1.0, X, y)], _judge_margin_details))
    return tests


def _margin_problem(got, d, where, keys):
    named = next((MARGIN_HINTS[k] for k in keys if np.isclose(got, d[k])), None)
    return named or f"{where} you returned {fmt(got)}: the margin is min_i y_i (w·x_i + b)/‖w‖"


def _judge_margin_value(answers):
    __tracebackhide__ = True
    d = _data()["margin"]["separator"]
    got = unpack_margin(answers[0])
    if not np.isclose(got, d["right"], rtol=1e-9, atol=1e-12):
        w, b, X, y = PROBES["margin_separator"]
        where = f"for w={fmt(w)}, b={fmt(b)} and 5 points all on their side,"
        fail("geometric_margin", [_margin_problem(got, d, where, ("functional", "squared", "norm_b", "no_b",
                                                                    "mean", "max"))])


def _judge_margin_details(answers):
    __tracebackhide__ = True
    d, problems = _data()["margin"]["crossing"], []
    got = unpack_margin(answers[0])
    if not np.isclose(got, d["right"], rtol=1e-9, atol=1e-12):
        where = "for a line that puts one of 4 points on the wrong side"
        problems.append(_margin_problem(got, d, where + ",", ("abs", "functional", "squared", "norm_b", "no_b",
                                                              "mean", "max")))
    problems.append(problem(expect_raises, answers[1], "ValueError", "w is all zeros: no line, no distance"))
    fail("geometric_margin", problems)


def diagnose_margin(geometric_margin, aspect="all"):
    """Probe ``geometric_margin(w, b, X, y) -> float`` and name the mistake.

    Aspects: ``"value"`` (a separator of 5 points: ‖w‖, the bias, the minimum) and
    ``"details"`` (a line that misclassifies a point: the margin is signed; a
    ``ValueError`` for w = 0; whole-array code, no Python loop).
    """
    __tracebackhide__ = True
    if aspect in ("all", "details"):
        check_loop_free(geometric_margin, "geometric_margin")
    run(margin_tests(aspect), geometric_margin=geometric_margin)


# ---------------------------------------------------------- margin_dual_train
def unpack_margin_train(answer, n):
    """``(alpha, b)`` from an answer of ``margin_dual_train`` for ``n`` labels, with clear failures."""
    __tracebackhide__ = True
    alpha, b = unpack(answer.get(), "margin_dual_train", ("alpha", "b"))
    check_shape(alpha, (n,), "the alpha returned by margin_dual_train")
    if np.ndim(b) != 0:
        raise AssertionError(f"the b returned by margin_dual_train should be a number, got shape {np.shape(b)}")
    try:
        return np.asarray(alpha, dtype=float), float(b)
    except (TypeError, ValueError):
        raise AssertionError("alpha should be an array of numbers (update counts) and b a number") from None


def margin_train_tests(aspect="all"):
    """Tests of ``margin_dual_train(K, y, tau, max_epochs)``: ``"rule"``, ``"stop"``."""
    tests = []
    if aspect in ("all", "rule"):
        K, y, tau, E = PROBES["mp_rule"]
        tests.append(Test([Call("margin_dual_train", K, y, tau, E), Call("margin_dual_train", K, y, 0.0, E),
                           Call("margin_dual_train", K, y, -1.0, E)], _judge_mp_rule))
    if aspect in ("all", "stop"):
        tests.append(Test([Call("margin_dual_train", *PROBES["mp_stop"])], _judge_mp_stop))
    return tests


MP_HINTS = {
    "strict": "update when y_i f_i <= tau, equality included: your rule y_i f_i < tau skips a sample whose "
              "score is exactly at the threshold",
    "no_y": "the condition is on y_i f_i, the score times the label: a sample labelled -1 with a very "
            "negative score is confidently right",
    "ignore_tau": "your updates happen only on mistakes (y_i f_i <= 0): the margin perceptron also updates "
                  "when the score is right but not by more than tau",
}


def _pair(d):
    return np.append(d["alpha"], d["b"])


def _judge_mp_rule(answers):
    __tracebackhide__ = True
    d, problems = _data()["margin_perceptron"], []
    K, y, tau, E = PROBES["mp_rule"]
    alpha, b = unpack_margin_train(answers[0], len(y))
    got = np.append(alpha, b)
    if not same(got, _pair(d["rule"])):
        named = next((h for k, h in MP_HINTS.items() if same(got, _pair(d["rule"][k]))), None)
        problems.append(named or f"with tau={fmt(tau)} on a 5-point probe you returned alpha={fmt(alpha)}, "
                                 f"b={fmt(b)}: on each visit, update (alpha[i] += 1, b += y_i) when y_i f_i <= tau, "
                                 "with f_i = Σ_j alpha_j y_j K[j, i] + b")
    alpha0, b0 = unpack_margin_train(answers[1], len(y))
    if not problems and not same(np.append(alpha0, b0), _pair(d["tau0"])):
        problems.append("with tau=0 your function should train the plain perceptron: a score of exactly 0 "
                        "(y_i f_i = 0 <= 0, as at the first visit) is an update" if np.all(alpha0 == 0) else
                        f"with tau=0 you returned alpha={fmt(alpha0)}: tau=0 is the plain perceptron")
    problems.append(problem(expect_raises, answers[2], "ValueError", "tau is negative (-1)"))
    fail("margin_dual_train", problems)


def _judge_mp_stop(answers):
    __tracebackhide__ = True
    d = _data()["margin_perceptron"]["stop"]
    K, y, tau, E = PROBES["mp_stop"]
    alpha, b = unpack_margin_train(answers[0], len(y))
    got = np.append(alpha, b)
    if same(got, _pair(d)):
        return
    if same(got, _pair(d["stop_mistakes"])):
        msg = ("you stopped after an epoch without a mistake, but that epoch still made updates: stop after the "
               "first epoch without an update (every y_i f_i > tau), or after max_epochs")
    else:
        msg = (f"on 4 points with tau={fmt(tau)} you returned alpha={fmt(alpha)}, b={fmt(b)}: stop after the first "
               "epoch without an update, or after max_epochs")
    fail("margin_dual_train", [msg])


def diagnose_margin_train(margin_dual_train, aspect="all"):
    """Probe ``margin_dual_train(K, y, tau, max_epochs) -> (alpha, b)`` and name the mistake.

    Aspects: ``"rule"`` (update when y·f <= tau, equality included; tau = 0 is the plain
    perceptron; a ``ValueError`` for a negative tau) and ``"stop"`` (stop after an epoch
    without an update).
    """
    __tracebackhide__ = True
    run(margin_train_tests(aspect), margin_dual_train=margin_dual_train)


# ---------------------------------------------------------------- choose_sigma
CV_HINTS = {
    "whole": "you measured each model on the points it was fitted on (the whole training set): that is the "
             "training error, and choosing σ by it picks the narrowest kernel; fit on the other folds, "
             "measure on the held-out fold",
    "fit_all": "each fold was part of the data its model was fitted on: fit on the other n_folds − 1 folds "
               "only, then measure on the held-out fold",
    "no_shuffle": "your folds follow the order of the rows: shuffle first, "
                  "order = np.random.default_rng(seed).permutation(n), then np.array_split(order, n_folds)",
    "one_fold": "you used a single fold for validation: every one of the n_folds folds is held out once and "
                "the score of σ is the mean of the n_folds error rates",
    "weighted": "you weighted the fold errors by fold size: the score of σ is the plain mean of the n_folds "
                "error rates (np.mean)",
    "accuracy": "you returned accuracies: cv_scores holds the mean validation error rate of each σ "
                "(the fraction of misclassified points)",
}


def unpack_cv(answer, n_sigmas):
    """``(best_sigma, cv_scores)`` from an answer of ``choose_sigma``; scores as floats of shape (n_sigmas,)."""
    __tracebackhide__ = True
    best, scores = unpack(answer.get(), "choose_sigma", ("best_sigma", "cv_scores"))
    check_shape(scores, (n_sigmas,), f"the cv_scores returned for {n_sigmas} values of sigma")
    try:
        scores = np.asarray(scores, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError("cv_scores should be numbers, one error rate per σ") from None
    if np.ndim(best) != 0 or isinstance(best, (str, bool, np.bool_)):
        raise AssertionError(f"choose_sigma should return the chosen σ as one number, got {fmt(best)}")
    return best, scores


def cv_tests(aspect="all"):
    """Tests of ``choose_sigma(X_train, y_train, sigmas, n_folds, seed)``: ``"scores"``, ``"choice"``."""
    P, tests = PROBES, []
    X, y = cv_probe()
    main = Call("choose_sigma", X, y, P["cv_sigmas"], P["cv_folds"], P["cv_seed"])
    if aspect in ("all", "scores"):
        calls = [main, Call("choose_sigma", X, y, P["cv_sigmas"], P["cv_folds"], P["cv_seed"]),
                 Call("choose_sigma", X, y, P["cv_sigmas"], P["cv_folds"], P["cv_seed"] + 1),
                 Call("choose_sigma", X, y, P["cv_sigmas"], 2, P["cv_seed"])]
        tests.append(Test(calls, _judge_cv_scores, time_limit=30.0))
    if aspect in ("all", "choice"):
        calls = [main, Call("choose_sigma", X, y, P["cv_tie_sigmas"], P["cv_folds"], P["cv_seed"])]
        tests.append(Test(calls, _judge_cv_choice, time_limit=30.0))
    return tests


def _judge_cv_scores(answers):
    __tracebackhide__ = True
    d, n = _data()["cv"], len(PROBES["cv_sigmas"])
    _, scores = unpack_cv(answers[0], n)
    _, again = unpack_cv(answers[1], n)
    if not same(scores, again, rtol=0, atol=0):
        fail("choose_sigma", ["two calls with the same seed gave different cv_scores: draw the folds from "
                              "np.random.default_rng(seed), never from the global np.random"])
    if not same(scores, d["scores"], rtol=0, atol=1e-9):
        mistakes = {k: (1 - d["scores"] if k == "accuracy" else d[k]) for k in CV_HINTS}
        named = next((CV_HINTS[k] for k, v in mistakes.items() if same(scores, v, rtol=0, atol=1e-9)), None)
        fail("choose_sigma", [named or f"on the 42-point probe (sigmas={fmt(np.array(PROBES['cv_sigmas']))}, 4 folds, "
                                       f"seed 0) you returned cv_scores={fmt(scores)}: shuffle with "
                                       "default_rng(seed).permutation(n), split with np.array_split, fit "
                                       "validation_error on the other folds, measure on each fold, take the mean"])
    problems = []
    _, s1 = unpack_cv(answers[2], n)
    if not same(s1, d["seed1"], rtol=0, atol=1e-9):
        problems.append("with seed=1 your cv_scores are not those of the folds of default_rng(1): use the seed "
                        "argument for the permutation")
    _, s2 = unpack_cv(answers[3], n)
    if not same(s2, d["two_folds"], rtol=0, atol=1e-9):
        problems.append("with n_folds=2 your cv_scores are wrong: split into n_folds folds (the argument)")
    fail("choose_sigma", problems)


def check_choice(best, sigmas, scores, where="choose_sigma"):
    """Check that ``best`` is the first σ of ``sigmas`` with the smallest of the returned ``scores``.

    The choice is judged against the scores the student's function returned (the scores
    themselves are the other test cell's business).

    Raises
    ------
    AssertionError
        Naming the mistake: an index instead of a value, a σ outside the grid, the largest
        error, the last of tied σ, or another σ.
    """
    __tracebackhide__ = True
    grid, scores = np.array(sigmas, dtype=float), np.asarray(scores, dtype=float)
    b = float(best)
    at = np.flatnonzero(np.isclose(grid, b, rtol=1e-12, atol=0))
    low = scores.min() + 1e-12
    first = int(np.flatnonzero(scores <= low)[0])
    if isinstance(best, (int, np.integer)) and b == first and grid[first] != b:
        fail("choose_sigma", [f"{where} returned {fmt(best)}, the index of the best σ: return the value sigmas[i]"])
    if len(at) == 0:
        if b.is_integer() and 0 <= b < len(grid):
            msg = f"{where} returned {fmt(best)}, which looks like an index: return the value sigmas[i]"
        else:
            msg = f"{where} returned {fmt(best)}, which is not one of sigmas={fmt(grid)}"
        fail("choose_sigma", [msg])
    if at[0] == first:
        return
    if scores[at[0]] == scores.max() and scores.max() > scores.min():
        msg = (f"{where}: you chose the σ with the largest cross-validation error (cv_scores={fmt(scores)}): "
               "best_sigma is the σ with the smallest mean validation error")
    elif scores[at[0]] <= low:
        msg = (f"{where}: with sigmas={fmt(grid)} several σ share the smallest error: on a tie, return the first "
               "of them in the order of sigmas (np.argmin does)")
    else:
        msg = f"{where}: you chose sigma={fmt(best)}, not the σ with the smallest of your cv_scores={fmt(scores)}"
    fail("choose_sigma", [msg])


def _judge_cv_choice(answers):
    __tracebackhide__ = True
    for a, sigmas in zip(answers, (PROBES["cv_sigmas"], PROBES["cv_tie_sigmas"]), strict=True):
        best, scores = unpack_cv(a, len(sigmas))
        check_choice(best, sigmas, scores, f"choose_sigma with sigmas={fmt(np.array(sigmas))}")


def diagnose_cv(choose_sigma, aspect="all"):
    """Probe ``choose_sigma(X_train, y_train, sigmas, n_folds, seed) -> (best_sigma, cv_scores)``.

    Aspects: ``"scores"`` (the folds of ``default_rng(seed).permutation(n)``, fitted on the
    other folds and measured on each, averaged; the seed and n_folds used) and
    ``"choice"`` (the first σ with the smallest of the returned scores, as a value of the grid).
    """
    __tracebackhide__ = True
    run(cv_tests(aspect), choose_sigma=choose_sigma)
