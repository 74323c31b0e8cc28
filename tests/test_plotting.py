"""Tests of kpcourse.plotting: artists returned, ax=None, validation, no fitting."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.collections import PathCollection  # noqa: E402
from matplotlib.contour import ContourSet  # noqa: E402
from matplotlib.image import AxesImage  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402
from sklearn.linear_model import Perceptron as SkPerceptron  # noqa: E402
from sklearn.svm import SVC  # noqa: E402

from kpcourse import plotting as P  # noqa: E402

# The worked example of lesson 02 and its trace, built by hand (learning rate 0.25):
# columns [epoch, index, mistake, intercept, coef_1, coef_2], state after each step.
X4 = np.array([[1.0, 2.0], [1.0, 1.0], [2.0, 4.0], [3.0, 2.0]])
Y4 = np.array([1, -1, 1, -1])
TRACE = np.array([
    [1, 0, 1, 0.25, 0.25, 0.5], [1, 1, 1, 0.0, 0.0, 0.25], [1, 2, 0, 0.0, 0.0, 0.25],
    [1, 3, 1, -0.25, -0.75, -0.25], [2, 0, 1, 0.0, -0.5, 0.25], [2, 1, 0, 0.0, -0.5, 0.25],
    [2, 2, 1, 0.25, 0.0, 1.25], [2, 3, 1, 0.0, -0.75, 0.75], [3, 0, 0, 0.0, -0.75, 0.75],
    [3, 1, 1, -0.25, -1.0, 0.5], [3, 2, 1, 0.0, -0.5, 1.5], [3, 3, 1, -0.25, -1.25, 1.0],
    [4, 0, 0, -0.25, -1.25, 1.0], [4, 1, 0, -0.25, -1.25, 1.0], [4, 2, 0, -0.25, -1.25, 1.0],
    [4, 3, 0, -0.25, -1.25, 1.0],
])


@pytest.fixture
def ax():
    fig, ax = plt.subplots()
    yield ax
    plt.close("all")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def xor_data():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(60, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)
    return X, y


class NoFit:
    """A stub model: scores like a linear model, explodes if anyone fits it."""

    def fit(self, X, y):
        raise AssertionError("plot helpers must never call fit")

    def decision_function(self, X):
        return X[:, 0] - X[:, 1]


# ------------------------------------------------------------- constants
def test_palette_and_cmap():
    assert len(P.PALETTE) == 8 and P.PALETTE[:2] == ("#0072B2", "#D55E00")
    assert all(matplotlib.colors.is_color_like(c) for c in P.PALETTE)
    assert isinstance(P.CMAP, matplotlib.colors.Colormap)


def test_import_does_not_touch_rcparams():
    import importlib

    before = dict(matplotlib.rcParams)
    importlib.reload(P)
    assert dict(matplotlib.rcParams) == before


# ----------------------------------------------------------------- points
def test_plot_points_two_classes_differ_in_colour_and_marker(ax):
    artists = P.plot_points(X4, Y4, ax=ax)
    assert len(artists) == 2 and all(isinstance(a, PathCollection) for a in artists)
    (neg, pos) = artists
    assert neg.get_label() == "y = -1" and pos.get_label() == "y = +1"
    assert not np.allclose(neg.get_facecolor(), pos.get_facecolor())
    assert neg.get_paths()[0].vertices.shape != pos.get_paths()[0].vertices.shape  # o vs s
    assert ax.get_legend() is not None and ax.get_xlabel() == "$x_1$"


def test_plot_points_highlight_sizes_labels_multiclass(ax):
    y = np.array([0, 1, 2, 2])
    artists = P.plot_points(X4, y, ax=ax, highlight=2, sizes=[0, 1, 2, 4],
                            labels={0: "zero", 1: "one", 2: "two"})
    assert [a.get_label() for a in artists] == ["zero", "one", "two"]
    assert len(ax.collections) == 4  # 3 classes + the ring
    np.testing.assert_allclose(artists[2].get_sizes(), [105.0, 200.0])


def test_plot_points_ax_none_uses_current_axes():
    artists = P.plot_points(X4, Y4)
    assert artists[0].axes is plt.gca()


@pytest.mark.parametrize("X, y, kw, err", [
    (X4[:, :1], Y4, {}, ValueError),                      # one feature
    (np.c_[X4, X4], Y4, {}, ValueError),                  # four features
    (X4.ravel(), Y4, {}, ValueError),                     # 1-D X
    (np.where(X4 > 2, np.nan, X4), Y4, {}, ValueError),   # NaN
    (X4, Y4[:3], {}, ValueError),                         # length mismatch
    (X4, Y4, {"highlight": 4}, ValueError),
    (X4, Y4, {"highlight": 1.5}, TypeError),
    (X4, Y4, {"sizes": [1, 2]}, ValueError),
    (X4, Y4, {"sizes": [1, -2, 3, 4]}, ValueError),
    (X4, Y4, {"labels": ["only one"]}, ValueError),
    (X4, Y4, {"ax": "not an axes"}, TypeError),
])
def test_plot_points_rejects_bad_input(X, y, kw, err):
    with pytest.raises(err):
        P.plot_points(X, y, **kw)


# -------------------------------------------------------- decision boundary
def test_decision_boundary_svc(ax, xor_data):
    X, y = xor_data
    svc = SVC(kernel="rbf", gamma=2.0).fit(X, y)
    cs = P.plot_decision_boundary(svc, X, y, ax=ax, resolution=50, levels=(-1, 0, 1))
    assert isinstance(cs, ContourSet)
    np.testing.assert_array_equal(cs.levels, [-1, 0, 1])
    assert len(ax.collections) >= 3  # background, lines, points
    assert "SVC" in ax.get_title()
    x0, x1 = ax.get_xlim()
    assert x0 < X[:, 0].min() and x1 > X[:, 0].max()  # padded limits


def test_decision_boundary_callable_and_limits(ax):
    cs = P.plot_decision_boundary(lambda Z: Z[:, 0] ** 2 + Z[:, 1] ** 2 - 1, ax=ax,
                                  xlim=(-2, 2), ylim=(-2, 2), resolution=60, fill="sign")
    assert isinstance(cs, ContourSet)
    assert ax.get_xlim() == (-2.0, 2.0)
    vertices = np.concatenate([p.vertices for p in cs.get_paths()])
    np.testing.assert_allclose(np.hypot(*vertices.T), 1.0, atol=0.02)  # the unit circle


def test_decision_boundary_evaluates_in_chunks():
    sizes = []

    def f(Z):
        sizes.append(len(Z))
        return Z[:, 0]

    P.plot_decision_boundary(f, xlim=(0, 1), ylim=(0, 1), resolution=30, chunk_size=400)
    assert max(sizes) == 400 and sum(sizes) == 900


def test_decision_boundary_never_fits(ax):
    cs = P.plot_decision_boundary(NoFit(), X4, Y4, ax=ax, resolution=20)
    assert isinstance(cs, ContourSet)


def test_decision_boundary_ax_none_and_points_without_labels(xor_data):
    X, _ = xor_data
    cs = P.plot_decision_boundary(SkPerceptron().fit(X, X[:, 0] > 0), X, resolution=30)
    assert cs.axes is plt.gca()


@pytest.mark.parametrize("model", [SVC(), SkPerceptron()])
def test_decision_boundary_unfitted_model_raises(ax, model):
    with pytest.raises(NotFittedError):
        P.plot_decision_boundary(model, X4, Y4, ax=ax)


@pytest.mark.parametrize("fn, match", [
    (lambda Z: Z, "shape"),                                # (n, 2) scores
    (lambda Z: Z[:, :1], "ravel"),                         # (n, 1)
    (lambda Z: Z[:10, 0], "shape"),                        # too few
    (lambda Z: np.full(len(Z), np.nan), "NaN"),
])
def test_decision_boundary_bad_scores(ax, fn, match):
    with pytest.raises(ValueError, match=match):
        P.plot_decision_boundary(fn, X4, ax=ax, resolution=10)


def test_decision_boundary_multiclass_model_is_refused(ax):
    X = np.r_[X4, X4 + 5]
    svc = SVC(decision_function_shape="ovr").fit(X, [0, 1, 2, 0, 1, 2, 0, 1])
    with pytest.raises(ValueError, match="multi-class"):
        P.plot_decision_boundary(svc, X, ax=ax, resolution=10)


@pytest.mark.parametrize("X, kw, err", [
    (X4.ravel(), {}, ValueError),                 # 1-D X
    (np.c_[X4, X4], {}, ValueError),              # 4-D points
    (np.where(X4 > 3, np.nan, X4), {}, ValueError),
    (None, {}, ValueError),                       # no X and no limits
    (X4, {"resolution": 1}, ValueError),
    (X4, {"resolution": 2.5}, TypeError),
    (X4, {"chunk_size": 0}, ValueError),
    (X4, {"xlim": (1, 0)}, ValueError),
    (X4, {"xlim": "wide"}, TypeError),
    (X4, {"fill": "yes"}, ValueError),
    (X4, {"levels": [np.nan]}, ValueError),
])
def test_decision_boundary_rejects_bad_input(ax, X, kw, err):
    with pytest.raises(err):
        P.plot_decision_boundary(NoFit(), X, ax=ax, **kw)


def test_decision_boundary_rejects_non_model(ax):
    with pytest.raises(TypeError, match="decision_function"):
        P.plot_decision_boundary(42, X4, ax=ax)


# ---------------------------------------------------------- linear boundary
def test_linear_boundary_line_data(ax):
    line = P.plot_linear_boundary([-1.25, 1.0], -0.25, ax=ax, xlim=(0, 4), ylim=(0, 5))
    assert isinstance(line, Line2D)
    np.testing.assert_allclose(line.get_xdata(), [0, 4])
    np.testing.assert_allclose(line.get_ydata(), [0.25, 5.25])  # x2 = 1.25 x1 + 0.25
    assert ax.get_ylim() == (0.0, 5.0)


def test_linear_boundary_vertical_and_sklearn_shapes(ax):
    line = P.plot_linear_boundary(np.array([[2.0, 0.0]]), np.array([-1.0]), ax=ax,
                                  xlim=(0, 1), ylim=(-1, 1), color="red")
    np.testing.assert_allclose(line.get_xdata(), [0.5, 0.5])
    np.testing.assert_allclose(line.get_ydata(), [-1, 1])
    assert line.get_color() == "red"


def test_linear_boundary_zero_weights_warns_and_draws_nothing(ax):
    with pytest.warns(UserWarning, match="coef is zero"):
        assert P.plot_linear_boundary([0, 0], 1.0, ax=ax) is None
    assert not ax.lines


def test_linear_boundary_ax_none():
    assert P.plot_linear_boundary([1, 1], 0).axes is plt.gca()


@pytest.mark.parametrize("coef, b, err", [
    ([1, 2, 3], 0, ValueError), ([1, np.nan], 0, ValueError), (None, 0, TypeError),
    ([1, 1], [1, 2], ValueError), ([1, 1], None, TypeError), ([1, 1], np.inf, ValueError),
])
def test_linear_boundary_rejects_bad_input(ax, coef, b, err):
    with pytest.raises(err):
        P.plot_linear_boundary(coef, b, ax=ax)


# ------------------------------------------------------------------ traces
def test_plot_trace_last_step_is_final_boundary(ax):
    line = P.plot_trace(TRACE, X4, Y4, ax=ax)
    xs, ys = line.get_data()
    np.testing.assert_allclose(-(-1.25 * xs - 0.25) / 1.0, ys)
    assert "16/16" in ax.get_title() and "epoch 4" in ax.get_title()
    assert len(ax.collections) == 3  # two classes + ring on the current sample


def test_plot_trace_step_with_zero_weights_returns_none(ax):
    trace = np.r_[[[1, 0, 0, 0.0, 0.0, 0.0]], TRACE]
    assert P.plot_trace(trace, X4, Y4, step=0, ax=ax) is None
    assert "correct" in ax.get_title()


def test_plot_trace_steps_differ():
    a = P.plot_trace(TRACE, X4, Y4, step=3).get_ydata()
    plt.figure()
    b = P.plot_trace(TRACE, X4, Y4, step=11).get_ydata()
    assert not np.allclose(a, b)


def test_plot_trace_with_kpcourse_perceptron(ax):
    from kpcourse.perceptron import Perceptron

    clf = Perceptron(learning_rate=0.25).fit(X4, Y4)
    np.testing.assert_allclose(clf.trace_, TRACE)
    assert isinstance(P.plot_trace(clf.trace_, X4, Y4, step=5, ax=ax), Line2D)


@pytest.mark.parametrize("trace, kw, err", [
    (TRACE[:, :5], {}, ValueError),                       # missing a column
    (TRACE[:, 0], {}, ValueError),                        # 1-D
    (np.where(TRACE == 3, 7, TRACE), {}, ValueError),     # index out of range
    (np.where(TRACE == 0.25, np.nan, TRACE), {}, ValueError),
    (TRACE, {"step": 16}, ValueError),
    (TRACE, {"step": -1}, ValueError),
    (TRACE, {"step": "last"}, TypeError),
])
def test_plot_trace_rejects_bad_input(ax, trace, kw, err):
    with pytest.raises(err):
        P.plot_trace(trace, X4, Y4, ax=ax, **kw)


def test_plot_epoch_boundaries(ax):
    lines = P.plot_epoch_boundaries(TRACE, X4, Y4, ax=ax)
    assert all(isinstance(line, Line2D) for line in lines)
    assert [line.get_label() for line in lines] == [
        "after epoch 1", "after epoch 2", "after epochs 3–4"]
    assert lines[0].get_color() != lines[-1].get_color()
    assert ax.get_legend() is not None


def test_plot_epoch_boundaries_many_epochs_use_colorbar():
    rows = [[e, 0, 1, 0.1 * e, 1.0, 1.0 + e] for e in range(1, 13)]
    lines = P.plot_epoch_boundaries(np.array(rows), X4, Y4)
    assert len(lines) == 12 and len(plt.gcf().axes) == 2  # axes + colour bar


def test_plot_epoch_boundaries_rejects_bad_trace(ax):
    with pytest.raises(ValueError, match="columns"):
        P.plot_epoch_boundaries(TRACE[:, :4], X4, Y4, ax=ax)


# ---------------------------------------------------------- kernel heatmap
def test_kernel_heatmap(ax):
    K = np.exp(-((X4[:, None] - X4[None]) ** 2).sum(-1))
    im = P.plot_kernel_heatmap(K, ax=ax, labels=Y4, annotate=True)
    assert isinstance(im, AxesImage)
    np.testing.assert_allclose(im.get_array(), K)
    assert len(ax.texts) == 16
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "-1", "1", "-1"]
    assert len(ax.figure.axes) == 2  # colour bar


def test_kernel_heatmap_signed_matrix_is_centred_and_ax_none():
    K = X4 @ X4.T - 10
    im = P.plot_kernel_heatmap(K)
    assert im.norm.vmin == -im.norm.vmax
    assert im.axes is plt.gcf().axes[0]


def test_kernel_heatmap_large_annotate_warns(ax):
    with pytest.warns(UserWarning, match="annotate"):
        P.plot_kernel_heatmap(np.eye(25), ax=ax, annotate=True)
    assert not ax.texts


@pytest.mark.parametrize("K, kw, err", [
    (np.ones(4), {}, ValueError), (np.full((2, 2), np.nan), {}, ValueError),
    (np.eye(3), {"labels": [1, 2]}, ValueError), (np.eye(3), {"annotate": "yes"}, TypeError),
    ([["a", "b"], ["c", "d"]], {}, TypeError),
])
def test_kernel_heatmap_rejects_bad_input(ax, K, kw, err):
    with pytest.raises(err):
        P.plot_kernel_heatmap(K, ax=ax, **kw)


# ---------------------------------------------------------- support vectors
def test_support_vectors_sizes_follow_alpha(ax):
    pc = P.plot_support_vectors(X4, [0, 3], ax=ax, alpha=[4, 0, 0, 2])
    assert isinstance(pc, PathCollection)
    np.testing.assert_allclose(pc.get_offsets(), X4[[0, 3]])
    np.testing.assert_allclose(pc.get_sizes(), [300.0, 170.0])
    assert pc.get_label() == "support vectors (2)"


def test_support_vectors_mask_alpha_per_support_and_ax_none():
    pc = P.plot_support_vectors(X4, np.array([True, False, True, False]), alpha=[1, 1])
    np.testing.assert_allclose(pc.get_offsets(), X4[[0, 2]])
    assert pc.axes is plt.gca()


@pytest.mark.parametrize("support, alpha, err", [
    ([0, 4], None, ValueError), ([[0, 1]], None, ValueError), ([0.5], None, TypeError),
    ([True, False], None, ValueError), ([0, 1], [1, 2, 3], ValueError),
    ([0, 1], [-1, 1], ValueError),
])
def test_support_vectors_rejects_bad_input(ax, support, alpha, err):
    with pytest.raises(err):
        P.plot_support_vectors(X4, support, ax=ax, alpha=alpha)


# ---------------------------------------------------------- learning curves
def test_learning_curves_dict(ax):
    lines = P.plot_learning_curves({"train error": [0.3, 0.1, 0.0], "test error": [0.4, 0.2]},
                                   ax=ax, ylabel="error rate", logy=True)
    assert [line.get_label() for line in lines] == ["train error", "test error"]
    np.testing.assert_array_equal(lines[1].get_xdata(), [1, 2])
    assert ax.get_yscale() == "symlog" and ax.get_ylabel() == "error rate"
    assert ax.get_legend() is not None


def test_learning_curves_single_sequence_ax_none():
    lines = P.plot_learning_curves([5, 3, 1, 0])
    assert len(lines) == 1 and isinstance(lines[0], Line2D)
    assert plt.gca().get_legend() is None and plt.gca().get_title() == "Mistakes per epoch"


@pytest.mark.parametrize("history, kw, err", [
    ({}, {}, ValueError), ([[1, 2], [3, 4]], {}, ValueError), ("abc", {}, TypeError),
    ([1, np.nan], {}, ValueError), ([1, 2], {"labels": ["a", "b"]}, ValueError),
    ([1, 2], {"xlabel": 3}, TypeError), ([1, 2], {"logy": "yes"}, TypeError),
])
def test_learning_curves_rejects_bad_input(ax, history, kw, err):
    with pytest.raises(err):
        P.plot_learning_curves(history, ax=ax, **kw)


# ------------------------------------------------------------------ digits
def test_digits_mosaic_with_mistakes(ax):
    rng = np.random.default_rng(0)
    images = rng.random((12, 784))
    predicted = [*range(11), 0]
    im = P.plot_digits(images, labels=range(12), predicted=predicted, ncols=5, ax=ax)
    assert isinstance(im, AxesImage)
    assert im.get_array().shape[1] == 5 * 28 + 4 * 2  # five images and four gaps
    texts = ax.texts
    assert len(texts) == 12 and texts[11].get_text() == "11→0"
    assert matplotlib.colors.same_color(texts[11].get_color(), P.PALETTE[1])
    assert matplotlib.colors.same_color(texts[0].get_color(), "black")
    assert "1 of 12" in ax.get_title()


def test_digits_3d_input_no_labels_ax_none():
    im = P.plot_digits(np.zeros((3, 8, 8)))
    assert im.get_array().shape == (8, 3 * 8 + 2)
    assert not plt.gca().texts


@pytest.mark.parametrize("images, kw, err", [
    (np.zeros((3, 10)), {}, ValueError),              # 10 pixels: not a square
    (np.zeros(784), {}, ValueError),                  # 1-D
    (np.full((2, 4), np.nan), {}, ValueError),
    (np.zeros((2, 4)), {"labels": [1]}, ValueError),
    (np.zeros((2, 4)), {"ncols": 0}, ValueError),
    (np.zeros((2, 4)), {"cmap": "no such map"}, ValueError),
])
def test_digits_rejects_bad_input(ax, images, kw, err):
    with pytest.raises(err):
        P.plot_digits(images, ax=ax, **kw)
