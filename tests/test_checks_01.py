"""Lesson 01's checks on hand-written mistakes (tests/test_exercises.py iterates the declared ones).

The right functions are the source notebook's own solutions (its solution cells, executed
here); each wrong one makes a single common mistake. Messages must name the mistake and
never contain the expected values. The checks hold data (``kpcourse/checks/data/lesson01.json``):
it must equal what the grader's references compute, and the grader's cells must pass the
solution and fail the mistakes, on answers carried as JSON as at grading time.
"""

from pathlib import Path

import nbformat
import numpy as np
import pytest

from kpcourse.checks import lesson01 as checks
from kpcourse.grading.spec import Cell
from kpcourse.grading.trusted import load_grader

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "source" / "01-similarity"
GRADER = load_grader(SOURCE / "grader.py")


def _solutions():
    """The functions defined by the source notebook's solution cells."""
    nb = nbformat.read(SOURCE / "01-similarity.ipynb", as_version=4)
    ns = {"np": np}
    for c in nb.cells:
        if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution"):
            exec(compile(c.source, "<solution>", "exec"), ns)  # noqa: S102 - the instructor's own code
    return {n: ns[n] for n in ("cosine_similarity", "shared_word_count", "normalised_shared_word_count",
                               "nearest_neighbour_predict")}


SOLUTION = _solutions()
cosine_similarity = SOLUTION["cosine_similarity"]
shared_word_count = SOLUTION["shared_word_count"]
normalised = SOLUTION["normalised_shared_word_count"]
nearest_neighbour_predict = SOLUTION["nearest_neighbour_predict"]


CELLS = {"cosine": "ex1-cosine-tests-", "shared": "ex2-shared-tests-", "normalised": "ex3-normalised-tests-",
         "nn": "ex4-nn-tests-"}
ALL = {"cosine": ("values", "interface"), "shared": ("count", "input"), "normalised": ("values", "edge"),
       "nn": ("values", "interface")}


def diagnose(exercise, func, aspect="all"):
    """The visible tests of one aspect (a test cell) of an exercise, or of all its cells."""
    __tracebackhide__ = True
    for a in ALL[exercise] if aspect == "all" else (aspect,):
        checks.test(CELLS[exercise] + a, func)


# --------------------------------------------------------------------------- #
# Common mistakes
# --------------------------------------------------------------------------- #

def _rows(A, B):
    A, B = np.asarray(A, dtype=float), np.asarray(B, dtype=float)
    if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[1]:
        raise ValueError("A and B must be 2-D with the same number of columns")
    return A, B


def _unit(X, axis=1):
    n = np.linalg.norm(X, axis=axis, keepdims=True)
    return X / np.where(n == 0, 1.0, n)


def cosine_one_side(A, B):
    A, B = _rows(A, B)
    return _unit(A) @ B.T


def cosine_wrong_axis(A, B):
    A, B = _rows(A, B)
    return _unit(A, axis=0) @ _unit(B, axis=0).T


def cosine_transposed(A, B):
    A, B = _rows(A, B)
    return _unit(B) @ _unit(A).T


def cosine_no_checks(A, B):
    A, B = np.asarray(A), np.asarray(B)
    return (A @ B.T) / np.outer(np.linalg.norm(A, axis=1), np.linalg.norm(B, axis=1))


def cosine_loop(A, B):
    A, B = _rows(A, B)
    return np.array([[a @ b / (np.linalg.norm(a) * np.linalg.norm(b) or 1.0) for b in B] for a in A])


def _words(a):
    if isinstance(a, str):
        raise TypeError("a collection of words, not a string")
    return set(a)


def shared_multiset(a, b):
    sb = _words(b)
    _words(a)
    return sum(1 for w in a if w in sb)


def shared_union(a, b):
    return len(_words(a) | _words(b))


def shared_float(a, b):
    return float(len(_words(a) & _words(b)))


def normalised_jaccard(a, b):
    sa, sb = _words(a), _words(b)
    return len(sa & sb) / len(sa | sb) if sa | sb else 0.0


