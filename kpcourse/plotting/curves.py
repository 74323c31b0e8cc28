"""Learning curves: mistakes or error per epoch."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from matplotlib.ticker import MaxNLocator

from .._validation import check_array
from ._common import (
    _MARKERS,
    PALETTE,
    _get_ax,
    _legend,
)


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
