"""Checks of assignment 06 (Gram matrices at scale): the largest matrix a budget holds, the kernel
columns a cache computes, Nyström features repaired, and the signs a low-precision Gram matrix certifies.

Nearest course code, and the probe that defeats a copy of it:

* ``largest_n`` (ex1): lecture 06's cell tagged ``gb-table`` computes the bytes of an N x N matrix
  and the one tagged ``card`` inverts that for whole matrices only (an integer square root); every
  probe of both cells stores a packed triangle or data rows beside the matrix, where N solves a
  quadratic, and one needs N beyond float precision.
* ``columns_computed`` (ex2): the package's column store (``kpcourse._dual.columns``) is one FIFO
  store woven into a trainer, with no mistake sequence to take and no LRU or optimal policy; every
  cell mixes the three policies.
* ``nystrom_features`` (ex3): lesson 08's appendix calls scikit-learn's ``Nystroem`` (absent from
  the sandbox) and appendix 06 describes the method in words; the given code has three flaws, each
  met by a probe (duplicated landmarks, the square root of the pseudo-inverse, points far from the
  origin), and the features of 4,000 points are measured to take N·m memory, not N².
* ``certified_signs`` (ex4): lecture 06's cells tagged ``fp16-bf16`` and ``bf16-runs`` measure how
  much bfloat16 changes a Gram matrix and a training run, and ``gram.check_fits`` checks overflow
  only; nothing bounds a score. Rows whose |score| is below the bound must stay 0, rows far above it
  must be certified.
"""

from __future__ import annotations

import numpy as np

from kpcourse.checks._core import check_shape, fmt, load_mistakes
from kpcourse.checks.exercise import Check, Exercise, Lesson, Probe, comparison

__all__ = ["LESSON", "test", "NYSTROM_ROWS", "nystrom_limit"]

#: The named mistakes, key -> hint, per exercise (``data/lesson06.mistakes.toml``).
MISTAKES = load_mistakes("lesson06")

GiB = 2**30

# Exercise 2: a mistake log where low columns come back often, high ones rarely (the smaller of two
# uniform draws; integers only: the same on every machine).
LOG = np.minimum(*np.random.default_rng(606).integers(0, 20, size=(2, 200))).tolist()
HAND = [0, 1, 2, 0, 3, 0, 1, 4, 0, 1, 2, 0]

# Exercise 3: points with half-integer coordinates; the memory probe's 4,000 points and 20 landmarks.
NX = np.array([[0.0, 0.5], [1.0, 0.0], [1.5, 1.0], [-0.5, 1.5], [0.5, -1.0], [2.0, 0.5], [-1.0, -0.5],
               [0.0, 2.0]])
NX3 = np.array([[0.0, 0.5, 1.0], [1.0, 0.0, -0.5], [1.5, 1.0, 0.0], [-0.5, 1.5, 0.5], [0.5, -1.0, 1.5],
                [2.0, 0.5, -1.0]])
FAR = 2e4 + np.array([[0.0, 0.5, 1.0], [0.5, 0.0, -0.5], [1.0, 1.5, 0.0], [-0.5, 0.5, 0.5], [0.0, -1.0, 1.0],
                      [1.5, 0.5, -1.0], [0.25, 0.25, 0.25]])
_MEM = np.random.default_rng(6006)
MEMORY_X = _MEM.normal(size=(4000, 10))
MEMORY_L = MEMORY_X[_MEM.choice(4000, size=20, replace=False)]
#: The rows of a measured call's features compared with the student's own features of those rows alone.
NYSTROM_ROWS = np.array([0, 1, 1999, 3998, 3999])

# Exercise 4: Gram matrices already rounded (float16: k/1024 and subnormals k·2⁻²⁴; bfloat16: k/256), exact;
# every row's |score| is below its tightest bound or above twice it.
_R = np.random.default_rng(66)
_BASE = _R.integers(200, 1024, size=5) / 1024
C4 = np.array([3.0, 2.0, 1.0, -1.0, 2.0])
CERT16 = np.array([_BASE + np.eye(5)[2] * t / 1024 for t in (0, 1, -1, 2, 3, -3, 12, -12, 40)])
B16 = -float(_BASE @ C4)
SUB16 = np.array([[3, 0, 1, 5, 2], [7, 1, 0, 2, 2], [0, 0, 0, 0, 0], [40, 2, 9, 0, 1], [1, 1, 1, 1, 1]]) * 2.0**-24
BSUB = -10 * 2.0**-24
_B8 = _R.integers(64, 256, size=5) / 256
CERT8 = np.array([_B8 + np.eye(5)[4] * t / 256 for t in (0, 1, -1, 2, -2, 10, 12, -12)])
B8 = -float(_B8 @ C4)
_W8 = np.random.default_rng(67).integers(64, 256, size=20) / 256
C20 = np.tile(C4, 4)
WIDE8 = np.array([_W8 + np.eye(20)[3] * t / 256 for t in (0, 1, -1, 3, -6, 60, -60)])
BW8 = -float(_W8 @ C20)


