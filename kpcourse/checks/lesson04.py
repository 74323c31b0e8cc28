"""Checks of assignment 04 (the kernel trick): the all-subsets kernel, the quadratic form of a quadratic
kernel perceptron's decision function, the all-subsets features, the ANOVA kernel.

Nearest course code, and the probe that defeats a copy of it:

* ``subset_kernel`` (ex1): ``kernels.polynomial`` computes (1 + x·z)^n, a power of a sum, not a
  product of one factor per coordinate; every probe has d >= 2, where the two differ (``power``).
* ``quadratic_form`` (ex2): lecture 04 cell 40 reads the conic of a 2-D model off the weights of
  ``polynomial_features`` (√2-scaled coordinates, in that function's order); the exercise asks
  for (A, v, c) in any dimension, A symmetric, and the probes have d = 1, 3 and 4.
* ``subset_features`` (ex3): ``kernels.polynomial_features`` lists monomials with repeated
  coordinates and √ weights; the subsets' features are square-free and unweighted, in bit order.
* ``anova_kernel`` (ex4): no course code; (x·z)^p (``power``) counts repeated coordinates, and
  listing the sets cannot finish for d = 60, p = 30.
"""

from __future__ import annotations

import numpy as np

from kpcourse.checks._core import fmt, load_mistakes
from kpcourse.checks.exercise import Check, Exercise, Lesson, Probe

__all__ = ["LESSON", "test"]

#: The named mistakes, key -> hint, per exercise (``data/lesson04.mistakes.toml``).
MISTAKES = load_mistakes("lesson04")

#: Exercise 1: n = 3, m = 2, d = 3 (a transpose shows), every entry of X and Z different from 0.
SUB_X = np.array([[1.0, 2.0, -1.0], [0.5, -0.5, 3.0], [-1.5, 1.0, 0.5]])
SUB_Z = np.array([[1.0, -1.5, 2.0], [0.5, 0.25, 1.5]])
#: uint8 pixels: 1 + 200·255 does not fit in a uint8.
SUB_PIXELS = np.array([[200, 100, 3], [0, 255, 1]], dtype=np.uint8)
SUB_OTHER = np.array([[255, 2, 1]], dtype=np.uint8)
#: Exercise 2: d = 2 and d = 3, every coefficient different from 0 and from the others.
QUAD = (np.array([[1.0, 2.0], [-1.0, 0.5], [0.5, -1.0], [2.0, 1.0]]), np.array([1, -1, -1, 1]),
        np.array([1, 2, 1, 3]), 0.5)
QUAD3 = (np.array([[1.0, 0.5, -1.0], [0.0, 2.0, 1.0], [-1.5, 1.0, 0.5]]), np.array([1, -1, 1]),
         np.array([2, 1, 1]), -1.0)
#: Four points at distance 1 on the axes, all +1, alpha = 1, b = -6: f(x) = 2 x1² + 2 x2² - 2, the unit circle.
CIRCLE = (np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]]), np.array([1, 1, 1, 1]),
          np.array([1, 1, 1, 1]), -6.0)
#: Exercise 3: d = 3 (8 columns), the entries distinct so that every column differs.
SUBSET_X = np.array([[2.0, 3.0, -1.0], [0.5, -2.0, 4.0]])
SUBSET_WIDE = np.array([[1.0, -0.5, 2.0, 0.25, 3.0], [2.0, 1.0, -1.0, 0.5, -2.0], [0.5, 0.5, 0.5, 0.5, 0.5],
                        [-1.0, 2.0, 1.5, -0.5, 1.0]])
#: Exercise 4: a small case (d = 4), and one where the subsets of size 30 of 60 coordinates (about 1.2e17)
#: cannot be listed: only a recursion over the coordinates gets there in time.
ANOVA_X = np.array([[1.0, 2.0, 0.5, -1.0], [0.0, 1.0, 2.0, 1.0]])
ANOVA_Z = np.array([[1.0, 1.0, 1.0, 1.0], [2.0, -1.0, 0.5, 3.0], [0.5, 0.5, 2.0, -2.0]])
_RNG = np.random.default_rng(404)
ANOVA_BIG_X, ANOVA_BIG_Z = _RNG.uniform(0.2, 1.0, size=(3, 60)), _RNG.uniform(0.2, 1.0, size=(2, 60))


# ----------------------------------------------------------------- the exercises
SUBSETS = Exercise(
    "subset_kernel", "ex1-subsets", "the all-subsets kernel", time_limit=5.0,
    mistakes=MISTAKES["subset_kernel"], checks=[
        Check("ex1-subsets-tests-values", loop_free=True, pure="in_place", hidden_label="new points",
              mistakes=("transposed", "sum", "no_one", "power"),
              hint="entry (i, j) is the product over the coordinates k of (1 + X[i, k]·Z[j, k])",
              probes=[Probe((SUB_X, SUB_Z), label=f"X={fmt(SUB_X)} (shape (3, 3)) and Z={fmt(SUB_Z)} (shape (2, 3))")]),
        Check("ex1-subsets-tests-inputs", hidden_label="new images and lists", probes=[
            Probe(([[1, 2], [0, -1]], [[2, 1]]), label="lists X=[[1, 2], [0, -1]] and Z=[[2, 1]]"),
            Probe((SUB_X[:, :1], SUB_Z[:, :1]), label="points with one coordinate (shape (3, 1) and (2, 1))"),
            Probe((SUB_PIXELS, SUB_OTHER), like=3, mistake="uint8_wrap", label="uint8 images"),
            Probe((SUB_PIXELS.astype(float), SUB_OTHER.astype(float)), compare="none"),
            Probe((np.ones((2, 3)), np.ones((2, 4))), raises="ValueError", why="X has 3 columns but Z has 4"),
            Probe((np.ones(3), np.ones((2, 3))), raises="ValueError",
                  why="X is 1-D (shape (3,)), not a 2-D array of points")]),
    ])

