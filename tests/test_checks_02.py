"""Lesson 02's checks: every diagnosis names a purposely wrong function and passes a right one.

The right functions below are the model solutions of assignment 02; each wrong one makes a
single common mistake. Messages must name the mistake and never contain the expected numbers.
The checks hold data (``kpcourse/checks/data/lesson02.json``): it must equal what the grader's
references compute, and the grader's cells must pass the solution and fail the mistakes.
"""

import ast
from pathlib import Path

import numpy as np
import pytest

from kpcourse.checks import lesson02 as checks
from kpcourse.grading.spec import Cell
from kpcourse.grading.testdata import random_separable
from kpcourse.grading.trusted import load_grader
from kpcourse.perceptron import Perceptron

ROOT = Path(__file__).resolve().parents[1]
GRADER = load_grader(ROOT / "source" / "02-perceptron-by-hand" / "grader.py")


def _message(func, *args, **kwargs):
    with pytest.raises(AssertionError) as info:
        func(*args, **kwargs)
    return str(info.value)



# --------------------------------------------------------------------------- #
# Model solutions and their common mistakes
# --------------------------------------------------------------------------- #

def predict(w, b, X):
    X = np.asarray(X, dtype=float)
    if X.shape[1] != len(w):
        raise ValueError("X and w do not match")
    return np.where(X @ w + b > 0, 1, -1)


def make_update(*, zero_is_mistake=True, bias=True, bias_lr=True, w_step="right", in_place=False,
                always=False):
    def update(w, b, x, y, learning_rate):
        if y not in (-1, 1):
            raise ValueError("y must be -1 or +1")
        s = y * (np.dot(w, x) + b)
        wrong = s <= 0 if zero_is_mistake else s < 0
        if zero_is_mistake == "predict":
            wrong = np.where(np.dot(w, x) + b > 0, 1, -1) != y
        if wrong or always:
            step = {"right": learning_rate * y * x, "sign": -learning_rate * y * x, "no_lr": y * x,
                    "no_y": learning_rate * x}[w_step]
            if in_place:
                w += step
            else:
                w = w + step
            if bias:
                b = b + (learning_rate if bias_lr else 1.0) * y
        return w, b
    return update


def make_train(**flags):
    def train(X, y, learning_rate=1.0, max_epochs=100):
        if len(X) != len(y):
            raise ValueError("X and y do not match")
        w, b, trace = GRADER.primal(np.asarray(X, float), y, learning_rate, max_epochs, **flags)
        return w, b, trace
    return train



update = make_update()
train = make_train()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_primal_reference_is_the_package_perceptron(seed):
    X, y = random_separable(25, 3, random_state=seed)
    clf = Perceptron(learning_rate=0.5, max_epochs=50).fit(X, y)
    w, b, trace = GRADER.primal(X, y, 0.5, 50)
    np.testing.assert_allclose(trace, clf.trace_)
    np.testing.assert_allclose(w, clf.coef_)
    assert b == pytest.approx(clf.intercept_)


def test_random_separable():
    X, y = random_separable(40, 3, random_state=1)
    assert X.shape == (40, 3) and set(y.tolist()) == {-1, 1}
    assert Perceptron(max_epochs=1000).fit(X, y).converged_
    X0, _ = random_separable(20, 2, offset=False, scale=10.0, random_state=2)
    assert np.abs(X0).max() > 2


def test_lesson_module_holds_no_algorithm():
    tree = ast.parse(Path(checks.__file__).read_text())
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert not any(m.startswith(("kpcourse.perceptron", "kpcourse.kernels", "kpcourse.gram", "sklearn"))
                   for m in imported), imported
    loops = [n for n in ast.walk(tree) if isinstance(n, (ast.For, ast.While))]
    assert all("answers" in ast.unparse(n.iter) or "zip" in ast.unparse(n.iter) or "keys" in ast.unparse(n.iter)
               or "items" in ast.unparse(n.iter) or "(" in ast.unparse(n.iter)[:1]
               for n in loops if isinstance(n, ast.For)), "a loop over data in the checks module"


# --------------------------------------------------------------------------- #
# The grader's cells: pass the solution, fail each mistake, on answers as data
# --------------------------------------------------------------------------- #

SOLUTION = {"predict": None, "update": None, "train": None}


def test_every_cell_passes_the_solution():
    functions = {"predict": predict, "update": update, "train": train}
    for _gid, cell in GRADER.cells().items():
        cell.judge_here(functions)