def normalised_len(a, b):
    sa, sb = _words(a), _words(b)
    if not sa or not sb:
        return 0.0
    return len(sa & sb) / np.sqrt(len(a) * len(b))


def normalised_zero_division(a, b):
    sa, sb = _words(a), _words(b)
    return len(sa & sb) / (len(sa) * len(sb)) ** 0.5


def _nn_checked(K_test_train, y_train):
    K, y = np.asarray(K_test_train), np.asarray(y_train)
    if K.ndim != 2 or K.shape[1] != len(y):
        raise ValueError("K_test_train must be (n_test, n_train)")
    return K, y


def nn_argmin(K_test_train, y_train):
    K, y = _nn_checked(K_test_train, y_train)
    return y[np.argmin(K, axis=1)]


def nn_indices(K_test_train, y_train):
    K, _ = _nn_checked(K_test_train, y_train)
    return np.argmax(K, axis=1)


def nn_axis0(K_test_train, y_train):
    K, y = np.asarray(K_test_train), np.asarray(y_train)
    return y[np.argmax(K, axis=0)]


def nn_last_tie(K_test_train, y_train):
    K, y = _nn_checked(K_test_train, y_train)
    return y[K.shape[1] - 1 - np.argmax(K[:, ::-1], axis=1)]


def _not_implemented(*args):
    raise NotImplementedError()


# --------------------------------------------------------------------------- #
# (a) data = the grader's references (no algorithm in the lesson module: tests/test_lessons.py)
# --------------------------------------------------------------------------- #

def test_grader_references_agree_with_the_package():
    from kpcourse import kernels

    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(6, 4)), rng.normal(size=(3, 4))
    A[2] = 0
    np.testing.assert_allclose(GRADER.cosine_similarity(A, B), kernels.cosine(A, B), atol=1e-12)
    a, b = ["whale", "whale", "ship"], ["ship", "sea", "whale", "ahab"]
    assert GRADER.shared_word_count(a, b) == kernels.shared_words([a], [b])[0, 0] == 2
    assert GRADER.normalised_shared_word_count(a, b) == pytest.approx(2 / np.sqrt(2 * 4))


# --------------------------------------------------------------------------- #
# (c) the grader's cells: pass the solution, fail each mistake, on answers as data
# --------------------------------------------------------------------------- #

def test_two_cells_per_exercise():
    """Each exercise's values and its interface are graded apart (the solution passes every cell:
    tests/test_lessons.py)."""
    assert set(GRADER.cells()) == {"ex1-cosine-tests-values", "ex1-cosine-tests-interface", "ex2-shared-tests-count",
                                   "ex2-shared-tests-input", "ex3-normalised-tests-values",
                                   "ex3-normalised-tests-edge", "ex4-nn-tests-values", "ex4-nn-tests-interface"}


@pytest.mark.parametrize("gid,fname,wrong,expected", [
    ("ex1-cosine-tests-values", "cosine_similarity", cosine_one_side, "only the rows of A are normalised"),
    ("ex1-cosine-tests-values", "cosine_similarity", cosine_wrong_axis, "wrong axis"),
    ("ex1-cosine-tests-interface", "cosine_similarity", cosine_no_checks, "row of zeros"),
    ("ex2-shared-tests-count", "shared_word_count", shared_multiset, "repeated words are counted"),
    ("ex2-shared-tests-input", "shared_word_count", shared_float, "integer"),
    ("ex3-normalised-tests-values", "normalised_shared_word_count", normalised_jaccard, "Jaccard"),
    ("ex3-normalised-tests-edge", "normalised_shared_word_count", normalised_zero_division, "not a division error"),
    ("ex4-nn-tests-values", "nearest_neighbour_predict", nn_argmin, "argmin"),
    ("ex4-nn-tests-interface", "nearest_neighbour_predict", nn_indices, "labels taken from y_train"),
])
def test_cells_fail_common_mistakes_with_their_hint(gid, fname, wrong, expected, message):
    functions = {**SOLUTION, fname: wrong}
    with np.errstate(invalid="ignore", divide="ignore"):
        assert expected in message(Cell.judge_here, GRADER.cells()[gid], functions)


