"""Lesson 03's checks on hand-written mistakes (tests/test_exercises.py iterates the declared ones).

The right functions are the model solutions of assignment 03, executed from the source
notebook's solution cells; each wrong one makes a single common mistake. Messages must
name the mistake and never contain the expected numbers. The checks hold data
(``kpcourse/checks/data/lesson03.json``): it must equal what the grader's references
compute, and the grader's cells must pass the solution and fail the mistakes.
"""

from pathlib import Path

import nbformat
import numpy as np
import pytest

from kpcourse.checks import lesson03 as checks
from kpcourse.datasets import quiz_points, quiz_transform
from kpcourse.grading.spec import Cell
from kpcourse.grading.testdata import random_separable
from kpcourse.grading.trusted import load_grader
from kpcourse.perceptron import KernelPerceptron, Perceptron

ROOT = Path(__file__).resolve().parents[1]
NAME = "03-dual-form"
GRADER = load_grader(ROOT / "source" / NAME / "grader.py")
SOURCE = nbformat.read(ROOT / "source" / NAME / f"{NAME}.ipynb", as_version=4)


def _nbg(cell):
    return cell.metadata.get("nbgrader", {})


def _solutions():
    """The source's solution functions, executed as a student's cells would be."""
    namespace = {"np": np}
    for cell in SOURCE.cells:
        if cell.cell_type == "code" and _nbg(cell).get("solution"):
            exec(compile(cell.source, _nbg(cell)["grade_id"], "exec"), namespace)  # noqa: S102
    return {k: namespace[k] for k in ("dual_train", "dual_predict", "primal_from_dual")}


SOLUTION = _solutions()
dual_train, dual_predict, primal_from_dual = (SOLUTION[k] for k in ("dual_train", "dual_predict",
                                                                      "primal_from_dual"))


CELLS = {"dual": "ex1-dual-train-tests-", "predict": "ex2-dual-predict-tests", "primal": "ex3-primal-from-dual-tests"}
ASPECTS = {"dual": {"counts": "counts", "bias": "bias", "learning_rate": "rate"},
           "predict": {"basic": "", "details": "-details"},
           "primal": {"weights": "", "checks": "-checks", "quiz": "-quiz"}}


def diagnose(exercise, func, aspect="all"):
    """The visible tests of one aspect (a test cell) of an exercise, or of all its cells."""
    __tracebackhide__ = True
    for a in ASPECTS[exercise] if aspect == "all" else (aspect,):
        checks.test(CELLS[exercise] + ASPECTS[exercise][a], func)


def diagnose_dual(func, aspect="all"):
    diagnose("dual", func, aspect)


def diagnose_dual_predict(func, aspect="all"):
    diagnose("predict", func, aspect)


def diagnose_primal_from_dual(func, aspect="all"):
    diagnose("primal", func, aspect)


# --------------------------------------------------------------------------- #
# Data and references
# --------------------------------------------------------------------------- #

def test_the_quiz_facts():
    """The real quiz: with its own bias the dual run gives the quiz's graded weights."""
    X, y = quiz_points()
    Z = quiz_transform(X)[:, :2]
    alpha, b = GRADER.dual_perceptron(Z @ Z.T, y, 100, 1.0)
    np.testing.assert_array_equal(alpha, checks.QUIZ_ALPHA)
    assert b == checks.QUIZ_B == 2.0
    np.testing.assert_allclose((alpha * y) @ Z, [-1.26035052, -1.21318978], rtol=0, atol=1e-8)
    # the quiz's own recipe: constant-1 column, no bias, same counts
    Zc = quiz_transform(X)
    alpha_c, b_c = GRADER.dual_perceptron(Zc @ Zc.T, y, 100, 1.0, bias=False)
    np.testing.assert_array_equal(alpha_c, alpha)
    np.testing.assert_allclose((alpha_c * y) @ Zc, [-1.26035052, -1.21318978, 2.0], rtol=0, atol=1e-8)
    assert np.array_equal(checks.QUIZ[2], Z @ Z.T)


