"""Checks of assignment 01 (similarity and exemplars): cosine, shared words, 1-NN.

Each ``diagnose_*`` runs fixed probes on the student's function and names the likely
mistake; ``*_tests(aspect)`` returns the same probes as :class:`~._core.Test` objects,
which the grader replays on the student's answers. The expected outputs and the
outputs of common mistakes are data (``data/lesson01.json``, written from the
grader's references); no cosine formula, word count or nearest-neighbour rule lives
here.
"""

from __future__ import annotations

import functools

import numpy as np

from kpcourse.checks._core import (
    Call,
    Opaque,
    Test,
    check_close,
    check_loop_free,
    check_shape,
    expect_raises,
    fail,
    fmt,
    load_data,
    problem,
    run,
    same,
)

__all__ = ["diagnose_cosine", "diagnose_shared_words", "diagnose_normalised_shared_words",
           "diagnose_nearest_neighbour", "cosine_tests", "shared_words_tests", "normalised_tests",
           "nearest_neighbour_tests"]

#: Seconds for each call of a student's function (the probes are tiny).
TIME_LIMIT = 5.0

#: The probes (inputs only).
PROBES = {
    # n = 4, m = 2, d = 3 (all different, so that a wrong axis or a transpose shows), rows of
    # different lengths (so that a missing normalisation shows)
    "cosine_A": np.array([[3.0, 4.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 2.0], [-1.0, 2.0, 2.0]]),
    "cosine_B": np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 5.0]]),
    "cosine_zero": np.array([[0.0, 0.0, 0.0], [1.0, 2.0, 2.0]]),
    # uint8 pixels: 200·200 does not fit in a uint8
    "cosine_pixels": np.array([[200, 100, 0, 30], [255, 255, 255, 0]], dtype=np.uint8),
    "cosine_other": np.array([[180, 90, 10, 0], [0, 0, 255, 255], [255, 255, 255, 255]], dtype=np.uint8),
    "cosine_lists": ([[3, 4], [0, 1]], [[1, 0]]),
    # shared words: a has 4 distinct words ("whale" twice), b 3 ("whale" three times)
    "words_a": ["whale", "whale", "ship", "ocean", "harpoon"],
    "words_b": ["whale", "whale", "whale", "ship", "sea"],
    "words_b2": ["whale", "whale", "ship", "sea"],  # for the normalised kernel: len 4, 3 distinct
    # 1-NN: 3 test x 4 training examples, one clear maximum per row; labels all different
    "nn_K": np.array([[0.1, 0.9, 0.3, 0.2], [0.8, 0.1, 0.5, 0.7], [0.2, 0.3, 0.4, 0.6]]),
    "nn_y": np.array([7, 2, 9, 4]),
    "nn_K_tie": np.array([[0.5, 0.9, 0.9, 0.1], [0.3, 0.3, 0.2, 0.3]]),  # the first of the maxima wins
    "nn_books": ["moby_dick", "pride_and_prejudice", "moby_dick"],
}

@functools.cache
def _data():
    return load_data("lesson01")


def _stop_if_not_run(answers):
    """Say "not written yet" (or timed out, not defined) once, before judging anything."""
    __tracebackhide__ = True
    for a in answers:
        if a.error in ("NotImplementedError", "TimeUp", "NoAnswer") or (a.error, a.message) == ("NameError",
                                                                                                 "missing"):
            a.get()


def _shape(value):
    """The shape of an answer, or ``"?"`` when it has none that numpy can tell."""
    if isinstance(value, Opaque):
        return "?"
    try:
        return np.shape(value)
    except ValueError:
        return "?"


def _floats(value):
    """``value`` as a float array, or ``None`` when it is not numbers."""
    if isinstance(value, (str, bytes, Opaque)) or value is None:
        return None
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None


def _number(value):
    """``value`` as a float when it is one number, else ``None``."""
    arr = _floats(value)
    return float(arr) if arr is not None and arr.ndim == 0 else None


def _type(value):
    return value.type_name if isinstance(value, Opaque) else type(value).__name__


