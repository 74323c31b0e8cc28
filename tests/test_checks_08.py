"""Lesson 08's checks: every diagnosis names a purposely wrong function and passes a right one.

The right functions are the model solutions of assignment 08, executed from the source
notebook's solution cells (with its setup cell, which defines ``validation_error``); each
wrong one makes a single common mistake. Messages must name the mistake and never contain
the expected numbers. The checks hold data (``kpcourse/checks/data/lesson08.json``): it must
equal what the grader's references compute, and the grader's cells must pass the solution
and fail the mistakes. The timestamp trick equals explicit averaging to 1e-12.
"""

from pathlib import Path

import nbformat
import numpy as np
import pytest

from kpcourse.checks import _core
from kpcourse.checks import lesson08 as checks
from kpcourse.grading.judge import policy
from kpcourse.grading.judge.spec import Cell
from kpcourse.grading.judge.testdata import random_separable
from kpcourse.grading.judge.trusted import load_grader

ROOT = Path(__file__).resolve().parents[1]
NAME = "08-margins-and-svm"
GRADER = load_grader(ROOT / "source" / NAME / "grader.py")
SOURCE = nbformat.read(ROOT / "source" / NAME / f"{NAME}.ipynb", as_version=4)
FUNCTIONS = ("averaged_dual_train", "geometric_margin", "margin_dual_train", "choose_sigma")


def _nbg(cell):
    return cell.metadata.get("nbgrader", {})


def _source(gid):
    return next(c.source for c in SOURCE.cells if _nbg(c).get("grade_id") == gid)


def _solutions():
    """The setup cell and the source's solution functions, executed as a student's cells would be."""
    namespace = {}
    exec(compile(_source("setup"), "setup", "exec"), namespace)  # noqa: S102
    for cell in SOURCE.cells:
        if cell.cell_type == "code" and _nbg(cell).get("solution"):
            exec(compile(cell.source, _nbg(cell)["grade_id"], "exec"), namespace)  # noqa: S102
    return namespace


NAMESPACE = _solutions()
SOLUTION = {k: NAMESPACE[k] for k in FUNCTIONS}
averaged_dual_train, geometric_margin, margin_dual_train, choose_sigma = (SOLUTION[k] for k in FUNCTIONS)
validation_error = NAMESPACE["validation_error"]


CELLS = {
    "averaged": {"alpha": "ex1-averaged-tests-alpha", "bias": "ex1-averaged-tests-bias",
                 "stop": "ex1-averaged-tests-stop"},
    "margin": {"value": "ex2-margin-tests", "details": "ex2-margin-tests-details"},
    "margin_train": {"rule": "ex3-margin-perceptron-tests", "stop": "ex3-margin-perceptron-tests-stop"},
    "cv": {"scores": "ex4-choose-sigma-tests", "choice": "ex4-choose-sigma-tests-choice"},
}


def _diagnose(kind):
    """The visible tests of one exercise's cells (``aspect`` picks one), as the notebook runs them."""
    def diagnose(function, aspect="all"):
        __tracebackhide__ = True
        for name, gid in CELLS[kind].items():
            if aspect in ("all", name):
                checks.test(gid, function)
    return diagnose


diagnose_averaged, diagnose_margin, diagnose_margin_train, diagnose_cv = map(_diagnose, CELLS)


# --------------------------------------------------------------------------- #
# Data and references
# --------------------------------------------------------------------------- #

def _noisy(seed, n=60):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1, -1)
    return X, y


def timestamp_average(K, y, max_epochs):
    """The timestamp trick itself, ᾱ = (α(T+1) − τ)/T (checked against the explicit average)."""
    y = np.asarray(y, dtype=float)
    alphas, biases, _, mistakes = GRADER._log(K, y, max_epochs)
    T, n = alphas.shape
    tau, tau_b = np.zeros(n), 0.0
    for t, i in mistakes:
        tau[i] += t
        tau_b += t * y[i]
    return (alphas[-1] * (T + 1) - tau) / T, float((biases[-1] * (T + 1) - tau_b) / T)