def _problems():
    for seed in (72, 73):
        X, y = random_separable(30, 2, random_state=seed)
        yield X @ X.T, y, 100
    K, y = GRADER.rbf_problem()
    yield K, y, 20
    Z, y, K = checks.QUIZ
    yield K, y, 100


@pytest.mark.parametrize("k", range(4))
def test_dual_reference_is_the_package_kernel_perceptron(k):
    K, y, E = list(_problems())[k]
    kp = KernelPerceptron(kernel="precomputed", shuffle=False, max_epochs=E, device="cpu").fit(K, y)
    alpha, b = GRADER.dual_perceptron(K, y, E, 1.0)
    np.testing.assert_array_equal(alpha, kp.alpha_)
    assert b == pytest.approx(kp.intercept_)


@pytest.mark.parametrize("seed", [0, 1])
def test_perceptron_alpha_is_the_dual_run(seed):
    X, y = random_separable(25, 3, random_state=seed)
    for lr in (0.5, 1.0):
        clf = Perceptron(learning_rate=lr).fit(X, y)
        alpha, b = GRADER.dual_perceptron(X @ X.T, y, 100, lr)
        np.testing.assert_array_equal(alpha, clf.alpha_)
        assert b == pytest.approx(clf.intercept_)
        np.testing.assert_allclose(lr * (alpha * y) @ X, clf.coef_)


# --------------------------------------------------------------------------- #
# Wrong functions: one common mistake each
# --------------------------------------------------------------------------- #

def make_dual(*, raises=True, step="one", **flags):
    def wrong(K, y, max_epochs=10, learning_rate=1.0):
        K = np.asarray(K, dtype=float)
        if raises and K.shape != (len(y), len(y)):
            raise ValueError("K must be square")
        if step == "lr":  # alpha += learning_rate
            alpha, b = GRADER.dual_perceptron(K, y, max_epochs, learning_rate, **flags)
            return alpha * learning_rate, b
        if step == "y":  # alpha += y_i
            alpha, b = GRADER.dual_perceptron(K, y, max_epochs, learning_rate, **flags)
            return alpha * y, b
        return GRADER.dual_perceptron(K, y, max_epochs, learning_rate, step=step, **flags)
    return wrong


def make_predict(*, use_y=True, use_b=True, use_lr=True, label="right", raises=True):
    def wrong(K_test_train, alpha, y, b, learning_rate=1.0):
        K = np.asarray(K_test_train, dtype=float)
        if raises and K.shape[1] != len(alpha):
            raise ValueError("K_test_train does not match alpha")
        K = K[:, :len(alpha)]  # without the check: the extra columns are silently dropped
        coef = np.asarray(alpha) * (np.asarray(y) if use_y else 1)
        s = (learning_rate if use_lr else 1.0) * (K @ coef) + (b if use_b else 0.0)
        return {"right": np.where(s > 0, 1, -1), "sign": np.sign(s), "ge": np.where(s >= 0, 1, -1),
                "scores": s, "flipped": np.where(s > 0, -1, 1)}[label]
    return wrong


def make_primal(*, use_y=True, axis=0, lr_times=1, sign=1, check=True, check_lr=True, with_b=False,
                pair=False, raises=True):
    def wrong(X, alpha, y, b, learning_rate=1.0):
        X, alpha, y = np.asarray(X, dtype=float), np.asarray(alpha, dtype=float), np.asarray(y)
        if raises and (len(X) != len(alpha) or len(y) != len(alpha)):
            raise ValueError("X, y and alpha do not match")
        if check and not np.isclose(b, (learning_rate if check_lr else 1.0) * np.sum(alpha * y)):
            raise ValueError("b does not fit alpha")
        c = sign * learning_rate ** lr_times * alpha * (y if use_y else 1)
        w = c @ X if axis == 0 else np.sum(c[:, None] * X, axis=1)
        if with_b:
            w = np.append(w, b)
        return (w, b) if pair else w
    return wrong


# --------------------------------------------------------------------------- #
# Diagnoses: lesson 03
# --------------------------------------------------------------------------- #

