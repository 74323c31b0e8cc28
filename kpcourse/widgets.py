"""Interactive widgets (ipywidgets 8) for the lessons: step through, tune, compare.

Each function returns an ``ipywidgets.VBox`` to display as the last line of a cell.
The figure is a plain ``matplotlib.figure.Figure`` (no pyplot state, no backend
setting) rendered to PNG into an ``ipywidgets.Output`` on every change, so the
widgets work the same under any notebook backend. For tests and for curious
students, the box also carries the objects it controls: ``box.slider`` (the main
slider), ``box.output``, ``box.caption`` (the text under the controls) and
``box.figure``. Fitted models are cached by their parameters, so moving a slider
back is instant. A widget is enrichment: each lesson shows the same point in a
static figure too.

Import this module explicitly (``from kpcourse.widgets import trace_stepper``);
``import kpcourse`` does not load ipywidgets.
"""

from __future__ import annotations

import base64
import io

import ipywidgets as widgets
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from . import plotting
from ._validation import check_int, check_labels, check_positive
from .kernels import KERNEL_NAMES, KERNELS
from .plotting._common import _check_index, _check_points, _limits
from .plotting.traces import _check_trace, _trace_row

__all__ = ["trace_stepper", "kernel_explorer", "rbf_explorer"]

_RESOLUTION = 120  # grid per axis in the widgets: a redraw stays well under 0.3 s