# ------------------------------------------------------------------ cosine
#: Common mistakes of the cosine similarity, most specific first (their outputs are data).
_COSINE_HINTS = {
    "rows_a_only": "only the rows of A are normalised: divide the rows of B by their lengths too",
    "rows_b_only": "only the rows of B are normalised: divide the rows of A by their lengths too",
    "not_normalised": "no normalisation: A @ B.T is the dot product (linear kernel); divide each row of A "
                      "and of B by its length first",
    "wrong_axis": "you normalised by the wrong axis: np.linalg.norm(A, axis=0) gives the length of each "
                  "column; each row (sample) must be divided by its own length (axis=1)",
    "squared": "you divided by the squared lengths: the cosine divides x·z by |x| |z|, not |x|² |z|²",
    "distance": "you returned 1 - cosine (the cosine distance); return the similarity itself",
}


def cosine_tests(aspect="all"):
    """Tests of ``cosine_similarity(A, B)``: ``"values"``, ``"interface"``."""
    P, tests = PROBES, []
    if aspect in ("all", "values"):
        tests.append(Test([Call("cosine_similarity", P["cosine_A"], P["cosine_B"])], _judge_cosine_values,
                          time_limit=TIME_LIMIT))
    if aspect in ("all", "interface"):
        calls = [Call("cosine_similarity", np.ones((2, 3)), np.ones((2, 4))),
                 Call("cosine_similarity", np.ones(3), np.ones((2, 3))),
                 Call("cosine_similarity", P["cosine_zero"], P["cosine_B"]),
                 Call("cosine_similarity", P["cosine_pixels"], P["cosine_other"]),
                 Call("cosine_similarity", P["cosine_pixels"].astype(float), P["cosine_other"].astype(float)),
                 Call("cosine_similarity", *P["cosine_lists"])]
        tests.append(Test(calls, _judge_cosine_interface, time_limit=TIME_LIMIT))
    return tests


def _judge_cosine_values(answers):
    __tracebackhide__ = True
    P, d, problems = PROBES, _data()["cosine"], []
    got = answers[0].get()
    if _shape(got) == (2, 4):
        problems.append("cosine_similarity(A, B) for A of shape (4, 3) and B of shape (2, 3) returned "
                        "shape (2, 4): row i, column j must hold the similarity of A[i] and B[j], "
                        "shape (n, m) = (4, 2) (A @ B.T, not B @ A.T)")
    else:
        check_shape(got, (4, 2), "cosine_similarity(A, B) for A of shape (4, 3) and B of shape (2, 3)")
        arr = _floats(got)
        if arr is None:
            raise AssertionError(f"cosine_similarity should return numbers, got {_type(got)}: {fmt(got)}")
        if not same(arr, d["values"], rtol=1e-5, atol=1e-8):
            named = [h for k, h in _COSINE_HINTS.items() if same(arr, d["mistakes"][k], rtol=1e-5, atol=1e-8)]
            if named:
                problems.append(named[0])
            elif not np.all(np.isfinite(arr)):
                problems.append(f"your result contains NaN or infinite values: {fmt(arr)}")
            elif np.any(np.abs(arr) > 1 + 1e-9):
                problems.append(f"a cosine lies between -1 and 1; you returned {fmt(arr)}: are both "
                                "sides divided by their row lengths?")
            else:
                problems.append(problem(check_close, arr, d["values"], f"cosine_similarity(A={fmt(P['cosine_A'])}, "
                                        f"B={fmt(P['cosine_B'])})", hint="each entry is A[i]·B[j] / (|A[i]| |B[j]|)"))
    fail("cosine_similarity", problems)