@pytest.mark.parametrize("diagnose,func,aspects", [
    (diagnose_dual, dual_train, ("all", "counts", "bias", "learning_rate")),
    (diagnose_dual_predict, dual_predict, ("all", "basic", "details")),
    (diagnose_primal_from_dual, primal_from_dual, ("all", "weights", "checks", "quiz")),
])
def test_diagnoses_pass_the_solution(diagnose, func, aspects):
    for aspect in aspects:
        diagnose(func, aspect=aspect)


DUAL_MISTAKES = [
    ({"zero_is_mistake": False}, "counts", "sign(0) must count as a mistake"),
    ({"step": "set"}, "counts", "not just mark them with 1"),
    ({"step": "y"}, "counts", "never negative"),
    ({"raises": False}, "counts", "should raise ValueError"),
    ({"bias": False}, "bias", "your dual training ignores the bias"),
    ({"bias_in_score": False}, "bias", "never enters the score"),
    ({"bias_lr": False}, "learning_rate", "scaled by the learning rate too"),
    ({"step": "lr"}, "learning_rate", "the learning rate was applied to the dual counts alpha"),
]


@pytest.mark.parametrize("flags,aspect,expected", DUAL_MISTAKES)
def test_diagnose_dual_names_mistakes(flags, aspect, expected, message):
    assert expected in message(diagnose_dual, make_dual(**flags), aspect=aspect)


def test_diagnose_dual_other_mistakes(message):
    assert "should return a tuple (alpha, b)" in message(diagnose_dual, lambda K, y, e, r: K[0])

    def drifting(K, y, max_epochs=10, learning_rate=1.0):  # alpha changes with the learning rate
        return dual_train(np.asarray(K) * learning_rate ** 2, y, max_epochs, learning_rate)

    assert "alpha changed with the learning rate" in message(diagnose_dual, drifting,
                                                              aspect="learning_rate")


PREDICT_MISTAKES = [
    ({"label": "sign"}, "details", "np.sign(0) is 0"),
    ({"label": "ge"}, "details", "exactly 0 gave +1"),
    ({"use_lr": False}, "details", "your prediction ignores the learning rate"),
    ({"use_y": False}, "basic", "ignores the labels y"),
    ({"use_b": False}, "basic", "ignores the bias b"),
    ({"label": "scores"}, "basic", "returned the scores"),
    ({"label": "flipped"}, "basic", "flipped"),
    ({"raises": False}, "basic", "should raise ValueError"),
]


@pytest.mark.parametrize("flags,aspect,expected", PREDICT_MISTAKES)
def test_diagnose_dual_predict_names_mistakes(flags, aspect, expected, message):
    assert expected in message(diagnose_dual_predict, make_predict(**flags), aspect=aspect)


PRIMAL_MISTAKES = [
    ({"use_y": False}, {"weights", "quiz"}, "ignores the labels y"),
    ({"axis": 1}, {"weights", "quiz"}, "one entry per training point"),
    ({"lr_times": 0, "check_lr": False}, {"weights", "checks"}, "the learning rate scales b too"),
    ({"sign": -1, "check": False}, {"weights", "quiz", "checks"}, "the sign is wrong"),
    ({"lr_times": 0}, {"weights"}, "the learning rate is not applied"),
    ({"lr_times": 2}, {"weights"}, "the learning rate is applied twice"),
    ({"with_b": True}, {"weights", "quiz"}, "b is not part of it"),
    ({"pair": True}, {"weights", "quiz"}, "returns w alone"),
    ({"check": False}, {"checks"}, "should raise ValueError when b is not"),
    ({"check_lr": False}, {"weights", "checks"}, "the learning rate scales b too"),
    ({"raises": False, "check": False}, {"checks"}, "should raise ValueError when b is not"),
]


@pytest.mark.parametrize("flags,failing,expected", PRIMAL_MISTAKES)
def test_diagnose_primal_names_mistakes_in_their_aspects_only(flags, failing, expected, message):
    wrong = make_primal(**flags)
    messages = []
    for aspect in ("weights", "checks", "quiz"):
        if aspect in failing:
            messages.append(message(diagnose_primal_from_dual, wrong, aspect=aspect))
        else:
            diagnose_primal_from_dual(wrong, aspect=aspect)
    assert any(expected in m for m in messages), messages


