"""Lesson 06's checks: every diagnosis passes the model solution and names each common mistake.

The right functions are the solution cells of ``source/06-gram-at-scale`` (executed here);
each wrong one makes a single common mistake. Messages must name the mistake and never
contain the expected numbers. The checks hold data (``kpcourse/checks/data/lesson06.json``):
it must equal what the grader's references compute, and the grader's cells must pass the
solution and fail the mistakes, on answers round-tripped through JSON as in grading.
"""

import os
from pathlib import Path

import numpy as np
import pytest
from giveaway import solution as source_solution

from kpcourse.checks import lesson06 as checks
from kpcourse.grading.judge.spec import Cell
from kpcourse.grading.judge.testdata import random_separable
from kpcourse.grading.judge.trusted import load_grader

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENT = "06-gram-at-scale"
GRADER = load_grader(ROOT / "source" / ASSIGNMENT / "grader.py")


SOLUTION = source_solution(ASSIGNMENT)
FUNCTIONS = {name: SOLUTION[name] for name in ("tiled_rbf_gram", "train_incremental", "choose_storage")}


def _with(**replaced):
    return {**FUNCTIONS, **replaced}


@pytest.fixture(scope="module")
def cells(shared_data):
    """The grader's cells (a hidden test of Exercise 2 reads 300 MNIST digits from the data folder)."""
    os.environ.setdefault("KPCOURSE_DATA", str(shared_data))
    return GRADER.cells()


# --------------------------------------------------------------------------- #
# Data, references, the module itself
# --------------------------------------------------------------------------- #

def test_references_agree_with_the_package():
    from kpcourse.gram import gram_matrix
    from kpcourse.perceptron import KernelPerceptron

    rng = np.random.default_rng(0)
    X, Z = rng.normal(size=(30, 4)), rng.normal(size=(20, 4))
    np.testing.assert_allclose(GRADER.rbf(X, Z, 0.7), gram_matrix(X, Z, kernel="rbf", sigma=0.7, device="cpu"),
                               rtol=1e-12)
    X, y = random_separable(50, 3, random_state=3)
    K = X @ X.T
    alpha, b = GRADER.incremental(K, y, 100)
    ref = KernelPerceptron(kernel="precomputed", shuffle=False, max_epochs=100, device="cpu").fit(K, y)
    np.testing.assert_array_equal(alpha, ref.alpha_)
    assert b == ref.intercept_


def test_storage_table_is_numpy_and_torch():
    import torch

    for name, size, top in checks.STORAGE_TABLE:
        dtype = getattr(torch, name)
        assert torch.finfo(dtype).max == top and torch.finfo(dtype).bits == 8 * size


STORAGE_CELLS = [f"ex3-storage-tests-{aspect}" for aspect in ("memory", "overflow", "tile")]


def _plan(*case, mistake=None):
    """The reference's outcome: (dtype, tile), or "ValueError" where it refuses."""
    try:
        return GRADER.choose_storage(*case, mistake=mistake)
    except ValueError:
        return "ValueError"


@pytest.mark.parametrize("case", [c for cs in checks.PROBES["storage"].values() for c in cs]
                         + [p.args for gid in STORAGE_CELLS for seed in (1, 2)
                            for p in GRADER.HIDDEN[gid](np.random.default_rng(seed))])
def test_storage_reference_by_brute_force(case):
    """The reference's tile is the largest that fits, and it fits (checked by counting bytes)."""
    n, d, max_value, max_bytes = case
    out = _plan(*case)
    safe = [(name, size) for name, size, top in checks.STORAGE_TABLE
            if max_value <= top and n * n * size + 8 * (1 + 2 * d) <= max_bytes]
    if not safe:
        assert out == "ValueError"
        return
    name, size = safe[0]
    left = max_bytes - n * n * size
    assert out[0] == name
    tile = out[1]
    assert 1 <= tile <= n and 8 * (tile * tile + 2 * tile * d) <= left
    assert tile == n or 8 * ((tile + 1) ** 2 + 2 * (tile + 1) * d) > left


