"""Lesson 01 checks: each diagnosis passes the model solution and names each common mistake.

The right functions are the model solutions of assignment 01-similarity; each wrong one
makes a single common mistake. Messages must name the mistake and never contain the
expected values.
"""

import numpy as np
import pytest

from kpcourse import checks, kernels


def _message(func, *args, **kwargs):
    with pytest.raises(AssertionError) as info:
        func(*args, **kwargs)
    return str(info.value)


# --------------------------------------------------------------------------- #
# Model solutions and their common mistakes
# --------------------------------------------------------------------------- #

def _rows(A, B):
    A, B = np.asarray(A, dtype=float), np.asarray(B, dtype=float)
    if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[1]:
        raise ValueError("A and B must be 2-D with the same number of columns")
    return A, B


def _unit(X, axis=1):
    n = np.linalg.norm(X, axis=axis, keepdims=True)
    return X / np.where(n == 0, 1.0, n)


def cosine_similarity(A, B):
    A, B = _rows(A, B)
    return _unit(A) @ _unit(B).T


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


def cosine_reference(A, B):
    return kernels.cosine(A, B)


def _words(a):
    if isinstance(a, str):
        raise TypeError("a collection of words, not a string")
    return set(a)


def shared_word_count(a, b):
    return len(_words(a) & _words(b))


def shared_multiset(a, b):
    sb = _words(b)
    _words(a)
    return sum(1 for w in a if w in sb)


def shared_union(a, b):
    return len(_words(a) | _words(b))


def shared_reference(a, b):
    _words(a), _words(b)
    return int(kernels.shared_words([list(a)], [list(b)])[0, 0])


def shared_float(a, b):
    return float(len(_words(a) & _words(b)))


def normalised(a, b):
    sa, sb = _words(a), _words(b)
    if not sa or not sb:
        return 0.0
    return len(sa & sb) / np.sqrt(len(sa) * len(sb))


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


def nearest_neighbour_predict(K_test_train, y_train):
    K, y = np.asarray(K_test_train), np.asarray(y_train)
    if K.ndim != 2 or K.shape[1] != len(y):
        raise ValueError("K_test_train must be (n_test, n_train)")
    return y[np.argmax(K, axis=1)]


def nn_argmin(K_test_train, y_train):
    K, y = np.asarray(K_test_train), np.asarray(y_train)
    if K.ndim != 2 or K.shape[1] != len(y):
        raise ValueError("K_test_train must be (n_test, n_train)")
    return y[np.argmin(K, axis=1)]


def nn_indices(K_test_train, y_train):
    K = np.asarray(K_test_train)
    if K.ndim != 2 or K.shape[1] != len(y_train):
        raise ValueError("K_test_train must be (n_test, n_train)")
    return np.argmax(K, axis=1)


def nn_axis0(K_test_train, y_train):
    K, y = np.asarray(K_test_train), np.asarray(y_train)
    return y[np.argmax(K, axis=0)]


def nn_last_tie(K_test_train, y_train):
    K, y = np.asarray(K_test_train), np.asarray(y_train)
    if K.ndim != 2 or K.shape[1] != len(y):
        raise ValueError("K_test_train must be (n_test, n_train)")
    return y[K.shape[1] - 1 - np.argmax(K[:, ::-1], axis=1)]


# --------------------------------------------------------------------------- #
# cosine
# --------------------------------------------------------------------------- #

@pytest.mark.parametrize("aspect", ["values", "interface", "all"])
def test_cosine_right_passes(aspect):
    checks.diagnose_cosine(cosine_similarity, aspect)


@pytest.mark.parametrize("func,words", [
    (cosine_one_side, "only the rows of A are normalised"),
    (cosine_wrong_axis, "wrong axis"),
])
def test_cosine_mistakes_are_named_in_values_only(func, words):
    assert words in _message(checks.diagnose_cosine, func, "values")
    checks.diagnose_cosine(func, "interface")


def test_cosine_transposed_named():
    assert "shape (2, 4)" in _message(checks.diagnose_cosine, cosine_transposed, "values")


def test_cosine_without_care_fails_interface():
    with np.errstate(invalid="ignore"):
        msg = _message(checks.diagnose_cosine, cosine_no_checks, "interface")
    assert "row of zeros" in msg and "uint8" in msg


def test_cosine_reference_call_gets_no_credit():
    for aspect in ("values", "interface"):
        msg = _message(checks.diagnose_cosine, cosine_reference, aspect)
        assert "calling kpcourse.kernels.cosine gets no credit" in msg


def test_reference_imported_by_name_is_caught():
    ns = {}
    exec("from kpcourse.kernels import cosine as cos\n"
         "def cosine_similarity(A, B):\n    return cos(A, B)\n", ns)
    msg = _message(checks.diagnose_cosine, ns["cosine_similarity"], "values")
    assert "gets no credit" in msg
    assert ns["cos"] is kernels.cosine  # nothing left patched


