"""Checks of assignment 08 (margins, the SVM, honest model selection): the points that break the
soft-margin KKT conditions, Pegasos in kernel form, nested cross-validation, and the exponentially
weighted average of a perceptron run from its mistake log.

Nearest course code, and the probe that defeats a copy of it:

* ``kkt_violations`` (ex1): appendix 08's cell tagged ``kkt`` prints the smallest and largest margin
  of each group of coefficients; no course code tests each point or orders them. Every probe has
  violations of different sizes and coefficients at both bounds.
* ``kernel_pegasos`` (ex2): lecture 08's margin perceptron (the cell tagged ``margin-perceptron``)
  updates on y f <= τ with no scale, and lecture 08 describes Pegasos in words only; every probe is
  a run whose decisions depend on the 1/(λ(t - 1)) scale of w_t.
* ``nested_cv`` (ex3): lecture 08's cells tagged ``optimism`` and ``gridsearch`` choose σ with
  scikit-learn's ``KFold`` and ``GridSearchCV`` (absent from the sandbox), one level of
  cross-validation; the probes ask for the outer errors and the σ chosen inside each outer fold.
* ``ema_average`` (ex4): the package's replay and lecture 08's cell tagged ``timestamp`` average
  with equal weights (ρ = 1) by the timestamp trick; the probes ask for ρ < 1, and for T up to 10^9
  steps, where a loop over the steps cannot finish.
"""

from __future__ import annotations

import numpy as np

from kpcourse.checks._core import fmt, load_mistakes
from kpcourse.checks.exercise import Check, Exercise, Lesson, Probe
from kpcourse.datasets import quiz_points, quiz_transform

__all__ = ["LESSON", "test"]

#: The named mistakes, key -> hint, per exercise (``data/lesson08.mistakes.toml``).
MISTAKES = load_mistakes("lesson08")

# Exercise 1: a soft-margin state on half-integer points (margins exact), C = 2, tol = 1/4.
XK = np.array([[1.0, 0.5], [-0.5, 1.0], [1.5, -1.0], [0.0, 0.5], [-1.0, -1.5], [2.0, 0.0], [0.5, 1.5],
               [-1.5, 0.5]])
YK = np.array([1.0, -1.0, 1.0, 1.0, -1.0, 1.0, -1.0, -1.0])
AK = np.array([0.0, 2.0, 1.0, 0.5, 0.0, 2.0, 0.0, 1.0])
KK, BK = XK @ XK.T, 0.25

# Exercise 2: the quiz's 20 points with their constant feature, lambda = 1 / (n C) for C = 120; and
# small whole-number points.
_XQ, YQ = quiz_points()
_ZQ = quiz_transform(_XQ)
KQ, LAM_Q = _ZQ @ _ZQ.T, 1 / 2400
QUIZ_STEPS = [t % 20 for t in range(2000)]
_XI = np.array([[1.0, 2.0, 1.0], [2.0, -1.0, 1.0], [-1.0, -1.0, 1.0], [-2.0, 1.0, 1.0], [0.0, 3.0, 1.0]])
KI, YI = _XI @ _XI.T, np.array([1.0, 1.0, -1.0, -1.0, 1.0])
STEPS_I = [0, 1, 1, 2, 0, 3, 3, 3, 1, 2, 4, 4, 0, 2, 3, 1, 2, 0, 4, 3]
STEPS_J = [4, 2, 3, 1, 2, 2, 0, 3, 2, 2, 1, 4, 0, 2, 4, 3, 0, 4]  # with lam = 2 a margin is exactly 1

# Exercise 3: two overlapping noisy rings (45 points, whole hundredths), four bandwidths.
_RC = np.random.default_rng(800)
_R = np.where(np.arange(45) % 2 == 0, 1.0, 0.5) + _RC.integers(-30, 31, size=45) / 100
_T = _RC.integers(0, 628, size=45) / 100
XC = np.round(np.c_[_R * np.cos(_T), _R * np.sin(_T)], 2)
YC = np.where(np.arange(45) % 2 == 0, 1, -1)
SIGMAS = [0.05, 0.3, 1.0, 4.0]

# Exercise 4: a short log and a long one.
LOG_S = ([1, 3, 4, 7], [0, 2, 0, 1], [1, -1, 1, 1])
LOG_L = ([5, 10**8, 999_999_990], [1, 0, 1], [1, -1, 1])


