"""MNIST read from its IDX files (checked), and moment-based deskewing.
"""

from __future__ import annotations

import gzip
import struct
import zlib
from pathlib import Path

import numpy as np

from .._validation import check_int
from ._files import DataIntegrityError, _fetch

_IDX_IMAGES = 2051
_IDX_LABELS = 2049


def _read_idx(path, magic, count=None):
    """Read an IDX file (gzip) of unsigned bytes: images (magic 2051) or labels (2049).

    Reads the first ``count`` items (all when None) and checks the magic number,
    the dimensions and the amount of data.
    """
    name = Path(path).name
    ndim = 3 if magic == _IDX_IMAGES else 1
    what = "images" if ndim == 3 else "labels"
    try:
        with gzip.open(path, "rb") as f:
            header = f.read(4 + 4 * ndim)
            if len(header) < 4 + 4 * ndim:
                raise DataIntegrityError(
                    f"{name}: truncated IDX header ({len(header)} bytes, "
                    f"expected {4 + 4 * ndim}). Delete the file and download it again.")
            got_magic, *dims = struct.unpack(f">{1 + ndim}I", header)
            if got_magic != magic:
                raise DataIntegrityError(
                    f"{name}: not an IDX {what} file: magic number {got_magic}, expected {magic}. "
                    "Delete the file and download it again.")
            if ndim == 3 and tuple(dims[1:]) != (28, 28):
                raise DataIntegrityError(
                    f"{name}: images of {dims[1]}x{dims[2]} pixels, expected 28x28.")
            n_items = dims[0] if count is None else count
            if n_items > dims[0]:
                raise ValueError(f"n must be <= {dims[0]} (the {what} in {name}), got {n_items}.")
            n_bytes = n_items * (784 if ndim == 3 else 1)
            data = f.read(n_bytes)
            if len(data) < n_bytes:
                raise DataIntegrityError(
                    f"{name}: truncated: {len(data)} bytes of {what} data, expected {n_bytes} "
                    f"({n_items} {what}). Delete the file and download it again.")
            if count is None and f.read(1):
                raise DataIntegrityError(
                    f"{name}: more data than the header's {dims[0]} {what}. "
                    "Delete the file and download it again.")
    except (OSError, EOFError, zlib.error) as exc:  # gzip.BadGzipFile is an OSError
        raise DataIntegrityError(
            f"{name}: corrupt gzip data ({exc}). Delete the file and download it again."
        ) from None
    arr = np.frombuffer(bytearray(data), dtype=np.uint8)
    if ndim == 3:
        return arr.reshape(n_items, 28, 28)
    if arr.size and arr.max() > 9:
        raise DataIntegrityError(f"{name}: label {int(arr.max())} outside 0..9.")
    return arr.astype(np.int64)


_MNIST_SPLITS = {"train": ("train", 60_000), "test": ("t10k", 10_000)}


def load_mnist(split, n=None):
    """MNIST handwritten digits: 28×28 grey-level images and their labels 0–9.

    The first ``n`` images of the training set (60 000 images) or the test set
    (10 000 images), in the original file order. Pixels are 0 (background) to
    255 (ink). Source: Y. LeCun, C. Cortes and C. Burges, CC BY-SA 3.0.

    Parameters
    ----------
    split : {"train", "test"}
        Which file pair to read.
    n : int, default=None
        Number of images to return, 1 <= n <= 60 000 (train) or 10 000 (test);
        ``None`` returns them all.

    Returns
    -------
    images : ndarray of shape (n, 28, 28), dtype uint8
    labels : ndarray of shape (n,), dtype int64

    Raises
    ------
    DataNotFoundError
        The files are not available and cannot be downloaded.
    DataIntegrityError
        A file does not match its published sha256, or is not a valid IDX file.

    Examples
    --------
    >>> images, labels = load_mnist("train", n=100)  # doctest: +SKIP
    >>> images.shape, images.dtype, int(labels[0])  # doctest: +SKIP
    ((100, 28, 28), dtype('uint8'), 5)

    Lesson 01 (matching detector), 06 and 07.
    """
    if not isinstance(split, str) or split not in _MNIST_SPLITS:
        raise ValueError(f"split must be 'train' or 'test', got {split!r}.")
    prefix, available = _MNIST_SPLITS[split]
    if n is not None:
        n = check_int(n, "n", minimum=1)
        if n > available:
            raise ValueError(f"n must be <= {available} for split={split!r}, got {n}.")
    images = _read_idx(_fetch(f"mnist/{prefix}-images-idx3-ubyte.gz"), _IDX_IMAGES, n)
    labels = _read_idx(_fetch(f"mnist/{prefix}-labels-idx1-ubyte.gz"), _IDX_LABELS, n)
    if len(images) != len(labels):
        raise DataIntegrityError(
            f"MNIST {split}: {len(images)} images but {len(labels)} labels.")
    return images, labels


