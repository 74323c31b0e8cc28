"""Random toy sets with an exactly known boundary.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._validation import check_int, check_positive


def _check_random_state(random_state):
    """Return a ``np.random.Generator`` for None, an int, a SeedSequence or a Generator."""
    if random_state is None or isinstance(random_state, np.random.SeedSequence):
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be a non-negative integer, got {random_state}.")
        return np.random.default_rng(int(random_state))
    raise TypeError(
        "random_state must be None, a non-negative int or a numpy.random.Generator, "
        f"got {type(random_state).__name__}: {random_state!r}."
    )


def circles(n, *, noise=0.1, factor=0.5, random_state=None):
    """A ring inside a ring: two classes no straight line separates.

    Outer circle of radius 1 (label +1) and inner circle of radius ``factor``
    (label -1), each point at an evenly spaced angle, then moved by Gaussian noise
    of standard deviation ``noise`` and shuffled:
    ``x = r (cos t, sin t) + noise * N(0, I)``.

    Parameters
    ----------
    n : int
        Number of points, >= 2; ``n // 2`` lie on the outer ring, the rest inside.
    noise : float, default=0.1
        Standard deviation of the Gaussian noise added to each coordinate, >= 0.
    factor : float, default=0.5
        Radius of the inner ring relative to the outer one, 0 < factor < 1.
    random_state : None, int or numpy.random.Generator, default=None
        Seed or generator; ``None`` draws fresh entropy. The global RNG is never used.

    Returns
    -------
    X : ndarray of shape (n, 2), dtype float64
    y : ndarray of shape (n,), dtype int64
        +1 on the outer ring, -1 on the inner ring.

    Examples
    --------
    >>> X, y = circles(100, random_state=0)
    >>> X.shape, int((y == 1).sum()), int((y == -1).sum())
    ((100, 2), 50, 50)

    Lesson 04 (the kernel trick).
    """
    n = check_int(n, "n", minimum=2)
    noise = check_positive(noise, "noise", strict=False)
    factor = check_positive(factor, "factor")
    if factor >= 1:
        raise ValueError(f"factor must be between 0 and 1 (exclusive), got {factor!r}.")
    rng = _check_random_state(random_state)
    n_out = n // 2
    n_in = n - n_out
    t_out = np.linspace(0.0, 2 * np.pi, n_out, endpoint=False)
    t_in = np.linspace(0.0, 2 * np.pi, n_in, endpoint=False)
    X = np.vstack([
        np.column_stack([np.cos(t_out), np.sin(t_out)]),
        factor * np.column_stack([np.cos(t_in), np.sin(t_in)]),
    ])
    y = np.concatenate([np.ones(n_out, dtype=np.int64), -np.ones(n_in, dtype=np.int64)])
    if noise > 0:
        X = X + rng.normal(scale=noise, size=X.shape)
    order = rng.permutation(n)
    return X[order], y[order]


def unit_disc(n, *, margin=0.0, random_state=None):
    """Points uniform in the square [-2, 2]², labelled by the unit circle.

    ``y = -1`` inside the unit circle (||x|| < 1) and ``+1`` outside. With
    ``margin > 0`` points with ``| ||x|| - 1 | < margin`` are rejected and redrawn,
    so the circle separates the classes with a gap of ``2 * margin``.

    Parameters
    ----------
    n : int
        Number of points, >= 1.
    margin : float, default=0.0
        Half-width of the empty band around the circle, 0 <= margin < 1.
    random_state : None, int or numpy.random.Generator, default=None
        Seed or generator; ``None`` draws fresh entropy. The global RNG is never used.

    Returns
    -------
    X : ndarray of shape (n, 2), dtype float64
    y : ndarray of shape (n,), dtype int64
        -1 inside the unit circle, +1 outside. About 20 % of the points
        (pi / 16 of the square) fall inside, so a very small ``n`` may hold one class.

    Examples
    --------
    >>> X, y = unit_disc(500, margin=0.1, random_state=0)
    >>> r = np.linalg.norm(X, axis=1)
    >>> bool(np.all(r[y == -1] < 0.9) and np.all(r[y == 1] > 1.1))
    True

    Lesson 04 (the kernel trick).
    """
    n = check_int(n, "n", minimum=1)
    margin = check_positive(margin, "margin", strict=False)
    if margin >= 1:
        raise ValueError(f"margin must be smaller than 1 (the circle's radius), got {margin!r}.")
    rng = _check_random_state(random_state)
    kept = []
    n_kept = 0
    while n_kept < n:
        batch = rng.uniform(-2.0, 2.0, size=(2 * (n - n_kept) + 16, 2))
        r = np.linalg.norm(batch, axis=1)
        batch = batch[np.abs(r - 1.0) >= margin] if margin > 0 else batch
        kept.append(batch)
        n_kept += len(batch)
    X = np.vstack(kept)[:n]
    y = np.where(np.linalg.norm(X, axis=1) < 1.0, -1, 1).astype(np.int64)
    return X, y


# ----------------------------------------------- three sets whose best kernels differ
def _placed(rng, X):
    """``X`` turned by a random rotation, each feature rescaled by 0.5 to 2 and shifted: its shape kept, its
    axes lost."""
    d = X.shape[1]
    Q, R = np.linalg.qr(rng.normal(size=(d, d)))
    X = X @ (Q * np.sign(np.diag(R))) * np.exp(rng.uniform(np.log(0.5), np.log(2.0), size=d))
    return X + rng.normal(scale=3.0, size=d)


def _shape(n, d, smallest):
    n, d = check_int(n, "n", minimum=3), check_int(d, "d", minimum=smallest)
    if d > 1_000 or n * d > 10_000_000:  # the random rotation alone is d x d
        raise ValueError(f"rings, lines and stripes are small sets: d at most 1,000 and n * d at most "
                         f"10,000,000, got n={n}, d={d}.")
    return n, d


def rings(n, d, *, random_state=None):
    """Three rings around one point of a plane in ``d`` features, the others noise, turned at random.

    Ring ``k`` (class ``k``) holds the points of the plane at a distance from 0 between
    ``k + 0.15`` and ``k + 0.85``, at angles uniform on the circle; the other ``d - 2``
    features are noise of standard deviation 0.3. The rows are then rotated, each feature
    rescaled by a factor from 0.5 to 2 and shifted, so no axis shows the plane. No line
    separates the rings, nor does a Gaussian kernel much wider than their spacing.

    Parameters
    ----------
    n : int
        Number of points, >= 3; classes 0, 1, 2 take turns.
    d : int
        Number of features, >= 2, at most 1,000 (and ``n * d`` at most 10,000,000).
    random_state : None, int or numpy.random.Generator, default=None
        Seed or generator; ``None`` draws fresh entropy.

    Returns
    -------
    X : ndarray of shape (n, d), dtype float64
    y : ndarray of shape (n,), dtype int64
        The ring of each row, 0 (inside) to 2 (outside).

    Examples
    --------
    >>> X, y = rings(300, 3, random_state=0)
    >>> X.shape, np.bincount(y).tolist()
    ((300, 3), [100, 100, 100])

    Lesson 09 (the capstone's tests).
    """
    n, d = _shape(n, d, 2)
    rng = _check_random_state(random_state)
    y = np.tile(np.arange(3), n // 3 + 1)[:n]
    radius, angle = y + rng.uniform(0.15, 0.85, size=n), rng.uniform(0, 2 * np.pi, size=n)
    X = np.c_[radius * np.cos(angle), radius * np.sin(angle), rng.normal(scale=0.3, size=(n, d - 2))]
    return _placed(rng, X), y


def lines(n, d, *, random_state=None):
    """Three classes split by lines: each row takes the class of the largest of three random linear scores.

    Rows are standard normal in ``d`` features, then turned, rescaled and shifted as in
    :func:`rings`. In many features (25 or more) a narrow Gaussian kernel, which judges a
    row by its few nearest rows, falls far short of a linear one.

    Parameters and returns are those of :func:`rings` (``d >= 1`` here); the classes' sizes
    are as drawn.

    Examples
    --------
    >>> X, y = lines(300, 30, random_state=0)
    >>> X.shape, sorted(set(y.tolist()))
    ((300, 30), [0, 1, 2])

    Lesson 09 (the capstone's tests).
    """
    n, d = _shape(n, d, 1)
    rng = _check_random_state(random_state)
    X = rng.normal(size=(n, d))
    return _placed(rng, X), np.argmax(X @ rng.normal(size=(d, 3)), axis=1)


def stripes(n, d, *, random_state=None):
    """Eight parallel stripes of a plane in ``d`` features, the others noise, turned at random.

    A point's first coordinate is uniform in [0, 8), its second in [0, 4); stripe
    ``floor(first)`` has class ``floor(first) % 3`` (0, 1, 2, 0, 1, 2, 0, 1). The other
    ``d - 2`` features are noise of standard deviation 0.3, and the rows are turned,
    rescaled and shifted as in :func:`rings`. A line or a wide Gaussian kernel blurs the
    stripes together; a narrow one follows them.

    Parameters and returns are those of :func:`rings`; ``y`` is the class of each row's
    stripe.

    Examples
    --------
    >>> X, y = stripes(300, 3, random_state=0)
    >>> X.shape, sorted(set(y.tolist()))
    ((300, 3), [0, 1, 2])

    Lesson 09 (the capstone's tests).
    """
    n, d = _shape(n, d, 2)
    rng = _check_random_state(random_state)
    across = rng.uniform(0, 8, size=n)
    X = np.c_[across, rng.uniform(0, 4, size=n), rng.normal(scale=0.3, size=(n, d - 2))]
    return _placed(rng, X), np.floor(across).astype(np.int64) % 3