def test_storage_mistakes_are_told_apart():
    """On the visible probes of each cell, each mistake's outcomes (the dtypes, or dtype and tile) differ
    from the right ones and from every other mistake's: a whole list names one mistake."""
    for gid in STORAGE_CELLS:
        _, check = checks.LESSON.check(gid)
        data = checks.LESSON.data[gid]
        def judged(outcomes, part=check.part):
            return repr([o if isinstance(o, dict) or part is None else o[part] for o in outcomes])

        seen = {judged(data["expected"]): "the right answer"}
        for key in check.mistakes:
            outcomes = judged([m[key] for m in data["mistaken"]])
            assert outcomes not in seen, f"{gid}: {key} and {seen.get(outcomes)} look alike"
            seen[outcomes] = key


def test_peak_memory_sees_numpy_allocations():
    _, peak = checks.peak_memory(np.ones, (1000, 1000))
    assert 8_000_000 <= peak < 8_200_000


# --------------------------------------------------------------------------- #
# Exercise 1: tiled_rbf_gram
# --------------------------------------------------------------------------- #

def make_tiled(clamp=True, tiled=True, last_block=True, gamma_is_sigma=False, check=True):
    def tiled_rbf_gram(X, Z, sigma, max_memory):
        X, Z = np.asarray(X, dtype=float), np.asarray(Z, dtype=float)
        n, m = len(X), len(Z)
        if check and X.shape[1] != Z.shape[1]:
            raise ValueError("X and Z need the same number of columns")
        block = max_memory // (4 * 8 * m)
        if check and block < 1:
            raise ValueError("max_memory cannot hold one row")
        block = max(block, 1)
        scale = sigma if gamma_is_sigma else 1.0 / (2.0 * sigma ** 2)
        if not tiled:
            d2 = (X * X).sum(1)[:, None] - 2.0 * X @ Z.T + (Z * Z).sum(1)[None, :]
            return np.exp(-scale * (np.maximum(d2, 0.0) if clamp else d2))
        K = np.empty((n, m))
        zz = (Z * Z).sum(1)
        stop = n if last_block else n - n % block if n % block else n - block
        for a in range(0, stop, block):
            B = X[a:a + block]
            d2 = (B * B).sum(1)[:, None] - 2.0 * B @ Z.T + zz[None, :]
            if clamp:
                np.maximum(d2, 0.0, out=d2)
            K[a:a + block] = np.exp(-scale * d2)
        if not last_block:
            K[stop:] = 0.0
        return K
    return tiled_rbf_gram


def test_tiled_solution_passes():
    for aspect in ("values", "clamp", "memory"):
        checks.test(f"ex1-tiled-tests-{aspect}", FUNCTIONS["tiled_rbf_gram"])
        checks.test(f"ex1-tiled-tests-{aspect}", make_tiled())


def test_tiled_without_clamp_fails_only_the_clamp_aspect(message):
    f = make_tiled(clamp=False)
    checks.test("ex1-tiled-tests-values", f)
    checks.test("ex1-tiled-tests-memory", f)
    assert "clamp the squared distances at 0" in message(checks.test, "ex1-tiled-tests-clamp", f)


def test_untiled_fails_only_the_memory_aspect(message):
    f = make_tiled(tiled=False)
    checks.test("ex1-tiled-tests-values", f)
    checks.test("ex1-tiled-tests-clamp", f)
    msg = message(checks.test, "ex1-tiled-tests-memory", f)
    assert "over the budget" in msg and "block by block" in msg


def test_tiled_names_value_mistakes(message):
    assert "not scikit-learn's γ" in message(checks.test, "ex1-tiled-tests-values", make_tiled(gamma_is_sigma=True))
    assert "last, shorter block" in message(checks.test, "ex1-tiled-tests-values", make_tiled(last_block=False))
    assert "should raise ValueError" in message(checks.test, "ex1-tiled-tests-values", make_tiled(check=False))


def test_tiled_messages_hide_the_expected_values(message):
    K = np.asarray(checks.LESSON.data["ex1-tiled-tests-values"]["expected"][0])
    msg = message(checks.test, "ex1-tiled-tests-values", lambda X, Z, s, b: np.zeros((len(X), len(Z))) + 0.5)
    for value in K.ravel()[:10]:
        assert f"{value:.4f}" not in msg


@pytest.mark.parametrize("gid,wrong,expected", [
    ("ex1-tiled-tests-clamp", make_tiled(clamp=False), "clamp the squared distances at 0"),
    ("ex1-tiled-tests-memory", make_tiled(tiled=False), "over the budget"),
    ("ex1-tiled-tests-values", make_tiled(gamma_is_sigma=True), "not scikit-learn's γ"),
])
def test_tiled_cells_fail_common_mistakes_with_their_hint(cells, gid, wrong, expected, message):
    assert expected in message(Cell.judge_here, cells[gid], _with(tiled_rbf_gram=wrong))


