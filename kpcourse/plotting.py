"""Plot helpers for the lessons: points, boundaries, traces, Gram matrices, digits.

Every helper draws on ``ax`` (default: ``plt.gca()``), returns the artist it drew,
and never fits a model. Colours come from :data:`PALETTE` (Okabe–Ito, safe for
colour-blind readers) and the two classes also differ by marker shape (circle for
the first label, square for the second). Scores are shaded with :data:`CMAP`
(blue for negative, red for positive), boundaries are evaluated on a modest grid
(200 × 200 by default) in chunks, so kernel models with many support vectors stay
fast. Importing this module changes no ``rcParams`` and no global style.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Mapping

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.cm import ScalarMappable
from matplotlib.colors import ListedColormap, Normalize
from matplotlib.ticker import MaxNLocator

from ._validation import check_array, check_int, check_labels

__all__ = [
    "PALETTE",
    "CMAP",
    "plot_points",
    "plot_decision_boundary",
    "plot_linear_boundary",
    "plot_trace",
    "plot_epoch_boundaries",
    "plot_kernel_heatmap",
    "plot_support_vectors",
    "plot_learning_curves",
    "plot_digits",
]

#: Okabe–Ito colours: blue, vermillion, green, orange, pink, sky blue, yellow, black.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9", "#F0E442",
           "#000000")
#: Diverging colour map for decision scores (ColorBrewer RdBu, reversed: negative blue).
CMAP = matplotlib.colormaps["RdBu_r"]
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
_EPOCH_CMAP = ListedColormap(matplotlib.colormaps["viridis"](np.linspace(0.0, 0.85, 256)))


# ----------------------------------------------------------------- helpers
def _get_ax(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        return plt.gca()
    if not isinstance(ax, Axes):
        raise TypeError(f"ax must be a matplotlib Axes or None, got {type(ax).__name__}.")
    return ax


def _check_points(X, name="X"):
    X = check_array(X, name)
    if X.shape[1] != 2:
        raise ValueError(
            f"{name} must have exactly 2 features (columns) to be drawn in the plane, got "
            f"shape {X.shape}; project it first (e.g. on two features or with PCA).")
    return X


def _check_index(value, n, name):
    value = check_int(value, name, minimum=0)
    if value >= n:
        raise ValueError(f"{name} must be an index in [0, {n - 1}], got {value}.")
    return value


def _check_lim(lim, name):
    try:
        lo, hi = (float(v) for v in lim)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a pair (low, high) of numbers, got {lim!r}.") from None
    if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
        raise ValueError(f"{name} must be finite with low < high, got ({lo}, {hi}).")
    return lo, hi


def _limits(X, xlim=None, ylim=None):
    """Given limits, else the range of X padded by 10 % on each side."""
    if X is not None:
        lo, hi = X.min(0), X.max(0)
        pad = np.where(hi > lo, 0.1 * (hi - lo), 0.5)
        auto = [(lo[k] - pad[k], hi[k] + pad[k]) for k in range(2)]
    elif xlim is None or ylim is None:
        raise ValueError("give X or both xlim and ylim: the grid needs limits.")
    xlim = auto[0] if xlim is None else _check_lim(xlim, "xlim")
    ylim = auto[1] if ylim is None else _check_lim(ylim, "ylim")
    return xlim, ylim


def _label_axes(ax, xlabel="$x_1$", ylabel="$x_2$"):
    if not ax.get_xlabel():
        ax.set_xlabel(xlabel)
    if not ax.get_ylabel():
        ax.set_ylabel(ylabel)


def _legend(ax, **kw):
    if ax.get_legend_handles_labels()[0]:
        ax.legend(**{"loc": "best", "fontsize": "small", "framealpha": 0.85, **kw})


def _style(k):
    """Colour and marker of the k-th class: blue circles and vermillion squares first."""
    return PALETTE[k % len(PALETTE)], _MARKERS[k % len(_MARKERS)]


def _fmt(v):
    if isinstance(v, numbers.Real) and float(v).is_integer():
        return str(int(v))
    return str(v)


def _class_names(classes, labels):
    if labels is None:
        signed = any(isinstance(c, numbers.Real) and c < 0 for c in classes.tolist())
        return [f"y = {'+' if signed and c > 0 else ''}{_fmt(c)}"
                if isinstance(c, numbers.Real) else f"y = {c}" for c in classes.tolist()]
    if isinstance(labels, Mapping):
        missing = [c for c in classes.tolist() if c not in labels]
        if missing:
            raise ValueError(f"labels has no name for class(es) {missing}.")
        return [str(labels[c]) for c in classes.tolist()]
    if isinstance(labels, str) or len(labels) != len(classes):
        raise ValueError(f"labels must hold one name per class ({len(classes)}: "
                         f"{classes.tolist()}), got {labels!r}.")
    return [str(name) for name in labels]


def _marker_areas(sizes, n):
    if sizes is None:
        return 36.0
    sizes = check_array(sizes, "sizes", ndim=1)
    if sizes.shape[0] != n or np.any(sizes < 0):
        raise ValueError(f"sizes must hold {n} non-negative values (one per point), got "
                         f"shape {sizes.shape} with minimum {sizes.min():g}.")
    top = sizes.max()
    return 10.0 + 190.0 * sizes / top if top > 0 else np.full(n, 36.0)


# ------------------------------------------------------------------ points
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


# -------------------------------------------------------------- boundaries
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


# ------------------------------------------------------------------ traces
def _check_trace(trace, X, y):
    X = _check_points(X)
    y, _ = check_labels(y, X.shape[0], min_classes=1)
    trace = check_array(trace, "trace")
    if trace.shape[1] != 4 + X.shape[1]:
        raise ValueError(
            "trace must have 6 columns [epoch, index, mistake, intercept, coef_1, coef_2] "
            f"for 2-D X, got shape {trace.shape}.")
    epoch, index, mistake = trace[:, 0], trace[:, 1], trace[:, 2]
    if np.any(epoch < 1) or np.any(epoch != np.round(epoch)):
        raise ValueError("trace[:, 0] must hold epoch numbers 1, 2, ...")
    if np.any(index != np.round(index)) or index.min() < 0 or index.max() >= X.shape[0]:
        raise ValueError(f"trace[:, 1] must hold sample indices in [0, {X.shape[0] - 1}], "
                         f"got values from {index.min():g} to {index.max():g}.")
    if not np.all(np.isin(mistake, (0, 1))):
        raise ValueError("trace[:, 2] must hold mistake flags 0 or 1.")
    return trace, X, y


def _trace_row(trace, step):
    row = trace[step]
    return int(row[0]), int(row[1]), bool(row[2]), float(row[3]), row[4:6]


def plot_trace(trace, X, y, *, step=None, ax=None):
    """Draw the state of a perceptron after one step of its trace.

    Shows the points, rings the sample visited at ``step`` and draws the boundary
    w · x + b = 0 held after that step; the title says the epoch, the sample and
    whether it was a mistake (an update).

    Parameters
    ----------
    trace : ndarray of shape (n_steps, 6)
        ``kpcourse.perceptron.Perceptron.trace_``: one row per visited sample with
        columns [epoch (from 1), index, mistake (0/1), intercept, coef_1, coef_2],
        the state after that step.
    X : array-like of shape (n_samples, 2)
        The training points.
    y : array-like of shape (n_samples,)
        Their labels.
    step : int, default=None
        Row of ``trace`` to show, 0 ≤ step < n_steps; ``None``: the last.
    ax : matplotlib Axes, default=None
        Where to draw; ``None`` uses ``plt.gca()``.

    Returns
    -------
    matplotlib.lines.Line2D or None
        The boundary, or ``None`` while w is still 0.

    Examples
    --------
    >>> from kpcourse.perceptron import Perceptron
    >>> X = [[1, 2], [1, 1], [2, 4], [3, 2]]; y = [1, -1, 1, -1]
    >>> clf = Perceptron(learning_rate=0.25).fit(X, y)
    >>> line = plot_trace(clf.trace_, X, y, step=3)

    Lesson 02 (the perceptron by hand).
    """
    trace, X, y = _check_trace(trace, X, y)
    step = len(trace) - 1 if step is None else _check_index(step, len(trace), "step")
    epoch, index, mistake, b, w = _trace_row(trace, step)
    ax = _get_ax(ax)
    xlim, ylim = _limits(X)
    plot_points(X, y, ax=ax, highlight=index)
    line = None
    if np.any(w):
        line = plot_linear_boundary(w, b, ax=ax, xlim=xlim, ylim=ylim)
    ax.set_xlim(xlim)
    ax.set_ylim(ylim)
    what = "mistake → update" if mistake else "correct, no update"
    ax.set_title(f"Step {step + 1}/{len(trace)}: epoch {epoch}, sample {index}, {what}")
    _legend(ax)
    return line


def plot_epoch_boundaries(trace, X, y, ax=None):
    """Draw the perceptron boundary held at the end of each epoch.

    Early epochs are dark purple, later ones green to yellow (viridis); consecutive
    epochs that end with the same boundary share one line ("after epochs 3–4"). Up
    to 10 lines get a legend entry "after epoch k", more get a colour bar.

    Parameters
    ----------
    trace : ndarray of shape (n_steps, 6)
        ``Perceptron.trace_`` (see :func:`plot_trace`).
    X : array-like of shape (n_samples, 2)
        The training points.
    y : array-like of shape (n_samples,)
        Their labels.
    ax : matplotlib Axes, default=None
        Where to draw; ``None`` uses ``plt.gca()``.

    Returns
    -------
    list of matplotlib.lines.Line2D
        One line per run of epochs ending with the same w ≠ 0, in epoch order.

    Examples
    --------
    >>> from kpcourse.perceptron import Perceptron
    >>> X = [[1, 2], [1, 1], [2, 4], [3, 2]]; y = [1, -1, 1, -1]
    >>> lines = plot_epoch_boundaries(Perceptron(learning_rate=0.25).fit(X, y).trace_, X, y)
    >>> [line.get_label() for line in lines]
    ['after epoch 1', 'after epoch 2', 'after epochs 3–4']

    Lesson 02 (the perceptron by hand).
    """
    trace, X, y = _check_trace(trace, X, y)
    ax = _get_ax(ax)
    xlim, ylim = _limits(X)
    plot_points(X, y, ax=ax)
    epochs = trace[:, 0].astype(int)
    ends = [np.flatnonzero(epochs == e)[-1] for e in np.unique(epochs)]
    groups = []  # runs of consecutive epochs ending with the same (b, w)
    for row in ends:
        if groups and np.array_equal(trace[row, 3:], trace[groups[-1][-1], 3:]):
            groups[-1].append(row)
        else:
            groups.append([row])
    norm = Normalize(epochs.min(), max(epochs.max(), epochs.min() + 1))
    many = len(groups) > 10
    lines = []
    for k, rows in enumerate(groups):
        first, last = int(trace[rows[0], 0]), int(trace[rows[-1], 0])
        _, _, _, b, w = _trace_row(trace, rows[-1])
        label = f"after epoch {first}" if first == last else f"after epochs {first}–{last}"
        if np.any(w):
            lines.append(plot_linear_boundary(
                w, b, ax=ax, xlim=xlim, ylim=ylim, color=_EPOCH_CMAP(norm(last)),
                linewidth=2.5 if k == len(groups) - 1 else 1.5, label=None if many else label))
    if many:
        sm = ScalarMappable(norm=norm, cmap=_EPOCH_CMAP)
        ax.figure.colorbar(sm, ax=ax, label="epoch")
    ax.set_xlim(xlim)
    ax.set_ylim(ylim)
    if not ax.get_title():
        ax.set_title("Perceptron boundary after each epoch")
    _legend(ax, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    return lines


# ---------------------------------------------------------- kernel matrices
def plot_kernel_heatmap(K, *, ax=None, labels=None, annotate=False, cmap=None):
    """Draw a Gram matrix K[i, j] = k(xᵢ, xⱼ) as an image with a colour bar.

    Parameters
    ----------
    K : array-like of shape (n, m)
        The Gram matrix (square for K(X, X), rectangular for K(X, Z)).
    ax : matplotlib Axes, default=None
        Where to draw; ``None`` uses ``plt.gca()``.
    labels : sequence of length n, default=None
        Tick labels of the rows (and of the columns when K is square), e.g. the
        class of each sample; shown when n ≤ 20.
    annotate : bool, default=False
        Write each value in its cell (only for at most 20 × 20 cells; larger
        matrices get a warning and no numbers).
    cmap : str or Colormap, default=None
        ``None``: "viridis" for non-negative K, :data:`CMAP` centred at 0 otherwise.

    Returns
    -------
    matplotlib.image.AxesImage

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0., 0.], [1., 0.], [3., 3.]])
    >>> im = plot_kernel_heatmap(np.exp(-((X[:, None] - X[None]) ** 2).sum(-1)), annotate=True)

    Lesson 01 (similarity) and 03 (Gram matrices).
    """
    K = check_array(K, "K")
    n, m = K.shape
    if labels is not None:
        if isinstance(labels, str) or len(labels) != n:
            raise ValueError(f"labels must hold {n} entries (one per row of K), got {labels!r}.")
        labels = [_fmt(v) for v in labels]
    if not isinstance(annotate, (bool, np.bool_)):
        raise TypeError(f"annotate must be True or False, got {annotate!r}.")
    ax = _get_ax(ax)
    if cmap is None and K.min() < 0:
        top = float(np.abs(K).max())
        im = ax.imshow(K, cmap=CMAP, vmin=-top, vmax=top, interpolation="nearest")
    else:
        im = ax.imshow(K, cmap="viridis" if cmap is None else cmap, interpolation="nearest")
    ax.figure.colorbar(im, ax=ax, label="$K_{ij} = k(x_i, x_j)$")
    for axis, size in ((ax.yaxis, n), (ax.xaxis, m)):
        if labels is not None and size == n and n <= 20:
            axis.set_ticks(range(n), labels, **({"fontsize": "small"} if n > 15 else {}))
        else:
            axis.set_major_locator(MaxNLocator(integer=True))
    if annotate and n * m > 400:
        warnings.warn(f"annotate ignored: K has {n * m} cells (at most 400 are annotated).",
                      UserWarning, stacklevel=2)
    elif annotate:
        for (i, j), v in np.ndenumerate(K):
            r, g, b_, _ = im.cmap(im.norm(v))
            dark = 0.299 * r + 0.587 * g + 0.114 * b_ < 0.5
            ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize="x-small",
                    color="white" if dark else "black")
    ax.set_xlabel("sample j")
    ax.set_ylabel("sample i")
    if not ax.get_title():
        ax.set_title("Gram matrix K")
    return im


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


# ---------------------------------------------------------- learning curves
def _check_history(history, labels):
    if isinstance(history, str) or history is None:
        raise TypeError(f"history must be a sequence of numbers or a dict name → sequence, "
                        f"got {history!r}.")
    if isinstance(history, Mapping):
        if not history:
            raise ValueError("history is an empty dict; give at least one curve.")
        names, seqs = [str(k) for k in history], list(history.values())
    else:
        if np.ndim(history) != 1:
            raise ValueError(f"history must be 1-D, got shape {np.shape(history)}; pass a dict "
                             "name → sequence for several curves.")
        names, seqs = [None], [history]
    if labels is not None:
        labels = [labels] if isinstance(labels, str) else list(labels)
        if len(labels) != len(seqs):
            raise ValueError(f"labels must hold {len(seqs)} name(s), one per curve, got "
                             f"{len(labels)}.")
        names = [str(v) for v in labels]
    curves = [check_array(s, f"history[{n!r}]" if n else "history", ndim=1)
              for n, s in zip(names, seqs, strict=True)]
    return list(zip(names, curves, strict=True))


def plot_learning_curves(history, *, ax=None, labels=None, ylabel="mistakes", xlabel="epoch",
                         logy=False):
    """Draw one or more per-epoch curves (mistakes, errors) against epochs 1, 2, ...

    Parameters
    ----------
    history : sequence of float or dict of str → sequence of float
        One curve (e.g. ``KernelPerceptron.history_``) or several, e.g.
        ``{"train error": [...], "test error": [...]}``; lengths may differ.
    ax : matplotlib Axes, default=None
        Where to draw; ``None`` uses ``plt.gca()``.
    labels : str or sequence of str, default=None
        Legend names (override dict keys); a single curve without a name gets no legend.
    ylabel : str, default="mistakes"
    xlabel : str, default="epoch"
    logy : bool, default=False
        Logarithmic y axis ("symlog", linear below 1, when a value is ≤ 0).

    Returns
    -------
    list of matplotlib.lines.Line2D
        One line per curve.

    Examples
    --------
    >>> lines = plot_learning_curves({"train": [9, 4, 1, 0], "test": [10, 6, 4, 4]})
    >>> [line.get_label() for line in lines]
    ['train', 'test']

    Lesson 02 (convergence), 05 and 07 (error per epoch).
    """
    curves = _check_history(history, labels)
    for name, value in (("xlabel", xlabel), ("ylabel", ylabel)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a str, got {value!r}.")
    if not isinstance(logy, (bool, np.bool_)):
        raise TypeError(f"logy must be True or False, got {logy!r}.")
    ax = _get_ax(ax)
    lines = []
    for k, (name, values) in enumerate(curves):
        (line,) = ax.plot(np.arange(1, values.shape[0] + 1), values, color=PALETTE[k % 8],
                          marker=_MARKERS[k % 8], markersize=4, label=name or "_nolegend_")
        lines.append(line)
    if logy:
        positive = all(np.all(values > 0) for _, values in curves)
        if positive:
            ax.set_yscale("log")
        else:
            ax.set_yscale("symlog", linthresh=1.0)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if not ax.get_title():
        ax.set_title(f"{ylabel[:1].upper()}{ylabel[1:]} per {xlabel}")
    _legend(ax)
    return lines


# ------------------------------------------------------------------ digits
def _check_images(images):
    arr = np.asarray(images)
    if arr.ndim == 2:
        side = math.isqrt(arr.shape[1])
        if side * side != arr.shape[1]:
            raise ValueError(
                f"images of shape {arr.shape} must have a square number of pixels per row "
                "(e.g. 784 = 28 × 28); for a single image pass images[None].")
        arr = arr.reshape(arr.shape[0], side, side)
    return check_array(arr, "images", ndim=3)


def _check_annotations(values, n, name):
    if values is None:
        return None
    arr = np.asarray(values)
    if arr.shape != (n,):
        raise ValueError(f"{name} must be 1-D with one entry per image ({n}), got shape "
                         f"{arr.shape}.")
    return arr


def plot_digits(images, labels=None, *, predicted=None, ncols=10, ax=None, cmap="gray_r"):
    """Draw digit images as one mosaic, each captioned with its label.

    The images are laid out ``ncols`` per row in a single image (light grey gaps),
    so the helper draws on one ``ax``. Captions read "label", or "true→pred" when
    ``predicted`` is given, with mistakes in vermillion.

    Parameters
    ----------
    images : array-like of shape (n, h, w) or (n, h * w)
        The images, e.g. MNIST (n, 28, 28) / (n, 784) or scikit-learn digits (n, 64).
    labels : array-like of shape (n,), default=None
        True labels written above each image.
    predicted : array-like of shape (n,), default=None
        Predicted labels; captions become "true→pred".
    ncols : int, default=10
        Images per row.
    ax : matplotlib Axes, default=None
        Where to draw; ``None`` uses ``plt.gca()``.
    cmap : str or Colormap, default="gray_r"
        Colour map of the pixels (dark ink on white).

    Returns
    -------
    matplotlib.image.AxesImage
        The mosaic.

    Examples
    --------
    >>> import numpy as np
    >>> im = plot_digits(np.random.default_rng(0).random((12, 784)), labels=range(12),
    ...                  predicted=[*range(11), 0], ncols=6)

    Lesson 01 (the MNIST matching detector) and 07 (MNIST).
    """
    imgs = _check_images(images)
    n, h, w = imgs.shape
    labels = _check_annotations(labels, n, "labels")
    predicted = _check_annotations(predicted, n, "predicted")
    ncols = min(check_int(ncols, "ncols"), n)
    try:
        cm = (matplotlib.colormaps[cmap] if isinstance(cmap, str) else cmap).with_extremes(
            bad="0.88")
    except (KeyError, AttributeError):
        raise ValueError(f"cmap must be a matplotlib colormap or its name, got {cmap!r}.") from None
    ax = _get_ax(ax)
    nrows = -(-n // ncols)
    gap = max(1, round(w / 14))
    band = math.ceil(0.5 * h) if labels is not None or predicted is not None else 0
    cell_h, cell_w = h + band + gap, w + gap
    mosaic = np.full((nrows * cell_h - gap, ncols * cell_w - gap), np.nan)
    for k in range(n):
        r, c = divmod(k, ncols)
        mosaic[r * cell_h + band:r * cell_h + band + h, c * cell_w:c * cell_w + w] = imgs[k]
    lo, hi = float(imgs.min()), float(imgs.max())
    im = ax.imshow(mosaic, cmap=cm, vmin=lo, vmax=hi if hi > lo else lo + 1,
                   interpolation="nearest")
    n_wrong = 0
    for k in range(n if band else 0):
        r, c = divmod(k, ncols)
        wrong = labels is not None and predicted is not None and labels[k] != predicted[k]
        n_wrong += wrong
        text = "→".join(_fmt(v[k].item()) for v in (labels, predicted) if v is not None)
        ax.text(c * cell_w + (w - 1) / 2, r * cell_h + (band - 1) / 2, text, ha="center",
                va="center", fontsize="small", color=PALETTE[1] if wrong else "black",
                fontweight="bold" if wrong else "normal")
    ax.set_axis_off()
    if labels is not None and predicted is not None and not ax.get_title():
        ax.set_title(f"{n_wrong} of {n} misclassified (true→predicted, mistakes in vermillion)",
                     fontsize="medium")
    return im