@pytest.mark.parametrize("gid", ["ex1-cosine-tests-interface", "ex2-shared-tests-input",
                                 "ex3-normalised-tests-edge", "ex4-nn-tests-interface"])
def test_hidden_raise_tests(gid, message):
    """Each interface cell's hidden test expects an error on inputs the visible ones do not use."""
    from kpcourse.checks._core import Answer

    hidden = GRADER.cells()[gid].tests[-1]
    answers = hidden.answers(SOLUTION)
    hidden.judge(answers)
    raising = [i for i, p in enumerate(hidden.probes) if p.raises]
    assert raising, gid
    for i in raising:  # as if the call had returned normally
        answers[i] = Answer(answers[i].call, value=0)
    assert "should raise" in message(hidden.judge, answers)


def test_hidden_cosine_and_nn_compare_with_the_references(message):
    functions = {**SOLUTION, "cosine_similarity": cosine_one_side}
    visible_cell = GRADER.cells()["ex1-cosine-tests-values"]
    hidden = visible_cell.tests[-1]
    answers = hidden.answers(functions)
    msg = message(hidden.judge, answers)
    assert "on hidden data" in msg and "only the rows of A" in msg
    hidden = GRADER.cells()["ex4-nn-tests-values"].tests[-1]
    msg = message(hidden.judge, hidden.answers({**SOLUTION, "nearest_neighbour_predict": nn_last_tie}))
    assert "on a tie" in msg


def test_the_values_cell_asks_for_no_loop(message):
    assert GRADER.cells()["ex1-cosine-tests-values"].loop_free == ("cosine_similarity",)
    # values right
    Cell.judge_here(GRADER.cells()["ex1-cosine-tests-values"], {**SOLUTION, "cosine_similarity": cosine_loop})
    assert "uses a Python loop" in message(diagnose, "cosine", cosine_loop, "values")
    diagnose("cosine", cosine_loop, "interface")


def test_cells_say_not_written_yet(message):
    for gid, cell in GRADER.cells().items():
        functions = dict.fromkeys(SOLUTION, _not_implemented)
        assert "not written yet" in message(Cell.judge_here, cell, functions), gid


# --------------------------------------------------------------------------- #
# (b) diagnoses: cosine
# --------------------------------------------------------------------------- #

@pytest.mark.parametrize("aspect", ["values", "interface", "all"])
def test_cosine_right_passes(aspect):
    diagnose("cosine", cosine_similarity, aspect)


@pytest.mark.parametrize("func,words", [
    (cosine_one_side, "only the rows of A are normalised"),
    (cosine_wrong_axis, "wrong axis"),
    (lambda A, B: _rows(A, B)[0] @ _unit(_rows(A, B)[1]).T, "only the rows of B are normalised"),
    (lambda A, B: _rows(A, B)[0] @ _rows(A, B)[1].T, "no normalisation"),
])
def test_cosine_mistakes_are_named_in_values_only(func, words, message):
    assert words in message(diagnose, "cosine", func, "values")
    diagnose("cosine", func, "interface")


def test_cosine_distance_named(message):
    msg = message(diagnose, "cosine", lambda A, B: 1.0 - cosine_similarity(A, B), "values")
    assert "cosine distance" in msg


def test_cosine_transposed_named(message):
    assert "not B @ A.T" in message(diagnose, "cosine", cosine_transposed, "values")


def test_cosine_without_care_fails_interface(message):
    with np.errstate(invalid="ignore", divide="ignore"):
        msg = message(diagnose, "cosine", cosine_no_checks, "interface")
    assert "row of zeros" in msg and "should raise ValueError" in msg
    def overflows(A, B):
        return cosine_no_checks(A, B) if np.asarray(A).any(axis=1).all() else cosine_similarity(A, B)

    assert "uint8" in message(diagnose, "cosine", overflows, "interface")


def test_cosine_lists_and_odd_answers(message):
    msg = message(diagnose, "cosine", lambda A, B: cosine_similarity(A, B).tolist(), "interface")
    assert "should return an ndarray of shape (2, 1), got list" in msg
    assert "should be numbers" in message(diagnose, "cosine", lambda A, B: np.full((4, 2), "x"), "values")
    assert "not written yet" in message(diagnose, "cosine", _not_implemented, "interface")


