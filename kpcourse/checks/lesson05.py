"""Checks of assignment 05 (the Gaussian kernel): its truncated series, the kernel-target alignment,
the interpolation bound, and the bandwidths at which a prediction flips.

Nearest course code, and the probe that defeats a copy of it:

* ``rbf_truncated`` (ex1): appendix 05's cell tagged ``rbf-series`` sums the series for one fixed
  1-D point ``z0`` and reads its grid from the notebook; ``kernels.rbf`` is the whole series. Every
  probe pairs several points in 1 to 6 dimensions with a finite degree, where the truncation
  differs.
* ``kernel_alignment`` (ex2): lecture 05's cells tagged ``sweep`` and ``sweep-unseen`` choose σ by
  training models and counting test errors, and no course code aligns or centres a Gram matrix; the
  probes' classes are unbalanced, where the raw alignment grows with σ and picks the widest one.
* ``interpolation_bound`` (ex3): appendix 04's mistake bound needs scikit-learn's ``SVC`` (absent)
  and another separator; lecture 05's section on limits argues positive definiteness in words. No
  course code solves K c = y.
* ``sign_changes`` (ex4): lecture 05's worked example (cells tagged ``msdn-kernel``, ``msdn-score``)
  computes the score at one σ; the probes ask for every σ in a range, down to bandwidths where the
  plain score underflows to 0.
"""

from __future__ import annotations

import numpy as np

from kpcourse.checks._core import fmt, load_mistakes
from kpcourse.checks.exercise import RBF_FORMULA, Check, Exercise, Lesson, Probe, comparison
from kpcourse.datasets import msdn_example

__all__ = ["LESSON", "test", "MSDN"]

#: The named mistakes, key -> hint, per exercise (``data/lesson05.mistakes.toml``).
MISTAKES = load_mistakes("lesson05")

#: The MSDN article's four training items, labels, counters, query and σ (lesson 05's worked example).
MSDN = msdn_example()
_MX, _MY, _MA = MSDN["X"], MSDN["y"], MSDN["alpha"]

# Exercise 1: half-integer points in 2-D and 3-D.
TX = np.array([[1.0, 0.5], [-0.5, 2.0], [1.5, -1.0]])
TZ = np.array([[0.5, 0.5], [-1.0, 1.0]])
TX3 = np.array([[1.0, 0.0, -0.5], [0.5, 1.5, 1.0]])
TZ3 = np.array([[0.0, 1.0, 1.0], [2.0, -0.5, 0.5], [1.0, 1.0, 1.0]])
# Exercise 2: two rings, the inner one with 20 points and the outer one with 180 (seeded).
_RNG = np.random.default_rng(505)
_R = np.r_[np.full(20, 0.5), np.ones(180)] + _RNG.normal(0, 0.08, 200)
_T = _RNG.uniform(0, 2 * np.pi, 200)
RINGS = (np.c_[_R * np.cos(_T), _R * np.sin(_T)], np.r_[-np.ones(20, dtype=int), np.ones(180, dtype=int)])
RING_SIGMAS = [0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 5.0, 10.0]
# Exercise 4: five points around the origin whose vote flips twice between σ = 0.05 and 20.
FX = np.array([[-3.0, -3.0], [-3.0, -1.0], [-1.0, 0.0], [1.0, -1.0], [0.0, 1.0]])
FY, FA = np.array([1, 1, -1, -1, 1]), np.array([2, 1, 2, 3, 3])


# ------------------------------------------------------- lesson-specific comparisons
@comparison("flips")
def _flips(value, expected, name, check, probe, answer):
    """The list of bandwidths: as many as expected, each close to its expected one (never shown)."""
    hints = MISTAKES["sign_changes"]
    try:
        got = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError(f"{name} should be an array of bandwidths, got {fmt(value)}") from None
    if got.ndim != 1:
        raise AssertionError(f"{name} should be a 1-D array of bandwidths, got shape {got.shape}")
    exp = np.asarray(expected, dtype=float)
    if len(got) != len(exp):
        raise AssertionError(f"{hints['count']} (you returned {len(got)} bandwidth(s): {fmt(got)})")
    if np.any(np.diff(got) <= 0):
        raise AssertionError(f"{name}: return the bandwidths in increasing order, each once; got {fmt(got)}")
    if not np.allclose(got, exp, rtol=check.rtol, atol=0):
        raise AssertionError(hints["precision"])


# ----------------------------------------------------------------- the exercises
_DEGREE_SLIPS = ("no_envelope", "sigma", "short", "no_factorial")
TRUNCATED = Exercise(
    "rbf_truncated", "ex1-truncated", "the truncated Gaussian kernel", time_limit=5.0,
    mistakes=MISTAKES["rbf_truncated"], checks=[
        Check("ex1-truncated-tests-values", pure="in_place", rtol=1e-10, atol=1e-12,
              hidden_label="new points, bandwidths and degrees", mistakes=_DEGREE_SLIPS,
              hint="entry (i, j) is exp(-‖x‖²/2σ²)·exp(-‖z‖²/2σ²)·Σ_{n=0..degree} (x·z/σ²)ⁿ/n! for x = X[i], "
                   "z = Z[j]", probes=[
                  Probe((TX, TZ, 1.5, 4), label=f"X={fmt(TX)}, Z={fmt(TZ)}, sigma=1.5, degree=4"),
                  Probe((TX3, TZ3, 0.8, 6), label="3-D points X (shape (2, 3)) and Z (shape (3, 3)), sigma=0.8, "
                                                  "degree=6")]),
        Check("ex1-truncated-tests-limits", rtol=1e-10, atol=1e-12, hidden_label="degrees 0 and 40, lists, errors",
              mistakes=("short", "no_envelope"), probes=[
                  Probe((TX, TZ, 1.0, 0), label=f"X={fmt(TX)}, Z={fmt(TZ)}, sigma=1, degree=0 (the envelope alone)"),
                  Probe((TX, TZ, 1.0, 30), label="the same points with degree=30 (the whole kernel, to rounding)"),
                  Probe((TX.tolist(), TZ.tolist(), 2.0, 2), label="X and Z as lists, sigma=2, degree=2"),
                  Probe((TX, TZ, 0.0, 3), raises="ValueError", why="sigma must be positive"),
                  Probe((TX, TZ, 1.0, -1), raises="ValueError", why="degree must be at least 0"),
                  Probe((TX, TZ3, 1.0, 2), raises="ValueError", why="X has 2 columns but Z has 3")]),
    ])

