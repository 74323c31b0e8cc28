"""Lesson 04's references, against the source's solutions and against independent computations.

``tests/test_exercises.py`` runs every declared mistake through every check that names it, and
``tests/test_lessons.py`` every source solution through every cell; here: the grader's references
agree with the solution cells of ``source/04-kernel-trick`` and with the definitions written out
the slow way (every subset listed, f evaluated as a sum over the training points), and the copies
of course code that each exercise was designed against fail it.
"""

from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from giveaway import solution
from judging import failing

from kpcourse import kernels
from kpcourse.grading.judge.trusted import load_grader

ROOT = Path(__file__).resolve().parents[1]
GRADER = load_grader(ROOT / "source" / "04-kernel-trick" / "grader.py")
SOLUTION = solution("04-kernel-trick")
REF = GRADER.REFERENCES


def _points(rng, n, d):
    return GRADER._halves(rng, (n, d))  # the hidden probes' own inputs: every value exact


def _brute_anova(X, Z, p):
    d = X.shape[1]
    return np.array([[sum(np.prod([x[k] * z[k] for k in S]) for S in combinations(range(d), p)) for z in Z]
                     for x in X])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_references_match_the_solutions_and_the_definitions(seed):
    rng = np.random.default_rng(seed)
    X, Z = _points(rng, 5, 4), _points(rng, 3, 4)
    K = REF["subset_kernel"](X, Z)
    np.testing.assert_allclose(SOLUTION["subset_kernel"](X, Z), K, rtol=1e-12)
    Phi_X, Phi_Z = REF["subset_features"](X), REF["subset_features"](Z)
    np.testing.assert_allclose(SOLUTION["subset_features"](X), Phi_X, rtol=1e-12)
    np.testing.assert_allclose(Phi_X @ Phi_Z.T, K, rtol=1e-12)                      # the features of the kernel
    by_degree = [REF["anova_kernel"](X, Z, p) for p in range(6)]
    for p, Kp in enumerate(by_degree):
        np.testing.assert_allclose(SOLUTION["anova_kernel"](X, Z, p), Kp, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(Kp, _brute_anova(X, Z, p), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(sum(by_degree), K, rtol=1e-12)                       # Σ_p k_p = Π (1 + x_k z_k)

    X_train, y = _points(rng, 7, 3), rng.choice([-1, 1], size=7)
    alpha, b = rng.integers(0, 4, size=7), 0.5
    A, v, c = REF["quadratic_form"](X_train, y, alpha, b)
    for got, want in zip(SOLUTION["quadratic_form"](X_train, y, alpha, b), (A, v, c), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(A, A.T)
    P = _points(rng, 20, 3)
    f = kernels.polynomial(P, X_train, degree=2, coef0=1.0) @ (alpha * y) + b
    np.testing.assert_allclose(np.einsum("ni,ij,nj->n", P, A, P) + P @ v + c, f, rtol=1e-10, atol=1e-10)


def _failing(gid, functions):
    return failing(GRADER, SOLUTION, gid, functions)


def _polynomial_power(X, Z):
    """kernels.polynomial with degree d: the nearest course code to exercise 1."""
    X = np.asarray(X, dtype=float)
    return kernels.polynomial(X, np.asarray(Z, dtype=float), degree=X.shape[1], coef0=1.0)


def _lecture_40_weights(X_train, y_train, alpha, b):
    """Lecture 04 cell 40 wrapped: the monomials' coefficients read off polynomial_features' weights,
    (1, x1, x2, x1², x1·x2, x2²) in 2-D, put into (A, v, c). Right in 2-D; the probes in 3-D defeat it."""
    X = np.asarray(X_train, dtype=float)
    w = (np.asarray(alpha) * np.asarray(y_train)) @ kernels.polynomial_features(X, degree=2, coef0=1.0)
    c = w * kernels.polynomial_features(np.ones((1, 2)), degree=2)[0]
    return np.array([[c[3], c[4] / 2], [c[4] / 2, c[5]]]), c[1:3], float(c[0] + b)


def _polynomial_features_square_free(X):
    return kernels.polynomial_features(np.asarray(X, dtype=float), degree=np.shape(X)[1], coef0=1.0)


@pytest.mark.parametrize("gid,function,wrong", [
    ("ex1-subsets-tests-values", "subset_kernel", _polynomial_power),
    ("ex2-quadform-tests-values", "quadratic_form", _lecture_40_weights),
    ("ex3-features-tests-values", "subset_features", _polynomial_features_square_free),
    ("ex4-anova-tests-small", "anova_kernel", lambda X, Z, p: kernels.polynomial(X, Z, degree=p, coef0=0.0)),
])
def test_the_nearest_course_code_fails_each_exercise(gid, function, wrong):
    """What the exercise was designed against (issue 40), copied and wrapped, fails its visible and hidden tests."""
    assert _failing(gid, {function: wrong}) == ["visible", "hidden"]
    assert _failing(gid, {}) == []
