"""kpcourse.checks, lesson 06: every diagnosis passes the model solution and names each mistake.

The right functions are the model solutions of assignment 06; each wrong one makes a
single common mistake. Messages must name the mistake and never contain the expected
numbers. The memory test measures with tracemalloc, so an untiled Gram matrix fails it.
"""

import numpy as np
import pytest

from kpcourse import checks
from kpcourse.gram import gram_matrix
from kpcourse.perceptron import KernelPerceptron


def _message(func, *args, **kwargs):
    with pytest.raises(AssertionError) as info:
        func(*args, **kwargs)
    return str(info.value)


# --------------------------------------------------------------------------- #
# Exercise 1: tiled_rbf_gram
# --------------------------------------------------------------------------- #

def make_tiled(clamp=True, tiled=True, last_block=True, gamma_is_sigma=False, check=True):
    def tiled_rbf_gram(X, Z, sigma, max_bytes):
        X, Z = np.asarray(X, dtype=float), np.asarray(Z, dtype=float)
        n, m = len(X), len(Z)
        if check and X.shape[1] != Z.shape[1]:
            raise ValueError("X and Z need the same number of columns")
        block = max_bytes // (4 * 8 * m)
        if check and block < 1:
            raise ValueError("max_bytes cannot hold one row")
        block = max(block, 1)
        scale = sigma if gamma_is_sigma else 1.0 / (2.0 * sigma ** 2)
        if not tiled:
            d2 = (X * X).sum(1)[:, None] - 2.0 * X @ Z.T + (Z * Z).sum(1)[None, :]
            return np.exp(-scale * (np.maximum(d2, 0.0) if clamp else d2))
        K = np.empty((n, m))
        zz = (Z * Z).sum(1)
        stop = n if last_block else n - n % block if n % block else n - block
        for a in range(0, stop, block):
            B = X[a:a + block]
            d2 = (B * B).sum(1)[:, None] - 2.0 * B @ Z.T + zz[None, :]
            if clamp:
                np.maximum(d2, 0.0, out=d2)
            K[a:a + block] = np.exp(-scale * d2)
        if not last_block:
            K[stop:] = 0.0
        return K
    return tiled_rbf_gram


def test_tiled_model_solution_passes():
    checks.diagnose_tiled_gram(make_tiled())


def test_tiled_agrees_with_the_package():
    X, Z = np.random.default_rng(0).normal(size=(30, 4)), np.random.default_rng(1).normal(size=(20, 4))
    K = make_tiled()(X, Z, 0.7, 4 * 8 * 20 * 3)
    np.testing.assert_allclose(K, gram_matrix(X, Z, kernel="rbf", sigma=0.7, device="cpu"), rtol=1e-12)


def test_tiled_without_clamp_fails_only_the_clamp_aspect():
    f = make_tiled(clamp=False)
    checks.diagnose_tiled_gram(f, aspect="values")
    checks.diagnose_tiled_gram(f, aspect="memory")
    msg = _message(checks.diagnose_tiled_gram, f, aspect="clamp")
    assert "clamp the squared distances at 0" in msg


def test_untiled_fails_only_the_memory_aspect():
    f = make_tiled(tiled=False)
    checks.diagnose_tiled_gram(f, aspect="values")
    checks.diagnose_tiled_gram(f, aspect="clamp")
    msg = _message(checks.diagnose_tiled_gram, f, aspect="memory")
    assert "over the budget" in msg and "block by block" in msg


def test_tiled_names_value_mistakes():
    assert "sigma as γ" in _message(checks.diagnose_tiled_gram, make_tiled(gamma_is_sigma=True), aspect="values")
    assert "last, shorter block" in _message(checks.diagnose_tiled_gram, make_tiled(last_block=False),
                                             aspect="values")
    assert "should raise ValueError" in _message(checks.diagnose_tiled_gram, make_tiled(check=False),
                                                 aspect="values")


def test_tiled_reference_call_gets_no_credit():
    def tiled_rbf_gram(X, Z, sigma, max_bytes):
        return gram_matrix(X, Z, kernel="rbf", sigma=sigma, device="cpu")
    for aspect in ("values", "clamp", "memory"):
        msg = _message(checks.diagnose_tiled_gram, tiled_rbf_gram, aspect=aspect)
        assert "calling kpcourse.gram.gram_matrix gets no credit" in msg


def test_peak_memory_sees_numpy_allocations():
    _, peak = checks.peak_memory(np.ones, (1000, 1000))
    assert 8_000_000 <= peak < 8_200_000


# --------------------------------------------------------------------------- #
# Exercise 2: train_incremental
# --------------------------------------------------------------------------- #

def make_incremental(variant="right", check=True):
    def train_incremental(K, y, max_epochs=10):
        K, y = np.asarray(K, dtype=float), np.asarray(y)
        n = len(y)
        if check and K.shape != (n, n):
            raise ValueError("K must be (n, n)")
        alpha, b, F = np.zeros(n, dtype=int), 0.0, np.zeros(n)
        for _ in range(max_epochs):
            made = 0
            for i in range(n):
                if y[i] * F[i] <= 0:
                    alpha[i] += 1
                    b += y[i]
                    made += 1
                    if variant == "only_current":
                        F[i] += y[i] * (K[i, i] + 1.0)
                    elif variant == "no_bias":
                        F += y[i] * K[:, i]
                    else:
                        F += y[i] * (K[:, i] + 1.0)
            if made == 0:
                break
        return alpha, b
    return train_incremental


def test_incremental_model_solution_passes_and_matches_the_package():
    f = make_incremental()
    checks.diagnose_incremental(f)
    X, y = checks.random_separable(50, 3, random_state=3)
    K = X @ X.T
    alpha, b = f(K, y, 100)
    ref = KernelPerceptron(kernel="precomputed", shuffle=False, max_epochs=100, device="cpu").fit(K, y)
    np.testing.assert_array_equal(alpha, ref.alpha_)
    assert b == ref.intercept_


def test_incremental_without_bias_fails_only_the_bias_aspect():
    f = make_incremental("no_bias")
    checks.diagnose_incremental(f, aspect="counts")
    checks.diagnose_incremental(f, aspect="first")
    assert "your decision values ignore the bias" in _message(checks.diagnose_incremental, f, aspect="bias")


def test_incremental_only_current_keeps_the_first_epoch_aspect():
    f = make_incremental("only_current")
    checks.diagnose_incremental(f, aspect="first")
    for aspect in ("counts", "bias"):
        assert "updated only the decision value" in _message(checks.diagnose_incremental, f, aspect=aspect)


def test_incremental_missing_value_error_is_named():
    msg = _message(checks.diagnose_incremental, make_incremental(check=False), aspect="counts")
    assert "should raise ValueError" in msg


def test_incremental_reference_call_gets_no_credit():
    def train_incremental(K, y, max_epochs=10):
        m = KernelPerceptron(kernel="precomputed", shuffle=False, max_epochs=max_epochs, device="cpu")
        m.fit(K, y)
        return m.alpha_, m.intercept_
    msg = _message(checks.diagnose_incremental, train_incremental, aspect="counts")
    assert "gets no credit" in msg
