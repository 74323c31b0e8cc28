"""Lesson 08: the timestamp trick's averaged α equals explicit per-step averaging.

The lecture (notebooks/08-margins-and-svm.ipynb) derives ᾱ = (α (T + 1) − τ) / T and checks it on
the banknotes; here the same identity is checked to 1e-12 on other data, kernels, seeds, with and
without a bias, and one-vs-rest, against an explicit average computed in the test itself: replay the
package's visiting orders (one ``rng.permutation(n)`` per epoch from ``default_rng(random_state)``),
apply the mistake rule y f(x) <= 0 one sample at a time and add α(t) to a running sum after every step.
"""

import numpy as np
import pytest

from kpcourse.perceptron import KernelPerceptron


def _noisy_blobs(n, n_classes, seed):
    """Overlapping Gaussian blobs with 15 % of the labels redrawn (not separable)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    centres = rng.normal(scale=1.5, size=(n_classes, 3))
    X = centres[y] + rng.normal(size=(n, 3))
    noisy = rng.random(n) < 0.15
    y[noisy] = rng.integers(0, n_classes, noisy.sum())
    return X, y


def _explicit_average(K, Y, epochs, seed, fit_intercept):
    """α and b averaged over every visited step, by brute force; Y of shape (n, C) in {-1, +1}."""
    n, C = Y.shape
    rng = np.random.default_rng(seed)
    alpha, bias = np.zeros((C, n)), np.zeros(C)
    alpha_sum, bias_sum, steps = np.zeros((C, n)), np.zeros(C), 0
    for _ in range(epochs):
        for i in rng.permutation(n):
            f = (alpha * Y.T) @ K[:, i] + bias
            wrong = Y[i] * f <= 0
            alpha[wrong, i] += 1
            if fit_intercept:
                bias[wrong] += Y[i, wrong]
            alpha_sum += alpha
            bias_sum += bias
            steps += 1
    return alpha, alpha_sum / steps, bias_sum / steps


def _gram(kernel, X):
    if kernel == "linear":
        return X @ X.T
    sq = (X ** 2).sum(1)
    return np.exp(-0.5 * np.maximum(sq[:, None] + sq[None, :] - 2 * X @ X.T, 0.0))  # sigma = 1


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_timestamp_average_equals_explicit_average_binary(kernel, fit_intercept, seed):
    X, y = _noisy_blobs(80, 2, seed)
    y_pm = 2 * y - 1
    params = {"sigma": 1.0} if kernel == "rbf" else {}
    m = KernelPerceptron(kernel=kernel, mode="averaged", max_epochs=5, fit_intercept=fit_intercept,
                         random_state=seed, device="cpu", **params).fit(X, y_pm)
    alpha, a_avg, b_avg = _explicit_average(_gram(kernel, X), y_pm[:, None], m.n_epochs_, seed, fit_intercept)
    assert m.alpha_avg_.max() > 0
    np.testing.assert_array_equal(m.alpha_, alpha[0])
    np.testing.assert_allclose(m.alpha_avg_, a_avg[0], rtol=0, atol=1e-12)
    assert abs(m.intercept_avg_ - b_avg[0]) <= 1e-12


def test_timestamp_average_equals_explicit_average_one_vs_rest():
    X, y = _noisy_blobs(90, 3, 7)
    m = KernelPerceptron(kernel="rbf", sigma=1.0, mode="averaged", max_epochs=4, random_state=3,
                         device="cpu").fit(X, y)
    Y = np.where(y[:, None] == np.arange(3)[None, :], 1.0, -1.0)
    alpha, a_avg, b_avg = _explicit_average(_gram("rbf", X), Y, m.n_epochs_, 3, True)
    np.testing.assert_array_equal(m.alpha_, alpha)
    np.testing.assert_allclose(m.alpha_avg_, a_avg, rtol=0, atol=1e-12)
    np.testing.assert_allclose(m.intercept_avg_, b_avg, rtol=0, atol=1e-12)
