"""Lesson 02's checks, what the declaration table cannot say (tests/test_exercises.py says the rest).

The grader's references agree with slower, independent computations (a loop of updates, the
package's perceptron, a linear program); the certificate comparison accepts any valid
certificate and names what is wrong with an invalid one; the nearest course code fails the
visible and the hidden tests; the numbers the notebook's texts and rubric state are what a
run prints.
"""

import functools
import itertools
from pathlib import Path

import judging
import numpy as np
import pytest
from scipy.optimize import linprog

from kpcourse.checks import lesson02 as checks
from kpcourse.grading.judge.declared import hidden_probes
from kpcourse.grading.judge.testdata import random_separable
from kpcourse.grading.judge.trusted import load_grader
from kpcourse.perceptron import Perceptron

ROOT = Path(__file__).resolve().parents[1]
GRADER = load_grader(ROOT / "source" / "02-perceptron-by-hand" / "grader.py")


_hidden_and_visible = functools.partial(judging.probes, GRADER, checks.LESSON)
_passes = functools.partial(judging.passes, GRADER, checks.LESSON)


# ----------------------------------------------------------------- exercise 1
def _repeats_by_updating(w, b, X, y, lr, limit=10_000):
    """Apply the update to each point alone until it is right, counting."""
    counts = []
    for x, label in zip(np.asarray(X, float), y, strict=True):
        w_i, b_i, n = np.asarray(w, float), float(b), 0
        while label * (x @ w_i + b_i) <= 0 and n < limit:
            w_i, b_i, n = w_i + lr * label * x, b_i + lr * label, n + 1
        counts.append(n)
    return np.array(counts)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_repeats_reference_counts_the_updates_of_a_loop(seed):
    for probe in _hidden_and_visible("ex1-repeats-tests-values", seed):
        if not probe.raises:
            np.testing.assert_array_equal(GRADER.repeats_to_fix(*probe.args), _repeats_by_updating(*probe.args))


def test_check_your_understanding_1_and_the_large_counts():
    w, b, X, y = checks.CYU1
    assert GRADER.repeats_to_fix(w, b, X, y, 0.25).tolist() == [1]  # -0.3 + 1.25 > 0
    assert GRADER.repeats_to_fix(w, b, X, y, 0.05).tolist() == [2]  # -0.3 + 0.25 < 0 < -0.3 + 0.5
    big = GRADER.repeats_to_fix(*checks.BIG)
    assert big.max() > 2 ** 40  # out of reach of a loop of updates
    # exact: one update fewer leaves a score <= 0, in exact (integer) arithmetic
    w, b, X, y, lr = checks.BIG
    for count, x, label in zip(big, X, y, strict=True):
        if count:
            num = int(label * (x @ w + b) * 2 ** 20)  # the score in units of 2**-20 (exact)
            gain = int(x @ x + 1)  # lr · (||x||² + 1) in the same units
            assert num + (int(count) - 1) * gain <= 0 < num + int(count) * gain


# ----------------------------------------------------------------- exercise 2
def _novikoff_by_loop(X, y, order, u, lr):
    Xt = np.c_[np.asarray(X, float), np.ones(len(X))]
    u = np.asarray(u, float)
    gamma, R = min(yi * (xi @ u) for xi, yi in zip(Xt, y, strict=True)), max(np.linalg.norm(Xt, axis=1))
    w, progress, room = np.zeros(Xt.shape[1]), [], []
    for k, i in enumerate(order, start=1):
        w = w + lr * y[i] * Xt[i]
        progress.append(w @ u - lr * k * gamma)
        room.append(lr ** 2 * k * R ** 2 - w @ w)
    return np.array(progress), np.array(room)


@pytest.mark.parametrize("cell", ["ex2-novikoff-tests-values", "ex2-novikoff-tests-forged"])
def test_novikoff_reference_is_the_loop_of_the_proof(cell):
    for probe in _hidden_and_visible(cell):
        got, want = GRADER.novikoff_slack(*probe.args), _novikoff_by_loop(*probe.args)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def test_a_real_run_keeps_both_inequalities_and_a_forged_one_breaks_the_room():
    """Novikoff's proof on the lesson's run; the forged orders of the visible test make the room negative."""
    for probe in _hidden_and_visible("ex2-novikoff-tests-values"):
        progress, room = GRADER.novikoff_slack(*probe.args)
        assert progress.min() >= -1e-12 and room.min() >= -1e-12
    X, y, order, u, lr = checks.FOUR_X, checks.FOUR_Y, checks.FORGED, checks.FOUR_U, 0.25
    progress, room = GRADER.novikoff_slack(X, y, order, u, lr)
    assert progress.min() >= -1e-12 and room.min() < 0  # progress needs a separator only; room needs mistakes