def primal_margin_run(X, y, tau, max_epochs):
    """The same algorithm written in the primal (w, b), for linear kernels: a separate check."""
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    w, b = np.zeros(X.shape[1]), 0.0
    for _ in range(max_epochs):
        clean = True
        for i in range(len(y)):
            if y[i] * (X[i] @ w + b) <= tau:
                w = w + y[i] * X[i]
                b = b + y[i]
                clean = False
        if clean:
            break
    return w, b


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_timestamp_trick_equals_explicit_averaging(seed, kernel):
    """The solution's ᾱ = (α(T+1) − τ)/T against the grader's brute-force running sums, to 1e-12."""
    X, y = _noisy(seed)
    K = X @ X.T if kernel == "linear" else GRADER._shared.rbf(X, X, 1.0)
    alpha_avg, b_avg = averaged_dual_train(K, y, max_epochs=6)
    ref_alpha, ref_b = GRADER.averaged_run(K, y, 6)
    assert ref_alpha.max() > 0
    np.testing.assert_allclose(alpha_avg, ref_alpha, rtol=0, atol=1e-12)
    assert abs(b_avg - ref_b) <= 1e-12
    trick = timestamp_average(K, y, 6)
    np.testing.assert_allclose(trick[0], ref_alpha, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", [3, 4])
def test_averaged_reference_is_the_package_averaged_perceptron(seed):
    from kpcourse.perceptron import KernelPerceptron

    X, y = _noisy(seed, 40)
    K = X @ X.T
    kp = KernelPerceptron(kernel="precomputed", mode="averaged", shuffle=False, max_epochs=5, device="cpu").fit(K, y)
    alpha_avg, b_avg = GRADER.averaged_run(K, y, 5)
    np.testing.assert_allclose(alpha_avg, kp.alpha_avg_, rtol=0, atol=1e-12)
    assert abs(b_avg - kp.intercept_avg_) <= 1e-12


@pytest.mark.parametrize("seed,tau", [(5, 0.0), (6, 1.5)])
def test_dual_margin_perceptron_is_the_primal_one(seed, tau):
    X, y = random_separable(30, 2, margin=0.1, random_state=seed)
    alpha, b = GRADER.margin_run(X @ X.T, y, tau, 100)
    w, b_primal = primal_margin_run(X, y, tau, 100)
    np.testing.assert_allclose((alpha * y) @ X, w)
    assert b == pytest.approx(b_primal)


def test_notebook_model_is_the_graders():
    X, y = checks.cv_probe()
    for s in (0.3, 1.0):
        assert validation_error(X[:30], y[:30], X[30:], y[30:], s) == GRADER.validation_error(X[:30], y[:30], X[30:],
                                                                                                y[30:], s)
    # the row order of the fitting data does not matter
    order = np.random.default_rng(0).permutation(30)
    assert validation_error(X[order], y[order], X[30:], y[30:], 0.3) == validation_error(X[:30], y[:30], X[30:],
                                                                                         y[30:], 0.3)


# --------------------------------------------------------------------------- #
# Wrong functions: one common mistake each
# --------------------------------------------------------------------------- #

def make_averaged(variant, *, raises=True):
    def wrong(K, y, max_epochs=10):
        K = np.asarray(K, dtype=float)
        if raises and K.shape != (len(y), len(y)):
            raise ValueError("K must be square")
        return GRADER.averaged_run(K, y, max_epochs, variant)
    return wrong


def make_margin(variant, *, raises=True):
    def wrong(w, b, X, y):
        if raises and not np.any(w):
            raise ValueError("w = 0")
        return GRADER.signed_margin(w, b, X, y, variant)
    return wrong


def make_margin_train(*, raises=True, **flags):
    def wrong(K, y, tau, max_epochs=100):
        if raises and tau < 0:
            raise ValueError("tau < 0")
        return GRADER.margin_run(K, y, tau, max_epochs, **flags)
    return wrong


def make_cv(variant="right", *, choice="right", accuracy=False):
    def wrong(X_train, y_train, sigmas, n_folds=5, seed=0):
        scores = GRADER.cv_scores(X_train, y_train, sigmas, n_folds, seed, variant)
        scores = 1 - scores if accuracy else scores
        return GRADER.best_of(sigmas, scores, choice), scores
    return wrong


def test_diagnoses_pass_the_solution():
    for aspect in ("all", "alpha", "bias", "stop"):
        diagnose_averaged(averaged_dual_train, aspect=aspect)
    for aspect in ("all", "value", "details"):
        diagnose_margin(geometric_margin, aspect=aspect)
    for aspect in ("all", "rule", "stop"):
        diagnose_margin_train(margin_dual_train, aspect=aspect)
    for aspect in ("scores", "choice"):
        diagnose_cv(choose_sigma, aspect=aspect)


AVERAGED_MISTAKES = [
    ("epochs", "alpha", "you averaged over the epochs"),
    ("no_plus_one", "alpha", "not (α·T − τ)/T"),
    ("zero_based", "alpha", "number the steps from 1"),
    ("over_t1", "alpha", "not by T + 1"),
    ("mistake_clock", "alpha", "not only at mistakes"),
    ("last", "alpha", "alpha_avg equals the final counts"),
    ("bias_last", "bias", "b_avg is the final b"),
    ("epochs", "bias", "you averaged over the epochs"),
    ("no_clean", "stop", "your T leaves out the last, clean epoch"),
]


@pytest.mark.parametrize("variant,aspect,expected", AVERAGED_MISTAKES)
def test_diagnose_averaged_names_mistakes(variant, aspect, expected, message):
    assert expected in message(diagnose_averaged, make_averaged(variant), aspect=aspect)


def test_diagnose_averaged_other_mistakes(message):
    assert "should raise ValueError" in message(diagnose_averaged, make_averaged("explicit", raises=False),
                                                 aspect="alpha")
    assert "should return a tuple (alpha_avg, b_avg)" in message(diagnose_averaged,
                                                                  lambda K, y, e=10: np.zeros(len(y)))

    def ignores_max_epochs(K, y, max_epochs=10):
        return averaged_dual_train(K, y, 10)

    assert "with max_epochs=1" in message(diagnose_averaged, ignores_max_epochs, aspect="stop")


MARGIN_MISTAKES = [
    ("functional", "value", "functional margin"),
    ("squared", "value", "not by ‖w‖²"),
    ("norm_b", "value", "the norm of w alone"),
    ("no_b", "value", "the bias is missing"),
    ("mean", "value", "not their mean"),
    ("max", "value", "not the largest"),
    ("abs", "details", "the margin is signed"),
]


@pytest.mark.parametrize("variant,aspect,expected", MARGIN_MISTAKES)
def test_diagnose_margin_names_mistakes(variant, aspect, expected, message):
    assert expected in message(diagnose_margin, make_margin(variant), aspect=aspect)


def test_diagnose_margin_other_mistakes(message):
    assert "should raise ValueError" in message(diagnose_margin, make_margin("right", raises=False),
                                                 aspect="details")
    assert "one number" in message(diagnose_margin, lambda w, b, X, y: np.asarray(y) * (X @ w + b),
                                    aspect="value")

    def looped(w, b, X, y):
        if not np.any(w):
            raise ValueError("w = 0")
        return min(yi * (xi @ w + b) for xi, yi in zip(X, y, strict=True)) / np.linalg.norm(w)

    diagnose_margin(looped, aspect="value")
    assert "uses a Python loop" in message(diagnose_margin, looped, aspect="details")


MP_MISTAKES = [
    ({"strict": True}, "rule", "equality included"),
    ({"no_y": True}, "rule", "the score times the label"),
    ({"ignore_tau": True}, "rule", "your updates happen only on mistakes"),
    ({"stop": "mistakes"}, "stop", "stop after the first epoch without an update"),
    ({"raises": False}, "rule", "should raise ValueError"),
]


@pytest.mark.parametrize("flags,aspect,expected", MP_MISTAKES)
def test_diagnose_margin_train_names_mistakes(flags, aspect, expected, message):
    assert expected in message(diagnose_margin_train, make_margin_train(**flags), aspect=aspect)


CV_MISTAKES = [
    (make_cv("whole"), "scores", "you measured each model on the points it was fitted on"),
    (make_cv("fit_all"), "scores", "fit on the other n_folds − 1 folds"),
    (make_cv("no_shuffle"), "scores", "your folds follow the order of the rows"),
    (make_cv("one_fold"), "scores", "you used a single fold"),
    (make_cv("weighted"), "scores", "you weighted the fold errors"),
    (make_cv(accuracy=True), "scores", "you returned accuracies"),
    (make_cv(choice="argmax"), "choice", "the largest cross-validation error"),
    (make_cv(choice="last_tie"), "choice", "on a tie, return the first"),
]


@pytest.mark.parametrize("wrong,aspect,expected", CV_MISTAKES)
def test_diagnose_cv_names_mistakes(wrong, aspect, expected, message):
    assert expected in message(diagnose_cv, wrong, aspect=aspect)


def test_diagnose_cv_other_mistakes(message):
    def global_rng(X_train, y_train, sigmas, n_folds=5, seed=0):
        return choose_sigma(X_train, y_train, sigmas, n_folds, int(np.random.default_rng().integers(1000)))

    assert "never from the global np.random" in message(diagnose_cv, global_rng, aspect="scores")

    def index(X_train, y_train, sigmas, n_folds=5, seed=0):
        best, scores = choose_sigma(X_train, y_train, sigmas, n_folds, seed)
        return list(sigmas).index(best), scores

    assert "the index of the best σ" in message(diagnose_cv, index, aspect="choice")


def test_messages_hide_the_expected_values(message):
    scores = checks.LESSON.data["ex4-choose-sigma-tests"]["expected"][1][1]
    msg = message(diagnose_averaged, make_averaged("epochs"), aspect="alpha")
    assert "2.25" not in msg and "0.8333" not in msg, msg
    msg = message(diagnose_margin, make_margin("functional"), aspect="value")
    assert "0.4" not in msg, msg
    msg = message(diagnose_cv, make_cv("whole"), aspect="scores")
    assert _core.fmt(scores) not in msg and "0.284" not in msg, msg


# --------------------------------------------------------------------------- #
# The grader's cells: pass the solution, fail each mistake, on answers as data
# --------------------------------------------------------------------------- #

@pytest.mark.parametrize("gid,fname,wrong,expected", [
    ("ex1-averaged-tests-alpha", "averaged_dual_train", make_averaged("no_plus_one"), "off by one"),
    ("ex1-averaged-tests-bias", "averaged_dual_train", make_averaged("bias_last"), "b_avg is the final b"),
    ("ex1-averaged-tests-stop", "averaged_dual_train", make_averaged("no_clean"), "clean epoch"),
    ("ex2-margin-tests", "geometric_margin", make_margin("functional"), "functional margin"),
    ("ex2-margin-tests-details", "geometric_margin", make_margin("abs"), "the margin is signed"),
    ("ex3-margin-perceptron-tests", "margin_dual_train", make_margin_train(strict=True), "equality included"),
    ("ex3-margin-perceptron-tests-stop", "margin_dual_train", make_margin_train(stop="mistakes"),
     "without an update"),
    ("ex4-choose-sigma-tests", "choose_sigma", make_cv("whole"), "points it was fitted on"),
    ("ex4-choose-sigma-tests-choice", "choose_sigma", make_cv(choice="last_tie"), "on a tie"),
])
def test_cells_fail_common_mistakes_with_their_hint(gid, fname, wrong, expected, message):
    functions = dict(SOLUTION, **{fname: wrong})
    assert expected in message(Cell.judge_here, GRADER.cells()[gid], functions)


def test_hidden_tests_catch_what_the_visible_ones_miss(message):
    """Hard-coded answers for the visible probes pass them, and fail the hidden tests on new data."""
    def probe_only(K, y, max_epochs=10):  # the explicit average of the first epoch only, wrong elsewhere
        K = np.asarray(K, dtype=float)
        if K.shape != (len(y), len(y)):
            raise ValueError("K must be square")
        out = averaged_dual_train(K, y, max_epochs)
        return (out[0], out[1]) if len(y) in (5, 6) else (out[0] + 0.5, out[1])

    cell = GRADER.cells()["ex1-averaged-tests-alpha"]
    functions = dict(SOLUTION, averaged_dual_train=probe_only)
    for test in cell.tests[:-1]:
        test.judge(test.answers(functions))
    msg = message(Cell.judge_here, cell, functions)
    assert "compared with explicit averaging" in msg, msg

    def ignores_folds_argument(X_train, y_train, sigmas, n_folds=5, seed=0):  # 4 folds when asked for 5
        return choose_sigma(X_train, y_train, sigmas, 4 if n_folds == 5 else n_folds, seed)

    cell = GRADER.cells()["ex4-choose-sigma-tests"]
    functions = dict(SOLUTION, choose_sigma=ignores_folds_argument)
    for test in cell.tests[:-1]:
        test.judge(test.answers(functions))
    assert "compared with the exercise's folds" in message(Cell.judge_here, cell, functions)


# --------------------------------------------------------------------------- #
# The source policy: the notebook's own model may be called (golden reference calls: tests/test_lessons.py)
# --------------------------------------------------------------------------- #

def test_calling_the_notebooks_model_is_allowed():
    """Exercise 4 may call validation_error (setup cell) and the package's KernelPerceptron, not sklearn."""
    release = nbformat.read(ROOT / "release" / NAME / f"{NAME}.ipynb", as_version=4)
    context = [c.source for c in release.cells if c.cell_type == "code" and _nbg(c).get("locked")
               and not _nbg(c).get("grade")]
    cell = GRADER.cells()["ex4-choose-sigma-tests"]
    own = ('def choose_sigma(X_train, y_train, sigmas, n_folds=5, seed=0):\n'
           '    m = KernelPerceptron(kernel="rbf", sigma=sigmas[0]).fit(X_train, y_train)\n'
           '    return sigmas[0], np.array([validation_error(X_train, y_train, X_train, y_train, s)\n'
           '                                for s in sigmas])\n')
    assert policy.Program([own], context).verdict(cell.called(), GRADER.FORBIDDEN, cell.allow, cell.what) == []
    cross = "from sklearn.model_selection import cross_val_score\n\n\n" + own.replace(
        "    return", "    cross_val_score(m, X_train, y_train)\n    return")
    assert policy.Program([cross], context).verdict(cell.called(), GRADER.FORBIDDEN, cell.allow, cell.what)
