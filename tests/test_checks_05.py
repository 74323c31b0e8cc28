"""Lesson 05's references, against the source's solutions and against independent computations.

``tests/test_exercises.py`` runs every declared mistake through every check that names it, and
``tests/test_lessons.py`` every source solution through every cell; here: the grader's references
agree with the solution cells of ``source/05-rbf-kernel`` and with the package's kernel (the
series converges to it), the alignments with their definition written with matrices, the bound
with Novikoff's argument, the flips with a brute-force scan, and the copies of course code that
each exercise was designed against fail it.
"""

from math import factorial
from pathlib import Path

import numpy as np
import pytest
from giveaway import solution
from judging import failing

from kpcourse import kernels
from kpcourse.checks import lesson05 as checks
from kpcourse.grading.judge.trusted import load_grader

ROOT = Path(__file__).resolve().parents[1]
GRADER = load_grader(ROOT / "source" / "05-rbf-kernel" / "grader.py")
SOLUTION = solution("05-rbf-kernel")
REF = GRADER.REFERENCES


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_references_match_the_solutions_and_the_definitions(seed):
    rng = np.random.default_rng(seed)
    X, Z = GRADER._halves(rng, (5, 3)), GRADER._halves(rng, (4, 3))

    # exercise 1: the series term by term, and the whole kernel at a high degree
    for degree in (0, 3, 7):
        K = REF["rbf_truncated"](X, Z, 1.5, degree)
        np.testing.assert_allclose(SOLUTION["rbf_truncated"](X, Z, 1.5, degree), K, rtol=1e-12)
        env = np.exp(-(X ** 2).sum(1)[:, None] / 4.5 - (Z ** 2).sum(1)[None, :] / 4.5)
        series = sum((X @ Z.T / 2.25) ** n / factorial(n) for n in range(degree + 1))
        np.testing.assert_allclose(K, env * series, rtol=1e-12)
    np.testing.assert_allclose(REF["rbf_truncated"](X, Z, 1.5, 60), kernels.rbf(X, Z, sigma=1.5), rtol=1e-10)

    # exercise 2: the alignments as cosines of flattened matrices
    Xr, yr = GRADER._rings(rng, 10, 40)
    sigmas = [0.2, 0.5, 2.0]
    raw, centred, best = REF["kernel_alignment"](Xr, yr, sigmas)
    for got, want in zip(SOLUTION["kernel_alignment"](Xr, yr, sigmas), (raw, centred, best), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-10)
    H = np.eye(50) - 1 / 50
    for s, r, c in zip(sigmas, raw, centred, strict=True):
        K, Y = kernels.rbf(Xr, sigma=s), np.outer(yr, yr)
        pairs = ((K, Y), (H @ K @ H, H @ Y @ H))
        cos = [np.dot(A.ravel(), B.ravel()) / np.linalg.norm(A) / np.linalg.norm(B) for A, B in pairs]
        np.testing.assert_allclose((r, c), cos, rtol=1e-10)
    assert best == sigmas[int(np.argmax(centred))]

    # exercise 3: the interpolant, and its margin turned into Novikoff's bound
    probe = GRADER._conditioned(rng, 8, 2, 1.0)
    Xb, yb, s = probe.args
    bound, c = REF["interpolation_bound"](Xb, yb, s)
    np.testing.assert_allclose(SOLUTION["interpolation_bound"](Xb, yb, s)[0], bound, rtol=1e-9)
    K = kernels.rbf(Xb, sigma=s)
    np.testing.assert_allclose(K @ c, yb, atol=1e-9)
    norm = np.sqrt(c @ K @ c)
    gamma = np.min(yb * (K @ c)) / norm
    assert bound == pytest.approx(1 / gamma ** 2, rel=1e-9)

    # exercise 4: a brute-force scan of the plain score, where it does not underflow
    flips = GRADER._flips(rng, int(rng.integers(1, 3)), lo=0.2, hi=20.0)
    Xf, yf, af, q, lo, hi = flips.args
    roots = REF["sign_changes"](*flips.args)
    np.testing.assert_allclose(SOLUTION["sign_changes"](*flips.args), roots, rtol=1e-9)
    grid = np.geomspace(lo, hi, 400_001)
    plain = (af * yf * np.exp(-((Xf - q) ** 2).sum(1)[None, :] / (2 * grid[:, None] ** 2))).sum(1)
    brute = grid[np.flatnonzero(plain[:-1] * plain[1:] < 0)]
    np.testing.assert_allclose(roots, brute, rtol=1e-4)


