"""Private core of :class:`kpcourse.perceptron.KernelPerceptron`: exact online dual training.

Inputs here are already validated. The idea, for a reader:

* ``F[c, j]`` is the decision value of training point j for class c. A mistake on
  sample i adds ``yᵢ (k(·, xᵢ) + 1)`` to row c of F, so correctly classified
  samples cost nothing: the next mistake is found by a vectorised check of the
  next few hundred visited samples.
* Averaging uses the timestamp trick: with ``τᵢ = Σ (steps at which αᵢ grew)``,
  the average of αᵢ over T steps is ``(αᵢ (T + 1) − τᵢ) / T`` — O(1) per mistake.
* Kernel rows come from a *column source*: the full Gram matrix when it fits the
  memory budget, else a cache filled block by block, each block holding the
  columns of the next samples that are currently misclassified (they are the
  likely next mistakes), computed with one matrix product.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

import numpy as np

SCAN = 256  # visited samples checked at once for the next mistake
BLOCK = 256  # kernel columns computed at once by the cache
LOOKAHEAD = 8192  # visited samples searched for speculative columns


# ------------------------------------------------------------- column sources
class FullColumns:
    """Every kernel column, from a precomputed (n, n) matrix (row i = column i)."""

    def __init__(self, K):
        self.K = K
        self.computed = K.shape[0]

    def get(self, i, candidates):
        return self.K[i]


class CachedColumns:
    """Kernel columns computed on demand, ``block`` at a time, kept in a FIFO cache."""

    def __init__(self, X, kernel, params, capacity, dtype, block=BLOCK):
        import torch

        from .gram import _unit

        n = X.shape[0]
        if capacity < 1:
            raise ValueError("max_memory is too small to hold a single kernel column "
                             f"({n} values); raise max_memory.")
        self.X, self.kernel, self.params = X, kernel, params
        self.block = max(1, min(block, capacity))
        self.buf = torch.empty((min(capacity, n), n), dtype=dtype, device=X.device)
        self.slot = np.full(n, -1, dtype=np.int64)  # sample -> row of buf
        self.owner = np.full(self.buf.shape[0], -1, dtype=np.int64)  # row of buf -> sample
        self.next = 0
        self.xx = (X * X).sum(1) if kernel == "rbf" else None
        self.xn = _unit(X) if kernel == "cosine" else None
        self.computed = 0

    def get(self, i, candidates):
        s = self.slot[i]
        if s < 0:
            more = [j for j in candidates() if self.slot[j] < 0 and j != i]
            self._fill(np.array([i, *more[: self.block - 1]], dtype=np.int64))
            s = self.slot[i]
        return self.buf[s]

    def _fill(self, idx):
        from .gram import _check_fits, _tile

        tile = _tile(self.X[idx], self.X, self.kernel, self.params, zz=self.xx, zn=self.xn)
        if self.buf.dtype != tile.dtype:
            _check_fits(tile, self.buf.dtype)
        stored = tile.to(self.buf.dtype)
        rows = (self.next + np.arange(len(idx))) % self.buf.shape[0]
        self.next = int(rows[-1] + 1) % self.buf.shape[0]
        old = self.owner[rows]
        self.slot[old[old >= 0]] = -1
        self.owner[rows] = idx
        self.slot[idx] = rows
        self.buf[rows] = stored
        self.computed += len(idx)


# ---------------------------------------------------------------- training
@dataclass
class DualResult:
    alpha: np.ndarray  # (C, n) mistake counts
    tau: np.ndarray  # (C, n) sum of the steps at which each α grew
    bias: np.ndarray  # (C,)
    bias_tau: np.ndarray  # (C,) Σ step·y over mistakes (for the averaged bias)
    epochs: np.ndarray  # (C,) epochs run per class
    converged: np.ndarray  # (C,) bool
    history: list = field(default_factory=list)  # mistakes per epoch, all classes
    log_step: np.ndarray = None  # (M,) step of each mistake (1-based: epoch·n + position + 1)
    log_index: np.ndarray = None  # (M,) sample of each mistake
    log_classes: np.ndarray = None  # (M, C) bool: classes that erred
    columns_computed: int = 0


def dual_train(cols, Y, fit_intercept, max_epochs, orders, progress=False, fused=None):
    """Exact online dual training of every class at once.

    ``cols.get(i, candidates)`` returns the kernel column of sample i; ``Y`` is an
    (n, C) tensor of ±1; ``orders[e]`` the visiting order of epoch e (numpy).
    ``fused`` (default: on GPUs) updates every class's row in one kernel without a
    host sync; on CPUs only the rows of the classes that erred are touched.
    """
    import torch

    dev = Y.device
    fused = dev.type != "cpu" if fused is None else fused
    threads = torch.get_num_threads()
    if dev.type == "cpu":  # the per-mistake operations are small: threads only add latency
        torch.set_num_threads(1)
    try:
        return _train(cols, Y, fit_intercept, max_epochs, orders, progress, fused)
    finally:
        torch.set_num_threads(threads)


def _train(cols, Y, fit_intercept, max_epochs, orders, progress, fused):
    import torch

    n, C = Y.shape
    dev, dt = Y.device, Y.dtype
    alpha = torch.zeros((C, n), dtype=torch.int64, device=dev)
    tau = torch.zeros((C, n), dtype=torch.float64, device=dev)
    F = torch.zeros((C, n), dtype=dt, device=dev)  # row c: decision values for class c
    bias = torch.zeros(C, dtype=dt, device=dev)
    bias_tau = torch.zeros(C, dtype=torch.float64, device=dev)
    active = torch.ones(C, dtype=torch.bool, device=dev)
    epochs = torch.zeros(C, dtype=torch.int64, device=dev)
    history, log_step, log_index, log_mask = [], [], [], []
    bar = _progress(max_epochs, progress)
    for epoch in range(max_epochs):
        order_np = np.asarray(orders[epoch])
        order = torch.as_tensor(order_np, device=dev)
        Yo = Y[order]
        made = torch.zeros(C, dtype=torch.int64, device=dev)
        p = 0

        while p < n:
            q = min(p + SCAN, n)
            wrong = (Yo[p:q] * F[:, order[p:q]].T <= 0) & active
            rows = wrong.any(1)
            first = int(torch.argmax(rows.to(torch.uint8)))
            if not bool(rows[first]):
                p = q
                continue
            pos = p + first
            i = int(order_np[pos])
            mask = wrong[first]
            step = Y[i] * mask  # ±1 for the classes that erred, 0 elsewhere
            t = epoch * n + pos + 1
            col = cols.get(i, partial(_candidates, Yo, F, order, order_np, active, pos + 1)).to(dt)
            if fit_intercept:
                col = col + 1.0
                bias += step
                bias_tau += t * step.to(torch.float64)
            if fused:  # one update of every row, no host sync (GPU)
                F.addr_(step, col)
            else:  # touch only the rows of the classes that erred (CPU)
                for c in torch.nonzero(mask).flatten().tolist():
                    F[c].add_(col, alpha=float(step[c]))
            m = mask.to(torch.int64)
            alpha[:, i] += m
            tau[:, i] += t * m
            made += m
            log_step.append(t)
            log_index.append(i)
            log_mask.append(mask)
            p = pos + 1
        epochs += active.to(torch.int64)
        history.append(int(made.sum()))
        active &= made > 0
        if bar is not None:
            bar.update(1)
            bar.set_postfix(mistakes=history[-1])
        if not bool(active.any()):
            break
    if bar is not None:
        bar.close()
    masks = torch.stack(log_mask).cpu().numpy() if log_mask else np.zeros((0, C), bool)
    return DualResult(
        alpha=alpha.cpu().numpy(), tau=tau.cpu().numpy(), bias=bias.cpu().numpy().astype(np.float64),
        bias_tau=bias_tau.cpu().numpy(), epochs=epochs.cpu().numpy(), converged=(~active).cpu().numpy(),
        history=history, log_step=np.asarray(log_step, dtype=np.int64),
        log_index=np.asarray(log_index, dtype=np.int64), log_classes=masks,
        columns_computed=getattr(cols, "computed", n))


def _candidates(Yo, F, order, order_np, active, start):
    """Samples after ``start`` in this epoch's order that are misclassified now."""
    stop = min(start + LOOKAHEAD, len(order_np))
    wrong = ((Yo[start:stop] * F[:, order[start:stop]].T <= 0) & active).any(1)
    return order_np[start:stop][wrong.cpu().numpy()]


