"""Virtual examples: shifted (and rotated) copies of the training images that erred.

The "virtual support vector" idea (Schölkopf, Burges & Vapnik 1996; DeCoste & Schölkopf
2002): the examples a kernel machine errs on carry the decision boundary, so copies of them
moved by a pixel or two teach the invariance the data lacks at a fraction of the cost of
augmenting the whole set. :class:`VirtualExamples` describes the copies;
``KernelPerceptron(augment=VirtualExamples(...))`` trains once, makes the copies of the
samples that erred (its support vectors) only, and trains again on the originals followed
by the copies. Kernel columns are computed, as always, only for samples that err.
"""

from __future__ import annotations

import numbers

import numpy as np


class VirtualExamples:
    """Which virtual copies of erring training images ``KernelPerceptron(augment=...)`` makes.

    Parameters
    ----------
    image_shape : tuple of 2 ints, default=(28, 28)
        Height and width of each image; a row of X holds its pixels row by row
        (``n_features == height * width``).
    shifts : tuple of ints, default=(1,)
        Translations in pixels; each distance d gives the four moves (±d, 0), (0, ±d)
        (and the four diagonal moves (±d, ±d) with ``diagonal=True``). Pixels moved in
        from outside the image are 0.
    diagonal : bool, default=False
        Also move diagonally.
    rotations : tuple of floats, default=()
        Rotation angles in degrees; each angle a gives the two rotations ±a about the
        image centre (bilinear interpolation, zeros outside).
    copies : int or None, default=None
        Copies per erring example: ``None`` makes one per transformation; an integer k
        draws k distinct transformations per example (with the estimator's
        ``random_state``).
    first_epochs : int or None, default=None
        Epochs of the first training, the one whose support vectors are copied;
        ``None``: the estimator's ``max_epochs``.

    Examples
    --------
    >>> aug = VirtualExamples(shifts=(1, 2), copies=4)
    >>> len(aug.transforms())
    8
    """

    def __init__(self, image_shape=(28, 28), shifts=(1,), diagonal=False, rotations=(), copies=None,
                 first_epochs=None):
        self.image_shape = image_shape
        self.shifts = shifts
        self.diagonal = diagonal
        self.rotations = rotations
        self.copies = copies
        self.first_epochs = first_epochs

    def __repr__(self):
        return (f"VirtualExamples(image_shape={self.image_shape!r}, shifts={self.shifts!r}, "
                f"diagonal={self.diagonal!r}, rotations={self.rotations!r}, copies={self.copies!r}, "
                f"first_epochs={self.first_epochs!r})")

    def check(self, n_features):
        """Raise ``ValueError``/``TypeError`` naming the bad setting; return self."""
        shape = self.image_shape
        if (not isinstance(shape, (tuple, list)) or len(shape) != 2
                or not all(isinstance(s, numbers.Integral) and s > 0 for s in shape)):
            raise ValueError(f"image_shape must be two positive ints (height, width), got {shape!r}.")
        if shape[0] * shape[1] != n_features:
            raise ValueError(f"image_shape {tuple(shape)} holds {shape[0] * shape[1]} pixels but X has "
                             f"{n_features} features; give the shape of one image.")
        for name, values, kind in (("shifts", self.shifts, numbers.Integral),
                                   ("rotations", self.rotations, numbers.Real)):
            if not isinstance(values, (tuple, list)):
                raise TypeError(f"{name} must be a tuple, got {values!r}.")
            for v in values:
                if not isinstance(v, kind) or isinstance(v, bool) or v <= 0:
                    raise ValueError(f"{name} must hold positive {'ints' if kind is numbers.Integral else 'numbers'}"
                                     f", got {v!r} in {values!r}.")
        if any(s >= min(shape) for s in self.shifts):
            raise ValueError(f"shifts must be smaller than the image ({tuple(shape)}), got {self.shifts!r}.")
        if not isinstance(self.diagonal, (bool, np.bool_)):
            raise TypeError(f"diagonal must be True or False, got {self.diagonal!r}.")
        if not self.transforms():
            raise ValueError("VirtualExamples makes no copy: give at least one shift or rotation.")
        for name in ("copies", "first_epochs"):
            v = getattr(self, name)
            if v is not None and (not isinstance(v, numbers.Integral) or isinstance(v, bool) or v < 1):
                raise ValueError(f"{name} must be None or a positive int, got {v!r}.")
        if self.copies is not None and self.copies > len(self.transforms()):
            raise ValueError(f"copies={self.copies} is more than the {len(self.transforms())} transformations "
                             "the shifts and rotations give.")
        return self

    def transforms(self):
        """The transformations, as ("shift", dy, dx) and ("rotate", degrees) tuples."""
        out = []
        for d in self.shifts:
            moves = [(d, 0), (-d, 0), (0, d), (0, -d)]
            if self.diagonal:
                moves += [(d, d), (d, -d), (-d, d), (-d, -d)]
            out += [("shift", dy, dx) for dy, dx in moves]
        for a in self.rotations:
            out += [("rotate", float(a)), ("rotate", -float(a))]
        return out

    def make(self, X, idx, rng):
        """Virtual copies of the rows ``idx`` of X: (copies, source), source[k] the row copied.

        Deterministic for a given ``rng`` (a NumPy Generator, used only when ``copies``
        is an int). Copies of one example are consecutive, in ``idx`` order.
        """
        idx = np.asarray(idx, dtype=np.int64)
        h, w = self.image_shape
        T = self.transforms()
        if self.copies is None:
            pick = np.tile(np.arange(len(T)), (len(idx), 1))
        else:
            pick = np.argsort(rng.random((len(idx), len(T))), axis=1)[:, :self.copies]
            pick.sort(axis=1)
        out = np.zeros((pick.size, h * w), dtype=X.dtype)
        images = X[idx].reshape(-1, h, w)
        rows = np.arange(pick.size).reshape(pick.shape)
        for t, how in enumerate(T):
            sel = pick == t
            if not sel.any():
                continue
            src, dst = np.nonzero(sel)[0], rows[sel]
            moved = _shift(images[src], *how[1:]) if how[0] == "shift" else _rotate(images[src], how[1])
            out[dst] = moved.reshape(len(src), -1)
        return out, np.repeat(idx, pick.shape[1])


def _shift(images, dy, dx):
    """Images moved dy pixels down and dx right, zeros moved in."""
    out = np.zeros_like(images)
    h, w = images.shape[1:]
    out[:, max(dy, 0):h + min(dy, 0), max(dx, 0):w + min(dx, 0)] = \
        images[:, max(-dy, 0):h + min(-dy, 0), max(-dx, 0):w + min(-dx, 0)]
    return out


def _rotate(images, degrees):
    from scipy.ndimage import rotate

    return rotate(images, degrees, axes=(2, 1), reshape=False, order=1, mode="constant", cval=0.0)


def check_augment(augment, n_features):
    """``None`` or a checked :class:`VirtualExamples`."""
    if augment is None:
        return None
    if not isinstance(augment, VirtualExamples):
        raise TypeError(f"augment must be None or a VirtualExamples, got {augment!r}.")
    return augment.check(n_features)