def nystrom_limit(n, m, d):
    """Bytes the features of n points with m landmarks in d dimensions may take, the result included:
    room for arrays of n·m·(d + 8) numbers (the differences of every point and landmark included) and
    two copies of X, never for an n x n matrix."""
    return 8 * n * m * (d + 8) + 16 * n * d + 2**21


# ------------------------------------------------------- lesson-specific comparisons
def _features(value, probe, name):
    """Z as a finite 2-D float array with one row per point of X."""
    n = len(probe.args[0])
    try:
        Z = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError(f"{name} should return an array of numbers, got {fmt(value)}") from None
    if Z.ndim != 2 or len(Z) != n:
        raise AssertionError(f"{name} should return a 2-D array with one row per point ({n} rows), got shape "
                             f"{Z.shape}")
    if not np.all(np.isfinite(Z)):
        raise AssertionError(f"{name} contains NaN or infinite values: "
                             f"{MISTAKES['nystrom_features']['no_cutoff']}")
    return Z


@comparison("l06_features")
def _nystrom_values(value, expected, name, check, probe, answer):
    """Z Zᵀ close to the expected one, with as many columns (the numerical rank of K_LL)."""
    Z, E = _features(value, probe, name), np.asarray(expected, dtype=float)
    if Z.shape[1] != E.shape[1]:
        raise AssertionError(f"{name} has {Z.shape[1]} columns: keep one per eigenvalue of K_LL above rtol times "
                             f"the largest one (the numerical rank), no more and no fewer")
    G, want = Z @ Z.T, E @ E.T
    if not np.allclose(G, want, rtol=check.rtol, atol=check.atol):
        raise AssertionError(f"{name}: Z Zᵀ is not K_XL K_LL⁺ K_LX (largest difference "
                             f"{np.abs(G - want).max():.2g})")


@comparison("l06_far")
def _nystrom_far(value, expected, name, check, probe, answer):
    """Points far from the origin: Z Zᵀ finite and at most 1, close to the expected one (loosely)."""
    Z = _features(value, probe, name)
    G = Z @ Z.T
    if G.max() > 1 + 1e-9:
        raise AssertionError(MISTAKES["nystrom_features"]["no_clamp"])
    E = np.asarray(expected, dtype=float)
    if Z.shape[1] != E.shape[1] or not np.allclose(G, E @ E.T, rtol=0, atol=1e-4):
        raise AssertionError(f"{name}: Z Zᵀ is not K_XL K_LL⁺ K_LX for points far from the origin")


@comparison("l06_memory")
def _nystrom_memory(value, expected, name, check, probe, answer):
    """A measured call: its rows NYSTROM_ROWS give the student's own features of those rows alone
    (``expected``), then the peak memory under the limit -- which holds already when the grader ran
    the call itself under that limit (``answer.limited``, :mod:`kpcourse.grading.judge.rerun`)."""
    Z, E = _features(value, probe, name), np.asarray(expected, dtype=float)
    rows = Z[NYSTROM_ROWS]
    if rows.shape != E.shape or not np.allclose(rows @ rows.T, E @ E.T, rtol=1e-7, atol=1e-9):
        raise AssertionError(f"{name}: the features of 5 of its points differ from those your function gives "
                             "these 5 points alone (a point's features depend on it and the landmarks only)")
    if answer.limited or not probe.measured:
        return
    X, L = probe.args[0], probe.args[1]
    limit = nystrom_limit(len(X), len(L), X.shape[1])
    if answer.peak_bytes is None:
        raise AssertionError("the memory of your function could not be measured")
    if answer.peak_bytes > limit:
        raise AssertionError(f"for {len(X):,} points and {len(L)} landmarks your function allocated "
                             f"{answer.peak_bytes:,} bytes at its peak, more than the {limit:,} that arrays of "
                             "N·m numbers need: never form an N × N matrix (or one per point pair of X)")


