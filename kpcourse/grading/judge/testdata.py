"""Test data for hidden tests (grader side): random problems with known properties."""

from __future__ import annotations

import numpy as np

__all__ = ["random_separable", "separable_gram", "new_seed"]


def random_separable(n, n_features=2, *, margin=0.1, offset=True, scale=1.0, random_state=0):
    """Random points that a hyperplane separates with a margin, labels in {-1, +1}.

    Points are uniform in [-1, 1]^d (times ``scale``); the labels are
    ``sign(u · x + c)`` for a random unit vector ``u`` and offset ``c`` (0 when
    ``offset`` is False); points closer than ``margin * scale`` to the hyperplane
    are redrawn, so the perceptron converges.

    Parameters
    ----------
    n : int
    n_features : int, default=2
    margin : float, default=0.1
    offset : bool, default=True
    scale : float, default=1.0
    random_state : int, default=0

    Returns
    -------
    X : ndarray of shape (n, n_features)
    y : ndarray of shape (n,), int64
        Both classes are present.
    """
    rng = np.random.default_rng(random_state)
    u = rng.normal(size=n_features)
    u /= np.linalg.norm(u)
    c = rng.uniform(-0.3, 0.3) if offset else 0.0
    while True:
        X = rng.uniform(-1.0, 1.0, size=(4 * n + 20, n_features))
        s = X @ u + c
        X, s = X[np.abs(s) >= margin][:n], s[np.abs(s) >= margin][:n]
        if len(X) == n and len(np.unique(np.sign(s))) == 2:
            return scale * X, np.where(s > 0, 1, -1).astype(np.int64)


def separable_gram(n, n_features=2, **kwargs):
    """The linear Gram matrix X Xᵀ of :func:`random_separable` (same arguments) and its labels."""
    X, y = random_separable(n, n_features, **kwargs)
    return X @ X.T, y


def new_seed(rng):
    """A seed drawn from ``rng``, for a helper that takes ``random_state`` (a fresh problem per draw)."""
    return int(rng.integers(2**31))
