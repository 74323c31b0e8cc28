"""Checks of assignment 06 (Gram matrices at scale): a tiled RBF Gram matrix, training with
decision values updated per mistake, and a storage plan (precision and tile) under a budget.

Exercise 3's mistakes are named from the whole list of a cell's outcomes (``Check.whole``).
"""

from __future__ import annotations

import numpy as np

from kpcourse.checks._core import _memory, check_close, check_shape, counts_and_bias, fmt, load_mistakes
from kpcourse.checks.exercise import RBF_FORMULA, Check, Exercise, Lesson, Probe, comparison, same

__all__ = ["LESSON", "test", "peak_memory", "memory_allowance", "memory_limit", "STORAGE_TABLE"]

#: The named mistakes, key -> hint, per exercise (``data/lesson06.mistakes.toml``).
MISTAKES = load_mistakes("lesson06")

GiB = 2**30

#: The storage precisions of Exercise 3, most precise first: name, bytes per value, largest
#: finite value (numpy.finfo / torch.finfo). bfloat16 keeps 8 significant bits, float16 11.
STORAGE_TABLE = (("float64", 8, 1.7976931348623157e308), ("float32", 4, 3.4028234663852886e38),
                 ("float16", 2, 65504.0), ("bfloat16", 2, 3.3895313892515355e38))

_RNG_FAR, _RNG_MEMORY = np.random.default_rng(6), np.random.default_rng(16)
_FAR = 1e4 + _RNG_FAR.normal(size=(40, 30))

#: The probes (inputs only).
PROBES = {
    "tiled_X": np.array([[0.0, 1.0, 2.0], [1.0, -1.0, 0.5], [2.0, 0.0, 0.0], [-1.0, 0.5, 1.5],
                         [0.5, 0.5, -0.5], [3.0, 1.0, -1.0], [0.0, 0.0, 0.0]]),
    "tiled_Z": np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 2.0], [-2.0, 1.0, 0.0], [0.5, -0.5, 1.0], [1.0, 1.0, 1.0]]),
    "tiled_sigma": 1.5,
    # nearly identical points far from the origin (||x||^2 about 3e9), a narrow kernel
    "far_X": np.vstack([_FAR, _FAR[:20] + 1e-3 * _RNG_FAR.normal(size=(20, 30))]), "far_Z": _FAR, "far_sigma": 0.01,
    # the memory probe: K is 700 x 600 (3.4 MB); rows whose values are checked
    "memory_X": _RNG_MEMORY.normal(size=(700, 20)), "memory_Z": _RNG_MEMORY.normal(size=(600, 20)),
    "memory_sigma": 4.0, "memory_budgets": (1_000_000, 300_000),
    "memory_rows": np.array([0, 1, 350, 698, 699]),  # memory_rows(700)
    # Exercise 2: far from the origin and separable through it (the bias never decides) ...
    "counts_X": 10.0 * np.array([[1.0, 3.0], [2.0, 3.0], [-2.0, -1.0], [-2.0, -2.0], [-2.0, 3.0], [0.0, 2.0]]),
    "counts_y": np.array([1, 1, -1, -1, -1, 1]),
    # ... and lesson 03's probe, where the bias matters
    "bias_X": np.array([[2.0, 3.0], [0.0, 1.0], [0.0, 3.0], [0.0, 0.0], [1.0, 1.0]]),
    "bias_y": np.array([1, -1, 1, -1, -1]),
    # Exercise 3: (n, d, max_value, max_bytes) per aspect
    "storage": {
        "memory": ((30_000, 784, 418.0, 8 * GiB), (60_000, 784, 418.0, 8 * GiB),
                   (10_000, 100, 1.0, 500_000_000), (2_000, 50, 1.0, 32_000_100),
                   (100_000, 784, 1.0, 8 * GiB), (3_000, 10, 1.0, 300_000_000)),
        "overflow": ((60_000, 784, 9.838e8, 8 * GiB), (60_000, 784, 65504.0, 8 * GiB),
                     (20_000, 784, 1e39, 2_000_000_000), (5_000, 784, 1e39, 10**9),
                     (1_000, 10, float("inf"), 10**9)),
        "tile": ((5_000, 784, 1.0, 250_000_000), (1_000, 10, 1.0, 10**9),
                 (10_000, 100, 1.0, 500_000_000), (30_000, 784, 418.0, 8 * GiB)),
    },
}


