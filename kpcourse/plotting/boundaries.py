"""Decision boundaries: of any model or score function on a grid, and of a linear rule."""

from __future__ import annotations

import warnings

import numpy as np

from .._validation import check_array, check_int, check_labels
from ._common import (
    CMAP,
    _check_lim,
    _check_points,
    _get_ax,
    _label_axes,
    _legend,
    _limits,
)
from .points import plot_points


def _scorer(model_or_fn):
    if hasattr(model_or_fn, "decision_function"):
        return model_or_fn.decision_function, type(model_or_fn).__name__
    if callable(model_or_fn):
        name = getattr(model_or_fn, "__name__", "f")
        return model_or_fn, ("f" if name == "<lambda>" else name)
    raise TypeError("model_or_fn must have a decision_function method or be a callable "
                    f"mapping an (n, 2) array to n scores, got {type(model_or_fn).__name__}.")


def _grid_scores(score, G, chunk_size):
    """Scores of the grid points G, ``chunk_size`` rows at a time."""
    out = np.empty(G.shape[0])
    for start in range(0, G.shape[0], chunk_size):
        chunk = G[start:start + chunk_size]
        s = np.asarray(score(chunk), dtype=float)
        if s.shape != (chunk.shape[0],):
            hint = ""
            if s.ndim == 2 and s.shape[1] > 1:
                hint = (" A multi-class decision_function gives one column per class; plot "
                        "one of them, e.g. lambda X: model.decision_function(X)[:, k].")
            elif s.ndim == 2:
                hint = " Return a 1-D array (use .ravel())."
            raise ValueError(f"the scores must have shape ({chunk.shape[0]},) for "
                             f"{chunk.shape[0]} grid points, got {s.shape}.{hint}")
        out[start:start + chunk.shape[0]] = s
    if not np.all(np.isfinite(out)):
        raise ValueError("the scores contain NaN or infinite values.")
    return out


def plot_decision_boundary(model_or_fn, X=None, y=None, *, ax=None, xlim=None, ylim=None,
                           resolution=200, levels=(0.0,), fill=True, chunk_size=10000):
    """Draw the decision boundary f(x) = 0 of a fitted binary model in the plane.

    f is evaluated on a ``resolution`` × ``resolution`` grid, ``chunk_size`` points
    at a time; the zero level is drawn as a solid black line (other ``levels``
    dashed), over a background shaded by the score (blue f < 0, red f > 0). The
    model is only asked for scores, never fitted.

    Parameters
    ----------
    model_or_fn : fitted estimator or callable
        An object with ``decision_function`` returning shape (n,) (a binary
        classifier), or a callable mapping an (n, 2) array to (n,) scores.
    X : array-like of shape (n_samples, 2), default=None
        Points to draw; also sets the limits (their range plus 10 % padding).
    y : array-like of shape (n_samples,), default=None
        Labels of ``X`` (drawn with :func:`plot_points`); without ``y`` the points
        are drawn in grey.
    ax : matplotlib Axes, default=None
        Where to draw; ``None`` uses ``plt.gca()``.
    xlim, ylim : pair of float, default=None
        Grid limits; required when ``X`` is None, else they override the range of X.
    resolution : int, default=200
        Grid points per axis (at least 2).
    levels : sequence of float, default=(0.0,)
        Score levels to draw, e.g. ``(-1, 0, 1)`` for margins.
    fill : bool or {"scores", "sign"}, default=True
        Shade the background by the score (``True`` or "scores"), by its sign only
        ("sign"), or not at all (``False``).
    chunk_size : int, default=10000
        Grid points scored at once.

    Returns
    -------
    matplotlib.contour.QuadContourSet
        The contour lines of ``levels``.

    Raises
    ------
    sklearn.exceptions.NotFittedError
        Propagated from an unfitted scikit-learn style model.
    ValueError
        If the scores do not have shape (n,) (e.g. a multi-class model) or are not finite.

    Examples
    --------
    >>> from sklearn.svm import SVC
    >>> import numpy as np
    >>> X = np.array([[0., 0.], [1., 1.], [0., 1.], [1., 0.]]); y = [-1, -1, 1, 1]
    >>> cs = plot_decision_boundary(SVC(kernel="rbf").fit(X, y), X, y)
    >>> cs.levels
    array([0.])

    Lesson 03 (kernel perceptron) and every lesson after it.
    """
    score, name = _scorer(model_or_fn)
    resolution = check_int(resolution, "resolution", minimum=2)
    chunk_size = check_int(chunk_size, "chunk_size", minimum=1)
    levels = np.unique(check_array(levels, "levels", ndim=1))
    if fill not in (True, False, "scores", "sign"):
        raise ValueError(f"fill must be True, False, 'scores' or 'sign', got {fill!r}.")
    if X is not None:
        X = _check_points(X)
        if y is not None:
            check_labels(y, X.shape[0], min_classes=1)
    elif y is not None:
        raise ValueError("y was given without X; pass the points X as well.")
    xlim, ylim = _limits(X, xlim, ylim)
    xx, yy = np.meshgrid(np.linspace(*xlim, resolution), np.linspace(*ylim, resolution))
    Z = _grid_scores(score, np.column_stack([xx.ravel(), yy.ravel()]), chunk_size)
    Z = Z.reshape(xx.shape)

    ax = _get_ax(ax)
    top = float(np.abs(Z).max()) or 1.0
    if fill is not False:
        shades = [-top, 0.0, top] if fill == "sign" else np.linspace(-top, top, 21)
        ax.contourf(xx, yy, Z, levels=shades, cmap=CMAP, alpha=0.45, zorder=0)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "No contour levels were found")
        cs = ax.contour(xx, yy, Z, levels=levels, colors="black", zorder=2,
                        linewidths=[2.0 if v == 0 else 1.0 for v in levels],
                        linestyles=["solid" if v == 0 else "dashed" for v in levels])
    ax.plot([], [], color="black", linewidth=2.0, label="$f(x) = 0$")
    if X is not None and y is not None:
        plot_points(X, y, ax=ax)
    elif X is not None:
        ax.scatter(X[:, 0], X[:, 1], s=20, color="0.25", zorder=3)
    ax.set_xlim(xlim)
    ax.set_ylim(ylim)
    if not ax.get_title():
        ax.set_title(f"Decision boundary of {name}")
    _label_axes(ax)
    _legend(ax)
    return cs