def test_the_visible_facts_that_the_notebook_states():
    """The numbers the exercises' text and the written answer give."""
    x = np.array([[1.0, 0.0]])
    assert REF["rbf_truncated"](x, x, 1.0, 1)[0, 0] == pytest.approx(2 / np.e, rel=1e-12)
    raw, _, _ = REF["kernel_alignment"](*checks.RINGS, [1000.0])
    assert raw[0] == pytest.approx(0.64, abs=1e-4)                      # the constant kernel's alignment
    X, y, a = checks.MSDN["X"], checks.MSDN["y"], checks.MSDN["alpha"]
    assert len(REF["sign_changes"](X, y, a, np.array([3.0, 4.0]), 0.01, 100.0)) == 1
    assert len(REF["sign_changes"](X, y, a, checks.MSDN["query"], 0.01, 100.0)) == 0
    c = a * y
    assert c.sum() == 0
    assert [int(c @ ((X - q) ** 2).sum(1)) for q in ([3.0, 4.0], [3.0, 6.0])] == [1, -15]
    assert (c @ X).tolist() == [-3, 4] and c @ (X ** 2).sum(1) == 15        # the line -3 x1 + 4 x2 = 7.5
    far = [np.sign(c @ kernels.rbf(X, np.array([q]), sigma=100.0)[:, 0]) for q in ([3.0, 4.0], [3.0, 6.0])]
    assert far == [-1, 1]
    assert REF["sign_changes"](X, y, a, np.array([3.0, 4.0]), 0.01, 100.0)[0] == pytest.approx(
        np.sqrt(-1 / (2 * np.log((np.sqrt(7) - 1) / 2))), rel=1e-9)  # 3u - 5u² + 2u⁴ = 0 at u = (√7 - 1)/2


def _failing(gid, functions):
    return failing(GRADER, SOLUTION, gid, functions)


def _the_whole_kernel(X, Z, sigma, degree):
    """kernels.rbf: the series summed to the end."""
    return kernels.rbf(np.asarray(X, dtype=float), np.asarray(Z, dtype=float), sigma=sigma)


def _sweep_by_training(X, y, sigmas):
    """Lecture 05 cells 44-46: a model per σ, scored by its training error (no alignment)."""
    from kpcourse.perceptron import KernelPerceptron

    errors = np.array([np.mean(KernelPerceptron(kernel="rbf", sigma=s, max_epochs=10, random_state=0, device="cpu")
                               .fit(X, y).predict(X) != y) for s in sigmas])
    return 1 - errors, 1 - errors, float(np.asarray(sigmas)[np.argmin(errors)])


def _appendix_04_bound(X, y, sigma):
    """Appendix 04 cell 3's mistake_bound (an SVM's separator for the kernel k + 1), on the Gaussian Gram matrix."""
    from sklearn.svm import SVC

    X, y = np.asarray(X, dtype=float), np.asarray(y)
    K = kernels.rbf(X, sigma=sigma)
    K1 = K + 1.0
    svm = SVC(kernel="precomputed", C=1e6).fit(K1, y)
    c = np.zeros(len(y))
    c[svm.support_] = svm.dual_coef_[0]
    norm = np.sqrt(c @ K @ c + (c.sum() + svm.intercept_[0]) ** 2)
    gamma = np.min(y * (K1 @ c + svm.intercept_[0])) / norm
    return float(np.max(np.diag(K1)) / gamma ** 2), c


def _lecture_score_at_one_sigma(X, y, alpha, query, lo, hi):
    """Lecture 05 cells 8-12 at both ends of the range: a flip reported where the two signs differ."""
    def score(s):
        return np.sum(alpha * y * np.exp(-((np.asarray(X) - query) ** 2).sum(1) / (2 * s ** 2)))
    return np.array([np.sqrt(lo * hi)]) if score(lo) * score(hi) < 0 else np.array([])


@pytest.mark.parametrize("gid,function,wrong", [
    ("ex1-truncated-tests-values", "rbf_truncated", _the_whole_kernel),
    ("ex2-alignment-tests-choice", "kernel_alignment", _sweep_by_training),
    ("ex3-bound-tests-values", "interpolation_bound", _appendix_04_bound),
    ("ex4-flips-tests-several", "sign_changes", _lecture_score_at_one_sigma),
])
def test_the_nearest_course_code_fails_each_exercise(gid, function, wrong):
    """What the exercise was designed against (issue 41), copied and wrapped, fails its visible and hidden tests."""
    assert _failing(gid, {function: wrong}) == ["visible", "hidden"]
    assert _failing(gid, {}) == []