def _figure(ncols=1, width=5.6):
    fig = Figure(figsize=(width, 4.2), dpi=80, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.subplots(1, ncols)


def _show(fig, output):
    """Replace the content of ``output`` by a PNG of ``fig`` (no flicker, no kernel needed)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    png = base64.b64encode(buf.getvalue()).decode("ascii")
    output.outputs = ({"output_type": "display_data", "metadata": {},
                       "data": {"image/png": png, "text/plain": "<Figure>"}},)


class _Explorer(widgets.VBox):
    """A VBox with a short text form: notebooks store a stable line, not the PNG inside."""

    def __repr__(self):
        return f"<kpcourse widget: {self.kp_name}>"


def _box(children, name, **parts):
    box = _Explorer(children)
    box.kp_name = name
    for name, value in parts.items():
        setattr(box, name, value)
    return box


def _check_binary(X, y):
    X = _check_points(X)
    y, classes = check_labels(y, X.shape[0])
    if classes.size != 2:
        raise ValueError(f"y must hold exactly 2 classes for a boundary, got {classes.tolist()}.")
    return X, y


def _fit_summary(model):
    return (f"mistakes per epoch: {list(model.history_)}, converged: {model.converged_}, "
            f"support vectors: {len(model.support_)}")


# ------------------------------------------------------------ trace stepper
def _trace_caption(trace, step):
    epoch, index, mistake, b, w = _trace_row(trace, step)
    what = "<b>mistake</b> → update" if mistake else "correct, no update"
    return (f"step {step} of 0..{len(trace) - 1} — epoch {epoch}, point {index}: {what}; "
            f"after it b = {b:.3g}, w = ({w[0]:.3g}, {w[1]:.3g})")


def trace_stepper(trace, X, y):
    """Step through a perceptron trace with a slider (and a play button).

    Each step redraws :func:`kpcourse.plotting.plot_trace` and a caption with the
    epoch, the visited point, whether it was a mistake, and the bias b and weights
    w after the step.

    Parameters
    ----------
    trace : ndarray of shape (n_steps, 6)
        ``kpcourse.perceptron.Perceptron.trace_`` for 2-D data.
    X : array-like of shape (n_samples, 2)
        The training points.
    y : array-like of shape (n_samples,)
        Their labels.

    Returns
    -------
    ipywidgets.VBox
        With attributes ``slider`` (IntSlider over 0..n_steps − 1), ``play``,
        ``caption`` (HTML), ``output`` (Output) and ``figure``.

    Examples
    --------
    >>> from kpcourse.perceptron import Perceptron
    >>> X = [[1, 2], [1, 1], [2, 4], [3, 2]]; y = [1, -1, 1, -1]
    >>> box = trace_stepper(Perceptron(learning_rate=0.25).fit(X, y).trace_, X, y)
    >>> box.slider.max
    15

    Lesson 02 (the perceptron by hand).
    """
    trace, X, y = _check_trace(trace, X, y)
    fig, ax = _figure()
    slider = widgets.IntSlider(value=0, min=0, max=len(trace) - 1, description="step")
    play = widgets.Play(value=0, min=0, max=len(trace) - 1, interval=700, description="play")
    widgets.jslink((play, "value"), (slider, "value"))
    caption, output = widgets.HTML(), widgets.Output()

    def redraw(change=None):
        ax.clear()
        plotting.plot_trace(trace, X, y, step=slider.value, ax=ax)
        caption.value = _trace_caption(trace, slider.value)
        _show(fig, output)

    slider.observe(redraw, names="value")
    redraw()
    return _box([widgets.HBox([play, slider]), caption, output], "trace_stepper", slider=slider, play=play,
                caption=caption, output=output, figure=fig)


# ---------------------------------------------------------- kernel explorer
def _kernel_params(kernel, degree, coef0, sigma):
    """Only the parameters ``kernel`` uses (``kernels.KERNELS``), rounded: the cache key of a fit."""
    values = {"degree": int(degree), "coef0": round(float(coef0), 6), "sigma": round(float(sigma), 6)}
    uses = KERNELS[kernel].uses
    return {"kernel": kernel, **{name: v for name, v in values.items() if name in uses}}


def _cached_fit(cache, params, X, y, max_epochs, random_state):
    from .perceptron import KernelPerceptron

    key = tuple(sorted(params.items()))
    if key not in cache:
        cache[key] = KernelPerceptron(**params, max_epochs=max_epochs, device="cpu",
                                      random_state=random_state).fit(X, y)
    return cache[key]


def kernel_explorer(X, y, *, kernels=("poly", "rbf", "linear"), max_epochs=20, random_state=0):
    """Pick a kernel and its parameters; see the kernel perceptron's boundary.

    On every change a :class:`kpcourse.perceptron.KernelPerceptron` is fitted (on
    the CPU, cached by parameters) and its boundary, support vectors (ring size ∝ α)
    and mistakes per epoch are shown. Sliders a kernel does not use are disabled.

    Parameters
    ----------
    X : array-like of shape (n_samples, 2)
        Training points.
    y : array-like of shape (n_samples,)
        Labels, two classes.
    kernels : sequence of str, default=("poly", "rbf", "linear")
        Choices of the drop-down, from "linear", "poly", "polynomial", "rbf", "cosine".
    max_epochs : int, default=20
        Passed to ``KernelPerceptron``.
    random_state : int, numpy Generator or None, default=0
        Seed of the visiting orders (``shuffle=True``).

    Returns
    -------
    ipywidgets.VBox
        With attributes ``kernel`` (Dropdown), ``degree`` (IntSlider 1..6),
        ``coef0`` (FloatSlider 0..3), ``sigma`` (FloatLogSlider 0.03..10),
        ``slider`` (same as ``degree``), ``caption``, ``output``, ``figure`` and
        ``cache`` (dict parameters → fitted model).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(40, 2)); y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)
    >>> box = kernel_explorer(X, y)
    >>> box.degree.value = 2; box.kernel.value = "rbf"

    Lesson 03 (dual form) and 04 (the kernel trick).
    """
    X, y = _check_binary(X, y)
    if isinstance(kernels, str) or len(kernels) == 0:
        raise TypeError(f"kernels must be a non-empty sequence of kernel names, got {kernels!r}.")
    unknown = [k for k in kernels if k not in KERNELS]
    if unknown:
        raise ValueError(f"unknown kernel(s) {unknown}; choose from {KERNEL_NAMES}.")
    max_epochs = check_int(max_epochs, "max_epochs")
    fig, ax = _figure()
    kernel = widgets.Dropdown(options=list(kernels), value=kernels[0], description="kernel")
    degree = widgets.IntSlider(value=2, min=1, max=6, description="degree",
                               continuous_update=False)
    coef0 = widgets.FloatSlider(value=1.0, min=0.0, max=3.0, step=0.1, description="coef0",
                                continuous_update=False)
    sigma = widgets.FloatLogSlider(value=1.0, base=10, min=-1.5, max=1.0, step=0.05,
                                   description="σ (rbf)", continuous_update=False)
    caption, output, cache = widgets.HTML(), widgets.Output(), {}

    def redraw(change=None):
        params = _kernel_params(kernel.value, degree.value, coef0.value, sigma.value)
        degree.disabled, coef0.disabled, sigma.disabled = (n not in params for n in ("degree", "coef0", "sigma"))
        model = _cached_fit(cache, params, X, y, max_epochs, random_state)
        ax.clear()
        plotting.plot_decision_boundary(model, X, y, ax=ax, resolution=_RESOLUTION)
        plotting.plot_support_vectors(X, model.support_, ax=ax, alpha=model.alpha_)
        ax.set_title(", ".join(f"{n}={v}" for n, v in params.items()))
        caption.value = _fit_summary(model)
        _show(fig, output)

    for control in (kernel, degree, coef0, sigma):
        control.observe(redraw, names="value")
    redraw()
    controls = [widgets.HBox([kernel, degree]), widgets.HBox([coef0, sigma])]
    return _box([*controls, caption, output], "kernel_explorer", kernel=kernel, degree=degree, coef0=coef0,
                sigma=sigma, slider=degree, caption=caption, output=output, figure=fig,
                cache=cache)


# ------------------------------------------------------------- rbf explorer
def rbf_explorer(X, y, *, anchor=None, sigmas=(0.05, 5.0), random_state=0, max_epochs=20):
    """Move the RBF bandwidth σ: the similarity to one point and the boundary it makes.

    Left: k(x, a) = exp(−‖x − a‖² / (2σ²)) around the anchor a over the plane
    (small σ: a narrow bump, large σ: everything looks alike). Right: the boundary
    of an RBF :class:`kpcourse.perceptron.KernelPerceptron` with that σ (fits
    cached by σ).

    Parameters
    ----------
    X : array-like of shape (n_samples, 2)
        Training points (a 2-D toy set).
    y : array-like of shape (n_samples,)
        Labels, two classes.
    anchor : int or array-like of shape (2,), default=None
        The point a: an index into X or coordinates; ``None``: ``X[0]``.
    sigmas : pair of float, default=(0.05, 5.0)
        Range of the σ slider (logarithmic); it starts at their geometric mean.
    random_state : int, numpy Generator or None, default=0
        Seed of the visiting orders.
    max_epochs : int, default=20
        Passed to ``KernelPerceptron``.

    Returns
    -------
    ipywidgets.VBox
        With attributes ``slider`` (FloatLogSlider σ), ``caption``, ``output``,
        ``figure`` (two panels) and ``cache`` (σ → fitted model).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(40, 2)); y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)
    >>> box = rbf_explorer(X, y, anchor=3)
    >>> box.slider.value = 1.0

    Lesson 05 (the RBF kernel and its bandwidth).
    """
    X, y = _check_binary(X, y)
    max_epochs = check_int(max_epochs, "max_epochs")
    a = _check_anchor(anchor, X)
    lo, hi = _check_sigmas(sigmas)
    (x0, x1), (y0, y1) = _limits(X)
    gx, gy = np.meshgrid(np.linspace(x0, x1, _RESOLUTION), np.linspace(y0, y1, _RESOLUTION))
    d2 = (gx - a[0]) ** 2 + (gy - a[1]) ** 2  # precomputed: a redraw only takes exp

    fig, (left, right) = _figure(ncols=2, width=10.0)
    image = left.imshow(np.zeros_like(d2), extent=(x0, x1, y0, y1), origin="lower",
                        cmap="Greens", vmin=0.0, vmax=1.0, aspect="auto")
    fig.colorbar(image, ax=left, label="k(x, a)")
    plotting.plot_points(X, y, ax=left)
    left.scatter(*a, marker="*", s=300, color="white", edgecolors="black", zorder=5,
                 label="anchor a")
    left.legend(fontsize="small", loc="upper right")
    mid = float(np.sqrt(lo * hi))
    slider = widgets.FloatLogSlider(value=mid, base=10, min=np.log10(lo), max=np.log10(hi),
                                    step=(np.log10(hi) - np.log10(lo)) / 40, description="σ",
                                    continuous_update=False, readout_format=".3g")
    caption, output, cache = widgets.HTML(), widgets.Output(), {}

    def redraw(change=None):
        s = slider.value
        image.set_data(np.exp(-d2 / (2.0 * s * s)))
        left.set_title(f"RBF similarity to a, σ = {s:.3g}")
        model = _cached_fit(cache, {"kernel": "rbf", "sigma": round(float(s), 6)}, X, y,
                            max_epochs, random_state)
        right.clear()
        plotting.plot_decision_boundary(model, X, y, ax=right, resolution=_RESOLUTION)
        plotting.plot_support_vectors(X, model.support_, ax=right, alpha=model.alpha_)
        right.set_title(f"RBF kernel perceptron, σ = {s:.3g}")
        caption.value = f"σ = {s:.3g} — " + _fit_summary(model)
        _show(fig, output)

    slider.observe(redraw, names="value")
    redraw()
    return _box([slider, caption, output], "rbf_explorer", slider=slider, caption=caption, output=output,
                figure=fig, cache=cache)


def _check_anchor(anchor, X):
    if anchor is None:
        return X[0]
    if isinstance(anchor, (int, np.integer)) and not isinstance(anchor, bool):
        return X[_check_index(anchor, X.shape[0], "anchor")]
    try:
        a = None if isinstance(anchor, (str, bool)) else np.asarray(anchor, dtype=float)
    except (TypeError, ValueError):
        a = None
    if a is None or a.shape != (2,) or not np.all(np.isfinite(a)):
        raise ValueError(f"anchor must be None, an index into X or a finite point (x1, x2), "
                         f"got {anchor!r}.")
    return a


def _check_sigmas(sigmas):
    if isinstance(sigmas, str) or np.ndim(sigmas) != 1 or len(sigmas) != 2:
        raise ValueError(f"sigmas must be a pair (low, high), got {sigmas!r}.")
    lo, hi = (check_positive(s, "sigmas") for s in sigmas)
    if lo >= hi:
        raise ValueError(f"sigmas must satisfy low < high, got ({lo}, {hi}).")
    return lo, hi
