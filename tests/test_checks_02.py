"""Lesson 02's checks, what the declaration table cannot say (tests/test_exercises.py says the rest).

The grader's reference is the package's perceptron; the stopping check judges a loop by its
own trace; odd results (an early stop, a last row that is not the result, a wrong tuple, no
ValueError) get their own message; no message shows the final weights.
"""

from pathlib import Path

import numpy as np
import pytest

from kpcourse.checks import lesson02 as checks
from kpcourse.grading.testdata import random_separable
from kpcourse.grading.trusted import load_grader
from kpcourse.perceptron import Perceptron

ROOT = Path(__file__).resolve().parents[1]
GRADER = load_grader(ROOT / "source" / "02-perceptron-by-hand" / "grader.py")
train = GRADER.train


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


def test_stopping_is_judged_by_the_loops_own_flags():
    X, y, lr, E = checks.TRAIN
    _, _, trace = GRADER.primal(X, y, lr, E, zero_is_mistake=False)
    assert checks.stop_problems(trace, 5, 20) == []  # a wrong rule, but a loop that stops right
    Xx, yx, _, _ = checks.XOR
    _, _, trace = GRADER.primal(Xx, yx, 1.0, 3)
    assert checks.stop_problems(trace, 4, 3) == []
    assert "ran 3 epochs with max_epochs=2" in checks.stop_problems(trace, 4, 2)[0]
    assert "one row per visited sample" in checks.stop_problems(trace[:-1], 4, 3)[0]
    _, _, trace = GRADER.primal(X, y, lr, E, stop=False)
    assert "went on" in checks.stop_problems(trace, 5, 20)[0]


def test_odd_results_get_their_own_message(message):
    def early(X, y, learning_rate=1.0, max_epochs=100):
        return train(X, y, learning_rate, 1)

    assert "stopped after 1 epochs although the last one had mistakes" in message(checks.test, "ex3-train-tests-stop",
                                                                                  early)

    def last_row_mismatch(X, y, learning_rate=1.0, max_epochs=100):
        w, b, t = train(X, y, learning_rate, max_epochs)
        return w, b + 1, t

    assert "those of the last trace row" in message(checks.test, "ex3-train-tests-trace", last_row_mismatch)
    assert "tuple (w, b, trace)" in message(checks.test, "ex3-train-tests-result", lambda X, y, lr, e: (1, 2))

    def unchecked(X, y, learning_rate=1.0, max_epochs=100):
        return GRADER.primal(np.asarray(X, float), y, learning_rate, max_epochs)

    assert "should raise ValueError" in message(checks.test, "ex3-train-tests-stop", unchecked)
    assert "not written yet" in message(checks.test, "ex1-predict-tests", lambda w, b, X: (_ for _ in ()).throw(
        NotImplementedError))


def test_trace_messages_hide_the_final_weights(message):
    w, b, _ = train(*checks.TRAIN)
    for mistake in ("no_bias", "sign0", "no_lr"):
        msg = message(checks.test, "ex3-train-tests-result", lambda *a, m=mistake: train(*a, mistake=m))
        assert fmt_all(w) not in msg and f"{b:g}" not in msg, msg


def fmt_all(w):
    from kpcourse.checks._core import fmt

    return fmt(w)
