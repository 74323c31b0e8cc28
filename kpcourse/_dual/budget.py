"""A budget of support vectors: the ones kept, oldest first, and the removals a window makes.

When a mistake on a new sample makes one support vector too many, the oldest is removed
right after that step (the Forgetron's removal, without its shrinking). Inside a window the
trainer does this on the host, as it replays the per-sample rule: the removed sample's kernel
row (read from its stored column) is subtracted from the rest of the window's decision values,
and every decision value gets the removal at the window's end, in one batch with the window's
mistakes. Where that row is not at hand (the oldest support vector erred in this very window,
or its column was evicted) the window ends right after the step instead, and the removal is
made then: the same rule, only in a shorter window.
"""

from __future__ import annotations

from collections import deque

import numpy as np


class Budget:
    """The support vectors kept (``fifo``, oldest first) within ``size``."""

    def __init__(self, size, n):
        self.size, self.fifo, self.is_sv, self.removed = size, deque(), np.zeros(n, dtype=bool), 0

    def start(self):
        """A new window: no new support vector, no removal yet."""
        self.new, self.gone, self.gone_set = {}, [], set()  # new support vectors (in order); removals

    def mistake(self, i, t, hit, has_column):
        """Sample i erred at window position t. Returns the support vector to remove now, ``None``
        (nothing to remove), or ``False`` (one must go but its row is not at hand: end the window)."""
        if (self.is_sv[i] and i not in self.gone_set) or i in self.new:
            return None
        self.new[i] = None
        if len(self.fifo) - len(self.gone) + len(self.new) <= self.size:
            return None
        k = len(self.gone)
        if k >= len(self.fifo):
            return False  # the oldest is new in this window
        j = self.fifo[k]
        if j in hit or not has_column(j):
            return False
        self.gone.append((j, t))  # (sample, window position)
        self.gone_set.add(j)
        return j


def remove(j, step, alpha, tau, bias, bias_tau, Yt, intercept, logs):
    """Set α of sample j to 0 at ``step``: bookkeeping and log; returns its column of signs −α y."""
    a = alpha[:, j].copy()
    S = -(a * Yt[:, j])
    alpha[:, j] = 0
    tau[:, j] -= a * step
    if intercept:
        bias += S
        bias_tau += S * step
    for log, value in zip(logs, (np.array([step]), np.array([j]), (a > 0)[None, :], -a[None, :]), strict=True):
        log.append(value)
    return S