@pytest.mark.parametrize("gid,fname,wrong,expected", [
    ("ex1-predict-tests-zero", "predict", lambda w, b, X: np.sign(np.asarray(X) @ w + b), "np.sign(0) is 0"),
    ("ex2-update-tests-zero", "update", "sign0", "sign(0) must count as a mistake"),
    ("ex2-update-tests-bias", "update", "no_bias", "ignores the bias"),
    ("ex3-train-tests-trace", "train", "before", "after that step, not before"),
    ("ex3-train-tests-result", "train", "no_bias", "ignores the bias"),
])
def test_cells_fail_common_mistakes_with_their_hint(gid, fname, wrong, expected):
    functions = {"predict": predict, "update": update, "train": train}
    functions[fname] = {"sign0": make_update(zero_is_mistake=False), "no_bias": make_update(bias=False),
                        "before": make_train(before=True)}.get(wrong, wrong) if fname != "train" or \
        wrong != "no_bias" else make_train(bias=False)
    assert expected in _message(Cell.judge_here, GRADER.cells()[gid], functions)


def test_hidden_messages_hide_the_expected_values():
    functions = {"predict": predict, "update": update, "train": make_train(bias=False)}
    msg = _message(Cell.judge_here, GRADER.cells()["ex3-train-tests-result"], functions)
    assert "gets no credit" not in msg


# --------------------------------------------------------------------------- #
# Diagnoses: lesson 02
# --------------------------------------------------------------------------- #

def test_diagnose_predict_passes_the_solution():
    for aspect in ("all", "basic", "zero"):
        checks.diagnose_predict(predict, aspect=aspect)


@pytest.mark.parametrize("wrong,aspect,expected", [
    (lambda w, b, X: np.sign(X @ w + b), "zero", "np.sign(0) is 0"),
    (lambda w, b, X: np.where(X @ w + b >= 0, 1, -1), "zero", "exactly 0 gave +1"),
    (lambda w, b, X: np.where(X @ w > 0, 1, -1), "basic", "ignores the bias b"),
    (lambda w, b, X: X @ w + b, "basic", "returned the scores"),
    (lambda w, b, X: X @ w + b > 0, "basic", "True/False"),
    (lambda w, b, X: np.where(X @ w + b > 0, 1, -1)[:, None], "basic", "column vector"),
    (lambda w, b, X: np.where(X @ w + b > 0, -1, 1), "basic", "flipped"),
    (lambda w, b, X: np.where(np.asarray(X)[:, :2] @ w + b > 0, 1, -1), "basic", "should raise ValueError"),
])
def test_diagnose_predict_names_mistakes(wrong, aspect, expected):
    assert expected in _message(checks.diagnose_predict, wrong, aspect=aspect)


def test_diagnose_update_passes_the_solution():
    for aspect in ("all", "weights", "zero", "bias"):
        checks.diagnose_update(update, aspect=aspect)


@pytest.mark.parametrize("flags,failing,expected", [
    ({"zero_is_mistake": False}, "zero", "sign(0) must count as a mistake"),
    ({"zero_is_mistake": "predict"}, "zero", "correct for the label -1"),
    ({"bias": False}, "bias", "your update ignores the bias"),
    ({"bias_lr": False}, "bias", "must scale the bias step too"),
    ({"w_step": "sign"}, "weights", "wrong sign"),
    ({"w_step": "no_lr"}, "weights", "learning rate is not applied"),
    ({"w_step": "no_y"}, "weights", "ignores the label y"),
    ({"in_place": True}, "weights", "in place"),
])
def test_diagnose_update_fails_only_the_aspect_of_the_mistake(flags, failing, expected):
    wrong = make_update(**flags)
    for aspect in ("weights", "zero", "bias"):
        if aspect == failing:
            assert expected in _message(checks.diagnose_update, wrong, aspect=aspect)
        else:
            checks.diagnose_update(wrong, aspect=aspect)


def test_diagnose_update_other_mistakes():
    always = make_update(always=True)
    assert "on a correctly classified point" in _message(checks.diagnose_update, always, aspect="weights")
    assert "on a correctly classified point" in _message(checks.diagnose_update, always, aspect="bias")

    def scaled(w, b, x, y, learning_rate):
        if y not in (-1, 1):
            raise ValueError("y must be -1 or +1")
        if y * (w @ x + b) <= 0:
            return learning_rate * (w + y * x), b + learning_rate * y
        return w, b

    assert "applied to the wrong thing" in _message(checks.diagnose_update, scaled, aspect="weights")
    msg = _message(checks.diagnose_update, lambda w, b, x, y, lr: w, aspect="weights")
    assert "should return a tuple (w, b)" in msg


