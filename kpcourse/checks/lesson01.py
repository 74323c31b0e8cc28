"""Checks of assignment 01 (similarity and exemplars): a k-gram similarity of strings, a
weighted k-nearest-neighbour vote, a cosine that tolerates shifts, the gap-weighted
subsequence kernel.

Nearest course code, and the probe that defeats a copy of it:

* ``kgram_similarity`` (ex1): ``kernels.spectrum`` counts repeated k-grams for one k, and
  lecture 01 cell 56 intersects the 3-gram sets of one demo; the probes have repeated k-grams
  ("aaaa"), several lengths and a decay (``counts_repeats``, ``only_max``, ``no_decay``).
* ``knn_vote`` (ex2): lecture 01 cell 14's ``nearest`` takes the argmax and cell 42's
  ``classify`` the majority among the tied best; every probe has k >= 2 with weights that
  overturn a plain majority (``majority``, ``nearest``) and planted ties.
* ``best_shift_cosine`` (ex3): lecture 01 cell 30 shifts with SciPy's ``ndimage.shift``
  (absent when grading) and takes no maximum; ``kernels.cosine`` compares unshifted rows; the
  probes have ink at the border, where zero fill and normalising after the shift matter
  (``wrap``, ``normalise_before``).
* ``subsequence_kernel`` (ex4): no course code has gaps; ``kernels.spectrum`` is the
  contiguous case (``contiguous``), and listing the subsequences of strings of 120
  characters cannot finish: only a recursion over prefixes gets there.
"""

from __future__ import annotations

import numpy as np

from kpcourse.checks._core import fmt, load_mistakes
from kpcourse.checks.exercise import Check, Exercise, Lesson, Probe

__all__ = ["LESSON", "test"]

#: The named mistakes, key -> hint, per exercise (``data/lesson01.mistakes.toml``).
MISTAKES = load_mistakes("lesson01")

#: Exercise 2: 6 training examples; the rows of S1 (k = 3) make a weighted vote overturn the
#: majority, tie two labels' totals, and outvote the single most similar example; S2 (k = 2)
#: holds three equal similarities, of which the two with the lower indices are the neighbours.
#: Every value is a multiple of 1/8, so that sums are exact.
Y6 = np.array(["sea", "ball", "ball", "sea", "ball", "sea"])
S1 = np.array([[0.75, 0.25, 0.25, 0.0, 0.125, 0.0],
               [0.5, 0.25, 0.25, 0.0, 0.0, 0.125],
               [0.5, 0.375, 0.375, 0.0, 0.125, 0.0]])
S2 = np.array([[0.0, 0.5, 0.25, 0.5, 0.0, 0.5],
               [0.25, 0.0, 0.75, 0.125, 0.5, 0.0]])
#: Exercise 3: an L-shaped stroke and the same stroke one row down and two columns left.
L_SHAPE = np.zeros((5, 7))
L_SHAPE[[0, 1, 2, 2], [3, 3, 3, 4]] = [2.0, 1.0, 1.0, 3.0]
L_MOVED = np.zeros((5, 7))
L_MOVED[[1, 2, 3, 3], [1, 1, 1, 2]] = [2.0, 1.0, 1.0, 3.0]
#: Ink at the border: the best shift pushes some of a's ink out of the frame.
BORDER_A = np.array([[0, 0, 0, 0, 0, 2, 0], [0, 0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 2, 0, 0], [0, 0, 0, 0, 0, 0, 0],
                     [0, 0, 0, 0, 0, 3, 0]], dtype=float)
BORDER_B = np.array([[0, 0, 1, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 2],
                     [1, 0, 0, 0, 0, 0, 1]], dtype=float)
#: uint8 pixels: 200·250 does not fit in a uint8.
PIX_A = np.array([[0, 200, 250], [180, 0, 0], [0, 0, 90]], dtype=np.uint8)
PIX_B = np.array([[250, 0, 0], [0, 200, 240], [0, 60, 0]], dtype=np.uint8)
#: Exercise 4: two strings of 120 characters: listing their subsequences of length 6 (about
#: 3.6e9 each) cannot finish.
_RNG = np.random.default_rng(101)
LONG_S, LONG_T = ("".join(_RNG.choice(list("abc"), size=120)) for _ in range(2))


# ----------------------------------------------------------------- the exercises
KGRAMS = Exercise(
    "kgram_similarity", "ex1-kgrams", "the k-gram similarity", time_limit=5.0,
    mistakes=MISTAKES["kgram_similarity"], checks=[
        Check("ex1-kgrams-tests-values", compare="number", hidden_label="new strings",
              mistakes=("counts_repeats", "only_max", "off_by_one", "decay_from_zero", "no_decay"), probes=[
                  Probe(("banana", "bandana", 3, 0.5), label='"banana", "bandana", max_k=3, decay=0.5'),
                  Probe(("mississippi", "missouri", 4, 0.8), label='"mississippi", "missouri", max_k=4, decay=0.8'),
                  Probe(("aaaa", "aa", 3, 0.5), label='"aaaa", "aa", max_k=3, decay=0.5')]),
        Check("ex1-kgrams-tests-edges", compare="number", hidden_label="new strings, empty and short ones",
              mistakes=("counts_repeats", "only_max", "off_by_one", "decay_from_zero", "no_decay"), probes=[
                  Probe(("", "abc", 2, 0.5), label='an empty string, "", "abc", max_k=2, decay=0.5'),
                  Probe(("ab", "abc", 5, 0.5), label='strings shorter than max_k, "ab", "abc", max_k=5, decay=0.5'),
                  Probe(("abab", "bab", 2, 2.0), label='"abab", "bab", max_k=2, decay=2.0'),
                  Probe(("ab", "ab", 0, 0.5), raises="ValueError", why="max_k is 0 (at least 1)"),
                  Probe(("ab", "ab", 2, 0.0), raises="ValueError", why="decay is 0 (it must be positive)"),
                  Probe((["a", "b"], "ab", 2, 0.5), raises="TypeError", why="s is a list, not a str")]),
    ])

