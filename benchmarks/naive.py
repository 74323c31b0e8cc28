"""A faithful naive kernel perceptron: the lecture's algorithm, written plainly.

The Gram matrix is filled by a Python double loop; at every visited sample the
decision value Σⱼ αⱼ yⱼ K[j, i] + b is recomputed from scratch (one dot product
over all training points); one-vs-rest trains one binary perceptron per class.
Same visiting orders as ``KernelPerceptron`` (``np.random.default_rng(seed)``,
one permutation per epoch), so the α must be identical.
"""

import numpy as np


def gram_double_loop(X, kernel):
    """K[i, j] = kernel(X[i], X[j]) with two Python loops (symmetric: half of them)."""
    n = len(X)
    K = np.empty((n, n))
    for i in range(n):
        for j in range(i, n):
            K[i, j] = K[j, i] = kernel(X[i], X[j])
    return K


def rbf(gamma):
    return lambda a, b: np.exp(-gamma * np.dot(a - b, a - b))


def poly(degree, gamma, coef0):
    return lambda a, b: (gamma * np.dot(a, b) + coef0) ** degree


def train_binary(K, y, orders, fit_intercept=True):
    n = len(y)
    alpha, b = np.zeros(n, dtype=np.int64), 0.0
    for order in orders:
        mistakes = 0
        for i in order:
            if y[i] * (np.dot(alpha * y, K[:, i]) + b) <= 0:
                alpha[i] += 1
                b += y[i] if fit_intercept else 0.0
                mistakes += 1
        if mistakes == 0:
            break
    return alpha, b


def fit(X, y, kernel, max_epochs, random_state):
    """All classes one-vs-rest; returns α of shape (n_classes or 1, n)."""
    K = gram_double_loop(X, kernel)
    rng = np.random.default_rng(random_state)
    orders = [rng.permutation(len(X)) for _ in range(max_epochs)]
    classes = np.unique(y)
    targets = [classes[1]] if len(classes) == 2 else classes
    return np.array([train_binary(K, np.where(y == c, 1.0, -1.0), orders)[0] for c in targets])
