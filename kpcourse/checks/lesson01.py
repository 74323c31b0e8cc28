"""Checks of assignment 01 (similarity and exemplars): cosine, shared words, 1-NN."""

from __future__ import annotations

import numpy as np

from kpcourse.checks._core import _type_name, fmt, load_mistakes
from kpcourse.checks.exercise import Check, Exercise, Lesson, Probe, comparison

__all__ = ["LESSON", "test"]

#: The named mistakes, key -> hint, per exercise (``data/lesson01.mistakes.toml``).
MISTAKES = load_mistakes("lesson01")

#: n = 4, m = 2, d = 3 (all different, so that a wrong axis or a transpose shows), rows of
#: different lengths (so that a missing normalisation shows).
A = np.array([[3.0, 4.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 2.0], [-1.0, 2.0, 2.0]])
B = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 5.0]])
ZERO = np.array([[0.0, 0.0, 0.0], [1.0, 2.0, 2.0]])
#: uint8 pixels: 200·200 does not fit in a uint8.
PIXELS = np.array([[200, 100, 0, 30], [255, 255, 255, 0]], dtype=np.uint8)
OTHER = np.array([[180, 90, 10, 0], [0, 0, 255, 255], [255, 255, 255, 255]], dtype=np.uint8)
#: Shared words: a has 4 distinct words ("whale" twice), b 3 ("whale" three times); b2: 4 words, 3 distinct.
WORDS_A = ["whale", "whale", "ship", "ocean", "harpoon"]
WORDS_B = ["whale", "whale", "whale", "ship", "sea"]
WORDS_B2 = ["whale", "whale", "ship", "sea"]
#: 1-NN: 3 test x 4 training examples, one clear maximum per row; labels all different.
NN_K = np.array([[0.1, 0.9, 0.3, 0.2], [0.8, 0.1, 0.5, 0.7], [0.2, 0.3, 0.4, 0.6]])
NN_Y = np.array([7, 2, 9, 4])
NN_K_TIE = np.array([[0.5, 0.9, 0.9, 0.1], [0.3, 0.3, 0.2, 0.3]])  # the first of the maxima wins
BOOKS = ["moby_dick", "pride_and_prejudice", "moby_dick"]


# ------------------------------------------------------- lesson-specific comparisons
@comparison("zero_rows")
def _zero_rows(value, expected, name, check, probe, answer):
    """A row of zeros of A gives 0 with every row of B (only that is judged here)."""
    rows = ~np.asarray(probe.args[0], dtype=float).any(axis=1)
    arr = np.asarray(value, dtype=float)
    if arr.shape != np.shape(expected) or not (np.all(np.isfinite(arr[rows])) and np.allclose(arr[rows], 0.0)):
        raise AssertionError(f"{name}: a row of zeros gave {fmt(arr[rows] if arr.ndim == 2 else arr)}")


@comparison("from_y")
def _from_y(value, expected, name, check, probe, answer):
    """An ndarray of the expected shape whose entries are labels of y_train."""
    if not isinstance(value, np.ndarray) or value.shape != np.shape(expected):
        raise AssertionError(f"{name} should return an ndarray of shape {np.shape(expected)}, got {_type_name(value)}")
    if not all(v in set(np.asarray(probe.args[1]).tolist()) for v in value.tolist()):
        raise AssertionError(f"{name}: the predictions must be labels taken from y_train (any type: strings "
                             "too), not indices or numbers")


# ----------------------------------------------------------------- the exercises

COSINE = Exercise(
    "cosine_similarity", "ex1-cosine", "the cosine similarity", time_limit=5.0,
    mistakes=MISTAKES["cosine_similarity"],
    checks=[
        Check("ex1-cosine-tests-values", rtol=1e-5, atol=1e-8, loop_free=True,
              hidden_label="hidden data of other shapes", hint="each entry is A[i]·B[j] / (|A[i]| |B[j]|)",
              mistakes=("transposed", "rows_a_only", "rows_b_only", "not_normalised", "wrong_axis", "squared",
                        "distance"),
              probes=[Probe((A, B), label=f"A={fmt(A)} (shape (4, 3)) and B={fmt(B)} (shape (2, 3))")]),
        Check("ex1-cosine-tests-interface", hidden_label="hidden images", probes=[
            Probe((np.ones((2, 3)), np.ones((2, 4))), raises="ValueError", why="A has 3 columns but B has 4"),
            Probe((np.ones(3), np.ones((2, 3))), raises="ValueError",
                  why="A is 1-D (shape (3,)), not a 2-D array of rows"),
            Probe((ZERO, B), compare="zero_rows", mistake="zero_nan", label="A with a row of zeros"),
            Probe((PIXELS, OTHER), like=4, mistake="uint8_wrap", label="uint8 images"),
            Probe((PIXELS.astype(float), OTHER.astype(float)), compare="none"),
            Probe(([[3, 4], [0, 1]], [[1, 0]]), compare="shape", label="lists A=[[3, 4], [0, 1]] and B=[[1, 0]]")]),
    ])