def _progress(total, enabled):
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="epochs", unit="epoch")


# ------------------------------------------------------ averaged and staged
def averaged(alpha, tau, bias, bias_tau, T):
    """Averaged dual coefficients over T steps: ᾱ = (α (T + 1) − τ) / T (per class)."""
    T = np.asarray(T, dtype=np.float64)[:, None]
    a = (alpha * (T + 1) - tau) / T
    b = (bias * (T[:, 0] + 1) - bias_tau) / T[:, 0]
    return a, b


def state_after(result, y_pm, n, epoch, fit_intercept):
    """α, bias and averaged α, bias at the end of ``epoch`` (1-based), from the mistake log."""
    C = result.alpha.shape[0]
    T_end = epoch * n
    keep = result.log_step <= T_end
    steps, idx, cls = result.log_step[keep], result.log_index[keep], result.log_classes[keep]
    alpha = np.zeros((C, n))
    tau = np.zeros((C, n))
    for c in range(C):
        sel = cls[:, c]
        np.add.at(alpha[c], idx[sel], 1.0)
        np.add.at(tau[c], idx[sel], steps[sel])
    signs = y_pm.T  # (C, n)
    bias = (alpha * signs).sum(1) if fit_intercept else np.zeros(C)
    bias_tau = (tau * signs).sum(1) if fit_intercept else np.zeros(C)
    T = np.minimum(result.epochs, epoch) * n
    a_avg, b_avg = averaged(alpha, tau, bias, bias_tau, np.maximum(T, 1))
    return alpha, bias, a_avg, b_avg
