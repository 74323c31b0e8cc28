"""Tests of kpcourse.widgets: each widget builds, redraws on change, caches fits."""

import base64
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import ipywidgets as widgets  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from kpcourse.perceptron import Perceptron  # noqa: E402
from kpcourse.widgets import kernel_explorer, rbf_explorer, trace_stepper  # noqa: E402

X4 = np.array([[1.0, 2.0], [1.0, 1.0], [2.0, 4.0], [3.0, 2.0]])
Y4 = np.array([1, -1, 1, -1])


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def moons():
    rng = np.random.default_rng(0)
    t = rng.uniform(0, np.pi, 40)
    upper = np.c_[np.cos(t[:20]), np.sin(t[:20])]
    lower = np.c_[1 - np.cos(t[20:]), 0.5 - np.sin(t[20:])]
    X = np.r_[upper, lower] + rng.normal(scale=0.1, size=(40, 2))
    return X, np.r_[-np.ones(20), np.ones(20)].astype(int)


def rendered(box):
    """The pixels of the widget's figure and the PNG shown in its Output."""
    box.figure.canvas.draw()
    pixels = bytes(box.figure.canvas.buffer_rgba())
    (out,) = box.output.outputs
    return pixels, base64.b64decode(out["data"]["image/png"])


def test_importing_kpcourse_does_not_import_widgets():
    code = "import sys, kpcourse; sys.exit('ipywidgets' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


# ------------------------------------------------------------ trace stepper
def test_trace_stepper_slider_redraws():
    trace = Perceptron(learning_rate=0.25).fit(X4, Y4).trace_
    box = trace_stepper(trace, X4, Y4)
    assert isinstance(box, widgets.VBox)
    assert (box.slider.min, box.slider.max, box.slider.value) == (0, 15, 0)
    assert "epoch 1, point 0" in box.caption.value and "mistake" in box.caption.value
    pixels, png = rendered(box)
    assert png.startswith(b"\x89PNG")

    box.slider.value = 11
    assert "epoch 3, point 3" in box.caption.value and "w = (-1.25, 1)" in box.caption.value
    assert rendered(box)[0] != pixels
    line = box.figure.axes[0].lines[0]
    np.testing.assert_allclose(line.get_ydata(), 1.25 * line.get_xdata() + 0.25)


def test_trace_stepper_rejects_bad_trace():
    with pytest.raises(ValueError, match="columns"):
        trace_stepper(np.zeros((3, 4)), X4, Y4)


# ---------------------------------------------------------- kernel explorer
def test_kernel_explorer_fits_on_change_and_caches(moons):
    X, y = moons
    box = kernel_explorer(X, y, max_epochs=5)
    assert isinstance(box, widgets.VBox)
    assert box.kernel.value == "poly" and box.slider is box.degree
    assert "mistakes per epoch: [" in box.caption.value and "converged:" in box.caption.value
    assert box.sigma.disabled and not box.degree.disabled
    before = rendered(box)[0]

    box.degree.value = 3
    assert rendered(box)[0] != before
    assert len(box.cache) == 2

    box.kernel.value = "rbf"
    assert box.degree.disabled and not box.sigma.disabled
    box.degree.value = 4          # unused by rbf: no new fit
    assert len(box.cache) == 3
    box.sigma.value = 0.3
    (model,) = [m for key, m in box.cache.items() if ("sigma", 0.3) in key]
    assert model.random_state == 0 and model.max_epochs == 5
    assert str(model.history_) in box.caption.value

    box.kernel.value = "poly"     # back to degree 4, coef0 1: fitted again once
    box.degree.value = 3          # cached
    assert len(box.cache) == 5


def test_kernel_explorer_validates(moons):
    X, y = moons
    with pytest.raises(ValueError, match="unknown kernel"):
        kernel_explorer(X, y, kernels=("poly", "sigmoid"))
    with pytest.raises(TypeError):
        kernel_explorer(X, y, kernels="rbf")
    with pytest.raises(ValueError, match="2 classes"):
        kernel_explorer(X, np.arange(40) % 3)
    with pytest.raises(ValueError):
        kernel_explorer(np.c_[X, X], y)
    with pytest.raises(ValueError):
        kernel_explorer(X, y, max_epochs=0)


# ------------------------------------------------------------- rbf explorer
def test_rbf_explorer_slider_changes_both_panels(moons):
    X, y = moons
    box = rbf_explorer(X, y, anchor=3, random_state=1)
    assert isinstance(box, widgets.VBox)
    assert box.slider.min == pytest.approx(np.log10(0.05))
    assert box.slider.value == pytest.approx(0.5)
    left, right = box.figure.axes[:2]
    heat = left.images[0].get_array().copy()
    before = rendered(box)[0]

    box.slider.value = 0.1
    narrow = left.images[0].get_array()
    assert narrow.max() == pytest.approx(heat.max(), abs=0.05)  # the bump stays at a
    assert narrow.sum() < heat.sum()                            # but gets narrower
    assert "σ = 0.1" in right.get_title() and "σ = 0.1" in box.caption.value
    assert rendered(box)[0] != before
    assert len(box.cache) == 2 and all(m.random_state == 1 for m in box.cache.values())


def test_rbf_explorer_anchor_point_and_validation(moons):
    X, y = moons
    box = rbf_explorer(X, y, anchor=(0.0, 0.0), sigmas=(0.1, 1.0))
    assert box.slider.value == pytest.approx(np.sqrt(0.1))
    with pytest.raises(ValueError, match="anchor"):
        rbf_explorer(X, y, anchor=(1.0, 2.0, 3.0))
    with pytest.raises(ValueError, match="anchor"):
        rbf_explorer(X, y, anchor=40)
    with pytest.raises(ValueError, match="low < high"):
        rbf_explorer(X, y, sigmas=(2.0, 1.0))
    with pytest.raises(ValueError):
        rbf_explorer(X, y, sigmas=(0.0, 1.0))
