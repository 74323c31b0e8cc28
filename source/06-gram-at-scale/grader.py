"""Grader of assignment 06 (Gram matrices at scale): references and hidden probes.

Grader-only; the exercises are declared in ``kpcourse.checks.lesson06``.
"""

import math

import numpy as np

from kpcourse.checks import lesson06 as visible
from kpcourse.checks.exercise import Probe
from kpcourse.grading.judge import declared
from kpcourse.grading.judge.testdata import random_separable, separable_gram

_shared = declared.shared(__file__)
rbf = _shared.rbf

FORBIDDEN = ("kpcourse", "sklearn", "scipy")
#: Exercise 1 is NumPy only: tracemalloc, which measures its memory, cannot see torch's allocations.
TILED_FORBIDDEN = (*FORBIDDEN, "torch")


# ----------------------------------------------------------------- references
def rbf_trick(X, Z, gamma):
    """RBF Gram with the distance trick, clamped, in float64 (inputs of the hidden tests)."""
    d2 = (X * X).sum(1)[:, None] - 2.0 * X @ Z.T + (Z * Z).sum(1)[None, :]
    return np.exp(-gamma * np.maximum(d2, 0.0))


def _mistaken_gram(X, Z, sigma, mistake):
    if mistake == "cross_sign":
        return np.exp(-np.abs((X * X).sum(1)[:, None] + 2.0 * X @ Z.T + (Z * Z).sum(1)[None, :])
                      / (2.0 * sigma ** 2))
    return rbf(X, Z, sigma, mistake)  # a slip of the formula (RBF_FORMULA, references.RBF_SLIPS)


def tiled_rbf_gram(X, Z, sigma, max_memory, mistake=None):
    """Exact differences on small inputs; on large ones the distance trick, clamped, a block of rows at a time."""
    X, Z = np.asarray(X, float), np.asarray(Z, float)
    if X.shape[1] != Z.shape[1]:
        raise ValueError("X and Z need the same number of columns")
    n, m = len(X), len(Z)
    block = max_memory // (4 * 8 * m)
    if block < 1:
        raise ValueError("max_memory cannot hold one row")
    if mistake is not None:
        return _mistaken_gram(X, Z, sigma, mistake)
    if n * m * X.shape[1] <= 10**6:
        return rbf(X, Z, sigma)  # explicit differences: no cancellation
    K, zz = np.empty((n, m)), (Z * Z).sum(1)
    for a in range(0, n, block):
        B = X[a:a + block]
        d2 = (B * B).sum(1)[:, None] - 2.0 * B @ Z.T + zz[None, :]
        K[a:a + block] = np.exp(-np.maximum(d2, 0.0, out=d2) / (2.0 * sigma ** 2))
    return K


def incremental(K, y, max_epochs, *, variant="right"):
    """Dual training with decision values F updated per mistake, and common variants."""
    n = len(y)
    alpha, b, F = np.zeros(n), 0.0, np.zeros(n)
    for _ in range(max_epochs):
        made = 0
        for i in range(n):
            s = y[i] * F[i]
            if (s < 0) if variant == "zero" else (s <= 0):
                alpha[i] += 1
                b += y[i]
                made += 1
                if variant == "only_current":
                    F[i] += y[i] * (K[i, i] + 1.0)
                elif variant == "no_bias":
                    F += y[i] * K[:, i]
                else:
                    F += y[i] * (K[:, i] + 1.0)
        if made == 0:
            break
    return alpha, b


def train_incremental(K, y, max_epochs=10, mistake=None):
    K, y = np.asarray(K, float), np.asarray(y)
    if K.shape != (len(y), len(y)):
        raise ValueError("K must be (n, n)")
    alpha, b = incremental(K, y, max_epochs, variant=mistake or "right")
    return alpha, {"b_zero": 0.0, "b_sign": -b}.get(mistake, b)


def _largest(fits, hi):
    """The largest integer T in [0, hi] with fits(T) (fits is monotone), by bisection."""
    lo = 0
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def choose_storage(n, d, max_value, max_bytes, mistake=None):
    """``(dtype name, tile)`` of Exercise 3, or a ``ValueError``; ``mistake`` gives that mistake's output.

    The most precise storage of ``lesson06.STORAGE_TABLE`` whose n x n matrix plus the
    working set of a 1 x 1 tile fit ``max_bytes`` and whose largest finite value is at
    least ``max_value``; the tile is the largest T <= n with
    n·n·itemsize + 8·(T² + 2·T·d) <= max_bytes.
    """
    table = list(visible.STORAGE_TABLE)
    table = {"lowest_first": [table[2], table[3], table[1], table[0]], "no_bfloat16": table[:3]}.get(mistake, table)
    for name, size, top in table:
        size *= 8 if mistake == "bits" else 1
        safe = {"no_overflow": True, "strict": max_value < top}.get(mistake, max_value <= top)
        left = max_bytes - n * n * (1 if mistake == "elements" else size)
        if not safe or left < (0 if mistake == "no_room" else 8 * (1 + 2 * d)):
            continue
        budget = max_bytes if mistake == "whole_budget" else left
        per = {"tile_elements": 1, "tile_itemsize": size}.get(mistake, 8)
        slices = {"no_slices": 0, "one_slice": 1}.get(mistake, 2)
        tile = _largest(lambda T, per=per, slices=slices, budget=budget: per * (T * T + slices * T * d) <= budget,
                        math.isqrt(max(budget, 0)) + 1)
        return name, (tile if mistake == "no_cap" else min(n, tile))
    raise ValueError("no storage precision is safe: the matrix does not fit max_bytes or overflows")