@comparison("l06_certified")
def _certified(value, expected, name, check, probe, answer):
    """One of -1, 0, +1 per row, each the expected one (the probes hold no row where a sound bound up to
    twice the tightest could decide either way)."""
    want = np.asarray(expected)
    check_shape(value, want.shape, name)
    got = np.asarray(value, dtype=float)
    if not np.all(np.isin(got, (-1, 0, 1))):
        raise AssertionError(f"{name} should hold -1, 0 or +1 per row, got {fmt(value)}")
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        if w == 0 and g != 0:
            raise AssertionError(f"row {i}: you certified a sign although some Gram matrix within the rounding "
                                 "bound gives the other sign: the row's |score| is not larger than "
                                 "Σ_j |c_j| (u|k̂_ij|/(1 − u) + η), plus the rounding of the float64 sum")
        if w != 0 and g == -w:
            raise AssertionError(f"row {i}: the certified sign is the opposite of the score's sign")
        if g == 0 and w != 0:
            raise AssertionError(f"row {i}: you left a row at 0 whose |score| is more than twice the tightest bound: "
                                 "certify every row whose |score| is larger than your bound, and bound each entry by "
                                 "u|k̂|/(1 − u) + η, not by a constant")


# ----------------------------------------------------------------- the exercises
def _check(cell, **settings):
    """A check that names a mistake only when every answer of the cell is that mistake's
    (``Check.whole``): several mistakes agree with the right answer on some probes."""
    return Check(cell, whole=True, **settings)


_G8 = 8 * GiB
LARGEST = Exercise(
    "largest_n", "ex1-largest", "the largest matrix a budget holds", time_limit=5.0,
    mistakes=MISTAKES["largest_n"], checks=[
        _check("ex1-largest-tests-mnist", compare="exact", types=(int, np.integer), hidden_label="new budgets",
              mistakes=("full_only", "no_rows", "half_square"), probes=[
                  Probe((_G8, 4), label="an 8 GiB card, float32, the full matrix"),
                  Probe((_G8, 4, True), label="an 8 GiB card, float32, the packed triangle"),
                  Probe((_G8, 4, True, 784 * 4), label="an 8 GiB card, float32, packed, and 784 float32 pixels "
                                                        "per row"),
                  Probe((_G8, 2, True, 784), label="an 8 GiB card, float16, packed, and 784 one-byte pixels per row")]),
        _check("ex1-largest-tests-exact", compare="exact", types=(int, np.integer),
              hidden_label="new budgets on the boundary, and one of about 10^40 bytes",
              mistakes=("strict", "full_only", "half_square", "float_sqrt"), probes=[
                  Probe((4 * 46_340**2, 4), label="max_bytes = 4 · 46,340², float32 (exactly N = 46,340)"),
                  Probe((4 * 46_340**2 - 1, 4), label="one byte less"),
                  Probe((1_001_000, 2, True), label="max_bytes = 1,001,000, float16, packed (exactly N = 1,000)"),
                  Probe((1_000_999, 2, True), label="one byte less"),
                  Probe((10**40 + 12_345, 8), label="max_bytes = 10^40 + 12,345, float64"),
                  Probe((0, 8), label="max_bytes = 0"),
                  Probe((-1, 4), raises="ValueError", why="max_bytes is negative"),
                  Probe((_G8, 0), raises="ValueError", why="bytes_per_value must be at least 1")]),
    ])

COLUMNS = Exercise(
    "columns_computed", "ex2-columns", "the kernel columns a cache computes", time_limit=10.0,
    mistakes=MISTAKES["columns_computed"], checks=[
        _check("ex2-columns-tests-small", compare="exact", types=(int, np.integer), hidden_label="new short sequences",
              mistakes=("cold", "fifo_refresh", "lru_no_refresh", "opt_lru", "opt_nearest"), probes=[
                  Probe((HAND, 2, policy), label=f"mistakes={HAND}, capacity=2, policy={policy!r}")
                  for policy in ("fifo", "lru", "opt")] + [
                  Probe((HAND, 3, policy), label=f"mistakes={HAND}, capacity=3, policy={policy!r}")
                  for policy in ("fifo", "lru", "opt")]),
        _check("ex2-columns-tests-zipf", compare="exact", types=(int, np.integer),
              hidden_label="new long sequences", mistakes=("cold", "fifo_refresh", "lru_no_refresh", "opt_lru",
                                                         "opt_nearest"), probes=[
                  *(Probe((LOG, cap, policy), label=f"a log of 200 mistakes on 20 columns, capacity={cap}, "
                                                    f"policy={policy!r}")
                    for cap in (4, 10) for policy in ("fifo", "lru", "opt")),
                  Probe(([0, 1], 0, "lru"), raises="ValueError", why="capacity must be at least 1"),
                  Probe(([0, 1], 2, "LIFO"), raises="ValueError", why="'LIFO' is not one of the policies")]),
    ])