# ----------------------------------------------------------------- the exercises
KKT = Exercise(
    "kkt_violations", "ex1-kkt", "the KKT violations", time_limit=5.0,
    mistakes=MISTAKES["kkt_violations"], checks=[
        Check("ex1-kkt-tests-values", compare="exact", hidden_label="new soft-margin states",
              mistakes=("no_bounds", "unordered"), probes=[
                  Probe((KK, YK, AK, BK, 2.0, 0.25),
                        label=f"K = X Xᵀ for X={fmt(XK)}, y={fmt(YK)}, alpha={fmt(AK)}, b=0.25, C=2, tol=0.25")]),
        Check("ex1-kkt-tests-edges", compare="exact", hidden_label="new states, tol = 0, errors",
              mistakes=("no_bounds", "unordered", "tol_scale"), probes=[
                  Probe((KK, YK, AK, BK, 2.0, 0.0), label="the same state with tol=0"),
                  Probe((KK, YK, AK, -1.0, 2.0, 0.5), label="the same with b=-1, tol=0.5"),
                  Probe((KK, YK, AK + 3.0, BK, 2.0, 0.25), raises="ValueError", why="alpha is above C")]),
    ])

PEGASOS = Exercise(
    "kernel_pegasos", "ex2-pegasos", "Pegasos in kernel form", time_limit=10.0,
    mistakes=MISTAKES["kernel_pegasos"], checks=[
        Check("ex2-pegasos-tests-runs", compare="exact", hidden_label="new runs",
              mistakes=("no_scale",), probes=[
                  Probe((KQ, YQ, LAM_Q, QUIZ_STEPS), label="the quiz's 20 points with their constant feature, "
                                                         "lam=1/2400, the points in file order 100 times (T=2000)")]),
        Check("ex2-pegasos-tests-steps", compare="exact", hidden_label="new runs, errors", whole=True,
              mistakes=("no_scale", "step_count", "le"), probes=[
                  Probe((KI, YI, 0.25, STEPS_I), label=f"K = Z Zᵀ for Z={fmt(_XI)}, y={fmt(YI)}, lam=0.25, "
                                                      f"steps={STEPS_I}"),
                  Probe((KI, YI, 2.0, STEPS_J), label=f"the same points, lam=2, steps={STEPS_J}"),
                  Probe((KI, YI, 0.0, STEPS_I), raises="ValueError", why="lam must be positive")]),
    ])

NESTED = Exercise(
    "nested_cv", "ex3-nested", "nested cross-validation", returns=("errors", "chosen"), time_limit=30.0,
    mistakes=MISTAKES["nested_cv"], checks=[
        Check("ex3-nested-tests-values", part=(0, 1), rtol=0, atol=1e-12, hidden_label="new data and seeds",
              mistakes=("leak", "last_tie"), probes=[
                  Probe((XC, YC, SIGMAS, 4, 3, 2), label=f"two noisy rings of 45 points, sigmas={SIGMAS}, k_out=4, "
                                                         "k_in=3, seed=2")]),
        Check("ex3-nested-tests-inputs", part=(0, 1), rtol=0, atol=1e-12, hidden_label="new folds, errors",
              mistakes=("leak",), probes=[
                  Probe((XC, YC, [0.2, 2.0], 3, 5, 7), label="the same rings, sigmas=[0.2, 2.0], k_out=3, k_in=5, "
                                                            "seed=7"),
                  Probe((XC, YC, SIGMAS, 1, 3, 0), raises="ValueError", why="k_out must be at least 2")]),
    ])

EMA = Exercise(
    "ema_average", "ex4-ema", "the exponentially weighted average", returns=("alpha_bar", "b_bar"),
    time_limit=10.0, mistakes=MISTAKES["ema_average"], checks=[
        Check("ex4-ema-tests-small", part=(0, 1), rtol=1e-9, atol=1e-12, hidden_label="new logs",
              mistakes=("state_before", "no_normalise", "rho_one"), probes=[
                  Probe((*LOG_S, 3, 8, 0.5), label="steps=[1, 3, 4, 7], index=[0, 2, 0, 1], label=[1, -1, 1, 1], n=3, "
                                                   "T=8, rho=0.5"),
                  Probe((*LOG_S, 3, 8, 1.0), label="the same log with rho=1")]),
        Check("ex4-ema-tests-large", part=(0, 1), rtol=1e-9, atol=1e-12, hidden_label="new logs of up to 10^9 steps",
              mistakes=("state_before", "rho_one"), probes=[
                  Probe((*LOG_L, 2, 10**9, 0.999), label="steps=[5, 10^8, 999999990], index=[1, 0, 1], "
                                                         "label=[1, -1, 1], n=2, T=10^9, rho=0.999"),
                  Probe((*LOG_L, 2, 10**9, 0.9999999), label="the same log with rho=0.9999999"),
                  Probe((*LOG_S, 3, 8, 1.5), raises="ValueError", why="rho must be in (0, 1]")]),
    ])

LESSON = Lesson("lesson08", [KKT, PEGASOS, NESTED, EMA])
test = LESSON.test
