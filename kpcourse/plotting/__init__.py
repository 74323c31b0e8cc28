"""Plot helpers for the lessons: points, boundaries, traces, Gram matrices, digits.

Every helper draws on ``ax`` (default: ``plt.gca()``), returns the artist it drew,
and never fits a model. Colours come from :data:`PALETTE` (Okabe–Ito, safe for
colour-blind readers) and the two classes also differ by marker shape (circle for
the first label, square for the second). Scores are shaded with :data:`CMAP`
(blue for negative, red for positive), boundaries are evaluated on a modest grid
(200 × 200 by default) in chunks, so kernel models with many support vectors stay
fast. Importing this module changes no ``rcParams`` and no global style.

One file per part: ``_common`` (palette, colour map, markers, shared checks), ``points``,
``boundaries``, ``traces``, ``matrices``, ``curves`` and ``digits``.
"""

from ._common import CMAP, PALETTE
from .boundaries import plot_decision_boundary, plot_linear_boundary
from .curves import plot_learning_curves
from .digits import plot_digits
from .matrices import plot_kernel_heatmap
from .points import plot_points, plot_support_vectors
from .traces import plot_epoch_boundaries, plot_trace

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