def test_the_lessons_run_has_nine_updates_in_this_order():
    clf = Perceptron(learning_rate=0.25).fit(checks.FOUR_X, checks.FOUR_Y)
    updates = clf.trace_[clf.trace_[:, 2] == 1, 1].astype(int).tolist()
    assert updates == checks.FOUR_ORDER
    assert np.all(checks.FOUR_Y * (np.c_[checks.FOUR_X, np.ones(4)] @ checks.FOUR_U) > 0)


# ----------------------------------------------------------------- exercise 3
def _end_states(X, y, epochs):
    """The package perceptron's (b, w) at the end of each epoch, from its trace (epoch 0: zeros)."""
    states = [(0.0,) * (X.shape[1] + 1)]
    for e in range(1, epochs + 1):
        trace = Perceptron(learning_rate=1.0, max_epochs=e).fit(X, y).trace_
        states.append(tuple(trace[-1, 3:]) if trace[-1, 0] == e else states[-1])
    return states


@pytest.mark.parametrize("seed", [1, 2])
def test_cycle_reference_agrees_with_the_package_perceptrons_states(seed):
    for probe in _hidden_and_visible("ex3-cycle-tests-values", seed)[:5]:
        X, y, _ = probe.args
        mu, lam, _ = GRADER.cycle_of(*probe.args)
        states = _end_states(np.asarray(X, float), np.asarray(y), mu + lam)
        assert states[mu] == states[mu + lam] and len(set(states[:mu + lam])) == mu + lam


def test_the_lessons_cycles():
    assert GRADER.cycle_of(checks.FOUR_X, checks.FOUR_Y, 100) == (3, 1, 0)  # a clean fourth epoch
    assert GRADER.cycle_of(checks.XOR_X, checks.XOR_Y, 100) == (0, 1, 4)    # back at zero every epoch
    assert GRADER.cycle_of(checks.FOUR_X, checks.FOUR_Y, 3) is None


# ----------------------------------------------------------------- exercise 4
def _lp_separable(X, y):
    """Strictly separable by a line: some (w, b) with y(w·x + b) >= 1 (an LP, SciPy's)."""
    A = -np.asarray(y)[:, None] * np.c_[X, np.ones(len(X))]
    return linprog(np.zeros(3), A_ub=A, b_ub=-np.ones(len(X)), bounds=(None, None)).status == 0


