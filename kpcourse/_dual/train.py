"""Exact online dual training of every class at once, a window of visited samples at a time.

The trainer keeps ``F[c, j]``, the decision value of training point j for class c, on the
device. It cuts each epoch's visiting order into windows of consecutive positions and,
per window:

1. copies the window's decision values to the host (one transfer);
2. replays the per-sample rule over the window *on the host*, in NumPy: find the next
   position whose sample is misclassified (a vectorised check), count the mistake, and
   add its kernel row — restricted to the rest of the window — to the window's
   decision values; this is exactly the sequential algorithm, since only the window's
   own samples are visited before the window ends;
3. adds the window's mistakes to every decision value at once, F += S (K[:, idx] + 1),
   with one matrix product over the mistakes' kernel columns (computed here, in one
   block, the first time a sample errs).

The window grows when mistakes are rare and shrinks when they are dense, aiming at
about ``TARGET`` mistakes per window: large products for the device, small rows for the
host; it never exceeds n/8 positions, so the rows cost at most an eighth of the columns.

With a ``budget`` (the most support vectors kept), the oldest support vector is removed
right after the step whose mistake makes one too many (:mod:`.budget`): training stays the
per-sample rule with that removal, and never holds more than ``budget`` support vectors.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._backend import BlasThreads
from .budget import Budget, remove
from .columns import StoreFull

TARGET = 64  # mistakes aimed at per window
MIN_WINDOW, MAX_WINDOW = 32, 4096  # visited positions per window
SCAN = 256  # positions checked at once for the next mistake


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
    log_classes: np.ndarray = None  # (M, C) bool: classes that erred (or lost the sample, for a removal)
    log_count: np.ndarray = None  # (M, C) change of α: +1 per mistake, −α for a removal (budget)
    removed: int = 0  # support vectors removed to stay within the budget
    columns_computed: int = 0  # kernel columns computed
    kernel_evaluations: int = 0  # kernel values computed (columns and window rows)
    kernel_seconds: float = 0.0  # time spent computing them
    precision: str = "float64"  # storage precision of the kernel values


def dual_train(sources, Y, fit_intercept, max_epochs, orders, progress=False, budget=None):
    """Train on the first column source of ``sources`` whose store holds every needed column.

    ``sources`` yields column sources (see :mod:`.columns`), highest precision first; a
    source that raises ``StoreFull`` is dropped and training starts again on the next.
    ``Y`` is the (n, C) array of ±1 targets, ``orders[e]`` the visiting order of epoch e;
    ``budget`` the most support vectors kept (``None``: no limit).
    """
    threads = BlasThreads()
    threads.one()  # the column sources use all threads for their big blocks only
    try:
        for src in sources:
            src.threads = threads
            try:
                return _train(src, np.ascontiguousarray(Y.T, dtype=np.float64), max_epochs, orders, progress,
                              budget)
            except StoreFull:
                continue
    finally:
        threads.all()
    raise RuntimeError("no column source could train")  # the last source always evicts


def _train(src, Yt, max_epochs, orders, progress, budget=None):
    C, n = Yt.shape
    bud = None if budget is None else Budget(budget, n)
    F = src.ops.zeros((C, n), src.decision)
    alpha = np.zeros((C, n), dtype=np.int64)
    tau = np.zeros((C, n))
    bias, bias_tau = np.zeros(C), np.zeros(C)
    active, epochs = np.ones(C, dtype=bool), np.zeros(C, dtype=np.int64)
    history, log_step, log_index, log_mask, log_count = [], [], [], [], []
    bar = _progress(max_epochs, progress)
    width = MIN_WINDOW
    for epoch in range(max_epochs):
        order = np.asarray(orders[epoch])
        made = np.zeros(C, dtype=np.int64)
        p = 0
        while p < n:
            pos = order[p:p + width]
            hits, masks, seen = _window(src, F, Yt, pos, active, bud, alpha)
            logs = (log_step, log_index, log_mask, log_count)
            if bud is not None and bud.gone:  # the window's removals, in one batch
                js = np.array([j for j, _ in bud.gone])
                S = np.stack([remove(j, epoch * n + p + t + 1, alpha, tau, bias, bias_tau, Yt, src.intercept, logs)
                              for j, t in bud.gone], axis=1)
                for _ in bud.gone:
                    bud.is_sv[bud.fifo.popleft()] = False
                bud.removed += len(bud.gone)
                src.add(F, js, S)
            if hits:
                hits, masks = np.asarray(hits), np.asarray(masks)  # (k,), (k, C)
                idx, steps = pos[hits], epoch * n + p + hits + 1
                S = Yt[:, idx] * masks.T  # ±1 for the classes that erred, 0 elsewhere
                alpha[:, idx] += masks.T
                tau[:, idx] += masks.T * steps
                if src.intercept:
                    bias += S.sum(1)
                    bias_tau += S @ steps
                made += masks.sum(0)
                log_step.append(steps)
                log_index.append(idx)
                log_mask.append(masks)
                log_count.append(masks.astype(np.int64))
                src.add(F, idx, S)
                if bud is not None:
                    bud.fifo.extend(bud.new)
                    bud.is_sv[idx] = True
                    if len(bud.fifo) > budget:  # the window ended early: remove the oldest after this step
                        j = bud.fifo.popleft()
                        S = remove(j, epoch * n + p + seen, alpha, tau, bias, bias_tau, Yt, src.intercept, logs)
                        bud.is_sv[j] = False
                        bud.removed += 1
                        src.add(F, np.array([j]), S[:, None])
            width = _next_width(width, len(hits), seen, n)
            p += seen
        epochs += active
        history.append(int(made.sum()))
        # a class without a mistake stops; with a budget all go on together (a removal can move any class)
        active &= (made > 0) if bud is None else made.sum() > 0
        if bar is not None:
            bar.update(1)
            bar.set_postfix(mistakes=history[-1], columns=src.computed)
        if not active.any():
            break
    if bar is not None:
        bar.close()
    return DualResult(
        alpha=alpha, tau=tau, bias=bias, bias_tau=bias_tau, epochs=epochs, converged=~active,
        history=history, log_step=_cat(log_step, np.zeros(0, np.int64)),
        log_index=_cat(log_index, np.zeros(0, np.int64)), log_classes=_cat(log_mask, np.zeros((0, C), bool)),
        log_count=_cat(log_count, np.zeros((0, C), np.int64)), removed=0 if bud is None else bud.removed,
        columns_computed=src.computed, kernel_evaluations=src.evaluations, kernel_seconds=src.seconds,
        precision=src.precision)


def _cat(parts, empty):
    return np.concatenate(parts) if parts else empty


def _window(src, F, Yt, pos, active, bud=None, alpha=None):
    """Replay the per-sample rule over the window ``pos``; return mistake positions, class masks, positions seen.

    With a budget ``bud`` (:class:`.budget.Budget`) a removal's row is subtracted from the
    rest of the window, or the window stops right after the step that needs a removal.
    """
    Fw = src.ops.host(F[:, src.ops.index(pos)], src.decision)  # the window's decision values (a copy)
    Yw = Yt[:, pos]
    src.start(pos)
    act = None if active.all() else active[:, None]
    hits, masks, hit = [], [], set()
    if bud is not None:
        bud.start()
    t, w = 0, len(pos)
    while t < w:
        e = min(t + SCAN, w)
        wrong = Yw[:, t:e] * Fw[:, t:e] <= 0
        if act is not None:
            wrong &= act
        anywhere = wrong[0] if len(wrong) == 1 else wrong.any(0)
        k = anywhere.argmax()
        if not anywhere[k]:
            t = e
            continue
        t += k
        hits.append(t)
        masks.append(wrong[:, k])
        if bud is not None:
            i = int(pos[t])
            j = bud.mistake(i, t, hit, src.has)
            hit.add(i)
            if j is False:
                return hits, masks, t + 1
            if j is not None and t + 1 < w:  # the removed support vector leaves the rest of the window
                r = src.row(j, t + 1) + src.intercept
                for c in np.flatnonzero(alpha[:, j]):
                    Fw[c, t + 1:] -= (alpha[c, j] * Yt[c, j]) * r
        if t + 1 < w:  # the mistake's kernel row moves the rest of the window: ± (k + 1)
            r = src.row(pos[t], t + 1)
            if src.intercept:
                r = r + 1.0  # a new array: the source may keep r
            for c in np.flatnonzero(wrong[:, k]):
                if Yw[c, t] > 0:
                    Fw[c, t + 1:] += r
                else:
                    Fw[c, t + 1:] -= r
        t += 1
    return hits, masks, w


def _next_width(width, hits, seen, n):
    """About TARGET mistakes per window at the current mistake rate, growing at most 4× a window.

    At most n/8 positions (but at least MIN_WINDOW): a mistake's row within the window then
    costs at most an eighth of its kernel column.
    """
    want = min(TARGET * seen / max(hits, 0.5), 4 * width, MAX_WINDOW, n // 8)
    return int(max(MIN_WINDOW, want))


def _progress(total, enabled):
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="epochs", unit="epoch")