# --------------------------------------------------------------------------- #
# Exercise 2: train_incremental
# --------------------------------------------------------------------------- #

def make_incremental(variant="right", check=True):
    def train_incremental(K, y, max_epochs=10):
        K, y = np.asarray(K, dtype=float), np.asarray(y)
        n = len(y)
        if check and K.shape != (n, n):
            raise ValueError("K must be (n, n)")
        alpha, b, F = np.zeros(n, dtype=int), 0.0, np.zeros(n)
        for _ in range(max_epochs):
            made = 0
            for i in range(n):
                if y[i] * F[i] <= 0:
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
    return train_incremental


def test_incremental_solution_passes():
    for aspect in ("counts", "bias", "first"):
        checks.test(f"ex2-incremental-tests-{aspect}", FUNCTIONS["train_incremental"])
        checks.test(f"ex2-incremental-tests-{aspect}", make_incremental())


def test_incremental_without_bias_fails_only_the_bias_aspect(message):
    f = make_incremental("no_bias")
    checks.test("ex2-incremental-tests-counts", f)
    checks.test("ex2-incremental-tests-first", f)
    assert "your decision values ignore the bias" in message(checks.test, "ex2-incremental-tests-bias", f)


def test_incremental_only_current_keeps_the_first_epoch_aspect(message):
    f = make_incremental("only_current")
    checks.test("ex2-incremental-tests-first", f)
    for aspect in ("counts", "bias"):
        assert "updated only the decision value" in message(checks.test, f"ex2-incremental-tests-{aspect}", f)


def test_incremental_missing_value_error_and_mutation_are_named(message):
    msg = message(checks.test, "ex2-incremental-tests-counts", make_incremental(check=False))
    assert "should raise ValueError" in msg

    def in_place(K, y, max_epochs=10):
        out = make_incremental()(K, y, max_epochs)
        K += 1.0
        return out

    assert "changed the K or y passed in" in message(checks.test, "ex2-incremental-tests-first", in_place)


@pytest.mark.parametrize("gid,variant,expected", [
    ("ex2-incremental-tests-bias", "no_bias", "your decision values ignore the bias"),
    ("ex2-incremental-tests-counts", "only_current", "updated only the decision value"),
])
def test_incremental_cells_fail_common_mistakes_with_their_hint(cells, gid, variant, expected, message):
    assert expected in message(Cell.judge_here, cells[gid], _with(train_incremental=make_incremental(variant)))


# --------------------------------------------------------------------------- #
# Exercise 3: choose_storage
# --------------------------------------------------------------------------- #

def make_storage(mistake=None, message="no storage precision is safe"):
    def choose_storage(n, d, max_value, max_bytes):
        out = _plan(n, d, max_value, max_bytes, mistake=mistake)
        if out == "ValueError":
            raise ValueError(message)
        return out
    return choose_storage


def test_storage_solution_passes():
    for gid in STORAGE_CELLS:
        checks.test(gid, FUNCTIONS["choose_storage"])
        checks.test(gid, make_storage())


def test_storage_example_of_the_exercise():
    choose = FUNCTIONS["choose_storage"]
    assert choose(30_000, 784, 418.0, 8 * 2**30) == ("float64", 12420)
    assert choose(60_000, 784, 9.838e8, 8 * 2**30) == ("bfloat16", 12420)
    with pytest.raises(ValueError):
        choose(100_000, 784, 1.0, 8 * 2**30)


@pytest.mark.parametrize("mistake,failing", [
    ("elements", {"memory", "overflow", "tile"}), ("bits", {"memory", "overflow", "tile"}),
    ("lowest_first", {"memory", "tile"}), ("no_room", {"memory"}),
    ("no_overflow", {"overflow"}), ("strict", {"overflow"}), ("no_bfloat16", {"overflow"}),
    ("whole_budget", {"tile"}), ("no_slices", {"tile"}), ("one_slice", {"tile"}), ("tile_elements", {"tile"}),
    ("tile_itemsize", {"tile"}), ("no_cap", {"tile"}),
])
def test_storage_names_each_mistake_in_its_aspect_only(mistake, failing, message):
    wrong = make_storage(mistake)
    for aspect in ("memory", "overflow", "tile"):
        gid = f"ex3-storage-tests-{aspect}"
        if aspect in failing:
            msg = message(checks.test, gid, wrong)
            if mistake in checks.LESSON.check(gid)[1].mistakes:
                assert checks.STORAGE.mistakes[mistake] in msg, (aspect, msg)
            else:  # a wrong dtype in the tile cell, or "bits" refusing every overflow probe: the first wrong outcome
                assert not any(hint in msg for hint in checks.STORAGE.mistakes.values()), (aspect, msg)
        else:
            checks.test(gid, wrong)


