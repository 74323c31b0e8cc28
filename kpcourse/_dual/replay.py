"""Predictors rebuilt from the training record: averaged, per epoch, voted.

* Averaging uses the timestamp trick: with ``τᵢ = Σ (steps at which αᵢ grew)``, the
  average of αᵢ over T steps is ``(αᵢ (T + 1) − τᵢ) / T`` — O(1) per mistake.
* The state after any epoch and the voted perceptron's intermediate predictors come
  from the mistake log (step, sample and classes of every mistake; with a budget, also
  every removal, logged with the α it took away — the voted predictor is not rebuilt then).
"""

from __future__ import annotations

import numpy as np


def averaged(alpha, tau, bias, bias_tau, T):
    """Averaged dual coefficients over T steps: ᾱ = (α (T + 1) − τ) / T (per class)."""
    T = np.asarray(T, dtype=np.float64)[:, None]
    a = (alpha * (T + 1) - tau) / T
    b = (bias * (T[:, 0] + 1) - bias_tau) / T[:, 0]
    return a, b


def state_after(result, y_pm, n, epoch, fit_intercept):
    """α, bias and averaged α, bias at the end of ``epoch`` (1-based), from the mistake log."""
    C = result.alpha.shape[0]
    keep = result.log_step <= epoch * n
    steps, idx, cls = result.log_step[keep], result.log_index[keep], result.log_classes[keep]
    count = cls if result.log_count is None else result.log_count[keep]  # −α for a removal (budget)
    alpha = np.zeros((C, n))
    tau = np.zeros((C, n))
    for c in range(C):
        sel = cls[:, c]
        np.add.at(alpha[c], idx[sel], count[sel, c])
        np.add.at(tau[c], idx[sel], count[sel, c] * steps[sel])
    signs = y_pm.T  # (C, n)
    bias = (alpha * signs).sum(1) if fit_intercept else np.zeros(C)
    bias_tau = (tau * signs).sum(1) if fit_intercept else np.zeros(C)
    T = np.minimum(result.epochs, epoch) * n
    a_avg, b_avg = averaged(alpha, tau, bias, bias_tau, np.maximum(T, 1))
    return alpha, bias, a_avg, b_avg


def voted_scores(result, Y, Ks, support, fit_intercept):
    """Σₖ cₖ sign(fₖ(x)) per class: every intermediate predictor, weighted by its survival cₖ.

    ``Ks`` is the (m, n_support) kernel matrix between new points and the support
    vectors ``support``; ``Y`` the (n, C) training targets.
    """
    n = Y.shape[0]
    pos = np.searchsorted(support, result.log_index)  # column of Ks for each mistake
    out = np.zeros((Ks.shape[0], Y.shape[1]))
    for c in range(Y.shape[1]):
        sel = result.log_classes[:, c]
        steps, cols = result.log_step[sel], pos[sel]
        if steps.size == 0:
            continue
        survive = np.diff(np.append(steps, result.epochs[c] * n + 1)).astype(float)  # cₖ
        f = np.zeros(Ks.shape[0])
        for start in range(0, steps.size, 512):  # prefix sums, a block of mistakes at a time
            blk = slice(start, start + 512)
            upd = (Ks[:, cols[blk]] + (1.0 if fit_intercept else 0.0)) * Y[result.log_index[sel][blk], c]
            F = f[:, None] + np.cumsum(upd, axis=1)
            out[:, c] += np.sign(F) @ survive[blk]
            f = F[:, -1]
    return out
