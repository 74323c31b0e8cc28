"""Lesson 08's references, against the source's solutions and against independent computations.

``tests/test_exercises.py`` runs every declared mistake through every check that names it, and
``tests/test_lessons.py`` every source solution through every cell; here: the grader's references
agree with the solution cells of ``source/08-margins-and-svm`` and with brute force (the KKT
conditions point by point, Pegasos's primal run on explicit features, the weighted average by a
loop over every step), the quiz's numbers that the notebook states, and the copies of course code
that each exercise was designed against fail it.
"""

from pathlib import Path

import numpy as np
import pytest
from giveaway import solution
from judging import failing

from kpcourse.checks import lesson08 as checks
from kpcourse.grading.judge.trusted import load_grader

ROOT = Path(__file__).resolve().parents[1]
GRADER = load_grader(ROOT / "source" / "08-margins-and-svm" / "grader.py")
SOLUTION = solution("08-margins-and-svm")
REF = GRADER.REFERENCES


def _kkt_by_hand(K, y, alpha, b, C, tol):
    """Each point's condition tested on its own, then sorted by (violation, index)."""
    found = []
    for i in range(len(y)):
        m = y[i] * (sum(alpha[j] * y[j] * K[j, i] for j in range(len(y))) + b)
        if alpha[i] <= tol * C:
            v = 1 - m
        elif alpha[i] >= (1 - tol) * C:
            v = m - 1
        else:
            v = abs(m - 1)
        if v > tol:
            found.append((-v, i))
    return [i for _, i in sorted(found)]


def _pegasos_primal(Z, y, lam, steps):
    """The primal rule on explicit features; returns how many times each point triggered an update."""
    w, count = np.zeros(Z.shape[1]), np.zeros(len(y), dtype=int)
    for t, i in enumerate(steps, start=1):
        violated = y[i] * (w @ Z[i]) < 1
        w = (1 - 1 / t) * w
        if violated:
            w = w + y[i] * Z[i] / (lam * t)
            count[i] += 1
    return count, w


def _ema_by_steps(steps, index, label, n, T, rho):
    """The weighted average by a loop over every step (small T only)."""
    alpha, b, total_a, total_b, weights = np.zeros(n), 0.0, np.zeros(n), 0.0, 0.0
    at = dict(zip(steps, zip(index, label, strict=True), strict=True))
    for t in range(1, T + 1):
        if t in at:
            i, y = at[t]
            alpha[i] += 1
            b += y
        w = rho ** (T - t)
        total_a, total_b, weights = total_a + w * alpha, total_b + w * b, weights + w
    return total_a / weights, total_b / weights


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_references_match_the_solutions_and_brute_force(seed):
    rng = np.random.default_rng(seed)
    for probe in (*GRADER._kkt_values(rng), GRADER._kkt_edges(rng)[0]):
        want = REF["kkt_violations"](*probe.args)
        assert want.tolist() == _kkt_by_hand(*probe.args)
        assert SOLUTION["kkt_violations"](*probe.args).tolist() == want.tolist()

    X = rng.normal(size=(12, 2))
    Z, y = np.c_[X, np.ones(12)], np.where(X[:, 0] + 0.3 * rng.normal(size=12) > 0, 1.0, -1.0)
    steps = rng.integers(0, 12, size=300).tolist()
    count, w = _pegasos_primal(Z, y, 0.05, steps)
    alpha = REF["kernel_pegasos"](Z @ Z.T, y, 0.05, steps)
    np.testing.assert_array_equal(alpha, count)
    np.testing.assert_allclose((alpha * y) @ Z / (0.05 * len(steps)), w, atol=1e-9)  # w_{T+1} = Σ α y φ / (λT)
    for probe in (*GRADER._pegasos_quiz(rng), GRADER._pegasos_steps(rng)[0]):
        np.testing.assert_array_equal(SOLUTION["kernel_pegasos"](*probe.args), REF["kernel_pegasos"](*probe.args))

    for probe in (*GRADER._nested_values(rng), GRADER._nested_inputs(rng)[0]):
        for got, want in zip(SOLUTION["nested_cv"](*probe.args), REF["nested_cv"](*probe.args), strict=True):
            np.testing.assert_array_equal(got, want)

    for rho in (0.5, 0.9, 1.0):
        steps, index, label = GRADER._log(rng, 4, 40, 10)
        args = (steps.tolist(), index.tolist(), label.tolist(), 4, 40, rho)
        want = _ema_by_steps(*args)
        for got in (REF["ema_average"](*args), SOLUTION["ema_average"](*args)):
            np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
            assert got[1] == pytest.approx(want[1], rel=1e-12, abs=1e-12)


