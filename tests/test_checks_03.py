"""Lesson 03's references, against the source's solutions and against independent computations.

``tests/test_exercises.py`` runs every declared mistake through every check that names it, and
``tests/test_lessons.py`` every source solution through every cell; here: the grader's references
agree with the solution cells of ``source/03-dual-form`` and with the package's perceptron (the
constant step, every point left out in turn), the merged model scores as the original one, a
smaller support keeps (w, b), and the copies of course code that each exercise was designed
against fail it.
"""

from pathlib import Path

import numpy as np
import pytest
from giveaway import solution
from judging import failing

from kpcourse.checks import lesson03 as checks
from kpcourse.grading.judge.testdata import random_separable
from kpcourse.grading.judge.trusted import load_grader
from kpcourse.perceptron import KernelPerceptron

ROOT = Path(__file__).resolve().parents[1]
GRADER = load_grader(ROOT / "source" / "03-dual-form" / "grader.py")
SOLUTION = solution("03-dual-form")
REF = GRADER.REFERENCES


def _engine(K, y, max_epochs=100):
    """The package's kernel perceptron on a precomputed Gram matrix: counts and bias."""
    kp = KernelPerceptron(kernel="precomputed", shuffle=False, max_epochs=max_epochs, device="cpu").fit(K, y)
    return kp.alpha_, kp.intercept_


