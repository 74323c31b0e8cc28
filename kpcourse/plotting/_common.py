"""The style every plot shares (palette, colour map, markers) and the small checks and
helpers of the plot functions.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap

from .._validation import check_array, check_int

PALETTE = ("#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9", "#F0E442",
           "#000000")
#: Diverging colour map for decision scores (ColorBrewer RdBu, reversed: negative blue).
CMAP = matplotlib.colormaps["RdBu_r"]
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
_EPOCH_CMAP = ListedColormap(matplotlib.colormaps["viridis"](np.linspace(0.0, 0.85, 256)))


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