def peak_memory(func, *args, **kwargs):
    """Call ``func(*args, **kwargs)``; return its result and the peak of new memory it allocated.

    Measured with :mod:`tracemalloc`, which sees NumPy's (and Python's) allocations
    but not torch's: the peak, during the call, of traced memory above what was
    allocated before it — the returned array included. The tests measure the same way.

    Returns
    -------
    result : object
    peak : int
        Bytes.
    """
    with _memory(True) as measured:
        result = func(*args, **kwargs)
    return result, measured["peak"]


def memory_allowance(n, m, d, max_memory):
    """Bytes a tiled Gram routine may allocate besides its result K (n x m) for inputs with d columns.

    The budget ``max_memory`` for the temporaries, plus float64 copies of X and Z with
    room for their norms, plus 64 KiB of slack for small objects.
    """
    return max_memory + 8 * (n + m) * (d + 4) + 65536


def memory_limit(n, m, d, max_memory):
    """Bytes a measured call may allocate in all, the result K (n x m float64) included."""
    return 8 * n * m + memory_allowance(n, m, d, max_memory)


# ------------------------------------------------------- lesson-specific comparisons
def _gram(value, probe):
    """K as a float array of shape (len(X), len(Z)), with clear failures."""
    X, Z = probe.args[0], probe.args[1]
    check_shape(value, (len(X), len(Z)), f"tiled_rbf_gram for X of shape {X.shape} and Z of shape {Z.shape}")
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError("tiled_rbf_gram should return an array of numbers") from None


@comparison("gram")
def _gram_values(value, expected, name, check, probe, answer):
    """K's values; rows wrong from some row to the end name a lost last block."""
    K, expected = _gram(value, probe), np.asarray(expected, dtype=float)
    close = np.isclose(K, expected, rtol=check.rtol, atol=check.atol)
    bad_rows = np.flatnonzero(~close.all(1))
    if len(bad_rows) and bad_rows[0] > 0 and np.array_equal(bad_rows, np.arange(bad_rows[0], len(K))):
        raise AssertionError(f"rows {bad_rows[0]} to {len(K) - 1} of K are wrong (max_memory={probe.args[3]}): "
                             "does your loop cover the last, shorter block of rows, and write each block to "
                             "its own rows?")
    check_close(K, expected, name, rtol=check.rtol, atol=check.atol)


@comparison("unit_range")
def _unit_range(value, expected, name, check, probe, answer):
    """Points far from the origin: K in [0, 1] (the squared distances clamped), whatever its values."""
    K = _gram(value, probe)
    if not np.all(np.isfinite(K)):
        raise AssertionError("K contains NaN or infinite values for points far from the origin")
    elif K.max() > 1.0:
        raise AssertionError(f"K has values above 1 (the largest is {K.max():.12g}) for nearly identical points "
                             "far from the origin: ‖x‖² − 2 x·z + ‖z‖² can come out slightly negative by "
                             "rounding, and exp of a positive number exceeds 1; clamp the squared distances at 0")
    elif K.min() < 0:
        raise AssertionError("K has negative values: exp(...) is never negative")


@comparison("memory")
def _memory_used(value, expected, name, check, probe, answer):
    """Right values (a measured call's rows equal the student's own answer on those rows, or all of K
    the reference's; a call not measured: the rows the measured ones are checked on), then a measured
    call's memory under the budget -- which holds already when the grader ran it under that limit
    itself (``answer.limited``, :mod:`kpcourse.grading.judge.rerun`)."""
    X, Z, _, max_memory = probe.args
    K = _gram(value, probe)
    if not same(K if probe.like is None else K[memory_rows(len(X))], expected, rtol=check.rtol, atol=check.atol):
        raise AssertionError("the values of K are wrong (see the values test); the memory test needs them right")
    if answer.limited or not probe.measured:
        return
    if answer.peak_bytes is None:
        raise AssertionError("the memory of your function could not be measured")
    extra = answer.peak_bytes - K.nbytes
    if extra > memory_allowance(len(X), len(Z), X.shape[1], max_memory):
        raise AssertionError(
            f"with max_memory={max_memory:,} your function allocated {extra:,} bytes besides the result K "
            f"({K.nbytes:,} bytes) for X of shape {X.shape} and Z of shape {Z.shape}: over the budget. "
            "Compute K block by block (block_rows = max_memory // (4 * 8 * m) rows of X at a time) and "
            "write each block into a K you allocated once")