SHARED = Exercise(
    "shared_word_count", "ex2-shared", "the shared-word count", time_limit=5.0,
    mistakes=MISTAKES["shared_word_count"],
    checks=[
        Check("ex2-shared-tests-count", hidden_label="hidden word lists", hint="count the distinct words that "
              "occur in both",
              mistakes=("repeated_in_a", "repeated_in_b", "repeated_min", "repeated_product", "union"),
              probes=[Probe((WORDS_A, WORDS_B), label=f"a={WORDS_A}, b={WORDS_B}"),
                      Probe((["sea", "sea"], ["whale"]), label="two sentences without a common word")]),
        Check("ex2-shared-tests-input", types=(int, np.integer), hidden_label="hidden frozenset, tuple and "
              "empty inputs", probes=[
                  Probe((("ship", "sea", "whale"), {"whale", "harpoon"}), label="a tuple and a set"),
                  Probe(([], ["whale"]), label="an empty collection"),
                  Probe(("whale", "whales"), raises="TypeError",
                        why="a and b are strings (set('whale') is a set of letters, not of words): pass lists "
                            "of words"),
                  Probe((["whale"], "whale ship"), raises="TypeError", why="b is a string, not a collection of "
                                                                           "words")]),
    ])

NORMALISED = Exercise(
    "normalised_shared_word_count", "ex3-normalised", "the normalised shared-word kernel", time_limit=5.0,
    mistakes=MISTAKES["normalised_shared_word_count"],
    checks=[
        Check("ex3-normalised-tests-values", hidden_label="hidden word lists",
              hint="the kernel is |W(a) ∩ W(b)| / sqrt(|W(a)| |W(b)|) over distinct words",
              mistakes=("jaccard", "no_sqrt", "dice", "len", "repeated", "one_side_a", "one_side_b",
                        "not_normalised"),
              probes=[Probe((WORDS_A, WORDS_B2), label=f"a={WORDS_A}, b={WORDS_B2}")]),
        Check("ex3-normalised-tests-edge", types=(float, np.floating), mistakes=("empty_division", "empty_nan"),
              hidden_label="hidden empty, disjoint and identical inputs", probes=[
                  Probe(([], ["whale"]), label="a sentence without words"),
                  Probe((["whale", "ship"], ("ship", "whale")), label="two sentences with the same words"),
                  Probe((["whale", "sea"], ["sea", "ship", "harpoon"]), compare="none"),
                  Probe((["sea", "ship", "harpoon"], ["whale", "sea"]), like=2, mistake="asymmetric",
                        label="the same two sentences swapped"),
                  Probe(("whale", "whales"), raises="TypeError", why="a and b are strings, not collections of words")]),
    ])

NEAREST = Exercise(
    "nearest_neighbour_predict", "ex4-nn", "the nearest-neighbour rule", time_limit=5.0,
    mistakes=MISTAKES["nearest_neighbour_predict"],
    checks=[
        Check("ex4-nn-tests-values", compare="exact", mistakes=("axis0", "argmin", "indices"),
              hidden_label="hidden data", hint="one label per test example: that of its most similar training example",
              probes=[Probe((NN_K, NN_Y), label=f"K_test_train={fmt(NN_K)} and y_train={fmt(NN_Y)}"),
                      Probe((NN_K_TIE, NN_Y), mistake="tie", label=f"a tie (K_test_train={fmt(NN_K_TIE)})")]),
        Check("ex4-nn-tests-interface", compare="from_y", hidden_label="hidden inputs", probes=[
            Probe((np.ones((2, 4)), np.array([1, 2, 3])), raises="ValueError",
                  why="K_test_train has 4 columns but y_train has 3 labels"),
            Probe((np.ones(3), np.array([1, 2, 3])), raises="ValueError", why="K_test_train is 1-D, not "
                                                                               "(n_test, n_train)"),
            Probe(([[0.1, 0.2, 0.9], [0.0, 0.6, 0.1]], BOOKS), label=f"a (2, 3) list of lists and y_train={BOOKS}")]),
    ])

LESSON = Lesson("lesson01", [COSINE, SHARED, NORMALISED, NEAREST])
test = LESSON.test