def test_update_messages_hide_the_expected_values():
    # Right answers of the probes: w (1.625, -0.75), b 1.125; w (-2, -2.75), b -1.
    for wrong in (make_update(bias=False), make_update(w_step="sign"), make_update(w_step="no_lr"),
                  make_update(bias_lr=False), make_update(w_step="no_y")):
        msg = _message(checks.diagnose_update, wrong)
        for secret in ("1.625", "1.125", "-2.75"):
            assert secret not in msg, (secret, msg)


def test_diagnose_trace_passes_the_solution():
    for aspect in ("all", "trace", "result", "stop"):
        checks.diagnose_trace(train, aspect=aspect)


def _shifted(column, amount):
    def wrong(X, y, learning_rate=1.0, max_epochs=100):
        w, b, t = train(X, y, learning_rate, max_epochs)
        t = t.copy()
        t[:, column] += amount
        return w, b, t
    return wrong


def _only_mistakes(X, y, learning_rate=1.0, max_epochs=100):
    w, b, t = train(X, y, learning_rate, max_epochs)
    return w, b, t[t[:, 2] == 1]


def _w_first(X, y, learning_rate=1.0, max_epochs=100):
    w, b, t = train(X, y, learning_rate, max_epochs)
    return w, b, np.hstack([t[:, :3], t[:, 4:], t[:, 3:4]])


@pytest.mark.parametrize("wrong,failing,expected", [
    (_shifted(0, -1), {"trace"}, "numbered from 1"),
    (_shifted(1, 1), {"trace", "stop"}, "from 0"),
    (_w_first, {"trace"}, "the intercept comes before w"),
    (make_train(before=True), {"trace"}, "after that step, not before"),
    (_only_mistakes, {"trace", "stop"}, "one row per visited sample"),
    (make_train(stop=False), {"trace", "stop"}, "stop after the first epoch without a mistake"),
    (make_train(zero_is_mistake=False), {"trace", "result"}, "sign(0) must count as a mistake"),
    (make_train(bias=False), {"trace", "result"}, "ignores the bias"),
    (make_train(bias_lr=False), {"trace", "result"}, "scale the bias step too"),
    (make_train(bias_lr=False, w_lr=False), {"trace", "result"}, "learning rate is not applied"),
])
def test_diagnose_trace_names_mistakes(wrong, failing, expected):
    for aspect in ("trace", "result", "stop"):
        if aspect in failing:
            msg = _message(checks.diagnose_trace, wrong, aspect=aspect)
            if aspect != "stop":
                assert expected in msg, msg
        else:
            checks.diagnose_trace(wrong, aspect=aspect)


def test_check_stopping_judges_the_loop_by_its_own_flags():
    _, _, trace = GRADER.primal(checks.PROBES["train_X"], checks.PROBES["train_y"], 0.5, 20, zero_is_mistake=False)
    checks.check_stopping(trace, 5, 20)  # a wrong rule, but a loop that stops right
    _, _, trace = GRADER.primal(checks.PROBES["xor_X"], checks.PROBES["xor_y"], 1.0, 3)
    checks.check_stopping(trace, 4, 3)
    assert "ran 3 epochs with max_epochs=2" in _message(checks.check_stopping, trace, 4, 2)
    assert "one row per visited sample" in _message(checks.check_stopping, trace[:-1], 4, 3)
    _, _, trace = GRADER.primal(checks.PROBES["train_X"], checks.PROBES["train_y"], 0.5, 20, stop=False)
    assert "went on" in _message(checks.check_stopping, trace, 5, 20)


def test_diagnose_trace_other_mistakes():
    def early(X, y, learning_rate=1.0, max_epochs=100):
        return train(X, y, learning_rate, 1)

    msg = _message(checks.diagnose_trace, early, aspect="stop")
    assert "stopped after 1 epochs although the last one had mistakes" in msg

    def last_row_mismatch(X, y, learning_rate=1.0, max_epochs=100):
        w, b, t = train(X, y, learning_rate, max_epochs)
        return w, b + 1, t

    assert "those of the last trace row" in _message(checks.diagnose_trace, last_row_mismatch, aspect="trace")
    assert "tuple (w, b, trace)" in _message(checks.diagnose_trace, lambda X, y, lr, e: (1, 2))

    def unchecked(X, y, learning_rate=1.0, max_epochs=100):
        return GRADER.primal(np.asarray(X, float), y, learning_rate, max_epochs)

    assert "should raise ValueError" in _message(checks.diagnose_trace, unchecked, aspect="stop")


def test_trace_messages_hide_the_final_weights():
    # Right answer on the probe: w = (-1.5, 1.5), b = -2.5.
    for flags in ({"bias": False}, {"zero_is_mistake": False}, {"w_lr": False}):
        msg = _message(checks.diagnose_trace, make_train(**flags), aspect="result")
        assert "-1.5" not in msg and "-2.5" not in msg, msg


