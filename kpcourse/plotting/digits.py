"""Digit images in a grid, with their labels and predictions."""

from __future__ import annotations

import math

import matplotlib
import numpy as np

from .._validation import check_array, check_int
from ._common import (
    PALETTE,
    _fmt,
    _get_ax,
)


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