def plot_linear_boundary(coef, intercept, *, ax=None, xlim=None, ylim=None, **kw):
    """Draw the line w · x + b = 0 of a linear model in the plane.

    Solved for x₂ = −(w₁ x₁ + b) / w₂ across ``xlim``, or the vertical line
    x₁ = −b / w₁ across ``ylim`` when w₂ = 0. The line does not change the axes'
    autoscaled limits.

    Parameters
    ----------
    coef : array-like of shape (2,) or (1, 2)
        The weights w (e.g. ``Perceptron.coef_``).
    intercept : float or array-like of shape (1,)
        The bias b.
    ax : matplotlib Axes, default=None
        Where to draw; ``None`` uses ``plt.gca()``.
    xlim, ylim : pair of float, default=None
        Range of the line (and the axes limits when given); ``None`` uses the
        current limits of ``ax``.
    **kw
        Passed to ``Axes.plot``; defaults: black, width 2, label "w · x + b = 0".

    Returns
    -------
    matplotlib.lines.Line2D or None
        The line; ``None`` (with a ``UserWarning``) when w = 0, which has no boundary.

    Examples
    --------
    >>> line = plot_linear_boundary([-1.25, 1.0], -0.25, xlim=(0, 4), ylim=(0, 5))
    >>> line.get_ydata()
    array([0.25, 5.25])

    Lesson 02 (the perceptron by hand).
    """
    w = coef
    if np.ndim(w) == 2 and np.shape(w)[0] == 1:
        w = np.ravel(w)
    w = check_array(w, "coef", ndim=1)
    if w.shape != (2,):
        raise ValueError(f"coef must hold 2 weights (w1, w2), got shape {w.shape}.")
    if intercept is None or isinstance(intercept, str):
        raise TypeError(f"intercept must be a number, got {intercept!r}.")
    b = check_array(np.atleast_1d(intercept), "intercept", ndim=1)
    if b.shape != (1,):
        raise ValueError(f"intercept must be a single number, got shape {b.shape}.")
    b = float(b[0])
    ax = _get_ax(ax)
    xr = ax.get_xlim() if xlim is None else _check_lim(xlim, "xlim")
    yr = ax.get_ylim() if ylim is None else _check_lim(ylim, "ylim")
    if not np.any(w):
        warnings.warn("coef is zero: w · x + b = 0 is not a line (every point gets the "
                      "score b); nothing drawn.", UserWarning, stacklevel=2)
        return None
    if abs(w[1]) <= 1e-12 * abs(w[0]):
        xs, ys = np.full(2, -b / w[0]), np.array(yr)
    else:
        xs = np.array(xr)
        ys = -(w[0] * xs + b) / w[1]
    style = {"color": "black", "linewidth": 2.0, "label": r"$w \cdot x + b = 0$", **kw}
    (line,) = ax.plot(xs, ys, scalex=False, scaley=False, **style)
    if xlim is not None:
        ax.set_xlim(xr)
    if ylim is not None:
        ax.set_ylim(yr)
    _label_axes(ax)
    return line
