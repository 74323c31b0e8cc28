"""Checks of assignment 01 (similarity and exemplars): cosine, shared words, 1-NN."""

from __future__ import annotations

import numpy as np

from kpcourse.checks._core import _type_name, fmt
from kpcourse.checks.exercise import Check, Exercise, Lesson, Probe, comparison

__all__ = ["LESSON", "test"]

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
_REPEATED = ("repeated words are counted: a word that occurs several times in a sentence counts once "
             "(compare sets of distinct words)")
_ONE_SIDE = "you divided by the length of one sentence only; divide by sqrt(k(a, a) k(b, b))"

COSINE = Exercise(
    "cosine_similarity", "ex1-cosine", "the cosine similarity", time_limit=5.0,
    mistakes={
        "transposed": "row i, column j must hold the similarity of A[i] and B[j], shape (n, m) (A @ B.T, not B @ A.T)",
        "rows_a_only": "only the rows of A are normalised: divide the rows of B by their lengths too",
        "rows_b_only": "only the rows of B are normalised: divide the rows of A by their lengths too",
        "not_normalised": "no normalisation: A @ B.T is the dot product (linear kernel); divide each row of "
                          "A and of B by its length first",
        "wrong_axis": "you normalised by the wrong axis: np.linalg.norm(A, axis=0) gives the length of each "
                      "column; each row (sample) must be divided by its own length (axis=1)",
        "squared": "you divided by the squared lengths: the cosine divides x·z by |x| |z|, not |x|² |z|²",
        "distance": "you returned 1 - cosine (the cosine distance); return the similarity itself",
        "zero_nan": "a row of zeros has no direction: its similarity with every row is 0 by convention; "
                    "divide by 1 instead of by a zero length",
        "uint8_wrap": "on uint8 images (MNIST's pixel type) your result differs from the one on the same "
                      "values as floats: products of uint8 numbers wrap around at 256 (200·200 does not "
                      "fit); convert A and B to float first",
    },
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
    mistakes={
        "repeated_in_a": _REPEATED, "repeated_in_b": _REPEATED, "repeated_min": _REPEATED,
        "repeated_product": _REPEATED,
        "union": "you counted the words of either sentence (the union); count only the words they share "
                 "(the intersection)",
    },
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
    mistakes={
        "jaccard": "that is the Jaccard index |W(a) ∩ W(b)| / |W(a) ∪ W(b)|; the normalised kernel divides "
                   "by sqrt(k(a, a) k(b, b))",
        "no_sqrt": "the square root is missing: divide by sqrt(k(a, a) k(b, b)), the geometric mean of the lengths",
        "dice": "you divided by the average length (that is the Dice coefficient); the normalised kernel "
                "divides by the geometric mean sqrt(k(a, a) k(b, b))",
        "len": "k(a, a) is the number of *distinct* words of a: you used len(a), which counts repeated words",
        "repeated": "repeated words are counted in k(a, b): a word that occurs several times counts once",
        "one_side_a": _ONE_SIDE, "one_side_b": _ONE_SIDE,
        "not_normalised": "the result is not normalised: divide k(a, b) by sqrt(k(a, a) k(b, b))",
        "empty_division": "a sentence without words must give 0.0, not a division error: check for an empty "
                          "collection before dividing",
        "empty_nan": "a sentence without words has similarity 0.0 with everything (NaN comes from 0 / 0): "
                     "check for an empty collection before dividing",
        "asymmetric": "a kernel is symmetric, k(a, b) = k(b, a): swapping the sentences changed your result",
    },
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
    mistakes={
        "axis0": "the argmax must run over each row (axis=1, the training examples), one label per test "
                 "example; axis=0 runs over the test examples",
        "argmin": "you took the argmin: K holds similarities, so the nearest neighbour is the training "
                  "example with the LARGEST value (argmax), not the smallest",
        "indices": "you returned the index of the most similar training example; return its label y_train[index]",
        "tie": "on a tie the first of the most similar training examples must win, as np.argmax does",
    },
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