def _problem(seed, n=20, d=3, flips=0):
    X, y = random_separable(n, d, random_state=seed)
    y = y.copy()
    y[:flips] *= -1
    return X, X @ X.T, y


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_loops_agree_with_the_package(seed):
    """The locked helper and the grader's loop are the package's perceptron; power 0 is a constant step."""
    X, K, y = _problem(seed, flips=seed)
    alpha, b = _engine(K, y, 30)
    for counts, bias in (GRADER.dual_perceptron(K, y, 30), SOLUTION["dual_train"](K, y, 30)):
        np.testing.assert_array_equal(counts, alpha)
        assert bias == pytest.approx(b, abs=1e-12)
    counts, a, bias = REF["dual_train_decay"](K, y, 0.5, 0.0, 30)
    np.testing.assert_array_equal(counts, alpha)
    np.testing.assert_allclose(a, 0.5 * alpha, rtol=1e-12)
    assert bias == pytest.approx(0.5 * b, abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_references_match_the_solutions_and_the_definitions(seed):
    rng = np.random.default_rng(seed)
    X, K, y = _problem(seed, flips=seed)

    # exercise 2: the solution's loop; alpha does not depend on eta0, a and b scale with it
    for power in (0.5, 1.0):
        ref = REF["dual_train_decay"](K, y, 1.0, power, 50)
        for got, want in zip(SOLUTION["dual_train_decay"](K, y, 1.0, power, 50), ref, strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        counts, a, b = REF["dual_train_decay"](K, y, 3.0, power, 50)
        np.testing.assert_array_equal(counts, ref[0])
        np.testing.assert_allclose(a, 3 * ref[1], rtol=1e-12)
        assert b == pytest.approx(3 * ref[2], rel=1e-12, abs=1e-12)

    # exercise 3: every point left out and the package's perceptron retrained, the slow way
    loo = REF["loo_predictions"](K, y, 30)
    np.testing.assert_array_equal(SOLUTION["loo_predictions"](K, y, 30), loo)
    for i in range(len(y)):
        rest = np.delete(np.arange(len(y)), i)
        alpha, b = _engine(K[np.ix_(rest, rest)], y[rest], 30)
        assert loo[i] == (1 if (alpha * y[rest]) @ K[rest, i] + b > 0 else -1)

    # exercise 1: the merged model scores every point as the original one does
    Xc = rng.integers(-2, 3, size=(30, 2)).astype(float)
    yc, ac = rng.choice([-1, 1], size=30), rng.integers(0, 4, size=30)
    rows, coef = REF["merge_duplicates"](Xc, yc, ac)
    for got, want in zip(SOLUTION["merge_duplicates"](Xc, yc, ac), (rows, coef), strict=True):
        np.testing.assert_allclose(got, want)
    assert len(np.unique(rows, axis=0)) == len(rows) and np.all(coef != 0)
    P = rng.normal(size=(10, 2))
    np.testing.assert_allclose(((1 + P @ rows.T) ** 2) @ coef, ((1 + P @ Xc.T) ** 2) @ (ac * yc), atol=1e-9)

    # exercise 4: any answer the comparison accepts; the reference's and the solution's are accepted
    Xs, ys, a_s = GRADER._support(rng, 30, 3)
    probe = checks.Probe((Xs, ys, a_s))
    check = checks.CARATHEODORY.checks[0]
    for answer in (REF["caratheodory"](Xs, ys, a_s), SOLUTION["caratheodory"](Xs, ys, a_s)):
        checks._caratheodory(answer, None, "caratheodory", check, probe, None)
        assert np.count_nonzero(answer) <= 4


def test_the_visible_facts_that_the_notebook_states():
    """Numbers the exercises' text gives: the decayed run on the four points, one leave-one-out mistake on
    the quiz, [7, 6, 0, 2] as one smaller support of the four points, at most 3 points for the quiz."""
    X4, y4, K4 = checks.FOUR
    Z, yq, Kq = checks.QUIZ
    alpha, _, b = REF["dual_train_decay"](K4, y4, 1.0, 0.5, 100)
    assert alpha.tolist() == [2, 2, 0, 1] and b == pytest.approx(-0.16814, abs=1e-5)
    assert REF["dual_train_decay"](K4, y4, 0.25, 0.0, 100)[0].tolist() == [2, 2, 2, 3]
    assert np.flatnonzero(REF["loo_predictions"](Kq, yq, 100) != yq).tolist() == [8]
    assert np.array_equal(REF["loo_predictions"](K4, y4, 100), y4)
    np.testing.assert_array_equal(GRADER.dual_perceptron(Kq, yq, 100)[0], checks.QUIZ_ALPHA)
    V4 = y4[:, None] * np.c_[X4, np.ones(4)]
    np.testing.assert_allclose(np.array([7, 6, 0, 2]) @ V4, np.array([2, 2, 2, 3]) @ V4)
    assert np.count_nonzero(REF["caratheodory"](Z, yq, checks.QUIZ_ALPHA)) <= 3
    flipped = REF["loo_predictions"](Kq, checks._FLIP, 5) != checks._FLIP
    never_erred = GRADER.dual_perceptron(Kq, checks._FLIP, 5)[0] == 0
    assert np.flatnonzero(flipped & never_erred).tolist() == [5, 6]  # the written question's example


def _failing(gid, functions):
    return failing(GRADER, SOLUTION, gid, functions)


def _lecture_05_copies(X, y, alpha):
    """Lecture 05 cell 20: the distinct rows and how many copies each has."""
    rows, counts = np.unique(np.asarray(X, dtype=float), axis=0, return_counts=True)
    return rows, counts.astype(float)


def _engine_decay(K, y, eta0=1.0, power=0.5, max_epochs=100):
    """The package's engine (a constant step) behind the exercise's name."""
    alpha, b = _engine(np.asarray(K, dtype=float), np.asarray(y), max_epochs)
    return alpha.astype(int), eta0 * alpha, eta0 * b


def _full_predictions(K, y, max_epochs=100):
    """KernelPerceptron.predict on the training points: nothing left out."""
    K = np.asarray(K, dtype=float)
    kp = KernelPerceptron(kernel="precomputed", shuffle=False, max_epochs=max_epochs, device="cpu").fit(K, y)
    return kp.predict(K)


def _appendix_03_lstsq(X, y, alpha):
    """Appendix 03 cell 8's least squares: coefficients that rebuild (w, b), with no sign constraint."""
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    V = y[:, None] * np.c_[X, np.ones(len(X))]
    return np.linalg.lstsq(V.T, np.asarray(alpha, dtype=float) @ V, rcond=None)[0]


@pytest.mark.parametrize("gid,function,wrong", [
    ("ex1-merge-tests-values", "merge_duplicates", _lecture_05_copies),
    ("ex2-decay-tests-steps", "dual_train_decay", _engine_decay),
    ("ex3-loo-tests-values", "loo_predictions", _full_predictions),
    ("ex4-caratheodory-tests-values", "caratheodory", _appendix_03_lstsq),
])
def test_the_nearest_course_code_fails_each_exercise(gid, function, wrong):
    """What the exercise was designed against (issue 40), copied and wrapped, fails its visible and hidden tests."""
    assert _failing(gid, {function: wrong}) == ["visible", "hidden"]
    assert _failing(gid, {}) == []
