"""Kernel (Gram) matrices as heat maps."""

from __future__ import annotations

import warnings

import numpy as np
from matplotlib.ticker import MaxNLocator

from .._validation import check_array
from ._common import (
    CMAP,
    _fmt,
    _get_ax,
)


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
