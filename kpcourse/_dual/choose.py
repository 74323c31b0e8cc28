"""Which column source trains a model: the precomputed matrix, or columns on demand in what precision.

``precision="auto"`` tries the highest precision first (float64 on the CPU, float32 on a
GPU) and keeps every column it computes; if the store would have to evict, training
starts again one precision lower (float32, then float16 when the kernel's values cannot
overflow it, with a warning). The last precision tried evicts the oldest columns when
full and recomputes them if needed: exact, only slower. An explicit precision is used as
it is, evicting when full. With a budget of support vectors (``keep``) the store holds at
most ``keep + SLACK`` columns and evicts the oldest: memory grows with the budget, not with n.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._backend import memory_budget, ops_for
from ..kernels import KERNELS
from .columns import CallableKernel, GramColumns, KernelColumns, NamedKernel, capacity

FLOAT16_MAX = 65504.0
SLACK = 64  # store columns beyond the budget of support vectors (recently removed ones)


def column_sources(X, kernel, params, device, max_memory, precision, fit_intercept, call=None, keep=None):
    """Yield the column sources to train on, in order (see :func:`.train.dual_train`).

    ``kernel`` is a name of the kernel table, ``"precomputed"`` (X is then the Gram
    matrix) or a callable (``call(kernel, A, B)`` evaluates and checks it). ``keep``: the
    budget of support vectors, or ``None``.
    """
    cpu = device.type == "cpu"
    decision = "float64" if cpu else "float32"
    if isinstance(kernel, str) and kernel == "precomputed":
        ops = ops_for(device, decision)
        K = X if cpu and X.dtype in (np.float64, np.float32) else ops.asarray(X, decision)
        yield GramColumns(ops, K, decision, fit_intercept)
        return
    n = X.shape[0]
    budget = memory_budget(max_memory, device)
    levels = _levels(X, kernel, params, precision, cpu)
    if keep is not None:
        levels = [p for p in levels if capacity(budget, n, p) >= min(n, keep + SLACK)] or levels[-1:]
    fitting = [p for p in levels if capacity(budget, n, p) >= 1] or levels[-1:]
    made = {}
    for k, store in enumerate(fitting):
        if store == "float16" and precision == "auto":
            warnings.warn(
                f"precision='auto': the kernel columns do not fit max_memory={budget:,} bytes in "
                "float32; they are stored in float16 (about 3 significant digits), which can change "
                "the mistakes the perceptron makes. Raise max_memory to keep float32.", stacklevel=4)
        compute = "float64" if store == "float64" else "float32"
        ops = ops_for(device, store, compute, decision)
        key = (compute, type(ops))
        if key not in made:
            made[key] = (CallableKernel(ops, X, kernel, call, compute) if callable(kernel)
                         else NamedKernel(ops, X, KERNELS[kernel], params, compute))
        cap = capacity(budget, n, store) if keep is None else min(capacity(budget, n, store), keep + SLACK)
        yield KernelColumns(ops, made[key], decision, store, cap,
                            evict=k == len(fitting) - 1 or keep is not None, fit_intercept=fit_intercept)


def _levels(X, kernel, params, precision, cpu):
    """Storage precisions to try, highest first."""
    bound = np.inf if callable(kernel) else KERNELS[kernel].bound(params, float((X * X).sum(1).max()))
    if precision != "auto":
        import torch

        top = torch.finfo(getattr(torch, precision)).max
        if bound > top:
            raise OverflowError(
                f"{kernel} kernel values can reach {bound:.4g}, above the largest {precision} "
                f"({top:.4g}); use precision='float32', a smaller gamma or degree.")
        return [precision]
    levels = ["float64", "float32"] if cpu else ["float32"]
    return levels + (["float16"] if bound <= FLOAT16_MAX else [])