def test_storage_a_mistake_matching_one_probe_only_is_not_named(message):
    """The whole list decides: "elements" gives other dtypes than the right ones on three probes; a plan
    right everywhere but on the first of them, where it gives what "elements" gives, is not told "elements"."""
    gid = "ex3-storage-tests-memory"
    data = checks.LESSON.data[gid]
    wrong = [i for i, (e, m) in enumerate(zip(data["expected"], data["mistaken"], strict=True))
             if not isinstance(e, dict) and m["elements"][0] != e[0]]
    assert len(wrong) > 1
    case = checks.PROBES["storage"]["memory"][wrong[0]]

    def once(*args):
        out = _plan(*args, mistake="elements" if args == case else None)
        if out == "ValueError":
            raise ValueError("no storage precision is safe")
        return out

    msg = message(checks.test, gid, once)
    assert checks.STORAGE.mistakes["elements"] not in msg and "not the most precise storage" in msg


def test_storage_wrong_kinds_of_answers(message):
    memory, overflow, tile = STORAGE_CELLS
    assert "its name as a string" in message(checks.test, memory, lambda n, d, v, b: (np.float64, 1))
    assert "whole number" in message(checks.test, tile, lambda n, d, v, b: ("float64", 1.5))
    assert "tuple (dtype, tile)" in message(checks.test, memory, lambda n, d, v, b: "float64")
    msg = message(checks.test, memory, make_storage(message=""))
    assert "with a message that says why" in msg

    def never_refuses(n, d, max_value, max_bytes):
        out = _plan(n, d, max_value, max_bytes)
        return ("float64", 1) if out == "ValueError" else out

    never = message(checks.test, overflow, never_refuses)
    assert "should raise ValueError when no precision is safe" in never


def test_storage_messages_hide_the_expected_tiles(message):
    for mistake in ("whole_budget", "no_cap", "one_slice"):
        msg = message(checks.test, "ex3-storage-tests-tile", make_storage(mistake))
        assert "12420" not in msg and "1836" not in msg and "3436" not in msg


@pytest.mark.parametrize("gid,mistake", [
    ("ex3-storage-tests-memory", "elements"), ("ex3-storage-tests-overflow", "no_overflow"),
    ("ex3-storage-tests-tile", "whole_budget"),
])
def test_storage_cells_fail_common_mistakes_with_their_hint(cells, gid, mistake, message):
    msg = message(Cell.judge_here, cells[gid], _with(choose_storage=make_storage(mistake)))
    assert checks.STORAGE.mistakes[mistake] in msg


def test_storage_hidden_cases_catch_what_the_visible_ones_miss(cells, message):
    """A plan that only knows the visible probes passes them but not the hidden cases, which it never sees."""
    known = {c: _plan(*c) for cs in checks.PROBES["storage"].values() for c in cs}

    def memorised(n, d, max_value, max_bytes):
        out = known.get((n, d, max_value, max_bytes), ("float64", 1))
        if out == "ValueError":
            raise ValueError("refused")
        return out

    for gid in STORAGE_CELLS:
        checks.test(gid, memorised)
        msg = message(Cell.judge_here, cells[gid], _with(choose_storage=memorised))
        assert "new storage cases" in msg and "n=" not in msg and "max_bytes=" not in msg


# --------------------------------------------------------------------------- #
# Every cell of the grader
# --------------------------------------------------------------------------- #

def test_every_exercise_forbids_the_references(cells):
    for gid, cell in cells.items():
        forbidden = cell.forbidden or GRADER.FORBIDDEN
        assert {"kpcourse", "sklearn", "scipy"} <= set(forbidden), gid
        if gid.startswith("ex1-"):
            assert "torch" in forbidden  # tracemalloc cannot see torch's memory