def test_sklearn_imported_name_is_named_and_helpers_allowed():
    ns = {}
    exec("from sklearn.metrics.pairwise import cosine_similarity as sk\n"
         "def cosine_similarity(A, B):\n    return sk(A, B)\n", ns)
    msg = _message(checks.diagnose_cosine, ns["cosine_similarity"], "values")
    assert "calling sklearn.metrics.pairwise.cosine_similarity gets no credit" in msg
    # scikit-learn's normalize shares the decorator of its forbidden functions: still allowed
    from sklearn.preprocessing import normalize

    def with_normalize(A, B):
        A, B = _rows(A, B)
        return normalize(A) @ normalize(B).T

    checks.diagnose_cosine(with_normalize, "values")


def test_guarded_restores_everything():
    import sys

    before = sys.getprofile(), kernels.cosine
    with pytest.raises(AssertionError):
        checks.guarded(cosine_reference, "cosine")(np.ones((2, 2)), np.ones((1, 2)))
    assert (sys.getprofile(), kernels.cosine) == before
    assert "not written yet" in _message(checks.guarded(_not_implemented, "nn"), np.ones((1, 1)), [1])


def _not_implemented(K, y):
    raise NotImplementedError()


def test_check_against_reference():
    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(6, 5)), rng.normal(size=(3, 5))
    checks.check_against_reference(cosine_similarity, kernels.cosine, A, B, name="cos", kind="cosine")
    msg = _message(checks.check_against_reference, cosine_one_side, kernels.cosine, A, B, name="cos",
                   kind="cosine")
    assert "cos is not correct" in msg
    assert "gets no credit" in _message(checks.check_against_reference, cosine_reference, kernels.cosine,
                                        A, B, name="cos", kind="cosine")


# --------------------------------------------------------------------------- #
# shared words
# --------------------------------------------------------------------------- #

@pytest.mark.parametrize("aspect", ["count", "input", "all"])
def test_shared_right_passes(aspect):
    checks.diagnose_shared_words(shared_word_count, aspect)


def test_shared_multiset_named_in_count_only():
    assert "repeated words are counted" in _message(checks.diagnose_shared_words, shared_multiset, "count")
    checks.diagnose_shared_words(shared_multiset, "input")


def test_shared_union_named():
    assert "union" in _message(checks.diagnose_shared_words, shared_union, "count")


def test_shared_input_problems():
    assert "integer" in _message(checks.diagnose_shared_words, shared_float, "input")
    msg = _message(checks.diagnose_shared_words, lambda a, b: len(set(a) & set(b)), "input")
    assert "should raise TypeError" in msg and "letters" in msg


def test_shared_reference_call_gets_no_credit():
    assert "calling kpcourse.kernels.shared_words gets no credit" in _message(
        checks.diagnose_shared_words, shared_reference, "count")


@pytest.mark.parametrize("aspect", ["values", "edge", "all"])
def test_normalised_right_passes(aspect):
    checks.diagnose_normalised_shared_words(normalised, aspect)


@pytest.mark.parametrize("func,words", [(normalised_jaccard, "Jaccard"), (normalised_len, "distinct")])
def test_normalised_mistakes_named(func, words):
    assert words in _message(checks.diagnose_normalised_shared_words, func, "values")
    checks.diagnose_normalised_shared_words(func, "edge")


def test_normalised_zero_division_fails_edge_only():
    checks.diagnose_normalised_shared_words(normalised_zero_division, "values")
    assert "ZeroDivisionError" in _message(checks.diagnose_normalised_shared_words, normalised_zero_division,
                                           "edge")


# --------------------------------------------------------------------------- #
# nearest neighbour
# --------------------------------------------------------------------------- #

@pytest.mark.parametrize("aspect", ["values", "interface", "all"])
def test_nn_right_passes(aspect):
    checks.diagnose_nearest_neighbour(nearest_neighbour_predict, aspect)


@pytest.mark.parametrize("func,words", [(nn_argmin, "argmin"), (nn_last_tie, "tie")])
def test_nn_mistakes_named_in_values_only(func, words):
    assert words in _message(checks.diagnose_nearest_neighbour, func, "values")
    checks.diagnose_nearest_neighbour(func, "interface")


def test_nn_indices_and_axis():
    assert "index" in _message(checks.diagnose_nearest_neighbour, nn_indices, "values")
    assert "labels taken from y_train" in _message(checks.diagnose_nearest_neighbour, nn_indices, "interface")
    assert "axis=1" in _message(checks.diagnose_nearest_neighbour, nn_axis0, "values")


# --------------------------------------------------------------------------- #
# Messages never give the answer
# --------------------------------------------------------------------------- #

def test_messages_do_not_show_expected_values():
    right_cos = np.round(checks._unit01(checks._C_A) @ checks._unit01(checks._C_B).T, 4)
    msg = _message(checks.diagnose_cosine, lambda A, B: np.asarray(A, float) @ np.asarray(B, float).T + 0.5,
                   "values")
    for v in right_cos.ravel():
        if abs(v) > 1e-9:
            assert f"{v:.4f}" not in msg
    msg = _message(checks.diagnose_normalised_shared_words, lambda a, b: 0.123, "values")
    assert "0.5774" not in msg and "0.577" not in msg
    # 1-NN: the expected labels 2, 7, 4 never appear as an answer
    msg = _message(checks.diagnose_nearest_neighbour, lambda K, y: np.array([9, 9, 9]), "values")
    assert "[2, 7, 4]" not in msg and "2., 7., 4." not in msg