def _judge_cosine_interface(answers):
    __tracebackhide__ = True
    d, problems = _data()["cosine"], []
    _stop_if_not_run(answers)
    for a, why in zip(answers[:2], ("A has 3 columns but B has 4",
                                    "A is 1-D (shape (3,)), not a 2-D array of rows"), strict=True):
        problems.append(problem(expect_raises, a, "ValueError", why))
    zero = _floats(answers[2].get())
    if zero is not None and zero.shape == (2, 2) and not (np.all(np.isfinite(zero[0]))
                                                         and np.allclose(zero[0], 0.0)):
        problems.append(f"a row of zeros has no direction: its similarity with every row is 0 by "
                        f"convention (you returned {fmt(zero[0])}); divide by 1 instead of by a zero length")
    pixels = _floats(answers[3].get())
    right = d["pixels"]
    if pixels is not None and pixels.shape == right.shape and not np.allclose(pixels, right):
        as_float = _floats(answers[4].value) if answers[4].error is None else None
        if as_float is not None and as_float.shape == right.shape and np.allclose(as_float, right):
            problems.append("on uint8 images (MNIST's pixel type) your result differs from the one on the "
                            "same values as floats: products of uint8 numbers wrap around at 256 (200·200 "
                            "does not fit); convert A and B to float first")
    got = answers[5].get()
    if not isinstance(got, np.ndarray) or got.shape != (2, 1):
        problems.append(f"for lists A=[[3, 4], [0, 1]] and B=[[1, 0]] cosine_similarity should return an "
                        f"ndarray of shape (2, 1), got {_type(got)} of shape {_shape(got)}")
    fail("cosine_similarity", problems)


def diagnose_cosine(cosine_similarity, aspect="all"):
    """Probe ``cosine_similarity(A, B) -> (n, m)`` and name the mistake.

    Aspects: ``"values"`` (shape (n, m) and values on rows of different lengths, n, m
    and d all different; no Python loop) and ``"interface"`` (``ValueError`` for a
    column mismatch or an input that is not 2-D; a row of zeros gives 0; uint8 pixels
    such as MNIST's do not overflow; lists are accepted).

    Raises
    ------
    AssertionError
        Listing every problem found, e.g. "only the rows of A are normalised" or "you
        normalised by the wrong axis".

    Lesson 01 (similarity).
    """
    __tracebackhide__ = True
    run(cosine_tests(aspect), cosine_similarity=cosine_similarity)
    if aspect in ("all", "values"):
        check_loop_free(cosine_similarity, "cosine_similarity")


# ------------------------------------------------------------ shared words
_REPEATED = ("repeated words are counted: a word that occurs several times in a sentence counts once "
             "(compare sets of distinct words)")
#: Common mistakes of the shared-word count (their outputs are data).
_SHARED_HINTS = {
    "repeated_in_a": _REPEATED, "repeated_in_b": _REPEATED, "repeated_min": _REPEATED,
    "repeated_product": _REPEATED,
    "union": "you counted the words of either sentence (the union); count only the words they share "
             "(the intersection)",
}


def shared_words_tests(aspect="all"):
    """Tests of ``shared_word_count(a, b)``: ``"count"``, ``"input"``."""
    P, tests = PROBES, []
    if aspect in ("all", "count"):
        calls = [Call("shared_word_count", P["words_a"], P["words_b"]),
                 Call("shared_word_count", ["sea", "sea"], ["whale"])]
        tests.append(Test(calls, _judge_shared_count, time_limit=TIME_LIMIT))
    if aspect in ("all", "input"):
        calls = [Call("shared_word_count", ("ship", "sea", "whale"), {"whale", "harpoon"}),
                 Call("shared_word_count", [], ["whale"]),
                 Call("shared_word_count", "whale", "whales"),
                 Call("shared_word_count", ["whale"], "whale ship")]
        tests.append(Test(calls, _judge_shared_input, time_limit=TIME_LIMIT))
    return tests