# --------------------------------------------------------------------------- #
# (b) diagnoses: shared words, normalised
# --------------------------------------------------------------------------- #

@pytest.mark.parametrize("aspect", ["count", "input", "all"])
def test_shared_right_passes(aspect):
    diagnose("shared", shared_word_count, aspect)


def test_shared_multiset_named_in_count_only(message):
    assert "repeated words are counted" in message(diagnose, "shared", shared_multiset, "count")
    diagnose("shared", shared_multiset, "input")


def test_shared_union_named(message):
    assert "union" in message(diagnose, "shared", shared_union, "count")


def test_shared_input_problems(message):
    assert "integer" in message(diagnose, "shared", shared_float, "input")
    msg = message(diagnose, "shared", lambda a, b: len(set(a) & set(b)), "input")
    assert "should raise TypeError" in msg and "letters" in msg


@pytest.mark.parametrize("aspect", ["values", "edge", "all"])
def test_normalised_right_passes(aspect):
    diagnose("normalised", normalised, aspect)


@pytest.mark.parametrize("func,words", [
    (normalised_jaccard, "Jaccard"), (normalised_len, "distinct"),
    (lambda a, b: shared_word_count(a, b) / (len(set(a)) * len(set(b))), "square root is missing"),
    (lambda a, b: 2 * shared_word_count(a, b) / (len(set(a)) + len(set(b))), "Dice"),
    (lambda a, b: float(shared_word_count(a, b)), "not normalised"),
])
def test_normalised_mistakes_named(func, words, message):
    assert words in message(diagnose, "normalised", func, "values")


def test_normalised_zero_division_fails_edge_only(message):
    diagnose("normalised", normalised_zero_division, "values")
    assert "not a division error" in message(diagnose, "normalised", normalised_zero_division,
                                           "edge")


def test_normalised_edge_other_problems(message):
    msg = message(diagnose, "normalised",
                   lambda a, b: normalised(a, b) if len(a) <= len(b) else 0.5, "edge")
    assert "symmetric" in msg
    msg = message(diagnose, "normalised", lambda a, b: len(set(a) & set(b)) // 1, "edge")
    assert "should be a float" in msg


# --------------------------------------------------------------------------- #
# (b) diagnoses: nearest neighbour
# --------------------------------------------------------------------------- #

@pytest.mark.parametrize("aspect", ["values", "interface", "all"])
def test_nn_right_passes(aspect):
    diagnose("nn", nearest_neighbour_predict, aspect)


@pytest.mark.parametrize("func,words", [(nn_argmin, "argmin"), (nn_last_tie, "tie")])
def test_nn_mistakes_named_in_values_only(func, words, message):
    assert words in message(diagnose, "nn", func, "values")
    diagnose("nn", func, "interface")


def test_nn_indices_and_axis(message):
    assert "index" in message(diagnose, "nn", nn_indices, "values")
    assert "labels taken from y_train" in message(diagnose, "nn", nn_indices, "interface")
    assert "axis=1" in message(diagnose, "nn", nn_axis0, "values")


# --------------------------------------------------------------------------- #
# Messages never give the answer
# --------------------------------------------------------------------------- #

def test_messages_do_not_show_expected_values(message):
    right_cos = np.round(GRADER.visible_data()["ex1-cosine-tests-values"]["expected"][0], 4)
    msg = message(diagnose, "cosine", lambda A, B: np.asarray(A, float) @ np.asarray(B, float).T + 0.5,
                   "values")
    for v in right_cos.ravel():
        if abs(v) > 1e-9:
            assert f"{v:.4f}" not in msg
    msg = message(diagnose, "normalised", lambda a, b: 0.123, "values")
    assert "0.5774" not in msg and "0.577" not in msg
    # 1-NN: the expected labels 2, 7, 4 never appear as an answer
    msg = message(diagnose, "nn", lambda K, y: np.array([9, 9, 9]), "values")
    assert "[2, 7, 4]" not in msg and "2., 7., 4." not in msg
