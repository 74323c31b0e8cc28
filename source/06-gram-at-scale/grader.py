"""Grader of assignment 06 (Gram matrices at scale): hidden tests and references.

Grader-only: never released, never visible to the student's code (the sandbox does
not mount the course folder). ``cells()`` says, for each autograded test cell, which
tests decide its points: the visible tests of ``kpcourse.checks.lesson06`` (replayed
on the student's answers) and hidden tests built here. ``visible_data()`` computes the
data the visible checks hold (expected outputs of their probes and the outputs of
common mistakes); ``python -m kpcourse.grading checks-data 06-gram-at-scale`` writes it
to ``kpcourse/checks/data/lesson06.json`` and a unit test keeps the two equal.
"""

import math

import numpy as np

from kpcourse.checks import lesson06 as visible
from kpcourse.checks._core import Call, Test, check_close, fail
from kpcourse.grading.spec import Cell
from kpcourse.grading.testdata import random_separable

FORBIDDEN = ("kpcourse", "sklearn", "scipy")
#: Exercise 1 is NumPy only: tracemalloc, which measures its memory, cannot see torch's allocations.
TILED_FORBIDDEN = (*FORBIDDEN, "torch")


# ----------------------------------------------------------------- references
def rbf_exact(X, Z, sigma):
    """RBF Gram from explicit differences (no cancellation; small inputs only)."""
    d2 = ((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
    return np.exp(-d2 / (2.0 * sigma ** 2))


def rbf_trick(X, Z, gamma):
    """RBF Gram with the distance trick, clamped, in float64 (inputs of the hidden tests)."""
    d2 = (X * X).sum(1)[:, None] - 2.0 * X @ Z.T + (Z * Z).sum(1)[None, :]
    return np.exp(-gamma * np.maximum(d2, 0.0))


def rbf_mistakes(X, Z, sigma):
    """What the common mistakes of Exercise 1 return (keys: lesson06._TILED_HINTS)."""
    d2 = np.maximum(((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1), 0.0)
    return {
        "sigma2": np.exp(-d2 / sigma ** 2),
        "gamma": np.exp(-d2 * sigma),
        "two_sigma": np.exp(-d2 / (2.0 * sigma)),
        "distance": np.exp(-np.sqrt(d2) / (2.0 * sigma ** 2)),
        "cross_sign": np.exp(-np.abs((X * X).sum(1)[:, None] + 2.0 * X @ Z.T + (Z * Z).sum(1)[None, :])
                             / (2.0 * sigma ** 2)),
        "squared_distances": d2,
    }


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


def storage_plan(n, d, max_value, max_bytes, *, mistake=None):
    """``(dtype name, tile)`` of Exercise 3, or ``"ValueError"``; ``mistake`` simulates a common one.

    The most precise storage of ``lesson06.STORAGE_TABLE`` whose n x n matrix plus the
    working set of a 1 x 1 tile fit ``max_bytes`` and whose largest finite value is at
    least ``max_value``; the tile is the largest T <= n with
    n·n·itemsize + 8·(T² + 2·T·d) <= max_bytes.
    """
    table = list(visible.STORAGE_TABLE)
    if mistake == "lowest_first":
        table = [table[2], table[3], table[1], table[0]]
    elif mistake == "no_bfloat16":
        table = table[:3]
    for name, size, top in table:
        if mistake == "bits":
            size *= 8
        if mistake == "no_overflow":
            safe = True
        elif mistake == "strict":
            safe = max_value < top
        else:
            safe = max_value <= top
        left = max_bytes - n * n * (1 if mistake == "elements" else size)
        if not safe or left < (0 if mistake == "no_room" else 8 * (1 + 2 * d)):
            continue
        budget = max_bytes if mistake == "whole_budget" else left
        per = {"tile_elements": 1, "tile_itemsize": size}.get(mistake, 8)
        slices = {"no_slices": 0, "one_slice": 1}.get(mistake, 2)
        tile = _largest(lambda T, per=per, slices=slices, budget=budget: per * (T * T + slices * T * d) <= budget,
                        math.isqrt(max(budget, 0)) + 1)
        return name, (tile if mistake == "no_cap" else min(n, tile))
    return visible.REFUSED


def _dtypes(outcomes):
    return [o if o == visible.REFUSED else o[0] for o in outcomes]


def visible_data():
    """Expected outputs and common-mistake outputs of the visible probes."""
    P = visible.PROBES
    X, Z, sigma = P["tiled_X"], P["tiled_Z"], P["tiled_sigma"]
    K = rbf_exact(X, Z, sigma)
    mistakes = {k: v for k, v in rbf_mistakes(X, Z, sigma).items() if not np.allclose(v, K)}
    tiled = {"K": K, "mistakes": mistakes,
             "memory_rows": rbf_exact(P["memory_X"][P["memory_rows"]], P["memory_Z"], P["memory_sigma"])}
    KC, KB = P["counts_X"] @ P["counts_X"].T, P["bias_X"] @ P["bias_X"].T
    counts = {"alpha": incremental(KC, P["counts_y"], 20)[0],
              "only_current": incremental(KC, P["counts_y"], 20, variant="only_current")[0],
              "zero": incremental(KC, P["counts_y"], 20, variant="zero")[0]}
    alpha, b = incremental(KB, P["bias_y"], 20)
    bias = {"alpha": alpha, "b": float(b),
            "only_current": incremental(KB, P["bias_y"], 20, variant="only_current")[0],
            "no_bias": incremental(KB, P["bias_y"], 20, variant="no_bias")[0]}
    storage = {}
    for aspect, cases in P["storage"].items():
        expected = [storage_plan(*c) for c in cases]
        wrong, tile = {}, aspect == "tile"
        for key in visible._TILE_MISTAKES if tile else visible._DTYPE_MISTAKES:
            outputs = [storage_plan(*c, mistake=key) for c in cases]
            if (outputs if tile else _dtypes(outputs)) != (expected if tile else _dtypes(expected)):
                wrong[key] = outputs
        storage[aspect] = {"expected": expected, "mistakes": wrong}
    return {"tiled": tiled, "incremental": {"counts": counts, "bias": bias}, "storage": storage}


# ------------------------------------------------------------- hidden tests
def _tiled_new_data():
    rng = np.random.default_rng(61)
    calls, expected = [], []
    for (n, m, d), sigma in (((37, 23, 5), 0.7), ((50, 50, 12), 3.0), ((1, 9, 3), 1.5)):
        A, C = rng.normal(size=(n, d)), rng.normal(size=(m, d))
        for budget in (4 * 8 * m * 5, 10**7):
            calls.append(Call("tiled_rbf_gram", A, C, sigma, budget))
            expected.append(rbf_exact(A, C, sigma))
    calls.append(Call("tiled_rbf_gram", np.ones((4, 3)), np.ones((5, 3)), 1.0, 100))

    def judge(answers):
        from kpcourse.checks._core import expect_raises

        for a, e in zip(answers, expected, strict=False):
            (n, d), m = a.call.args[0].shape, len(a.call.args[1])
            check_close(visible.unpack_gram(a), e, f"tiled_rbf_gram on new data of shapes ({n}, {d}) and ({m}, {d})",
                        rtol=1e-9, atol=1e-12)
        expect_raises(answers[-1], "ValueError", "max_memory=100 is less than 4 * 8 * m = 160")
    return Test(calls, judge)


def _tiled_far_from_origin():
    rng = np.random.default_rng(62)
    far = -3e4 + rng.normal(size=(50, 8))

    def judge(answers):
        K = visible.unpack_gram(answers[0])
        if not (np.all(np.isfinite(K)) and K.max() <= 1.0 and K.min() >= 0.0):
            fail("tiled_rbf_gram", ["on new points far from the origin K has values outside [0, 1]: clamp the "
                                    "squared distances at 0"])
    return Test([Call("tiled_rbf_gram", far, far[::-1].copy(), 0.02, 10**6)], judge)


def _tiled_memory_new_data():
    # seed 63 as before, smaller (was 1,200 x 1,800) so that the answers, K included, stay small
    rng = np.random.default_rng(63)
    A, C = rng.normal(size=(1000, 30)), rng.normal(size=(700, 30))
    rows = np.array([0, 499, 999])
    want = rbf_exact(A[rows], C, 5.0)
    calls = [Call.measured("tiled_rbf_gram", A, C, 5.0, b) for b in (400_000, 2_000_000)]

    def judge(answers):
        for a in answers:
            K, budget = visible.unpack_gram(a), a.call.args[3]
            check_close(K[rows], want, "K on new data", rtol=1e-7, atol=1e-9)
            # peak_bytes: tracemalloc's peak in the student's process, the one figure it reports itself
            extra = (a.peak_bytes if a.peak_bytes is not None else np.inf) - K.nbytes
            if extra > visible.memory_allowance(len(A), len(C), A.shape[1], budget):
                fail("tiled_rbf_gram", [f"with max_memory={budget:,} on new data your function allocated "
                                        f"{extra:,} bytes besides K: over the budget"])
    return Test(calls, judge, time_limit=20.0)


def _incremental_counts_new_data():
    calls, expected = [], []
    for seed in (64, 65):
        # far from the origin, separable through it: the bias never decides a mistake
        X, y = random_separable(40, 3, margin=0.05, offset=False, scale=100.0, random_state=seed)
        K = X @ X.T
        calls.append(Call("train_incremental", K, y, 100))
        expected.append(incremental(K, y, 100)[0])

    def judge(answers):
        for a, e in zip(answers, expected, strict=True):
            alpha, _ = visible.unpack_incremental(a)
            check_close(alpha, e, "alpha on new data", hint="alpha[i] counts the mistakes on sample i")
    return Test(calls, judge)


def _incremental_bias_new_data():
    from kpcourse.datasets import circles, load_mnist

    Xc, yc = circles(60, noise=0.05, random_state=66)
    img, lab = load_mnist("train", n=300)
    Xm, ym = img.reshape(300, -1) / 255.0, np.where(lab == 3, 1, -1)  # "is it a 3?"
    cases = ((rbf_trick(Xc, Xc, 1.0 / (2 * 0.5 ** 2)), yc, 30, "circles, RBF"),
             (rbf_trick(Xm, Xm, 0.02), ym, 4, "300 digits, RBF"))
    calls = [Call("train_incremental", K, y, epochs) for K, y, epochs, _ in cases]
    expected = [(*incremental(K, y, epochs), what) for K, y, epochs, what in cases]

    def judge(answers):
        for a, (ra, rb, what) in zip(answers, expected, strict=True):
            alpha, b = visible.unpack_incremental(a)
            check_close(alpha, ra, f"alpha on new data ({what})")
            check_close(b, rb, f"b on new data ({what})")
    return Test(calls, judge)


def _incremental_first_new_data():
    X, y = random_separable(30, 2, random_state=67)

    def judge(answers):
        alpha, _ = visible.unpack_incremental(answers[0])
        if not (alpha[0] == 1 and np.isin(alpha, (0, 1)).all()):
            fail("train_incremental", ["after one epoch on new data alpha should hold 0 or 1, with alpha[0] = 1"])
    return Test([Call("train_incremental", X @ X.T, y, 1)], judge)


def _storage_cases(seed, values, count=30):
    """Random (n, d, max_value, max_bytes) around the thresholds where the choice changes."""
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(count):
        n = int(10 ** rng.uniform(1, 5.3))
        d = int(rng.choice([2, 30, 784, 3072]))
        size = int(rng.choice([8, 4, 2]))
        room = 8 * (1 + 2 * d)
        max_bytes = int(n * n * size * rng.uniform(1.0, 1.5)) + int(rng.choice([0, room - 1, room, 10 * room]))
        cases.append((n, d, float(rng.choice(values)), max_bytes))
    return cases


def _storage_new_cases(aspect):
    if aspect == "memory":
        cases = _storage_cases(68, [1.0, 418.0, 1000.0])
        cases += [(1, 1, 1.0, 32), (1, 1, 1.0, 31), (1, 1, 1.0, 25), (3, 2, 1.0, 112)]
    elif aspect == "overflow":
        cases = _storage_cases(69, [65504.0, 65504.5, 9.838e8, 1e39, 1e300, float("inf")])
        cases += [(40_000, 784, 7e4, 8 * visible.GiB), (40_000, 784, 7e4, 4 * visible.GiB)]
    else:
        cases = _storage_cases(70, [1.0, 418.0])  # by memory only: an overflow slip costs the overflow cell
        cases += [(200, 30, 1.0, 10**8), (50, 3072, 1.0, 2 * 10**8), (7, 2, 1.0, 10**4)]  # tile = n
    expected = [storage_plan(*c) for c in cases]
    calls = [Call("choose_storage", *c) for c in cases]

    def judge(answers):
        for a, e, c in zip(answers, expected, cases, strict=True):
            got = visible.storage_outcome(a)
            got_dtype = got if got == visible.REFUSED else got[0]
            want_dtype = e if e == visible.REFUSED else e[0]
            text = visible._storage_text(c)
            if got_dtype != want_dtype:
                did = "raised ValueError" if got_dtype == visible.REFUSED else f"returned {got_dtype!r}"
                fail("choose_storage", [f"on new cases, {text} {did}: not the safe choice (check the bytes, "
                                        "the overflow bound and the order of the precisions)"])
            if aspect == "tile" and got != e:
                fail("choose_storage", [f"on new cases, {text} returned the tile {got[1]}: not the largest "
                                        "that fits"])
    return Test(calls, judge)


def cells():
    """The tests that decide each autograded cell of assignment 06."""
    tiled = "the tiled Gram matrix"
    train = "the incremental training"
    plan = "the storage plan"
    return {
        "ex1-tiled-tests-values": Cell("ex1-tiled", tiled, [*visible.tiled_tests("values"), _tiled_new_data()],
                                       forbidden=TILED_FORBIDDEN),
        "ex1-tiled-tests-clamp": Cell("ex1-tiled", tiled, [*visible.tiled_tests("clamp"), _tiled_far_from_origin()],
                                      forbidden=TILED_FORBIDDEN),
        "ex1-tiled-tests-memory": Cell("ex1-tiled", tiled,
                                       [*visible.tiled_tests("memory"), _tiled_memory_new_data()],
                                       forbidden=TILED_FORBIDDEN, answer_bytes=32 * 2**20),  # 23 MB
        "ex2-incremental-tests-counts": Cell("ex2-incremental", train, [*visible.incremental_tests("counts"),
                                                                        _incremental_counts_new_data()]),
        "ex2-incremental-tests-bias": Cell("ex2-incremental", train, [*visible.incremental_tests("bias"),
                                                                      _incremental_bias_new_data()]),
        "ex2-incremental-tests-first": Cell("ex2-incremental", train, [*visible.incremental_tests("first"),
                                                                        _incremental_first_new_data()]),
        "ex3-storage-tests-memory": Cell("ex3-storage", plan, [*visible.storage_tests("memory"),
                                                               _storage_new_cases("memory")]),
        "ex3-storage-tests-overflow": Cell("ex3-storage", plan, [*visible.storage_tests("overflow"),
                                                                 _storage_new_cases("overflow")]),
        "ex3-storage-tests-tile": Cell("ex3-storage", plan, [*visible.storage_tests("tile"),
                                                             _storage_new_cases("tile")]),
    }