def memory_rows(n):
    """The rows of K a measured call is checked on: the first two, the middle one, the last two."""
    return np.array([0, 1, n // 2, n - 2, n - 1])


@comparison("first_epoch")
def _first_epoch(value, expected, name, check, probe, answer):
    """One epoch: alpha in {0, 1} with alpha[0] = 1, whatever the rest of the counts."""
    alpha, _ = counts_and_bias(value, len(probe.args[1]), name)
    if alpha[0] != 1:
        raise AssertionError(f"after one epoch alpha[0] is {fmt(alpha[0])}: F starts at 0 and a score of exactly "
                             "0 is a mistake, so the first sample is always corrected once")
    elif not np.all(np.isin(alpha, (0, 1))):
        raise AssertionError(f"with max_epochs=1 each sample is visited once, so alpha holds 0 or 1; you "
                             f"returned {fmt(alpha)}: run at most max_epochs epochs")


# ----------------------------------------------------------------- the exercises
_P = PROBES
_TX, _TZ, _TS = _P["tiled_X"], _P["tiled_Z"], _P["tiled_sigma"]
_M = len(_TZ)

TILED = Exercise(
    "tiled_rbf_gram", "ex1-tiled", "the tiled Gram matrix", time_limit=20.0,
    mistakes={**MISTAKES["tiled_rbf_gram"], **RBF_FORMULA},
    checks=[
        Check("ex1-tiled-tests-values", compare="gram", rtol=1e-9, atol=1e-12, hidden_label="new data",
              mistakes=(*RBF_FORMULA, "cross_sign"),
              probes=[*(Probe((_TX, _TZ, _TS, b),
                              label=f"tiled_rbf_gram(X={fmt(_TX)}, Z={fmt(_TZ)}, sigma={_TS:g}, max_memory={b})")
                        for b in (4 * 8 * _M, 3 * 4 * 8 * _M, 10**6)),
                      Probe((_TX, _TZ[:, :2], _TS, 10**6), raises="ValueError", why="X has 3 columns and Z has 2"),
                      Probe((_TX, _TZ, _TS, 4 * 8 * _M - 1), raises="ValueError",
                            why=f"max_memory={4 * 8 * _M - 1} cannot hold one row of temporaries (4 * 8 * m = "
                                f"{4 * 8 * _M} bytes for m={_M})")]),
        Check("ex1-tiled-tests-clamp", compare="unit_range", hidden_label="new points far from the origin",
              probes=[Probe((_P["far_X"], _P["far_Z"], _P["far_sigma"], 10**6),
                            label="nearly identical points far from the origin")]),
        # the measured calls: K's rows compared with the student's own answer on those rows (probe 0,
        # itself compared with the reference), so that no 700 x 600 K is stored as data
        Check("ex1-tiled-tests-memory", compare="memory", rtol=1e-7, atol=1e-9, hidden_label="new data",
              probes=[Probe((_P["memory_X"][_P["memory_rows"]], _P["memory_Z"], _P["memory_sigma"], 10**6),
                            label="5 rows of the memory probe"),
                      *(Probe((_P["memory_X"], _P["memory_Z"], _P["memory_sigma"], b), measured=True, like=0,
                              label=f"X of shape (700, 20), Z of shape (600, 20), max_memory={b:,}")
                        for b in _P["memory_budgets"])]),
    ])

_KC, _KB = _P["counts_X"] @ _P["counts_X"].T, _P["bias_X"] @ _P["bias_X"].T  # linear Gram matrices
_BIAS_LABEL = f"K = X Xᵀ for X={fmt(_P['bias_X'])}, y={fmt(_P['bias_y'])}"

INCREMENTAL = Exercise(
    "train_incremental", "ex2-incremental", "the incremental training", returns=("alpha", "b"),
    mistakes=MISTAKES["train_incremental"],
    checks=[
        Check("ex2-incremental-tests-counts", compare="counts_only", mistakes=("only_current", "zero"),
              hidden_label="new data",
              hint="visit 0..n-1 in order; on y_i F_i <= 0 add 1 to alpha_i and y_i (K[:, i] + 1) to F",
              probes=[Probe((_KC, _P["counts_y"], 20), label="a Gram matrix of 6 samples"),
                      Probe((np.ones((3, 4)), np.array([1, -1, 1]), 5), raises="ValueError",
                            why="K has shape (3, 4), not (n, n) for n = len(y) = 3")]),
        Check("ex2-incremental-tests-bias", compare="counts_bias", hidden_label="new data",
              mistakes=("only_current", "no_bias", "b_zero", "b_sign"),
              hint="check the mistake counts and the bias (on a mistake b += y_i and F += y_i (K[:, i] + 1))",
              probes=[Probe((_KB, _P["bias_y"], 20), label=_BIAS_LABEL)]),
        Check("ex2-incremental-tests-first", compare="first_epoch", pure="in_place", hidden_label="new data",
              probes=[Probe((_KB, _P["bias_y"], 1), label=f"{_BIAS_LABEL}, max_epochs=1")]),
    ])

_STORAGE_WHY = "no precision is safe (neither the memory nor the kernel's largest value allows one)"


def storage_probe(case, label=""):
    """A probe of ``choose_storage(n, d, max_value, max_bytes)``; where no precision is safe it must refuse."""
    return Probe(tuple(case), label=label, why=_STORAGE_WHY)


@comparison("l06_storage")
def _storage(value, expected, name, check, probe, answer):
    """(dtype, tile): a name of the table and a whole number; the dtype compared, and the tile when given."""
    dtype, tile = answer.value  # the judge unpacked it
    if not isinstance(dtype, str):
        raise AssertionError(f"the dtype returned by choose_storage should be its name as a string "
                             f"('float64', 'float32', 'float16' or 'bfloat16'), got {fmt(dtype)}")
    if dtype not in [row[0] for row in STORAGE_TABLE]:
        raise AssertionError(f"choose_storage returned the dtype {dtype!r}: use one of the names "
                             "'float64', 'float32', 'float16', 'bfloat16'")
    try:
        whole = not isinstance(tile, (bool, str)) and np.ndim(tile) == 0 and float(tile) == int(tile)
    except (TypeError, ValueError, OverflowError):
        whole = False
    if not whole:
        raise AssertionError(f"the tile returned by choose_storage should be a whole number (its side), "
                             f"got {fmt(tile)}")
    want_dtype, want_tile = expected if isinstance(expected, (tuple, list)) else (expected, None)
    if dtype != want_dtype and want_tile is None:
        raise AssertionError(f"{name} is {dtype!r}: not the most precise storage whose n × n matrix and a 1 × 1 "
                             "tile fit max_bytes and whose largest value is at least max_value")
    if dtype != want_dtype:
        raise AssertionError(f"{name} gave the dtype {dtype!r}, which is not the right choice (see the memory and "
                             "overflow tests): the tile depends on it")
    if want_tile is not None and int(tile) != want_tile:
        more = " (larger than the matrix)" if int(tile) > probe.args[0] else ""
        raise AssertionError(f"{name} returned the tile {int(tile)}{more}: not the largest T <= n whose working set "
                             "8·(T² + 2·T·d) fits in what the stored matrix leaves of max_bytes")


def _storage_check(aspect, part, mistakes):
    probes = [storage_probe(c, "n={:_}, d={}, max_value={:g}, max_bytes={:_}".format(*c))
              for c in PROBES["storage"][aspect]]
    return Check(f"ex3-storage-tests-{aspect}", probes, compare="l06_storage", part=part, mistakes=mistakes,
                 whole=True, hidden_label="new storage cases")


# A mistake is named when every outcome of the cell is that mistake's (``whole``): one probe where
# it happens to agree would name a wrong one. The memory and overflow cells judge the dtype only.
STORAGE = Exercise(
    "choose_storage", "ex3-storage", "the storage plan", returns=("dtype", "tile"),
    mistakes=MISTAKES["choose_storage"],
    checks=[_storage_check("memory", 0, ("elements", "bits", "no_room", "lowest_first")),
            _storage_check("overflow", 0, ("elements", "no_overflow", "strict", "no_bfloat16")),
            _storage_check("tile", None, ("whole_budget", "no_slices", "one_slice", "tile_elements",
                                          "tile_itemsize", "no_cap"))])

LESSON = Lesson("lesson06", [TILED, INCREMENTAL, STORAGE])
test = LESSON.test