NYSTROM = Exercise(
    "nystrom_features", "ex3-nystrom", "the repaired Nyström features", time_limit=20.0,
    mistakes=MISTAKES["nystrom_features"], checks=[
        Check("ex3-nystrom-tests-values", compare="l06_features", pure="in_place", rtol=1e-7, atol=1e-8,
              hidden_label="new points and landmarks", mistakes=("inverse",), probes=[
                  Probe((NX, NX[[0, 2, 5]], 1.0, 1e-10), label=f"X={fmt(NX)}, L = rows 0, 2, 5 of X, sigma=1"),
                  Probe((NX3, NX3[[1, 3]], 1.5, 1e-10), label=f"X={fmt(NX3)}, L = rows 1, 3 of X, sigma=1.5")]),
        Check("ex3-nystrom-tests-traps", compare="l06_features", rtol=1e-7, atol=1e-8,
              hidden_label="duplicated landmarks, L = X, far points", mistakes=("inverse",), probes=[
                  Probe((NX, NX, 0.8, 1e-10), label="L = X (all 8 points), sigma=0.8"),
                  Probe((NX, NX[[0, 2, 5, 2, 0]], 1.0, 1e-10), mistake="no_cutoff",
                        label="the same X, L = rows 0, 2, 5, 2, 0 (two landmarks twice)"),
                  Probe((FAR, FAR[[0, 2, 4, 6]], 0.5, 1e-8), compare="l06_far", mistake="no_clamp",
                        label="7 points near (20000, 20000, 20000), 4 of them as landmarks, sigma=0.5"),
                  Probe((NX, NX[:2], -1.0, 1e-10), raises="ValueError", why="sigma must be positive")]),
        Check("ex3-nystrom-tests-memory", compare="l06_features", hidden_label="new points", probes=[
                  Probe((MEMORY_X[NYSTROM_ROWS], MEMORY_L, 3.0, 1e-10),
                        label="5 of the 4,000 points, 20 landmarks, sigma=3"),
                  Probe((MEMORY_X, MEMORY_L, 3.0, 1e-10), measured=True, like=0, compare="l06_memory",
                        label="4,000 points in 10 dimensions and 20 of them as landmarks, sigma=3")]),
    ])

CERTIFY = Exercise(
    "certified_signs", "ex4-certify", "the certified signs", time_limit=10.0,
    mistakes=MISTAKES["certified_signs"], checks=[
        _check("ex4-certify-tests-float16", compare="l06_certified", pure="in_place",
              hidden_label="new float16 Gram matrices", mistakes=("sign_only", "no_abs", "no_eta", "loose"), probes=[
                  Probe((CERT16, C4, B16, "float16"),
                        label=f"9 float16 rows that differ in one entry, c={fmt(C4)}, b={B16:g}"),
                  Probe((SUB16, C4, BSUB, "float16"),
                        label=f"5 rows of float16 subnormals (multiples of 2⁻²⁴), c={fmt(C4)}, b=-10·2⁻²⁴")]),
        _check("ex4-certify-tests-bfloat16", compare="l06_certified", hidden_label="new bfloat16 Gram matrices",
              mistakes=("sign_only", "bf16_as_fp16", "no_abs", "loose"), probes=[
                  Probe((CERT8, C4, B8, "bfloat16"),
                        label=f"8 bfloat16 rows that differ in one entry, c={fmt(C4)}, b={B8:g}"),
                  Probe((WIDE8, C20, BW8, "bfloat16"),
                        label=f"7 bfloat16 rows of 20 values that differ in one entry, c = 4 copies of {fmt(C4)}, "
                              f"b={BW8:g}"),
                  Probe((CERT8, C4, B8, "float8"), raises="ValueError", why="'float8' is not a format")]),
    ])

LESSON = Lesson("lesson06", [LARGEST, COLUMNS, NYSTROM, CERTIFY])
test = LESSON.test