def deskew(images):
    """Remove the slant of handwritten digits with a shear computed from image moments.

    With the ink's centre of mass (r̄, c̄) and second moments var(r) and cov(r, c) of
    each image (pixel values as weights), the slant is s = cov(r, c) / var(r) columns
    per row. The output pixel (r, c) reads the input at row r + r̄ − r_mid and column
    c + c̄ − c_mid + s (r − r_mid), with bilinear interpolation (zero outside the
    image): the ink gets no slant and its centre of mass moves to the middle
    (r_mid, c_mid) of the frame. An image without ink is returned unchanged.

    Parameters
    ----------
    images : array-like of shape (n, height, width) or (height, width)
        Grey levels, ink > 0 (e.g. MNIST's uint8 pixels).

    Returns
    -------
    ndarray of float64, same shape as ``images``

    Examples
    --------
    >>> img = np.zeros((9, 9)); img[range(1, 8), range(1, 8)] = 1.0  # a stroke at 45°
    >>> np.round(deskew(img)[:, 4], 2)  # upright: all its ink in the middle column
    array([0., 1., 1., 1., 1., 1., 1., 1., 0.])

    Lesson 07 (MNIST); the moment-based deskewing of LeCun et al. (1998).
    """
    X = np.asarray(images, dtype=np.float64)
    single = X.ndim == 2
    X = X[None] if single else X
    if X.ndim != 3 or 0 in X.shape:
        raise ValueError(f"images must have shape (n, height, width) or (height, width), got {np.shape(images)}.")
    if not np.all(np.isfinite(X)):
        raise ValueError("images contain NaN or infinite values.")
    _, H, W = X.shape
    r, c = np.arange(H, dtype=np.float64), np.arange(W, dtype=np.float64)
    total = X.sum((1, 2))
    ink = total > 0
    total = np.where(ink, total, 1.0)
    r0, c0 = X.sum(2) @ r / total, X.sum(1) @ c / total
    dr, dc = r[None, :, None] - r0[:, None, None], c[None, None, :] - c0[:, None, None]
    var_r, cov = (dr * dr * X).sum((1, 2)), (dr * dc * X).sum((1, 2))
    slant = np.where(var_r > 0, cov / np.where(var_r > 0, var_r, 1.0), 0.0)
    mid_r, mid_c = (H - 1) / 2, (W - 1) / 2
    rows = _shift_last(X.transpose(0, 2, 1), (r0 - mid_r)[:, None, None]).transpose(0, 2, 1)
    out = _shift_last(rows, (c0 - mid_c)[:, None, None] + slant[:, None, None] * (r - mid_r)[None, :, None])
    out[~ink] = X[~ink]
    return out[0] if single else out


def _shift_last(A, shift):
    """out[..., j] = A[..., j + shift] along the last axis, linear interpolation, 0 outside."""
    W = A.shape[-1]
    pos = np.arange(W) + shift
    lo = np.floor(pos)
    f = pos - lo
    lo = lo.astype(np.int64)
    P = np.pad(A, [(0, 0)] * (A.ndim - 1) + [(1, 1)])  # P[..., k + 1] = A[..., k]
    left = np.take_along_axis(P, np.clip(lo + 1, 0, W + 1), -1)
    right = np.take_along_axis(P, np.clip(lo + 2, 0, W + 1), -1)
    return (1.0 - f) * left + f * right
