"""Virtual examples (KernelPerceptron(augment=VirtualExamples(...))): copies, checks, determinism."""

import numpy as np
import pytest

from kpcourse.perceptron import KernelPerceptron, VirtualExamples


def _images(n=12, h=6, w=5, seed=0):
    rng = np.random.default_rng(seed)
    X = np.zeros((n, h, w))
    X[:, 1:-1, 1:-1] = rng.random((n, h - 2, w - 2))  # a zero border: shifts by 1 lose nothing
    y = (X.reshape(n, -1).sum(1) > np.median(X.reshape(n, -1).sum(1))).astype(int)
    return X.reshape(n, -1), y


def test_transforms_listed():
    assert len(VirtualExamples(shifts=(1,)).transforms()) == 4
    assert len(VirtualExamples(shifts=(1, 2), diagonal=True).transforms()) == 16
    assert VirtualExamples(shifts=(), rotations=(10,)).transforms() == [("rotate", 10.0), ("rotate", -10.0)]


def test_shifts_move_pixels_exactly():
    X, _ = _images(3)
    aug = VirtualExamples(image_shape=(6, 5), shifts=(1,), diagonal=True)
    V, src = aug.make(X, [0, 2], np.random.default_rng(0))
    assert V.shape == (16, 30) and src.tolist() == [0] * 8 + [2] * 8
    img = X[2].reshape(6, 5)
    for k, (_, dy, dx) in enumerate(aug.transforms()):
        moved = V[8 + k].reshape(6, 5)
        np.testing.assert_array_equal(moved, np.roll(np.roll(img, dy, 0), dx, 1))  # border is zero
        assert moved.sum() == pytest.approx(img.sum(), rel=1e-12)


def test_two_pixel_shift_fills_zeros():
    X = np.arange(1, 26, dtype=float)[None, :]
    V, _ = VirtualExamples(image_shape=(5, 5), shifts=(2,)).make(X, [0], None)
    down = V[0].reshape(5, 5)
    np.testing.assert_array_equal(down[:2], 0)
    np.testing.assert_array_equal(down[2:], X.reshape(5, 5)[:3])


def test_rotation_keeps_the_shape_and_most_of_the_ink():
    X, _ = _images(2, 9, 9)
    V, _ = VirtualExamples(image_shape=(9, 9), shifts=(), rotations=(8,)).make(X, [0, 1], None)
    assert V.shape == (4, 81)
    # bilinear interpolation of an image with a zero border: ink kept to within 10 %
    np.testing.assert_allclose(V.sum(1), np.repeat(X.sum(1), 2), rtol=0.1)


def test_copies_drawn_distinct_and_deterministic():
    X, _ = _images(5)
    aug = VirtualExamples(image_shape=(6, 5), shifts=(1,), diagonal=True, copies=3)
    V1, s1 = aug.make(X, np.arange(5), np.random.default_rng(7))
    V2, s2 = aug.make(X, np.arange(5), np.random.default_rng(7))
    np.testing.assert_array_equal(V1, V2)
    np.testing.assert_array_equal(s1, np.repeat(np.arange(5), 3))
    for i in range(5):  # three different moves of one image
        assert len({V1[3 * i + k].tobytes() for k in range(3)}) == 3


@pytest.mark.parametrize("kwargs, match", [
    ({"image_shape": (5, 5)}, "holds 25 pixels"),
    ({"image_shape": (6,)}, "two positive ints"),
    ({"shifts": (0,)}, "positive ints"),
    ({"shifts": 1}, "must be a tuple"),
    ({"shifts": (6,)}, "smaller than the image"),
    ({"shifts": (), "rotations": ()}, "no copy"),
    ({"copies": 5}, "more than the 4"),
    ({"copies": 0}, "positive int"),
    ({"first_epochs": 1.5}, "positive int"),
    ({"rotations": (-3,)}, "positive numbers"),
])
def test_bad_settings_named(kwargs, match):
    X, y = _images()
    kw = {"image_shape": (6, 5), **kwargs}
    with pytest.raises((ValueError, TypeError), match=match):
        KernelPerceptron(kernel="rbf", gamma=1.0, augment=VirtualExamples(**kw)).fit(X, y)


def test_augment_type_and_precomputed_rejected():
    X, y = _images()
    with pytest.raises(TypeError, match="VirtualExamples"):
        KernelPerceptron(augment={"shifts": (1,)}).fit(X, y)
    K = X @ X.T
    with pytest.raises(ValueError, match="precomputed"):
        KernelPerceptron(kernel="precomputed", augment=VirtualExamples(image_shape=(6, 5))).fit(K, y)


def test_fit_trains_on_originals_then_copies_of_support_vectors():
    X, y = _images(40)
    kw = {"kernel": "poly", "degree": 2, "gamma": 1.0, "max_epochs": 5, "random_state": 3, "device": "cpu"}
    plain = KernelPerceptron(**kw).fit(X, y)
    aug = VirtualExamples(image_shape=(6, 5), shifts=(1,), first_epochs=5)
    m = KernelPerceptron(**kw, augment=aug).fit(X, y)
    sv_first = np.flatnonzero(plain.alpha_ != 0)  # the first training is the plain fit
    assert m.n_virtual_ == 4 * len(sv_first)
    np.testing.assert_array_equal(m.virtual_source_, np.repeat(sv_first, 4))
    assert m.alpha_.shape == (40 + m.n_virtual_,)
    assert m.support_vectors_.shape == (len(m.support_), 30)
    assert m.columns_computed_ >= plain.columns_computed_ and "first" in m.timings_
    assert set(m.predict(X)) <= {0, 1}
    again = KernelPerceptron(**kw, augment=aug).fit(X, y)
    np.testing.assert_array_equal(again.alpha_, m.alpha_)  # deterministic with random_state
    # the staged scores end at the final model (floats: to 1e-9 relative)
    staged = list(m.staged_decision_function(X))[-1]
    np.testing.assert_allclose(staged, m.decision_function(X), rtol=1e-9, atol=1e-9)


def test_default_is_unchanged():
    X, y = _images(30)
    kw = {"kernel": "rbf", "gamma": 1.0, "max_epochs": 4, "random_state": 0}
    a = KernelPerceptron(**kw).fit(X, y)
    b = KernelPerceptron(**kw, augment=None, budget=None).fit(X, y)
    np.testing.assert_array_equal(a.alpha_, b.alpha_)
    assert a.n_virtual_ == 0 and a.removed_ == 0
