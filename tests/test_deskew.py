"""kpcourse.datasets.deskew: moment-based deskewing removes a known shear."""

import numpy as np
import pytest

from kpcourse.datasets import deskew


def blob(shear=0.0, size=28, centre=(13.5, 13.5)):
    """An upright elongated stroke (a Gaussian ellipse, tall and thin), sheared: c -> c + shear (r - r0)."""
    r, c = np.mgrid[:size, :size].astype(float)
    r0, c0 = centre
    return np.exp(-((r - r0) / 6.0) ** 2 - ((c - c0 - shear * (r - r0)) / 1.5) ** 2)


def moments(img):
    r, c = np.mgrid[:img.shape[0], :img.shape[1]].astype(float)
    total = img.sum()
    r0, c0 = (r * img).sum() / total, (c * img).sum() / total
    slant = ((r - r0) * (c - c0) * img).sum() / ((r - r0) ** 2 * img).sum()
    return r0, c0, slant


@pytest.mark.parametrize("shear", [-0.5, -0.2, 0.3, 0.6])
def test_deskewing_removes_a_known_shear(shear):
    sheared = blob(shear)
    assert moments(sheared)[2] == pytest.approx(shear, abs=0.02)  # the moments see the shear
    straight = deskew(sheared)
    assert abs(moments(straight)[2]) < 0.02
    # the upright stroke again, up to the blur of linear interpolation (a stroke 3 pixels wide)
    assert np.abs(straight - blob(0.0)).max() < 0.1 and np.abs(straight - blob(0.0)).mean() < 0.005


def test_deskewing_centres_the_ink_and_leaves_an_upright_centred_stroke_alone():
    moved = deskew(blob(0.4, centre=(11.0, 16.0)))
    r0, c0, _ = moments(moved)
    assert (r0, c0) == (pytest.approx(13.5, abs=0.05), pytest.approx(13.5, abs=0.05))
    np.testing.assert_allclose(deskew(blob(0.0)), blob(0.0), atol=1e-12)


def test_shapes_batches_and_empty_images():
    batch = np.stack([blob(0.3), np.zeros((28, 28)), blob(-0.3)])
    out = deskew(batch)
    assert out.shape == (3, 28, 28) and out.dtype == np.float64
    np.testing.assert_array_equal(out[1], 0.0)  # no ink: unchanged
    np.testing.assert_allclose(out[0], deskew(batch[0]))  # one image or a batch: the same
    assert deskew((255 * blob(0.3)).astype(np.uint8)).shape == (28, 28)


@pytest.mark.parametrize("bad", [np.zeros(5), np.zeros((2, 2, 2, 2)), np.full((3, 3), np.nan)])
def test_bad_input_is_a_clear_error(bad):
    with pytest.raises(ValueError, match="images"):
        deskew(bad)
