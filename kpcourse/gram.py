"""Gram matrices at scale: tiled, memory-bounded, on CPU or GPU with torch.

:func:`gram_matrix` computes the same matrices as :mod:`kpcourse.kernels`, in row
blocks sized so that the working set stays under ``max_memory`` bytes. Nothing here
touches a GPU at import; :func:`default_device` looks for CUDA only when called.

Introduced in lesson 06 (Gram matrices at scale).
"""

from __future__ import annotations

import numpy as np

from ._validation import check_int, check_pair, check_positive

__all__ = ["gram_matrix", "default_device", "resolve_device", "kernel_params", "KERNEL_NAMES"]

KERNEL_NAMES = ("linear", "poly", "polynomial", "rbf", "cosine")


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
    means 1. Parameters a kernel does not use are ignored.
    """
    if kernel not in KERNEL_NAMES:
        raise ValueError(f"kernel must be one of {KERNEL_NAMES}, got {kernel!r}.")
    if kernel in ("poly", "polynomial"):
        return {
            "degree": check_int(degree, "degree"),
            "gamma": 1.0 if gamma is None else check_positive(gamma, "gamma"),
            "coef0": check_positive(coef0, "coef0", strict=False),
        }
    if kernel == "rbf":
        from .kernels import rbf_gamma

        return {"gamma": rbf_gamma(sigma, gamma)}
    return {}


def gram_matrix(X, Z=None, *, kernel, device="auto", dtype=None, out_dtype=None, max_memory=None,
                **params):
    """Gram matrix K[i, j] = k(X[i], Z[j]) computed in row tiles with torch.

    Squared distances use ‖x‖² − 2 x·z + ‖z‖², clamped at 0; with ``Z=None`` the
    result is exactly symmetric (only the upper triangle of tiles is computed, then
    mirrored) and the RBF diagonal is exactly 1.

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
        Bound in bytes on the working set (tiles and temporaries, not counting the
        returned matrix). ``None``: 512 MiB.
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
    Xn, Zn = check_pair(_to_numpy(X), None if Z is None else _to_numpy(Z))
    p = kernel_params(kernel, **params)
    dev = resolve_device(device)
    if dtype is None:
        low = _src_dtype(X) in ("float32", "float16", "bfloat16")
        dtype = torch.float32 if low else torch.float64
    if max_memory is None:
        max_memory = 512 * 2**20
    max_memory = check_int(max_memory, "max_memory")

    Xt = torch.tensor(Xn, dtype=dtype, device=dev)
    Zt = Xt if Z is None else torch.tensor(Zn, dtype=dtype, device=dev)
    n, m, d = Xt.shape[0], Zt.shape[0], Xt.shape[1]
    itemsize = torch.finfo(dtype).bits // 8
    out_dtype = dtype if out_dtype is None else out_dtype
    out_dev = dev if not as_numpy else torch.device("cpu")
    out = torch.empty((n, m), dtype=out_dtype, device=out_dev)
    zz = (Zt * Zt).sum(1) if kernel == "rbf" else None
    zn = _unit(Zt) if kernel == "cosine" else None

    def put(rows, cols, tile):
        if out_dtype != dtype:
            _check_fits(tile, out_dtype)
        tile = tile.to(out_dtype)
        out[rows, cols] = tile.to(out_dev)
        return tile

    if Z is None:
        # Square tiles of the upper triangle, each mirrored: half the work, exact symmetry.
        # A tile and one temporary of its size (plus its rows of X) stay under max_memory.
        side = int(((d * d + 2 * max_memory / itemsize) ** 0.5 - d) / 2)
        _check_budget(side, max_memory, per="a 1x1 tile", d=d)
        side = min(side, _TILE, n)
        for a in range(0, n, side):
            ra = slice(a, min(a + side, n))
            for c in range(a, n, side):
                rc = slice(c, min(c + side, n))
                tile = _tile(Xt[ra], Zt[rc], kernel, p, zz=None if zz is None else zz[rc],
                             zn=None if zn is None else zn[rc], diag_offset=0 if a == c else None)
                if a == c:
                    tile = (tile + tile.T) / 2
                tile = put(ra, rc, tile)
                if a != c:
                    _put_transposed(out, rc, ra, tile.to(out_dev))
    else:
        # Row blocks: the tile, one temporary of the same size and its rows of X.
        block = int(max_memory // (itemsize * (2 * m + d)))
        _check_budget(block, max_memory, per=f"one row of {m} values", d=d)
        for a in range(0, n, block):
            ra = slice(a, min(a + block, n))
            put(ra, slice(None), _tile(Xt[ra], Zt, kernel, p, zz=zz, zn=zn))
    return out.numpy() if as_numpy else out


_TILE = 1024  # largest tile side: big enough for fast matrix products, small enough for the cache


def _put_transposed(out, rows, cols, tile, step=128):
    """out[rows, cols] = tile.T, copied in small squares (a plain strided copy thrashes the cache)."""
    h, w = tile.shape
    for i in range(0, h, step):
        i2 = min(i + step, h)
        for j in range(0, w, step):
            j2 = min(j + step, w)
            out[rows.start + j:rows.start + j2, cols.start + i:cols.start + i2] = tile[i:i2, j:j2].T


def _check_budget(size, max_memory, per, d):
    if size < 1:
        raise ValueError(f"max_memory={max_memory} bytes cannot hold {per} (d={d}); raise max_memory.")


def _check_fits(tile, dtype):
    """Raise a clear OverflowError when kernel values would overflow the storage ``dtype``."""
    import torch

    lo, hi = tile.aminmax()
    if max(-float(lo), float(hi)) > torch.finfo(dtype).max:
        raise OverflowError(
            f"kernel values overflow {str(dtype).replace('torch.', '')} (largest finite value "
            f"{torch.finfo(dtype).max:.4g}); store them in float32, or use a smaller gamma or degree.")


def _tile(Xb, Z, kernel, p, *, zz=None, zn=None, diag_offset=None):
    """One block of rows of the Gram matrix (private core: inputs already clean)."""
    import torch

    if kernel == "linear":
        return Xb @ Z.T
    if kernel in ("poly", "polynomial"):
        T = Xb @ Z.T
        T.mul_(p["gamma"]).add_(p["coef0"])
        return T.pow_(p["degree"])
    if kernel == "cosine":
        return _unit(Xb) @ zn.T
    # rbf: exp(-γ (‖x‖² − 2 x·z + ‖z‖²)), distances clamped at 0
    T = Xb @ Z.T
    T.mul_(-2.0).add_((Xb * Xb).sum(1)[:, None]).add_(zz[None, :]).clamp_(min=0.0)
    if diag_offset is not None:
        idx = torch.arange(Xb.shape[0], device=Xb.device)
        T[idx, idx + diag_offset] = 0.0
    return T.mul_(-p["gamma"]).exp_()


def _unit(X):
    norms = X.norm(dim=1, keepdim=True)
    return X / norms.where(norms > 0, 1.0)


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
