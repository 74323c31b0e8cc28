"""Column sources: where the trainer gets k(·, xᵢ) for a sample i that erred.

* :class:`GramColumns` reads a precomputed Gram matrix in place (``kernel="precomputed"``).
* :class:`KernelColumns` computes a column the first time its sample errs and keeps it in
  a store of ``capacity`` columns; when the store is full it either evicts the oldest
  column (recomputed if needed again: exact, only slower) or raises :class:`StoreFull`
  so that the caller can retry in a lower precision.

A row is at most a window long, and the trainer keeps windows at most n/8 long (or 32),
so training evaluates the kernel at most about 1.125 × n times per column it computes.

Both answer the trainer's three questions: ``start(pos)`` (a new window of visited
positions), ``row(i, lo)`` (the kernel values between xᵢ and the window's samples from
position ``lo`` on, as the host's NumPy array, exactly the values stored), and
``add(F, idx, S)`` (F += S · (columns of idx + 1), the window's updates of every
decision value). Rows come back in the precision of the decision values (``decision``:
float64 on the CPU, float32 on a GPU); the store keeps ``precision``.
"""

from __future__ import annotations

import time

import numpy as np

from .._backend import itemsize
from ..gram import check_fits, nonzero_features, prepare

CHUNK = 512  # most columns computed in one matrix product
LOW_CHUNK = 64  # staging block (compute precision) when the store is float16/bfloat16
BIG_PRODUCT = 2 * 10**7  # multiply-adds from which a block is computed on every BLAS thread


class StoreFull(Exception):
    """The column store is full and may not evict: retry with a lower precision."""


class _Source:
    """Counters shared by the column sources."""

    def __init__(self, ops, n, decision, precision, fit_intercept):
        self.ops, self.n, self.decision, self.precision = ops, n, decision, precision
        self.intercept = 1.0 if fit_intercept else 0.0
        self.threads = None  # set by the trainer: BLAS threads for the big blocks
        self.computed = 0  # columns computed
        self.evaluations = 0  # kernel values computed (columns and window rows)
        self.seconds = 0.0  # time spent computing them

    def _apply(self, F, S, cols):
        """F += S (cols + 1): the decision values after the window's mistakes."""
        ops = self.ops
        if str(cols.dtype).replace("torch.", "") != self.decision:
            cols = cols.astype(self.decision) if ops.xp is np else cols.to(F.dtype)
        if self.intercept:
            cols = cols + 1.0
        if ops.xp is not np:  # a GPU: every mistake of the window in one product
            F += ops.asarray(S, self.decision) @ cols
            return
        # the CPU: one mistake after the other, F[c] ± (k + 1), rounded exactly as the
        # per-sample rule rounds (it matters when kernel values are far below 1)
        for col, signs in zip(cols, S.T.tolist(), strict=True):
            for c, sign in enumerate(signs):
                if sign == 1:
                    F[c] += col
                elif sign == -1:
                    F[c] -= col
                elif sign:  # a removed support vector (budget): −α y (k + 1)
                    F[c] += sign * col


class GramColumns(_Source):
    """Columns of a precomputed (n, n) Gram matrix K, read in place: column i is K[:, i].

    A Gram matrix is symmetric, so column i is also row i: rows are read from whichever
    of K and Kᵀ is C-ordered (contiguous, fast). A matrix that fails a spot check of n
    random pairs K[i, j] = K[j, i] is read by columns, as the rule says.
    """

    def __init__(self, ops, K, decision, fit_intercept):
        super().__init__(ops, K.shape[0], decision, str(K.dtype).replace("torch.", ""), fit_intercept)
        c_order = K.is_contiguous() if ops.xp is not np else K.flags.c_contiguous
        self.cols = K if c_order and _looks_symmetric(K) else K.T  # self.cols[i] = column i

    def start(self, pos):
        self.pos = self.ops.index(pos)

    def row(self, i, lo):
        return self.ops.host(self.cols[i, self.pos[lo:]], self.decision)

    def has(self, i):
        """Column i is at hand (always, for a Gram matrix)."""
        return True

    def add(self, F, idx, S):
        self._apply(F, S, self.cols[self.ops.index(idx)])


def _looks_symmetric(K):
    """K[i, j] == K[j, i] for n random pairs (seeded): a cheap check of a Gram matrix."""
    i, j = np.random.default_rng(0).integers(0, K.shape[0], size=(2, K.shape[0]))
    return bool((K[i, j] == K[j, i]).all())  # (NumPy and torch alike: the indices are NumPy arrays)