def test_messages_hide_the_expected_values(message):
    # Right answers: the probe's w (5, 10) and (2.5, 5); the quiz's w (-1.26035052, -1.21318978), b 2.
    for flags in ({"use_y": False}, {"lr_times": 2}, {"sign": -1, "check": False}):
        msg = message(diagnose_primal_from_dual, make_primal(**flags))
        assert "[2.5, 5" not in msg and "-1.26" not in msg and "-1.21" not in msg, msg
    for flags in ({"bias": False}, {"bias_in_score": False}):
        msg = message(diagnose_dual, make_dual(**flags), aspect="bias")
        assert "b=2" not in msg and "b=-1" not in msg, msg


# --------------------------------------------------------------------------- #
# The grader's cells: pass the solution, fail each mistake, on answers as data
# --------------------------------------------------------------------------- #

@pytest.mark.parametrize("gid,fname,wrong,expected", [
    ("ex1-dual-train-tests-counts", "dual_train", make_dual(zero_is_mistake=False), "sign(0) must count"),
    ("ex1-dual-train-tests-bias", "dual_train", make_dual(bias=False), "ignores the bias"),
    ("ex1-dual-train-tests-rate", "dual_train", make_dual(step="lr"), "applied to the dual counts alpha"),
    ("ex2-dual-predict-tests", "dual_predict", make_predict(use_y=False), "ignores the labels y"),
    ("ex2-dual-predict-tests-details", "dual_predict", make_predict(use_lr=False), "ignores the learning rate"),
    ("ex3-primal-from-dual-tests", "primal_from_dual", make_primal(use_y=False), "ignores the labels y"),
    ("ex3-primal-from-dual-tests", "primal_from_dual", make_primal(axis=1), "one entry per training point"),
    ("ex3-primal-from-dual-tests-checks", "primal_from_dual", make_primal(check=False), "should raise ValueError"),
    ("ex3-primal-from-dual-tests-quiz", "primal_from_dual", make_primal(use_y=False), "ignores the labels y"),
])
def test_cells_fail_common_mistakes_with_their_hint(gid, fname, wrong, expected, message):
    functions = dict(SOLUTION, **{fname: wrong})
    assert expected in message(Cell.judge_here, GRADER.cells()[gid], functions)


@pytest.mark.parametrize("gid,fname,wrong", [
    # each passes the visible probes; only a hidden test catches it
    ("ex1-dual-train-tests-bias", "dual_train", "first_epoch_only"),
    ("ex3-primal-from-dual-tests-checks", "primal_from_dual", "exact"),
    ("ex3-primal-from-dual-tests-quiz", "primal_from_dual", "hardcoded"),
])
def test_hidden_tests_catch_what_the_visible_ones_miss(gid, fname, wrong, message):
    def first_epoch_only(K, y, max_epochs=10, learning_rate=1.0):  # ignores max_epochs
        return dual_train(K, y, 100, learning_rate)

    def exact(X, alpha, y, b, learning_rate=1.0):  # no rounding tolerance in the check of b
        if b != np.sum(learning_rate * np.asarray(alpha) * np.asarray(y)):
            raise ValueError("b does not fit")
        return primal_from_dual(X, alpha, y, b, learning_rate)

    def hardcoded(X, alpha, y, b, learning_rate=1.0):
        if len(X) == 20:
            return np.array([-1.26035052, -1.21318978])
        return primal_from_dual(X, alpha, y, b, learning_rate)

    cell = GRADER.cells()[gid]
    visible = [t for t in cell.tests[:-1]]
    functions = dict(SOLUTION, **{fname: {"first_epoch_only": first_epoch_only, "exact": exact,
                                          "hardcoded": hardcoded}[wrong]})
    for test in visible:
        test.judge(test.answers(functions))
    msg = message(Cell.judge_here, cell, functions)
    for secret in ("-0.63", "-2.52", "-0.1", "-0.7", "2.1"):  # right answers of those hidden tests
        assert secret not in msg, msg
