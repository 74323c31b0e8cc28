"""Gram matrices at scale: tiled, memory-bounded, on the CPU (NumPy) or a GPU (torch).

:func:`gram_matrix` computes the same matrices as :mod:`kpcourse.kernels`, in tiles
sized so that the working memory stays under ``max_memory`` bytes. Each tile is one
matrix product of the rows as the kernel table says (centred for RBF, unit length
for cosine, features that are zero in every sample left out), finished into kernel
values in place while it is still in the cache. Nothing here touches a GPU at import;
:func:`default_device` looks for CUDA only when called.

Introduced in lesson 06 (Gram matrices at scale).
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ._backend import BlasThreads, dtype_name, itemsize, memory_budget, ops_for
from ._validation import check_pair
from .kernels import KERNEL_NAMES, get_kernel

__all__ = ["gram_matrix", "default_device", "resolve_device", "kernel_params", "KERNEL_NAMES"]

TILE = 768  # side of a square tile: a fast matrix product whose result still sits in the cache
ROW_TILE_BYTES = 64 * 2**20  # largest row block when Z is given


def default_device():
    """Return ``torch.device("cuda")`` when a CUDA GPU is available, else CPU."""
    import torch

    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def resolve_device(device="auto"):
    """Turn ``"auto"``, a string or a ``torch.device`` into a usable ``torch.device``.

    Asking for CUDA on a machine without it raises a ``ValueError`` that says so
    (use ``device="auto"`` to fall back to the CPU).
    """
    import torch

    if device is None or device == "auto":
        return default_device()
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise ValueError(
            f"device must be 'auto', 'cpu', 'cuda' or a torch.device; got {device!r} ({exc})."
        ) from None
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            "device='cuda' was asked for but no CUDA GPU is available; use device='auto' or 'cpu'."
        )
    return dev


def kernel_params(kernel, *, degree=2, gamma=None, sigma=None, coef0=1.0):
    """Validate kernel parameters and return the dict that ``gram_matrix`` uses.

    For ``"rbf"`` exactly one of ``gamma``/``sigma``; for ``"poly"`` ``gamma=None``
    means 1. Parameters a kernel does not use are ignored (see ``kernels.KERNELS``).
    """
    return get_kernel(kernel).params(degree=degree, gamma=gamma, sigma=sigma, coef0=coef0)


def gram_matrix(X, Z=None, *, kernel, device="auto", dtype=None, out_dtype=None, max_memory=None,
                **params):
    """Gram matrix K[i, j] = k(X[i], Z[j]) computed in tiles.

    Squared distances use ‖x‖² − 2 x·z + ‖z‖² on centred data, clamped at 0; with
    ``Z=None`` the result is exactly symmetric (only the upper triangle of tiles is
    computed, then mirrored) and the RBF diagonal is exactly 1.

    Parameters
    ----------
    X : ndarray or torch.Tensor of shape (n, d)
    Z : ndarray or torch.Tensor of shape (m, d), default=None
        ``None`` means ``Z = X``.
    kernel : {"linear", "poly", "polynomial", "rbf", "cosine"}
    device : "auto", "cpu", "cuda" or torch.device, default="auto"
        Where to compute; "auto" picks CUDA when present.
    dtype : torch.dtype, default=None
        Compute and output precision; ``None`` uses float32 for float32/float16
        input and float64 otherwise.
    out_dtype : torch.dtype, default=None
        Storage precision of the result (e.g. ``torch.float16`` to halve memory);
        ``None`` means ``dtype``. Values that overflow it raise ``OverflowError``.
    max_memory : int, default=None
        The most bytes of kernel values held in working memory at once besides the
        returned matrix — here the tiles and their temporaries: with ``Z`` given, row
        blocks of ⌊max_memory / (itemsize · (2m + d))⌋ rows (at most 64 MiB each);
        with ``Z=None``, square tiles (at most 768 on a side). ``None``: 40 % of the
        machine's memory on the CPU, 50 % of the free GPU memory on CUDA (the same
        rule as ``KernelPerceptron``).
    **params
        Kernel parameters: ``degree``, ``gamma``, ``coef0`` (poly); ``sigma`` or
        ``gamma`` (rbf).

    Returns
    -------
    K : ndarray of shape (n, m) for NumPy input, torch.Tensor (on ``device``) for
        tensor input.

    Examples
    --------
    >>> import numpy as np
    >>> gram_matrix(np.eye(2), kernel="linear")
    array([[1., 0.],
           [0., 1.]])

    Lesson 06 (Gram matrices at scale).
    """
    import torch

    as_numpy = not isinstance(X, torch.Tensor)
    Xn, Zn = check_pair(_to_numpy(X), None if Z is None else _to_numpy(Z), dtype=None)
    spec = get_kernel(kernel)
    p = spec.params(**params)
    dev = resolve_device(device)
    if dtype is None:
        dtype = "float32" if _src_dtype(X) in ("float32", "float16", "bfloat16") else "float64"
    dtype = dtype_name(dtype)
    out_dtype = dtype if out_dtype is None else dtype_name(out_dtype)
    budget = memory_budget(max_memory, dev)
    K = gram(ops_for(dev, dtype, out_dtype), Xn, None if Z is None else Zn, spec, p, dtype, out_dtype, budget)
    if isinstance(K, np.ndarray):
        return K if as_numpy else torch.from_numpy(K)
    return K.cpu().numpy() if as_numpy else K


# ----------------------------------------------------------------- private core
def prepare(ops, X, spec, dtype, *, mean=None, keep=None):
    """Rows of X as the kernel's dot products see them, in ``dtype`` on ``ops``'s device.

    Returns ``(A, norms)``: centred (RBF, by ``mean``) or unit-length (cosine) rows,
    restricted to the features ``keep``, and their squared norms (RBF; else None).
    """
    if keep is not None:
        X = np.take(X, np.flatnonzero(keep), axis=1)
    if spec.rows == "centred":  # in the input's precision (float64 data is centred before rounding)
        mean = X.mean(0, dtype=np.float64) if mean is None else mean[keep] if keep is not None else mean
        X = X - mean.astype(X.dtype)
    elif spec.rows == "unit":
        norms = np.linalg.norm(X, axis=1, keepdims=True)
        X = X / np.where(norms > 0, norms, 1.0).astype(X.dtype)
    A = ops.asarray(X, dtype)
    return A, ((A * A).sum(1) if spec.rows == "centred" else None)


def nonzero_features(*arrays):
    """Boolean mask of the features that are non-zero somewhere (None when all are)."""
    keep = np.zeros(arrays[0].shape[1], dtype=bool)
    for A in arrays:
        keep |= (A != 0).any(0)
    return None if keep.all() else keep


def check_fits(tile, dtype):
    """Raise a clear OverflowError when kernel values would overflow the storage ``dtype``."""
    import torch

    big = torch.finfo(getattr(torch, dtype)).max
    if len(tile) and float(abs(tile).max()) > big:
        raise OverflowError(
            f"kernel values overflow {dtype} (largest finite value {big:.4g}); store them in "
            "float32, or use a smaller gamma or degree.")


def gram(ops, X, Z, spec, p, dtype, out_dtype, budget):
    """The Gram matrix of clean float NumPy inputs (``Z=None``: symmetric), as ``ops`` arrays."""
    keep = nonzero_features(X) if Z is None else nonzero_features(X, Z)
    mean = None
    if spec.rows == "centred":
        mean = X.mean(0, dtype=np.float64) if Z is None else \
            (X.sum(0, dtype=np.float64) + Z.sum(0, dtype=np.float64)) / (len(X) + len(Z))
    A, na = prepare(ops, X, spec, dtype, mean=mean, keep=keep)
    B, nb = (A, na) if Z is None else prepare(ops, Z, spec, dtype, mean=mean, keep=keep)
    n, m, d = A.shape[0], B.shape[0], A.shape[1]
    out = ops.empty((n, m), out_dtype)
    item, workers = itemsize(dtype), _workers(ops)
    low = out_dtype != dtype
    if Z is None:
        # Per worker, a tile, one temporary of its size and its rows of A stay under budget / workers.
        side = int(((d * d + 2 * budget / (item * workers)) ** 0.5 - d) / 2)
        _check_budget(side, budget, per="a 1x1 tile", d=d)
        side = min(side, TILE, n)
        tiles = [(slice(a, min(a + side, n)), slice(c, min(c + side, n)))
                 for a in range(0, n, side) for c in range(a, n, side)]
        _parallel(ops, tiles, lambda t: _square_tile(ops, A, na, spec, p, out, *t, low))
    else:
        # A block of rows, one temporary of its size and its rows of A stay under the budget.
        rows = int(budget // (item * (2 * m + d)))
        _check_budget(rows, budget, per=f"one row of {m} values", d=d)
        rows = min(rows, max(1, ROW_TILE_BYTES // (item * m)), n)
        for a in range(0, n, rows):  # each block shared among the workers
            b = min(a + rows, n)
            step = -(-(b - a) // workers)
            parts = [slice(i, min(i + step, b)) for i in range(a, b, step)]
            _parallel(ops, parts, lambda r: _row_block(ops, A, na, B, nb, spec, p, out, r, low))
    return out


def _row_block(ops, A, na, B, nb, spec, p, out, rows, low):
    G = spec.finish(A[rows] @ B.T, p, None if na is None else na[rows], nb, ops.xp)
    if low:
        check_fits(G, _name(out))
    out[rows] = G


def _square_tile(ops, A, na, spec, p, out, ra, rc, low):
    """One tile of the upper triangle of A Aᵀ, finished in place and mirrored: exact symmetry."""
    h, w = ra.stop - ra.start, rc.stop - rc.start
    G = _buffer(ops, h * w, _name(A)).reshape(h, w)
    ops.xp.matmul(A[ra], A[rc].T, out=G)  # on a diagonal tile NumPy uses syrk: exactly symmetric
    diagonal = ra == rc
    zero = None
    if diagonal and spec.rows == "centred":
        zero = (ops.index(np.arange(h)), ops.index(np.arange(h)))
    G = spec.finish(G, p, None if na is None else na[ra], None if na is None else na[rc], ops.xp, zero=zero,
                    symmetric=diagonal)
    if diagonal and ops.xp is not np:  # (torch's product need not be symmetric)
        G = (G + G.T) / 2
    if low:
        check_fits(G, _name(out))
    out[ra, rc] = G
    if not diagonal:
        out[rc, ra] = G.T


_local = threading.local()


def _buffer(ops, size, dtype):
    """A reusable flat buffer per thread (a fresh large array costs page faults on every tile)."""
    if ops.xp is not np:
        return ops.empty((size,), dtype)
    buf = getattr(_local, dtype, None)
    if buf is None or buf.size < size:
        buf = np.empty(size, dtype=dtype)
        setattr(_local, dtype, buf)
    return buf[:size]


def _workers(ops):
    """NumPy: one Python thread per BLAS thread, each running one-threaded BLAS and ufuncs."""
    return BlasThreads().full[0] if ops.xp is np and BlasThreads().full else 1


def _parallel(ops, jobs, work):
    workers = min(_workers(ops), len(jobs))
    if workers < 2:
        for job in jobs:
            work(job)
        return
    threads = BlasThreads()
    threads.one()
    try:
        with ThreadPoolExecutor(workers) as pool:
            for _ in pool.map(work, jobs):
                pass
    finally:
        threads.all()


def _name(A):
    return str(A.dtype).replace("torch.", "")


def _check_budget(size, max_memory, per, d):
    if size < 1:
        raise ValueError(f"max_memory={max_memory} bytes cannot hold {per} (d={d}); raise max_memory.")


def _src_dtype(X):
    import torch

    if isinstance(X, torch.Tensor):
        return str(X.dtype).replace("torch.", "")
    return str(np.asarray(X).dtype)


def _to_numpy(X):
    import torch

    if isinstance(X, torch.Tensor):
        return X.detach().cpu().numpy()
    return X
