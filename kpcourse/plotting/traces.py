"""A perceptron's trace, step by step, and the boundary after each epoch."""

from __future__ import annotations

import numpy as np
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize

from .._validation import check_array, check_labels
from ._common import (
    _EPOCH_CMAP,
    _check_index,
    _check_points,
    _get_ax,
    _legend,
    _limits,
)
from .boundaries import plot_linear_boundary
from .points import plot_points


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
