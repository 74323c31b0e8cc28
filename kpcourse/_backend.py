"""Where the big arrays live: NumPy on the CPU, torch on a GPU — the few operations that differ.

The Gram tiles and the training engine write their arithmetic once, with operators
(``@``, ``*=``, ``+=``) and the array module ``ops.xp`` (``numpy`` or ``torch``: both
have ``matmul``, ``exp``, ``clip`` with ``out=``). What differs between the two —
making an array, copying one to the host, an index for fancy indexing — is here.
On the CPU the work runs in NumPy (its BLAS is the fast one for these shapes, and small
updates cost no framework overhead); torch is used on CUDA, and on the CPU only for
bfloat16, which NumPy lacks.
"""

from __future__ import annotations

import os

import numpy as np

from ._validation import check_int

NUMPY_DTYPES = ("float64", "float32", "float16")


def dtype_name(dtype):
    """``torch.float32``, ``np.float32`` or ``"float32"`` → ``"float32"``."""
    return str(dtype).replace("torch.", "").replace("<class 'numpy.", "").rstrip("'>")


def itemsize(name):
    return {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}[name]


def memory_budget(max_memory, device):
    """The ``max_memory`` rule shared by every function of the package.

    ``max_memory`` is the most bytes of kernel values a call keeps in working memory
    at once, besides its inputs and the result it returns. ``None`` means 40 % of the
    machine's memory on the CPU, 50 % of the free GPU memory on CUDA.
    """
    if max_memory is not None:
        return check_int(max_memory, "max_memory")
    if getattr(device, "type", device) == "cuda":
        import torch

        free, _ = torch.cuda.mem_get_info(device)
        return int(0.5 * free)
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = 8 * 2**30
    return int(0.4 * total)


class NumpyOps:
    """Arrays in NumPy, on the CPU."""

    xp = np
    device = "cpu"

    def asarray(self, A, dtype):
        return np.ascontiguousarray(_host(A), dtype=dtype)

    def empty(self, shape, dtype):
        return np.empty(shape, dtype=dtype)

    def zeros(self, shape, dtype):
        return np.zeros(shape, dtype=dtype)

    def host(self, A, dtype=None):
        return A if dtype is None else np.asarray(A, dtype=dtype)

    def index(self, idx):
        return idx

    def sync(self):
        pass


class TorchOps:
    """Arrays in torch on ``device`` (a GPU; or the CPU for bfloat16 and for tests)."""

    def __init__(self, device):
        import torch

        self.xp, self.device = torch, torch.device(device)

    def asarray(self, A, dtype):
        return self.xp.as_tensor(_host(A), device=self.device).to(getattr(self.xp, dtype)).contiguous()

    def empty(self, shape, dtype):
        return self.xp.empty(shape, dtype=getattr(self.xp, dtype), device=self.device)

    def zeros(self, shape, dtype):
        return self.xp.zeros(shape, dtype=getattr(self.xp, dtype), device=self.device)

    def host(self, A, dtype=None):
        return (A if dtype is None else A.to(getattr(self.xp, dtype))).cpu().numpy()

    def index(self, idx):
        return self.xp.as_tensor(idx, device=self.device)

    def sync(self):
        if self.device.type == "cuda":
            self.xp.cuda.synchronize(self.device)


class BlasThreads:
    """NumPy's BLAS on one thread for the many small products of training, on all for big ones.

    Small products do not gain from threads, and on a busy machine a thread that waits
    for a core can stall each of them for a whole time slice.
    """

    _libs = None

    def __init__(self):
        if BlasThreads._libs is None:
            from threadpoolctl import ThreadpoolController

            BlasThreads._libs = [lib for lib in ThreadpoolController().lib_controllers if lib.user_api == "blas"]
        self.full = [lib.num_threads for lib in self._libs]

    def one(self):
        for lib in self._libs:
            lib.set_num_threads(1)

    def all(self):
        for lib, n in zip(self._libs, self.full, strict=True):
            lib.set_num_threads(n)


def ops_for(device, *dtypes):
    """NumPy on the CPU when it has every dtype, torch otherwise."""
    if getattr(device, "type", device) == "cpu" and all(d in NUMPY_DTYPES for d in dtypes):
        return NumpyOps()
    return TorchOps(device)


def _host(A):
    """A NumPy view of a CPU tensor (no copy); anything else unchanged."""
    if type(A).__module__ == "torch" and A.device.type == "cpu":
        return A.detach().numpy()
    return A