KNN = Exercise(
    "knn_vote", "ex2-knn", "the weighted k-nearest-neighbour vote", time_limit=5.0,
    mistakes=MISTAKES["knn_vote"], checks=[
        Check("ex2-knn-tests-values", compare="exact", hidden_label="new similarities with planted ties",
              mistakes=("nearest", "majority", "tie_smallest", "reverse_ties"), probes=[
                  Probe((S1, Y6, 3), label=f"S={fmt(S1)}, y_train={Y6.tolist()}, k=3"),
                  Probe((S2, Y6, 2), label=f"S={fmt(S2)}, y_train={Y6.tolist()}, k=2")]),
        Check("ex2-knn-tests-inputs", compare="exact", hidden_label="new labels and shapes",
              mistakes=("reverse_ties",), probes=[
                  Probe((S2, [7, 2, 2, 7, 2, 7], 1), label="integer labels in a list, k=1"),
                  Probe((S1.tolist(), Y6.tolist(), 6), label="lists, k=6 (every training example)"),
                  Probe((S1, Y6, 0), raises="ValueError", why="k is 0"),
                  Probe((S1, Y6, 7), raises="ValueError", why="k is 7 but there are 6 training examples"),
                  Probe((S1, Y6[:5], 3), raises="ValueError", why="S has 6 columns but y_train 5 labels"),
                  Probe((-S1, Y6, 3), raises="ValueError", why="S has negative similarities (weights must be >= 0)")]),
    ])

SHIFTS = Exercise(
    "best_shift_cosine", "ex3-shifts", "the best-shift cosine", time_limit=5.0,
    mistakes=MISTAKES["best_shift_cosine"], checks=[
        Check("ex3-shifts-tests-values", compare="number", hidden_label="new images with ink at the border",
              mistakes=("wrap", "normalise_before", "one_axis"), probes=[
                  Probe((L_SHAPE, L_MOVED, 2), label="an L-shaped stroke and the same stroke moved one row down "
                                                     "and two columns left (5 x 7 images), s=2"),
                  Probe((L_SHAPE, L_MOVED, 1), label="the same images, s=1"),
                  Probe((BORDER_A, BORDER_B, 2), label=f"a={fmt(BORDER_A)}, b={fmt(BORDER_B)}, s=2")]),
        Check("ex3-shifts-tests-inputs", compare="number", hidden_label="new blank, uint8 and unshifted images",
              probes=[
                  Probe((np.zeros((5, 7)), L_SHAPE, 2), label="a blank image a (all zeros), s=2"),
                  Probe((L_SHAPE, BORDER_B, 0), label="s=0 (the plain cosine)"),
                  Probe((PIX_A.astype(float), PIX_B.astype(float), 1), compare="none"),
                  Probe((PIX_A, PIX_B, 1), like=2, mistake="uint8_wrap", label="uint8 images against the same "
                                                                                "pixels as floats"),
                  Probe((L_SHAPE, L_SHAPE[:, :6], 1), raises="ValueError", why="a is 5 x 7 but b is 5 x 6"),
                  Probe((L_SHAPE, L_SHAPE, -1), raises="ValueError", why="s is negative")]),
    ])

SUBSEQUENCES = Exercise(
    "subsequence_kernel", "ex4-subsequences", "the subsequence kernel", time_limit=10.0,
    mistakes=MISTAKES["subsequence_kernel"], checks=[
        Check("ex4-subsequences-tests-small", compare="number", rtol=1e-9, hidden_label="new short strings",
              mistakes=("contiguous", "length_not_span", "up_to"), probes=[
                  Probe(("cat", "car", 2, 0.5), label='"cat", "car", n=2, lam=0.5'),
                  Probe(("cat", "cat", 2, 0.5), label='"cat", "cat", n=2, lam=0.5'),
                  Probe(("science", "silence", 3, 0.7), label='"science", "silence", n=3, lam=0.7'),
                  Probe(("ab", "abc", 3, 0.9), label='n=3 longer than "ab"'),
                  Probe(("ab", "ab", 0, 0.5), raises="ValueError", why="n is 0 (at least 1)"),
                  Probe(("ab", "ab", 2, 1.5), raises="ValueError", why="lam is 1.5 (0 < lam <= 1)"),
                  Probe((["a"], "ab", 1, 0.5), raises="TypeError", why="s is a list, not a str")]),
        Check("ex4-subsequences-tests-large", compare="number", rtol=1e-9,
              hidden_label="new strings of more than 100 characters", mistakes=("contiguous", "length_not_span"),
              probes=[Probe((LONG_S, LONG_T, 6, 0.8), label="two strings of 120 letters a, b, c, n=6, lam=0.8")]),
    ])

LESSON = Lesson("lesson01", [KGRAMS, KNN, SHIFTS, SUBSEQUENCES])
test = LESSON.test