_QUAD_LABEL = f"X_train={fmt(QUAD[0])}, y_train={fmt(QUAD[1])}, alpha={fmt(QUAD[2])}, b={fmt(QUAD[3])}"
QUADFORM = Exercise(
    "quadratic_form", "ex2-quadform", "the quadratic form of the decision function", time_limit=5.0,
    returns=("A", "v", "c"), mistakes=MISTAKES["quadratic_form"], checks=[
        Check("ex2-quadform-tests-values", part=(0, 1, 2), pure="in_place", hidden_label="new classifiers",
              mistakes=("homogeneous", "cross_doubled", "upper", "linear_factor", "no_y", "no_bias", "no_sum"),
              hint="expand (1 + x_j·x)² = 1 + 2 x_j·x + (x_j·x)² and collect the terms of each power of x",
              probes=[Probe(QUAD, label=_QUAD_LABEL),
                      Probe(QUAD3, label="3-D training points X_train of shape (3, 3)")]),
        Check("ex2-quadform-tests-known", part=(0, 1, 2), hidden_label="classifiers whose quadratic forms are known",
              mistakes=("no_sum", "no_bias"), probes=[
                  Probe(CIRCLE, label="4 points at distance 1 on the axes, all labelled +1, alpha=[1, 1, 1, 1], "
                                      "b=-6 (its boundary is the unit circle)"),
                  Probe((QUAD[0], QUAD[1], np.zeros(4), 2.5), label="alpha all 0 and b=2.5")]),
        Check("ex2-quadform-tests-inputs", part=(0, 1, 2), hidden_label="new lists and shapes", probes=[
            Probe(([[1, 0], [0, 2]], [1, -1], [2, 1], 0), label="lists X_train=[[1, 0], [0, 2]], y_train=[1, -1], "
                                                              "alpha=[2, 1] and b=0"),
            Probe(([[2.0], [-1.0]], [1, -1], [1, 2], 1.0), label="points with one coordinate, X_train=[[2.0], [-1.0]]"),
            Probe((np.ones(3), np.ones(3), np.ones(3), 0.0), raises="ValueError",
                  why="X_train is 1-D (shape (3,)), not a 2-D array of points"),
            Probe((QUAD[0], QUAD[1][:3], QUAD[2], 0.0), raises="ValueError",
                  why="X_train has 4 rows but y_train has 3 labels")]),
    ])

FEATURES = Exercise(
    "subset_features", "ex3-features", "the all-subsets feature map", time_limit=5.0,
    mistakes=MISTAKES["subset_features"], checks=[
        Check("ex3-features-tests-values", pure="in_place", hidden_label="new points",
              mistakes=("bit_order", "no_empty", "sums"),
              hint="column c is the product of the x_k whose bit k is set in c (column 0, no bit set, is 1)",
              probes=[Probe((SUBSET_X,), label=f"X={fmt(SUBSET_X)} (shape (2, 3): 8 columns)")]),
        Check("ex3-features-tests-identity", hidden_label="new points of other dimensions",
              mistakes=("bit_order", "no_empty", "sums"),
              hint="Φ(X) Φ(Z)ᵀ must equal the all-subsets kernel of exercise 1", probes=[
                  Probe((SUBSET_WIDE,), label="X of shape (4, 5) (32 columns)"),
                  Probe((SUBSET_WIDE[:, :1],), label="points with one coordinate"),
                  Probe((np.ones((1, 21)),), raises="ValueError", why="X has 21 columns: 2**21 features are "
                                                                     "too many to list (the limit is 20)"),
                  Probe((np.ones(3),), raises="ValueError", why="X is 1-D (shape (3,)), not a 2-D array of points")]),
    ])

ANOVA = Exercise(
    "anova_kernel", "ex4-anova", "the ANOVA kernel", time_limit=10.0,
    mistakes=MISTAKES["anova_kernel"], checks=[
        Check("ex4-anova-tests-small", hidden_label="new points and degrees", mistakes=("power", "up_to", "repeats"),
              hint="entry (i, j) is the sum, over the sets S of `degree` distinct coordinates, of the product of "
                   "X[i, k]·Z[j, k] for k in S", probes=[
                  Probe((ANOVA_X, ANOVA_Z, 2), label=f"X={fmt(ANOVA_X)}, Z={fmt(ANOVA_Z)} and degree=2"),
                  Probe((ANOVA_X, ANOVA_Z, 4), label="the same points and degree=4 (= d: one set)"),
                  Probe((ANOVA_X, ANOVA_Z, 0), label="degree=0 (one set: the empty one)"),
                  Probe((ANOVA_X, ANOVA_Z, 5), label="degree=5 > d (no set)"),
                  Probe((ANOVA_X, ANOVA_Z, -1), raises="ValueError", why="degree is negative"),
                  Probe((ANOVA_X, ANOVA_Z[:, :3], 2), raises="ValueError", why="X has 4 columns but Z has 3")]),
        Check("ex4-anova-tests-large", rtol=1e-6, hidden_label="new points with 60 or more coordinates",
              mistakes=("power", "up_to", "repeats"), probes=[
                  Probe((ANOVA_BIG_X, ANOVA_BIG_Z, 30), label="X of shape (3, 60), Z of shape (2, 60) and degree=30 "
                                                              "(about 1.2e17 sets of 30 coordinates)"),
                  Probe((ANOVA_BIG_X, ANOVA_BIG_Z, 3), label="the same points and degree=3")]),
    ])

LESSON = Lesson("lesson04", [SUBSETS, QUADFORM, FEATURES, ANOVA])
test = LESSON.test