_RINGS = "two noisy rings, 20 points labelled -1 inside and 180 labelled +1 outside"
ALIGNMENT = Exercise(
    "kernel_alignment", "ex2-alignment", "the kernel-target alignment", returns=("raw", "centred", "best"),
    time_limit=10.0, mistakes=MISTAKES["kernel_alignment"], checks=[
        Check("ex2-alignment-tests-values", part=(0, 1), pure="in_place", rtol=1e-9, atol=1e-12,
              hidden_label="new points and bandwidths", mistakes=("half_centred",),
              hint="raw = yᵀKy / (n‖K‖_F); centred: the same with K_c = HKH and y_c = y − mean(y) in place of K "
                   "and y, divided by ‖K_c‖_F ‖y_c‖²", probes=[
                  Probe((_MX, _MY, [0.5, 1.5, 3.0]), label="the MSDN article's four items and labels, "
                                                           "sigmas=[0.5, 1.5, 3.0]"),
                  Probe((RINGS[0][::10], RINGS[1][::10], [0.3, 1.0]),
                        label="every tenth point of the two rings (20 points), sigmas=[0.3, 1.0]")]),
        Check("ex2-alignment-tests-choice", part=2, hidden_label="new unbalanced rings",
              mistakes=("raw_choice",), probes=[
                  Probe((*RINGS, RING_SIGMAS), label=f"{_RINGS}, sigmas={RING_SIGMAS}"),
                  Probe((*RINGS, []), raises="ValueError", why="sigmas is empty"),
                  Probe((*RINGS, [1.0, -0.5]), raises="ValueError", why="a bandwidth is negative")]),
    ])

_MSDN = "the MSDN article's four items and labels"
#: The slips of the kernel's formula that leave a Gram matrix K c = y can be solved with (the squared
#: distances themselves, or a positive exponent, give no positive definite K: the solve fails).
_SOLVABLE = ("sigma", "no2", "over_sigma", "gamma", "times", "distance")
BOUND = Exercise(
    "interpolation_bound", "ex3-bound", "the interpolation bound", returns=("bound", "c"), time_limit=5.0,
    mistakes={**MISTAKES["interpolation_bound"], **{k: RBF_FORMULA[k] for k in _SOLVABLE}}, checks=[
        Check("ex3-bound-tests-values", part=(0, 1), pure="in_place", rtol=1e-7, atol=1e-9,
              hidden_label="new distinct points", mistakes=(*_SOLVABLE, "sqrt", "sum_c"),
              hint="solve K c = y for the Gaussian Gram matrix K of X; the bound is ‖f*‖² = cᵀKc = yᵀc", probes=[
                  Probe((_MX, _MY, 1.5), label=f"{_MSDN}, sigma=1.5"),
                  Probe((_MX, _MY, 3.0), label=f"{_MSDN}, sigma=3")]),
        Check("ex3-bound-tests-inputs", part=(0, 1), rtol=1e-7, atol=1e-9, hidden_label="lists, copies and errors",
              mistakes=("sqrt", "sum_c"), probes=[
                  Probe((_MX[:, :1], _MY, 1.0), label="the first coordinate of the four items, sigma=1"),
                  Probe((_MX.tolist(), _MY.tolist(), 2.0), label=f"{_MSDN} as lists, sigma=2"),
                  Probe((np.r_[_MX, _MX[1:2]], np.r_[_MY, _MY[1]], 1.5), raises="ValueError",
                        why="rows 1 and 4 of X are equal, so K is singular"),
                  Probe((_MX, _MY, 0.0), raises="ValueError", why="sigma must be positive")]),
    ])

FLIPS = Exercise(
    "sign_changes", "ex4-flips", "the bandwidths where the prediction flips", time_limit=10.0,
    mistakes=MISTAKES["sign_changes"], checks=[
        Check("ex4-flips-tests-msdn", compare="flips", rtol=1e-7, hidden_label="new models and queries",
              mistakes=("count", "precision"), probes=[
                  Probe((_MX, _MY, _MA, np.array([3.0, 4.0]), 0.01, 100.0),
                        label=f"{_MSDN}, their counters, the query (3, 4), lo=0.01, hi=100"),
                  Probe((_MX, _MY, _MA, MSDN["query"], 0.01, 100.0),
                        label=f"{_MSDN}, their counters, the article's query (3, 6), lo=0.01, hi=100")]),
        Check("ex4-flips-tests-several", compare="flips", rtol=1e-7, hidden_label="new models with several flips",
              mistakes=("count", "precision"), probes=[
                  Probe((FX, FY, FA, np.zeros(2), 0.05, 20.0),
                        label=f"X={fmt(FX)}, y={fmt(FY)}, alpha={fmt(FA)}, the query (0, 0), lo=0.05, hi=20"),
                  Probe((FX, FY, FA, np.zeros(2), 20.0, 0.05), raises="ValueError", why="lo is larger than hi")]),
    ])

LESSON = Lesson("lesson05", [TRUNCATED, ALIGNMENT, BOUND, FLIPS])
test = LESSON.test
