"""Labelled points and support vectors."""

from __future__ import annotations

import numpy as np

from .._validation import check_array, check_labels
from ._common import (
    _check_index,
    _check_points,
    _class_names,
    _get_ax,
    _label_axes,
    _legend,
    _marker_areas,
    _style,
)


def plot_points(X, y, *, ax=None, highlight=None, sizes=None, labels=None):
    """Scatter 2-D points, one colour and marker shape per class.

    With two classes the first (sorted) label is drawn as blue circles and the
    second as vermillion squares; more classes take the next :data:`PALETTE`
    colours and markers.

    Parameters
    ----------
    X : array-like of shape (n_samples, 2)
        The points.
    y : array-like of shape (n_samples,)
        Class labels, any values (e.g. -1/+1, 0/1, strings).
    ax : matplotlib Axes, default=None
        Where to draw; ``None`` uses ``plt.gca()``.
    highlight : int, default=None
        Index of a point to ring in black (the current sample of a step-through).
    sizes : array-like of shape (n_samples,), default=None
        Non-negative weights (e.g. the mistake counts α); marker areas grow linearly
        from 10 to 200 pt² with them. ``None``: all 36 pt².
    labels : sequence of str or dict, default=None
        Legend names, one per class in sorted order, or a dict label → name.
        ``None``: "y = -1" and "y = +1" style names.

    Returns
    -------
    list of matplotlib.collections.PathCollection
        One collection per class, in sorted label order.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 2], [1, 1], [2, 4], [3, 2]])
    >>> artists = plot_points(X, [1, -1, 1, -1], highlight=0)
    >>> len(artists)
    2

    Lesson 02 (the perceptron by hand) on: points of every 2-D figure.
    """
    X = _check_points(X)
    y, classes = check_labels(y, X.shape[0], min_classes=1)
    names = _class_names(classes, labels)
    area = _marker_areas(sizes, X.shape[0])
    if highlight is not None:
        highlight = _check_index(highlight, X.shape[0], "highlight")
    ax = _get_ax(ax)
    artists = []
    for k, c in enumerate(classes):
        mask = y == c
        color, marker = _style(k)
        s = area if np.isscalar(area) else area[mask]
        artists.append(ax.scatter(X[mask, 0], X[mask, 1], s=s, color=color, marker=marker,
                                  edgecolors="white", linewidths=0.6, label=names[k],
                                  zorder=3))
    if highlight is not None:
        ax.scatter(X[highlight, 0], X[highlight, 1], s=260, facecolors="none",
                   edgecolors="black", linewidths=2.0, label="current point", zorder=4)
    _label_axes(ax)
    _legend(ax)
    return artists


def _check_support(support, n):
    arr = np.asarray(support)
    if arr.ndim != 1:
        raise ValueError(f"support must be a 1-D array of indices, got shape {arr.shape}.")
    if arr.size == 0:
        return arr.astype(int)
    if arr.dtype == bool:
        if arr.shape[0] != n:
            raise ValueError(f"a boolean support mask needs {n} entries, got {arr.shape[0]}.")
        return np.flatnonzero(arr)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"support must hold integer indices or booleans, got dtype {arr.dtype}.")
    if arr.min() < 0 or arr.max() >= n:
        raise ValueError(f"support indices must lie in [0, {n - 1}], got {arr.min()} to "
                         f"{arr.max()}.")
    return arr


def plot_support_vectors(X, support, *, ax=None, alpha=None):
    """Ring the support vectors (the points with αᵢ > 0) in black.

    Parameters
    ----------
    X : array-like of shape (n_samples, 2)
        The training points.
    support : array-like of int of shape (n_support,) or of bool of shape (n_samples,)
        Indices of the support vectors (e.g. ``KernelPerceptron.support_``) or a mask.
    ax : matplotlib Axes, default=None
        Where to draw; ``None`` uses ``plt.gca()``.
    alpha : array-like of shape (n_samples,) or (n_support,), default=None
        Non-negative weights (mistake counts); ring areas grow linearly from 40 to
        300 pt² with them. ``None``: all 150 pt².

    Returns
    -------
    matplotlib.collections.PathCollection

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0., 0.], [1., 1.], [2., 0.]])
    >>> pc = plot_support_vectors(X, [0, 2], alpha=np.array([3, 0, 1]))

    Lesson 03 (dual form: mistake counts).
    """
    X = _check_points(X)
    support = _check_support(support, X.shape[0])
    s = 150.0
    if alpha is not None:
        a = check_array(alpha, "alpha", ndim=1, allow_empty=True)
        if a.shape[0] == X.shape[0]:
            a = a[support]
        elif a.shape[0] != support.shape[0]:
            raise ValueError(f"alpha must hold {X.shape[0]} values (one per sample) or "
                             f"{support.shape[0]} (one per support vector), got {a.shape[0]}.")
        if np.any(a < 0):
            raise ValueError("alpha must be non-negative (mistake counts).")
        if a.size and a.max() > 0:
            s = 40.0 + 260.0 * a / a.max()
    ax = _get_ax(ax)
    pc = ax.scatter(X[support, 0], X[support, 1], s=s, facecolors="none", edgecolors="black",
                    linewidths=1.5, label=f"support vectors ({support.shape[0]})", zorder=4)
    _label_axes(ax)
    _legend(ax)
    return pc