class KernelColumns(_Source):
    """Kernel columns computed on demand, in blocks, and kept in a store of ``capacity`` columns.

    ``kernel`` is a :class:`NamedKernel` or :class:`CallableKernel`; the store holds
    ``precision`` values (columns computed in place in it when that is also the
    compute precision). ``evict=False`` raises :class:`StoreFull` instead of evicting.
    """

    def __init__(self, ops, kernel, decision, precision, capacity, evict, fit_intercept):
        super().__init__(ops, kernel.n, decision, precision, fit_intercept)
        if capacity < 1:
            raise ValueError("max_memory is too small to hold a single kernel column "
                             f"({kernel.n} values); raise max_memory.")
        self.kernel, self.evict = kernel, evict
        self.store = ops.empty((min(capacity, kernel.n), kernel.n), precision)
        self.slot = np.full(kernel.n, -1, dtype=np.int64)  # sample -> row of the store
        self.owner = np.full(self.store.shape[0], -1, dtype=np.int64)  # row of the store -> sample
        self.next = 0

    def start(self, pos):
        self.pos, self.pos_d, self.pending = pos, self.ops.index(pos), {}
        self.kernel.start(pos)

    def row(self, i, lo):
        s = self.slot[i]
        if s >= 0:
            values = self.store[s, self.pos_d[lo:]]
        else:
            t0 = time.perf_counter()
            values = self.kernel.row(i, lo)
            if self.precision != self.kernel.compute:
                check_fits(values, self.precision)
                values = self._cast(values)
            self.pending[i] = (lo, values)  # written into its column, so that both agree
            self.evaluations += len(values)
            self.seconds += time.perf_counter() - t0
        return self.ops.host(values, self.decision)

    def has(self, i):
        """Column i is in the store (its row can be read without computing it)."""
        return self.slot[i] >= 0

    def add(self, F, idx, S):
        slots = self.slot[idx]
        have = slots >= 0
        if have.any():
            self._apply(F, S[:, have], self.store[self.ops.index(slots[have])])
        new, S = idx[~have], S[:, ~have]
        done = 0
        while done < len(new):
            a, b = self._claim(min(len(new) - done, CHUNK))
            chunk = new[done:done + b - a]
            self._compute(chunk, a, b)
            self._apply(F, S[:, done:done + b - a], self.store[a:b])
            done += b - a

    # ---------------------------------------------------------------- private
    def _claim(self, m):
        """Rows [a, b) of the store for up to m new columns (evicting the oldest when full)."""
        cap = self.store.shape[0]
        if self.next == cap:
            if not self.evict:
                raise StoreFull
            self.next = 0
        a, b = self.next, min(self.next + m, cap)
        old = self.owner[a:b]
        self.slot[old[old >= 0]] = -1
        self.next = b
        return a, b

    def _compute(self, chunk, a, b):
        t0 = time.perf_counter()
        big = self.threads is not None and len(chunk) * self.n * self.kernel.width >= BIG_PRODUCT
        if big:
            self.threads.all()
        if self.precision == self.kernel.compute:
            self.kernel.block(chunk, self.store[a:b])
        else:
            for c in range(0, len(chunk), LOW_CHUNK):
                part = chunk[c:c + LOW_CHUNK]
                tile = self.kernel.block(part, self.ops.empty((len(part), self.n), self.kernel.compute))
                check_fits(tile, self.precision)
                self.store[a + c:a + c + len(part)] = tile
        for k, i in enumerate(chunk):
            if i in self.pending:
                lo, values = self.pending.pop(i)
                self.store[a + k, self.pos_d[lo:]] = values
        if big:
            self.threads.one()
        self.owner[a:b] = chunk
        self.slot[chunk] = np.arange(a, b)
        self.computed += len(chunk)
        self.evaluations += len(chunk) * self.n
        self.ops.sync()
        self.seconds += time.perf_counter() - t0

    def _cast(self, values):
        return values.astype(self.precision) if self.ops.xp is np else values.to(self.store.dtype)


class NamedKernel:
    """A kernel of the table (``kernels.KERNELS``) evaluated on the training rows X."""

    def __init__(self, ops, X, spec, params, compute):
        self.ops, self.spec, self.params, self.compute, self.n = ops, spec, params, compute, X.shape[0]
        self.A, self.norms = prepare(ops, X, spec, compute, keep=nonzero_features(X))
        self.width, self.Aw = self.A.shape[1], None

    def start(self, pos):
        self.pos, self.Aw = pos, None

    def block(self, idx, out):
        """Columns k(X, x_i) for i in idx, as rows of ``out`` (len(idx), n), computed in place."""
        ops, na = self.ops, self.norms
        rows = ops.index(idx)
        ops.xp.matmul(self.A[rows], self.A.T, out=out)
        zero = (ops.index(np.arange(len(idx))), rows) if self.spec.rows == "centred" else None
        return self.spec.finish(out, self.params, None if na is None else na[rows], na, ops.xp, zero=zero)

    def row(self, i, lo):
        """k(x_j, x_i) for the window's samples j from position lo on."""
        if self.Aw is None:
            rows = self.ops.index(self.pos)
            self.Aw, self.nw = self.A[rows], None if self.norms is None else self.norms[rows]
        G = self.Aw[lo:] @ self.A[i:i + 1].T
        na, nb = (None, None) if self.norms is None else (self.nw[lo:], self.norms[i:i + 1])
        return self.spec.finish(G, self.params, na, nb, self.ops.xp)[:, 0]


class CallableKernel:
    """A user's kernel function ``kernel(A, B) -> (len(A), len(B))``, on the training rows X."""

    def __init__(self, ops, X, fn, call, compute):
        self.ops, self.X, self.fn, self.call, self.compute, self.n = ops, X, fn, call, compute, X.shape[0]
        self.width = X.shape[1]

    def start(self, pos):
        self.pos = pos

    def block(self, idx, out):
        out[:] = self.ops.asarray(self.call(self.fn, self.X, self.X[idx]).T, self.compute)
        return out

    def row(self, i, lo):
        return self.ops.asarray(self.call(self.fn, self.X[self.pos[lo:]], self.X[i:i + 1])[:, 0], self.compute)


def capacity(budget, n, precision):
    """Columns of n values in ``precision`` that ``budget`` bytes hold (at most n)."""
    return min(n, budget // (n * itemsize(precision)))