@pytest.mark.parametrize("cell", ["ex4-certificate-tests-triangle", "ex4-certificate-tests-crossing",
                                  "ex4-certificate-tests-random"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_certificate_reference_is_valid_and_none_exactly_when_separable(cell, seed):
    for probe in _hidden_and_visible(cell, seed):
        if probe.raises:
            continue
        found = GRADER.separation_certificate(*probe.args)
        assert (found is None) == _lp_separable(*probe.args)
        checks._certificate(found, found, "f", None, probe, None)  # valid by the check's own rules


def test_the_hidden_probes_hold_the_kind_each_cell_names():
    kinds = {cell: [GRADER._kind(*p.args) for p in hidden_probes(cell, GRADER.HIDDEN[cell], 4)]
             for cell in ("ex4-certificate-tests-triangle", "ex4-certificate-tests-crossing")}
    assert kinds["ex4-certificate-tests-triangle"][0] == "plus_in_minus"
    assert kinds["ex4-certificate-tests-crossing"][:2] == ["crossing", "crossing"]
    assert GRADER._kind(*checks.IN_MINUS) == "plus_in_minus" and GRADER._kind(*checks.CROSS6) == "crossing"


@pytest.mark.parametrize("answer, words", [
    (None, "no line separates these points"),
    (([0, 1, 2], [0.5, 0.25, 0.25], [3], [1.0, 0.0]), "a list of as many numbers"),
    (([0, 1, 3], [0.5, 0.25, 0.25], [3], [1.0]), "labelled +1 only"),
    (([0, 1, 2], [1.0, 0.5, 0.5], [3], [1.0]), "sum to 1"),
    (([0, 1, 2], [0.5, 0.3, 0.2], [3], [1.0]), "must be the same point"),
    (([0, 1, 2], [0.5, 0.25, 0.25], [3, 3], [0.5, 0.5]), "or one twice"),
    (([0, 1], [0.5, 0.5]), "a tuple (plus, lam, minus, mu)"),
])
def test_an_invalid_certificate_is_named(answer, words):
    from kpcourse.checks.exercise import Probe

    probe = Probe(checks.IN_PLUS)
    expected = GRADER.separation_certificate(*checks.IN_PLUS)
    with pytest.raises(AssertionError, match=None) as err:
        checks._certificate(answer, expected, "f", None, probe, None)
    assert words in str(err.value)
    checks._certificate(([0, 1, 2], [0.5, 0.25, 0.25], [3], [1.0]), expected, "f", None, probe, None)
    with pytest.raises(AssertionError, match="return None"):
        checks._certificate(expected, None, "f", None, Probe(checks.SEPARABLE), None)


# ------------------------------------------------- the nearest course code fails
def _lesson_triangle_search(X, y):
    """Lesson 02 cell 30 made a function: a -1 point inside a triangle of +1 points."""
    X, y = np.asarray(X, float), np.asarray(y)
    if X.ndim != 2 or X.shape[1] != 2 or len(X) != len(y):
        raise ValueError("bad input")
    Xq = np.c_[X, np.ones(len(X))]
    for j, tri in itertools.product(np.flatnonzero(y < 0), itertools.combinations(np.flatnonzero(y > 0), 3)):
        A = Xq[list(tri)].T
        if abs(np.linalg.det(A)) < 1e-9:
            continue
        c = np.linalg.solve(A, Xq[j])
        if c.min() >= 0:
            return [int(t) for t in tri], c.tolist(), [int(j)], [1.0]
    return None


def _stop_when_clean(X, y, max_epochs):
    """The package's loop, which stops on a clean epoch."""
    if len(X) != len(y) or max_epochs < 1:
        raise ValueError("bad input")
    clf = Perceptron(learning_rate=1.0, max_epochs=max_epochs).fit(X, y)
    return (clf.n_epochs_ - 1, 1, 0) if clf.converged_ else None


@pytest.mark.parametrize("cell, function", [
    ("ex4-certificate-tests-triangle", _lesson_triangle_search),
    ("ex4-certificate-tests-crossing", _lesson_triangle_search),
    ("ex4-certificate-tests-random", _lesson_triangle_search),
    ("ex3-cycle-tests-values", _stop_when_clean),
    ("ex3-cycle-tests-limit", _stop_when_clean),
])
def test_the_nearest_course_code_fails(cell, function):
    assert not _passes(cell, function)


def test_the_solutions_pass_every_cell():
    for cell in checks.LESSON.cells:
        assert _passes(cell, GRADER.REFERENCES[checks.LESSON.check(cell)[0].function]), cell


# ------------------------------------------------------ the numbers in the texts
def _run_bias(X, y):
    w, b, plus, minus = np.zeros(2), 0.0, 0, 0
    for _ in range(100):
        made = 0
        for x, label in zip(X, y, strict=True):
            if label * (x @ w + b) <= 0:
                w, b, made = w + label * x, b + label, made + 1
                plus, minus = plus + (label > 0), minus + (label < 0)
        if made == 0:
            return w, b, plus, minus


def test_the_rubric_of_exercise_5():
    X = np.array([[-3.0, 3.0], [-2.0, 2.0], [-2.0, -1.0], [0.0, 3.0], [3.0, 0.0]])
    y = np.array([1, 1, 1, -1, -1])
    w, b, plus, minus = _run_bias(X, y)
    assert (w.tolist(), b, plus, minus) == ([-6.0, -3.0], -1.0, 2, 3)
    order = [2, 0, 1, 3, 4]
    w, b, plus, minus = _run_bias(X[order], y[order])
    assert (w.tolist(), b, plus, minus) == ([-2.0, -1.0], 1.0, 1, 0)


def test_the_example_of_exercise_2():
    progress, room = GRADER.novikoff_slack(checks.FOUR_X, checks.FOUR_Y, [0], checks.FOUR_U, 1.0)
    assert room.tolist() == pytest.approx([15.0])


def test_separable_probes_are_separable():
    X, y = random_separable(12, 2, random_state=0)
    assert _lp_separable(X, y) and GRADER.separation_certificate(X, y) is None
