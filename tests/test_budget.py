"""KernelPerceptron(budget=B): at most B support vectors, the oldest removed, exactly the per-sample rule.

The comparisons with the per-sample reference use small integer points and the polynomial
kernel (γ = 1, coef0 = 1): every kernel and decision value is an integer, exact in float64 in
any order of summation, so the mistakes (integers) must agree exactly. (With RBF values far
below 1, adding and later removing a column can leave a rounding residue that flips an
exact tie in either implementation.)
"""

from collections import deque

import numpy as np
import pytest

from kpcourse.kernels import polynomial
from kpcourse.perceptron import KernelPerceptron
from kpcourse.perceptron._common import Orders


def naive_budget(K, Y, budget, epochs, orders):
    """The per-sample rule with the oldest support vector removed after the step that makes one too many."""
    n, C = Y.shape
    alpha, fifo = np.zeros((C, n)), deque()
    for e in range(epochs):
        for i in orders[e]:
            f = (alpha * Y.T) @ (K[:, i] + 1.0)
            wrong = Y[i] * f <= 0
            if wrong.any():
                if not alpha[:, i].any():
                    fifo.append(i)
                alpha[wrong, i] += 1
                if len(fifo) > budget:
                    alpha[:, fifo.popleft()] = 0
    return alpha


def _data(n=300, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.integers(-2, 3, size=(n, 4)).astype(float)
    y = (X[:, 0] * X[:, 1] > 0).astype(int) + (X[:, 2] > 0)
    return X, y


POLY = {"kernel": "poly", "degree": 2, "gamma": 1.0, "coef0": 1.0}


def _K(A, B):
    return polynomial(A, B, degree=2, gamma=1.0, coef0=1.0)


@pytest.mark.parametrize("budget", [1, 15, 60])
@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("seed", [0, 2])
def test_budget_matches_the_per_sample_rule(budget, classes, seed):
    X, y = _data()
    if classes == 2:
        y = (y > 0).astype(int)
    m = KernelPerceptron(**POLY, budget=budget, max_epochs=4, random_state=seed).fit(X, y)
    Y = np.where(y[:, None] == np.unique(y)[None], 1.0, -1.0)
    if classes == 2:
        Y = Y[:, 1:]
    ref = naive_budget(_K(X, X), Y, budget, m.n_epochs_, Orders(len(X), True, seed))
    np.testing.assert_array_equal(np.atleast_2d(m.alpha_), ref)  # mistake counts: integers
    assert len(m.support_) <= budget and m.removed_ > 0
    # the bias is Σ α y over the support vectors kept (floats: to 1e-12)
    np.testing.assert_allclose(np.atleast_1d(m.intercept_), (ref * Y.T).sum(1), atol=1e-12)
    # decision values: the kept support vectors only (floats, 1e-9 relative)
    K = _K(X[:20], X)
    want = (K + 1.0) @ (ref * Y.T).T
    got = m.decision_function(X[:20])
    np.testing.assert_allclose(np.atleast_2d(got.T).T if got.ndim == 2 else got[:, None], want, rtol=1e-9,
                               atol=1e-9)
    staged = list(m.staged_decision_function(X[:20]))[-1]
    np.testing.assert_allclose(staged, got, rtol=1e-9, atol=1e-9)


def test_large_budget_changes_nothing_and_precomputed_agrees():
    X, y = _data()
    kw = {"max_epochs": 4, "random_state": 2}
    free = KernelPerceptron(kernel="rbf", gamma=0.5, **kw).fit(X, y)
    big = KernelPerceptron(kernel="rbf", gamma=0.5, budget=len(X), **kw).fit(X, y)
    np.testing.assert_array_equal(free.alpha_, big.alpha_)
    assert big.removed_ == 0
    small = KernelPerceptron(**POLY, budget=10, **kw).fit(X, y)
    pre = KernelPerceptron(kernel="precomputed", budget=10, **kw).fit(_K(X, X), y)
    np.testing.assert_array_equal(small.alpha_, pre.alpha_)


def test_store_small_with_a_budget():
    X, y = _data(400)
    # room for 100 columns of 400 float64: enough for budget + 64, and a budget run never needs more
    m = KernelPerceptron(kernel="rbf", gamma=0.5, budget=20, max_epochs=3, random_state=0,
                         max_memory=100 * 400 * 8).fit(X, y)
    assert m.precision_ == "float64" and len(m.support_) <= 20


@pytest.mark.parametrize("kwargs, err, match", [
    ({"budget": 0}, ValueError, ">= 1"),
    ({"budget": 2.5}, TypeError, "integer"),
    ({"budget": 5, "mode": "averaged"}, ValueError, "mode='last'"),
    ({"budget": 5, "mode": "voted"}, ValueError, "mode='last'"),
])
def test_bad_budget_named(kwargs, err, match):
    X, y = _data(50)
    with pytest.raises(err, match=match):
        KernelPerceptron(**kwargs).fit(X, y)


def test_staged_averaged_refused_with_a_budget():
    X, y = _data(50)
    m = KernelPerceptron(kernel="rbf", gamma=0.5, budget=5, max_epochs=2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="budget"):
        next(m.staged_decision_function(X, mode="averaged"))


def test_staged_scores_are_the_models_after_each_epoch():
    # the support vectors of earlier epochs were removed since: the staged scores still use them
    X, y = _data()
    m3 = KernelPerceptron(**POLY, budget=15, max_epochs=3, random_state=0).fit(X, y)
    staged = list(m3.staged_decision_function(X[:40]))
    for e in (1, 2):
        m = KernelPerceptron(**POLY, budget=15, max_epochs=e, random_state=0).fit(X, y)
        np.testing.assert_allclose(staged[e - 1], m.decision_function(X[:40]), rtol=1e-12, atol=1e-9)