REFERENCES = {"tiled_rbf_gram": tiled_rbf_gram, "train_incremental": train_incremental,
              "choose_storage": choose_storage}


# --------------------------------------------------------------- hidden probes
def _tiled_new_data(rng):
    probes = []
    for (n, m, d), sigma in (((37, 23, 5), 0.7), ((50, 50, 12), 3.0), ((1, 9, 3), 1.5)):
        A, C = rng.normal(size=(n, d)), rng.normal(size=(m, d))
        probes += [Probe((A, C, sigma, budget)) for budget in (4 * 8 * m * 5, 10**7)]
    return [*probes, Probe((np.ones((4, 3)), np.ones((5, 3)), 1.0, 100), raises="ValueError",
                           why="max_memory=100 is less than 4 * 8 * m = 160")]


def _tiled_far_from_origin(rng):
    far = -3e4 + rng.normal(size=(50, 8))
    return [Probe((far, far[::-1].copy(), 0.02, 10**6))]


def _tiled_memory_new_data(rng):
    """1,000 x 700 (K 5.6 MB, the answers included stay under answer_bytes): every value checked,
    the memory under the grader's own limits, in its run of the hidden calls (kpcourse.grading.judge.rerun)."""
    A, C = rng.normal(size=(1000, 30)), rng.normal(size=(700, 30))
    return [Probe((A[visible.memory_rows(len(A))], C, 5.0, 10**6)),
            *(Probe((A, C, 5.0, b), measured=True, memory_limit=visible.memory_limit(1000, 700, 30, b))
              for b in (400_000, 2_000_000))]


def _incremental_counts_new_data(rng):
    # far from the origin, separable through it: the bias never decides a mistake
    return [Probe((*separable_gram(40, 3, margin=0.05, offset=False, scale=100.0, random_state=rng), 100))
            for _ in range(2)]


def _incremental_bias_new_data(rng):
    from kpcourse.datasets import circles, load_mnist

    Xc, yc = circles(60, noise=0.05, random_state=rng)
    img, lab = load_mnist("train", n=300)
    order = rng.permutation(300)
    Xm, ym = img.reshape(300, -1)[order] / 255.0, np.where(lab[order] == 3, 1, -1)  # "is it a 3?"
    return [Probe((rbf_trick(Xc, Xc, 1.0 / (2 * 0.5 ** 2)), yc, 30)), Probe((rbf_trick(Xm, Xm, 0.02), ym, 4))]


def _incremental_first_new_data(rng):
    X, y = random_separable(30, 2, random_state=rng)
    return [Probe((X @ X.T, y, 1))]


def _storage_cases(values, *extra):
    """30 random (n, d, max_value, max_bytes) around the thresholds where the choice changes, then ``extra``."""
    def draw(rng):
        cases = []
        for _ in range(30):
            n = int(10 ** rng.uniform(1, 5.3))
            d = int(rng.choice([2, 30, 784, 3072]))
            size = int(rng.choice([8, 4, 2]))
            room = 8 * (1 + 2 * d)
            max_bytes = int(n * n * size * rng.uniform(1.0, 1.5)) + int(rng.choice([0, room - 1, room, 10 * room]))
            cases.append((n, d, float(rng.choice(values)), max_bytes))
        return [visible.storage_probe(c) for c in (*cases, *extra)]
    return draw


HIDDEN = {"ex1-tiled-tests-values": _tiled_new_data, "ex1-tiled-tests-clamp": _tiled_far_from_origin,
          "ex1-tiled-tests-memory": _tiled_memory_new_data,
          "ex2-incremental-tests-counts": _incremental_counts_new_data,
          "ex2-incremental-tests-bias": _incremental_bias_new_data,
          "ex2-incremental-tests-first": _incremental_first_new_data,
          "ex3-storage-tests-memory": _storage_cases([1.0, 418.0, 1000.0], (1, 1, 1.0, 32), (1, 1, 1.0, 31),
                                                     (1, 1, 1.0, 25), (3, 2, 1.0, 112)),
          "ex3-storage-tests-overflow": _storage_cases([65504.0, 65504.5, 9.838e8, 1e39, 1e300, float("inf")],
                                                       (40_000, 784, 7e4, 8 * visible.GiB),
                                                       (40_000, 784, 7e4, 4 * visible.GiB)),
          # by memory only (an overflow slip costs the overflow cell); the last three: tile = n
          "ex3-storage-tests-tile": _storage_cases([1.0, 418.0], (200, 30, 1.0, 10**8), (50, 3072, 1.0, 2 * 10**8),
                                                   (7, 2, 1.0, 10**4))}

OPTIONS = {"ex1-tiled-tests-values": {"forbidden": TILED_FORBIDDEN},
           "ex1-tiled-tests-clamp": {"forbidden": TILED_FORBIDDEN},
           "ex1-tiled-tests-memory": {"forbidden": TILED_FORBIDDEN, "answer_bytes": 32 * 2**20}}  # 23 MB

visible_data, cells = declared.grader(visible.LESSON, REFERENCES, HIDDEN, OPTIONS)
