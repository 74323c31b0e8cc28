"""Lesson 06's references, against the source's solutions and against independent computations.

``tests/test_exercises.py`` runs every declared mistake through every check that names it, and
``tests/test_lessons.py`` every source solution through every cell; here: the grader's references
agree with the solution cells of ``source/06-gram-at-scale`` and with brute force (a linear scan
for the largest N, a cache simulated by every eviction choice, the Nyström matrix written with a
pseudo-inverse, the certified signs against exact matrices drawn inside the rounding model), and
the copies of course code that each exercise was designed against fail it.
"""

import itertools
import math
from pathlib import Path

import numpy as np
import pytest
from giveaway import solution
from judging import failing

from kpcourse import gram
from kpcourse.grading.judge.trusted import load_grader

ROOT = Path(__file__).resolve().parents[1]
GRADER = load_grader(ROOT / "source" / "06-gram-at-scale" / "grader.py")
SOLUTION = solution("06-gram-at-scale")
REF = GRADER.REFERENCES


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_largest_n_is_the_last_n_that_fits(seed):
    rng = np.random.default_rng(seed)
    for _ in range(40):
        M, b, r = int(rng.integers(0, 5000)), int(rng.integers(1, 9)), int(rng.integers(0, 40))
        for packed in (False, True):
            N = REF["largest_n"](M, b, packed, r)
            assert SOLUTION["largest_n"](M, b, packed, r) == N
            need = [b * (n * (n + 1) // 2 if packed else n * n) + r * n for n in range(N + 2)]
            assert need[N] <= M < need[N + 1]
    huge = 10**44 + int(rng.integers(0, 10**6))
    N = REF["largest_n"](huge, 4, True, 3136)
    assert SOLUTION["largest_n"](huge, 4, True, 3136) == N
    assert 2 * N * (N + 1) + 3136 * N <= huge < 2 * (N + 1) * (N + 2) + 3136 * (N + 1)


def _fewest_columns(log, capacity):
    """The fewest columns any eviction choice computes: every choice tried (small logs only)."""
    best = math.inf

    def walk(t, store, computed):
        nonlocal best
        if computed >= best:
            return
        if t == len(log):
            best = computed
            return
        if log[t] in store:
            walk(t + 1, store, computed)
        elif len(store) < capacity:
            walk(t + 1, store | {log[t]}, computed + 1)
        else:
            for drop in store:
                walk(t + 1, (store - {drop}) | {log[t]}, computed + 1)
    walk(0, frozenset(), 0)
    return best


def _simulated(log, capacity, policy):
    """FIFO and LRU as queues of (column, time) written the other way round from the reference."""
    store = []
    computed = 0
    for i in log:
        if i in store:
            if policy == "lru":
                store.remove(i)
                store.insert(0, i)
            continue
        computed += 1
        if len(store) == capacity:
            store.pop()
        store.insert(0, i)
    return computed


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_columns_computed_against_brute_force(seed):
    rng = np.random.default_rng(seed)
    for _ in range(15):
        log = rng.integers(0, 5, size=int(rng.integers(5, 11))).tolist()
        capacity = int(rng.integers(1, 4))
        counts = {p: REF["columns_computed"](log, capacity, p) for p in ("fifo", "lru", "opt")}
        assert counts == {p: SOLUTION["columns_computed"](log, capacity, p) for p in counts}
        assert counts["opt"] == _fewest_columns(log, capacity)
        assert counts["fifo"] == _simulated(log, capacity, "fifo")
        assert counts["lru"] == _simulated(log, capacity, "lru")
    zipf = GRADER._zipf(rng, 300, 40)
    for capacity, policy in itertools.product((1, 7, 40), ("fifo", "lru", "opt")):
        assert SOLUTION["columns_computed"](zipf, capacity, policy) == REF["columns_computed"](zipf, capacity, policy)
    assert REF["columns_computed"](zipf, 40, "fifo") == len(set(zipf))  # every column once: nothing evicted


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_nystrom_features_are_the_pseudo_inverse_approximation(seed):
    rng = np.random.default_rng(seed)
    for probe in (*GRADER._nystrom_values(rng), GRADER._nystrom_traps(rng)[0]):
        X, L, sigma, rtol = probe.args
        Z = REF["nystrom_features"](*probe.args)
        K_XL = gram.gram_matrix(X, L, kernel="rbf", sigma=sigma, device="cpu")
        K_LL = gram.gram_matrix(L, L, kernel="rbf", sigma=sigma, device="cpu")
        want = K_XL @ np.linalg.pinv(K_LL, rcond=rtol, hermitian=True) @ K_XL.T
        np.testing.assert_allclose(Z @ Z.T, want, atol=1e-8)
        assert Z.shape[1] == np.linalg.matrix_rank(K_LL, tol=rtol * np.linalg.eigvalsh(K_LL)[-1])
        S = SOLUTION["nystrom_features"](*probe.args)
        np.testing.assert_allclose(S @ S.T, Z @ Z.T, atol=1e-8)
    X = rng.normal(size=(12, 3))  # L = X: the whole kernel, up to the eigenvalues cut off
    Z = REF["nystrom_features"](X, X, 2.0, 0.0)
    np.testing.assert_allclose(Z @ Z.T, gram.gram_matrix(X, kernel="rbf", sigma=2.0, device="cpu"), atol=1e-9)


def _exact_within_model(rng, K_low, fmt, worst=None):
    """An exact matrix the rounding model allows: every entry moved within its bound (``worst``: all
    moved by the whole bound, in that direction per entry)."""
    u, eta = GRADER.ROUNDING[fmt]
    bound = u / (1 - u) * np.abs(K_low) + eta
    step = rng.uniform(-1, 1, size=K_low.shape) if worst is None else worst
    return K_low + step * bound


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_certified_signs_hold_for_every_exact_matrix(seed):
    rng = np.random.default_rng(seed)
    for probe in (*GRADER._certify_float16(rng), *GRADER._certify_bfloat16(rng)[:2]):
        K_low, c, b, fmt = probe.args
        codes = REF["certified_signs"](*probe.args)
        signs = SOLUTION["certified_signs"](*probe.args)
        np.testing.assert_array_equal(signs, codes)
        s, kernel, summed = GRADER._bounds(K_low, c, b, fmt)  # no row where a bound up to 2x could go either way
        assert np.all((np.abs(s) <= kernel * (1 - 1e-6)) | (np.abs(s) > 2 * (kernel + summed)))
        loose = np.where(np.abs(s) > 1.9 * (kernel + summed), np.sign(s), 0)  # a sound bound 1.9x the tightest
        np.testing.assert_array_equal(loose, codes)
        for _ in range(20):  # a certified sign survives any exact matrix inside the model
            K = _exact_within_model(rng, K_low, fmt)
            assert np.all(np.sign(K @ c + b)[signs != 0] == signs[signs != 0])
        # where the codes say 0, the worst matrix of the model reaches the other sign (or 0)
        worst = -np.sign(s)[:, None] * np.sign(c)[None, :]
        flipped = np.sign(_exact_within_model(rng, K_low, fmt, worst) @ c + b)
        zero = codes == 0
        assert np.all(flipped[zero] * np.sign(s[zero]) <= 0)


def test_the_rounding_model_holds_for_float16_and_bfloat16():
    """round_to is numpy's float16 and torch's bfloat16, and both stay inside the model's bound."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(6)
    K = rng.uniform(size=5000) * np.exp(-rng.uniform(0, 120, size=5000))
    for fmt, cast in (("float16", lambda a: a.astype(np.float16).astype(float)),
                      ("bfloat16", lambda a: torch.from_numpy(a).to(torch.bfloat16).double().numpy())):
        low = GRADER.round_to(K, fmt)
        np.testing.assert_array_equal(low, cast(K))
        u, eta = GRADER.ROUNDING[fmt]
        assert np.all(np.abs(K - low) <= u / (1 - u) * np.abs(low) + eta)


def test_the_visible_facts_that_the_notebook_states():
    """The numbers the exercises' text and the model answer give."""
    G = 8 * 2**30
    assert (REF["largest_n"](1000, 8), REF["largest_n"](1000, 8, True)) == (11, 15)
    assert [REF["largest_n"](G, 4), REF["largest_n"](G, 4, True), REF["largest_n"](G, 4, True, 3136)] == \
        [46_340, 65_535, 64_756]
    assert REF["largest_n"](G, 8, True, 3136) == 45_950
    assert G - (4 * 60_000 * 60_001 // 2 + 3136 * 60_000) == 1_201_654_592
    assert [REF["columns_computed"]([0, 1, 2, 0], 2, p) for p in ("fifo", "lru", "opt")] == [4, 4, 3]
    log = np.random.default_rng(0).zipf(1.5, size=2000) % 300
    assert [[REF["columns_computed"](log, cap, p) for p in ("fifo", "lru", "opt")] for cap in (5, 20, 80)] == \
        [[1074, 948, 658], [594, 498, 307], [280, 227, 171]]
    assert len(set(log.tolist())) == 171
    u = 2.0 ** -11
    assert 0.5 * u / (1 - u) + 2.0 ** -25 == pytest.approx(0.000244, abs=5e-7)
    assert REF["certified_signs"]([[0.5]], [1.0], -0.4995, "float16").tolist() == [1]
    assert REF["certified_signs"]([[0.5]], [1.0], -0.4999, "float16").tolist() == [0]


def _failing(gid, functions):
    return failing(GRADER, SOLUTION, gid, functions)


def _lecture_cell_8(max_bytes, bytes_per_value, packed=False, row_bytes=0):
    """Lecture 06 cell 8: the largest N whose full matrix fits, by the integer square root."""
    return math.isqrt(max_bytes // bytes_per_value)


def _package_fifo_store(mistakes, capacity, policy):
    """The package's column store (kpcourse._dual.columns), a FIFO queue of computed columns, counted."""
    store, computed = [], 0
    for i in mistakes:
        if i not in store:
            computed += 1
            if len(store) == capacity:
                store.pop(0)
            store.append(i)
    return computed


def _lecture_sign(K_low, c, b, fmt):
    """Lecture 06 cells 35-37: predict with the rounded matrix as it is (no bound)."""
    return np.sign(np.asarray(K_low) @ np.asarray(c) + b).astype(int)


@pytest.mark.parametrize("gid,function,wrong", [
    ("ex1-largest-tests-mnist", "largest_n", _lecture_cell_8),
    ("ex1-largest-tests-exact", "largest_n", _lecture_cell_8),
    ("ex2-columns-tests-small", "columns_computed", _package_fifo_store),
    ("ex2-columns-tests-zipf", "columns_computed", _package_fifo_store),
    ("ex4-certify-tests-float16", "certified_signs", _lecture_sign),
    ("ex4-certify-tests-bfloat16", "certified_signs", _lecture_sign),
])
def test_the_nearest_course_code_fails_each_exercise(gid, function, wrong):
    """What the exercise was designed against (issue 41), copied and wrapped, fails its visible and hidden tests."""
    assert _failing(gid, {function: wrong}) == ["visible", "hidden"]
    assert _failing(gid, {}) == []


def test_the_given_nystrom_code_fails_every_nystrom_cell():
    """The colleague's version of the notebook (its three flaws) earns nothing. (Lecture 08 cell 33's
    scikit-learn Nystroem is absent from the sandbox: the golden case ``nystroem-sklearn`` gets 0.)"""
    given = SOLUTION["nystrom_features_given"]

    def wrapped(X, L, sigma, rtol=1e-10):
        return given(X, L, sigma)
    for gid in ("ex3-nystrom-tests-values", "ex3-nystrom-tests-traps"):
        assert _failing(gid, {"nystrom_features": wrapped}) == ["visible", "hidden"]