def _is_integer(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _judge_shared_count(answers):
    __tracebackhide__ = True
    P, d, problems = PROBES, _data()["shared"], []
    got = answers[0].get()
    value = _number(got)
    if value is None:
        problems.append(f"shared_word_count should return one number, got {_type(got)} of shape {_shape(got)}"
                        if not isinstance(got, (str, Opaque)) else
                        f"shared_word_count should return one number, got {_type(got)}: {fmt(got)}")
    elif value != d["count"]:
        named = [h for k, h in _SHARED_HINTS.items() if value == d["mistakes"][k]]
        problems.append(named[0] if named else
                        f"shared_word_count(a={P['words_a']}, b={P['words_b']}) returned {fmt(got)}: count the "
                        "distinct words that occur in both")
    else:
        none = answers[1].get()
        if _number(none) != 0:
            problems.append(f"two sentences without a common word share 0 words; for ['sea', 'sea'] and "
                            f"['whale'] you returned {fmt(none)}")
    fail("shared_word_count", problems)


def _judge_shared_input(answers):
    __tracebackhide__ = True
    problems = []
    _stop_if_not_run(answers)
    for a in answers[:2]:
        got = a.get()
        if not _is_integer(got):
            problems.append(f"shared_word_count should return an integer (int), got {_type(got)}: {fmt(got)}")
            break
    empty = _number(answers[1].get())
    if empty is not None and empty != 0:
        problems.append(f"an empty collection shares no word: you returned {fmt(answers[1].get())}")
    problems.append(problem(expect_raises, answers[2], "TypeError",
                            "a and b are strings (set('whale') is a set of letters, not of words): "
                            "pass lists of words"))
    problems.append(problem(expect_raises, answers[3], "TypeError", "b is a string, not a collection of words"))
    fail("shared_word_count", problems)


def diagnose_shared_words(shared_word_count, aspect="all"):
    """Probe ``shared_word_count(a, b) -> int`` (distinct shared words) and name the mistake.

    Aspects: ``"count"`` (repeated words count once; the intersection, not the union) and
    ``"input"`` (lists, tuples and sets accepted, an integer returned, 0 for an empty
    collection, ``TypeError`` for a string).

    Lesson 01 (string kernels).
    """
    __tracebackhide__ = True
    run(shared_words_tests(aspect), shared_word_count=shared_word_count)


# ------------------------------------------------- normalised shared words
_ONE_SIDE = "you divided by the length of one sentence only; divide by sqrt(k(a, a) k(b, b))"
#: Common mistakes of the normalised shared-word kernel, most specific first (outputs are data).
_NORMALISED_HINTS = {
    "jaccard": "that is the Jaccard index |W(a) ∩ W(b)| / |W(a) ∪ W(b)|; the normalised kernel divides by "
               "sqrt(k(a, a) k(b, b))",
    "no_sqrt": "the square root is missing: divide by sqrt(k(a, a) k(b, b)), the geometric mean of the "
               "lengths",
    "dice": "you divided by the average length (that is the Dice coefficient); the normalised kernel "
            "divides by the geometric mean sqrt(k(a, a) k(b, b))",
    "len": "k(a, a) is the number of *distinct* words of a: you used len(a), which counts repeated words",
    "repeated": "repeated words are counted in k(a, b): a word that occurs several times counts once",
    "one_side_a": _ONE_SIDE, "one_side_b": _ONE_SIDE,
    "not_normalised": "the result is not normalised: divide k(a, b) by sqrt(k(a, a) k(b, b))",
}
_NORMALISED = "normalised_shared_word_count"


def normalised_tests(aspect="all"):
    """Tests of ``normalised_shared_word_count(a, b)``: ``"values"``, ``"edge"``."""
    P, f, tests = PROBES, _NORMALISED, []
    if aspect in ("all", "values"):
        tests.append(Test([Call(f, P["words_a"], P["words_b2"])], _judge_normalised_values,
                          time_limit=TIME_LIMIT))
    if aspect in ("all", "edge"):
        calls = [Call(f, [], ["whale"]), Call(f, ["whale", "ship"], ("ship", "whale")),
                 Call(f, ["whale", "sea"], ["sea", "ship", "harpoon"]),
                 Call(f, ["sea", "ship", "harpoon"], ["whale", "sea"]), Call(f, "whale", "whales")]
        tests.append(Test(calls, _judge_normalised_edge, time_limit=TIME_LIMIT))
    return tests


def _judge_normalised_values(answers):
    __tracebackhide__ = True
    P, d, problems = PROBES, _data()["normalised"], []
    got = answers[0].get()
    value = _number(got)
    if value is None:
        problems.append(f"{_NORMALISED} should return one number, got {_type(got)} of shape {_shape(got)}"
                        if not isinstance(got, (str, Opaque)) else
                        f"{_NORMALISED} should return one number, got {_type(got)}: {fmt(got)}")
    elif not np.isclose(value, d["value"]):
        named = [h for k, h in _NORMALISED_HINTS.items() if np.isclose(value, d["mistakes"][k])]
        problems.append(named[0] if named else
                        f"{_NORMALISED}(a={P['words_a']}, b={P['words_b2']}) returned {fmt(got)}: the kernel "
                        "is |W(a) ∩ W(b)| / sqrt(|W(a)| |W(b)|) over distinct words")
    fail(_NORMALISED, problems)


def _judge_normalised_edge(answers):
    __tracebackhide__ = True
    f, problems = _NORMALISED, []
    _stop_if_not_run(answers)
    empty = answers[0]
    if empty.error in ("ZeroDivisionError", "FloatingPointError", "ValueError"):
        problems.append(f"a sentence without words must give 0.0, not {empty.error} ({empty.message}): "
                        "check for an empty collection before dividing")
    elif empty.error:
        problems.append(f"{f}([], ['whale']) raised {empty.error}: {empty.message}")
    else:
        value = _number(empty.value)
        if value is None or not np.isfinite(value) or value != 0:
            problems.append(f"a sentence without words has similarity 0.0 with everything; {f}([], "
                            f"['whale']) returned {fmt(empty.value)} (NaN comes from 0 / 0)")
    same_words = _number(answers[1].get())
    if same_words is None or not np.isclose(same_words, 1.0):
        problems.append(f"two sentences with the same words have similarity 1; for ['whale', 'ship'] and "
                        f"('ship', 'whale') you returned {fmt(answers[1].get())}")
    ab_value, ba_value = answers[2].get(), answers[3].get()
    ab, ba = _number(ab_value), _number(ba_value)
    if ab is not None and ba is not None and not np.isclose(ab, ba):
        problems.append(f"a kernel is symmetric, k(a, b) = k(b, a); you returned {fmt(ab_value)} and "
                        f"{fmt(ba_value)}")
    if ab is not None and not isinstance(ab_value, (float, np.floating)):
        problems.append(f"{f} should return a float, got {_type(ab_value)}: {fmt(ab_value)}")
    problems.append(problem(expect_raises, answers[4], "TypeError", "a and b are strings, not collections of words"))
    fail(f, problems)


def diagnose_normalised_shared_words(normalised_shared_word_count, aspect="all"):
    """Probe ``normalised_shared_word_count(a, b) -> float`` and name the mistake.

    Aspects: ``"values"`` (k(a, b) / sqrt(k(a, a) k(b, b)) with distinct words, against the
    Jaccard index, the Dice coefficient, a missing square root, repeated words) and
    ``"edge"`` (0.0 for an empty collection without a division error, 1.0 for the same
    words, symmetric, a float, ``TypeError`` for a string).

    Lesson 01 (string kernels).
    """
    __tracebackhide__ = True
    run(normalised_tests(aspect), normalised_shared_word_count=normalised_shared_word_count)


# ------------------------------------------------------- 1-nearest neighbour
_NN = "nearest_neighbour_predict"


def nearest_neighbour_tests(aspect="all"):
    """Tests of ``nearest_neighbour_predict(K_test_train, y_train)``: ``"values"``, ``"interface"``."""
    P, tests = PROBES, []
    if aspect in ("all", "values"):
        calls = [Call(_NN, P["nn_K"], P["nn_y"]), Call(_NN, P["nn_K_tie"], P["nn_y"])]
        tests.append(Test(calls, _judge_nn_values, time_limit=TIME_LIMIT))
    if aspect in ("all", "interface"):
        calls = [Call(_NN, np.ones((2, 4)), np.array([1, 2, 3])), Call(_NN, np.ones(3), np.array([1, 2, 3])),
                 Call(_NN, [[0.1, 0.2, 0.9], [0.0, 0.6, 0.1]], P["nn_books"])]
        tests.append(Test(calls, _judge_nn_interface, time_limit=TIME_LIMIT))
    return tests


def _labels(value):
    """``value`` as an array of labels (numbers or strings), or ``None``."""
    if isinstance(value, (str, bytes, Opaque)) or value is None:
        return None
    try:
        return np.asarray(value)
    except (TypeError, ValueError):
        return None


def _judge_nn_values(answers):
    __tracebackhide__ = True
    P, d, problems = PROBES, _data()["nn"], []
    got = answers[0].get()
    arr = _labels(got)
    shape = _shape(got)
    where = f"for K_test_train={fmt(P['nn_K'])} and y_train={fmt(P['nn_y'])}"
    if arr is not None and arr.shape == (4,) and same(arr, d["axis0"]):
        problems.append(f"{where} you returned 4 labels: the argmax must run over each row (axis=1, the "
                        "training examples), one label per test example; axis=0 runs over the test examples")
    elif shape != (3,):
        problems.append(f"{where} you returned shape {shape}: one label per test example (row of K) is "
                        "expected, shape (3,)")
    elif not same(arr, d["labels"]):
        if same(arr, d["argmin"]):
            problems.append("you took the argmin: K holds similarities, so the nearest neighbour is the "
                            "training example with the LARGEST value (argmax), not the smallest")
        elif same(arr, d["indices"]):
            problems.append("you returned the index of the most similar training example; return its label "
                            "y_train[index]")
        else:
            wrong = int(np.sum(arr.astype(object) != d["labels"].astype(object)))
            problems.append(f"{where} you returned {fmt(arr)}: {wrong} of 3 labels are not those of the "
                            "most similar training example")
    else:
        tie = answers[1].get()
        tied = _labels(tie)
        if tied is None or tied.shape != (2,) or not same(tied, d["tie"]):
            problems.append(f"on a tie (K_test_train={fmt(P['nn_K_tie'])}) the first of the most similar "
                            f"training examples must win, as np.argmax does; you returned {fmt(tie)}")
    fail(_NN, problems)


def _judge_nn_interface(answers):
    __tracebackhide__ = True
    books, problems = PROBES["nn_books"], []
    _stop_if_not_run(answers)
    problems.append(problem(expect_raises, answers[0], "ValueError",
                            "K_test_train has 4 columns but y_train has 3 labels"))
    problems.append(problem(expect_raises, answers[1], "ValueError", "K_test_train is 1-D, not (n_test, n_train)"))
    got = answers[2].get()
    if not isinstance(got, np.ndarray) or got.shape != (2,):
        problems.append(f"for a (2, 3) similarity matrix given as lists, {_NN} should return an ndarray "
                        f"of shape (2,), got {_type(got)} of shape {_shape(got)}")
    elif not all(v in set(books) for v in got.tolist()):
        problems.append(f"with y_train={books} you returned {got.tolist()}: the predictions must be labels "
                        "taken from y_train (any type: strings too), not indices or numbers")
    fail(_NN, problems)


def diagnose_nearest_neighbour(nearest_neighbour_predict, aspect="all"):
    """Probe ``nearest_neighbour_predict(K_test_train, y_train) -> labels`` and name the mistake.

    Aspects: ``"values"`` (the label of the most similar training example: argmax, not
    argmin, over each row, the first one on a tie; labels, not indices) and
    ``"interface"`` (``ValueError`` when K is not 2-D or its columns do not match y_train;
    an array of shape (n_test,) holding labels of y_train, strings included; lists
    accepted).

    Lesson 01 (similarity).
    """
    __tracebackhide__ = True
    run(nearest_neighbour_tests(aspect), nearest_neighbour_predict=nearest_neighbour_predict)