def test_the_visible_facts_that_the_notebook_states():
    """The quiz's Pegasos runs of the written question and the examples of the exercises."""
    alpha = REF["kernel_pegasos"](checks.KQ, checks.YQ, 1 / 2400, checks.QUIZ_STEPS)
    assert {int(i): int(alpha[i]) for i in np.flatnonzero(alpha)} == {0: 1, 1: 1, 4: 2, 8: 6, 13: 5}
    f = (alpha * checks.YQ) @ checks.KQ / (2000 / 2400)
    assert (checks.YQ * f).min() == pytest.approx(0.28, abs=0.005)
    alpha = REF["kernel_pegasos"](checks.KQ, checks.YQ, 1 / 2400, [t % 20 for t in range(200_000)])
    assert {int(i): int(alpha[i]) for i in np.flatnonzero(alpha)} == {0: 1, 1: 93, 4: 2, 8: 648, 13: 365}
    assert (alpha[8] + alpha[13]) / alpha.sum() == pytest.approx(0.91, abs=0.005)
    f = (alpha * checks.YQ) @ checks.KQ / (200_000 / 2400)
    assert (checks.YQ * f).min() == pytest.approx(1.01, abs=0.005)
    assert REF["ema_average"]([2], [0], [1], 1, 2, 0.5)[0][0] == pytest.approx(1 / 1.5)
    assert REF["ema_average"]([1], [0], [1], 1, 2, 0.5)[0][0] == pytest.approx(1.0)


def test_the_quiz_support_vectors_the_written_question_quotes():
    """scikit-learn's SVM on the quiz: {8, 13} with a free intercept, {1, 8, 13} with the bias penalised."""
    pytest.importorskip("sklearn")
    from sklearn.svm import SVC, LinearSVC

    from kpcourse.datasets import quiz_points, quiz_transform

    X, y = quiz_points()
    Z = quiz_transform(X)
    assert sorted(SVC(kernel="linear", C=120).fit(Z[:, :2], y).support_.tolist()) == [8, 13]
    svm = LinearSVC(fit_intercept=False, loss="hinge", C=120, max_iter=1_000_000, tol=1e-10).fit(Z, y)
    assert np.flatnonzero(y * (Z @ svm.coef_[0]) <= 1 + 1e-3).tolist() == [1, 8, 13]


def _failing(gid, functions):
    return failing(GRADER, SOLUTION, gid, functions)


def _appendix_groups(K, y, alpha, b, C, tol):
    """Appendix 08 cell 3's reading: the points whose margin is off for their group, by index."""
    m = y * (K @ (alpha * y) + b)
    return np.flatnonzero(((alpha == 0) & (m < 1)) | ((alpha == C) & (m > 1)) | ((alpha > 0) & (alpha < C)
                                                                               & (m != 1)))


def _margin_perceptron(K, y, lam, steps):
    """Lecture 08 cell 20's margin perceptron (update on y f <= tau, tau = 1, no scale) on the steps."""
    alpha, s = np.zeros(len(y), dtype=int), np.zeros(len(y))
    for i in steps:
        if y[i] * s[i] <= 1:
            alpha[i] += 1
            s += y[i] * K[i]
    return alpha


def _one_level(X, y, sigmas, k_out, k_in, seed):
    """Lecture 08 cells 27-29's one level: σ by k_out-fold CV on all the data, its CV error reported."""
    fit_predict = SOLUTION["fit_predict"]
    folds = np.array_split(np.random.default_rng(seed).permutation(len(y)), k_out)

    def cv(s):
        return [float(np.mean(fit_predict(X[np.concatenate([folds[p] for p in range(k_out) if p != q])],
                                          y[np.concatenate([folds[p] for p in range(k_out) if p != q])],
                                          X[folds[q]], s) != y[folds[q]])) for q in range(k_out)]
    scores = [np.mean(cv(s)) for s in sigmas]
    best = float(np.asarray(sigmas)[int(np.argmin(scores))])
    return np.array(cv(best)), np.full(k_out, best)


def _timestamp_trick(steps, index, label, n, T, rho):
    """The package's replay and lecture 08's cell tagged timestamp: equal weights, whatever ρ."""
    weight = (T - np.asarray(steps, dtype=float) + 1) / T
    return np.bincount(np.asarray(index), weights=weight, minlength=n), float(np.asarray(label) @ weight)


@pytest.mark.parametrize("gid,function,wrong", [
    ("ex1-kkt-tests-values", "kkt_violations", _appendix_groups),
    ("ex1-kkt-tests-edges", "kkt_violations", _appendix_groups),
    ("ex2-pegasos-tests-runs", "kernel_pegasos", _margin_perceptron),
    ("ex2-pegasos-tests-steps", "kernel_pegasos", _margin_perceptron),
    ("ex3-nested-tests-values", "nested_cv", _one_level),
    ("ex3-nested-tests-inputs", "nested_cv", _one_level),
    ("ex4-ema-tests-small", "ema_average", _timestamp_trick),
    ("ex4-ema-tests-large", "ema_average", _timestamp_trick),
])
def test_the_nearest_course_code_fails_each_exercise(gid, function, wrong):
    """What the exercise was designed against (issue 42), copied and wrapped, fails its visible and hidden tests."""
    assert _failing(gid, {function: wrong}) == ["visible", "hidden"]
    assert _failing(gid, {}) == []
