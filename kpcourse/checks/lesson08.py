"""Checks of assignment 08 (averaging, margins, model selection): averaged_dual_train,
geometric_margin, margin_dual_train, choose_sigma. The choice of σ is judged against the scores
the student's own function returned (:func:`~kpcourse.checks._core.check_grid_choice`).
"""

from __future__ import annotations

import numpy as np

from kpcourse.checks._core import as_numbers, check_grid_choice, fmt, load_mistakes
from kpcourse.checks.exercise import Check, Exercise, Lesson, Probe, comparison, same

__all__ = ["LESSON", "test", "cv_probe", "PROBES"]

#: The named mistakes, key -> hint, per exercise (``data/lesson08.mistakes.toml``).
MISTAKES = load_mistakes("lesson08")

# averaged_dual_train: six points, the last one labelled against its neighbours (never separable)
_XN = np.array([[1.0, 2.0], [2.0, 0.5], [-1.0, -1.0], [0.5, -2.0], [-2.0, 1.0], [1.5, 1.5]])
# five separable points: mistakes in four epochs, then a clean epoch that stops training
_XS = np.array([[-1.0, -2.0], [-1.0, 3.0], [-3.0, -1.0], [2.0, 3.0], [2.0, -3.0]])
# margin_dual_train: small integer points, so that y·f hits the threshold exactly
_XM = np.array([[-1.0, 2.0], [-2.0, 0.0], [2.0, 0.0], [-2.0, 1.0], [2.0, 2.0]])
_XT = np.array([[-1.0, -1.0], [0.0, 1.0], [-1.0, 1.0], [1.0, -1.0]])

#: The probes (inputs only).
PROBES = {
    "avg_noisy_K": _XN @ _XN.T, "avg_noisy_y": np.array([1, 1, -1, -1, -1, -1]), "avg_noisy_epochs": 4,
    "avg_separable_K": _XS @ _XS.T, "avg_separable_y": np.array([-1, 1, -1, 1, 1]), "avg_separable_epochs": 10,
    # geometric_margin: (w, b, X, y); a line that separates the points, and one that crosses one of them
    "margin_separator": (np.array([3.0, 4.0]), -2.0,
                         np.array([[2.0, 1.0], [1.0, 2.0], [0.0, 0.0], [-1.0, 0.5], [1.5, 1.5]]),
                         np.array([1, 1, -1, -1, 1])),
    "margin_crossing": (np.array([1.0, -1.0]), 0.5,
                        np.array([[2.0, 0.0], [0.0, 2.0], [1.0, 2.0], [3.0, 1.0]]), np.array([1, -1, 1, 1])),
    # margin_dual_train: (K, y, tau, max_epochs)
    "mp_rule": (_XM @ _XM.T, np.array([1, -1, 1, -1, 1]), 2.0, 20),
    "mp_stop": (_XT @ _XT.T, np.array([-1, 1, -1, 1]), 2.0, 20),
    # choose_sigma: cv_probe() (42 points), the grid, the folds and the seed
    "cv_sigmas": (0.05, 0.3, 1.0, 4.0), "cv_folds": 4, "cv_seed": 0,
    # a grid where two σ (0.3 and 0.3000001) give the same models, hence the same smallest error
    "cv_tie_sigmas": (4.0, 0.3, 1.0, 0.3000001),
}


def cv_probe():
    """The points of the cross-validation probe: 42 points, XOR-like labels, 4 of them flipped."""
    rng = np.random.default_rng(808)
    X = rng.uniform(-1.0, 1.0, size=(42, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)
    return X, np.where(np.isin(np.arange(42), [3, 11, 20, 33]), -y, y)


# ------------------------------------------------------- lesson-specific comparisons
@comparison("l08_identical")
def _identical(value, expected, name, check, probe, answer):
    """The same numbers as another call with the same arguments (``Probe.like``), exactly."""
    if not same(value, expected, rtol=0, atol=0):
        raise AssertionError(f"{name} gave another answer than the same call before")


@comparison("l08_choice")
def _choice(value, expected, name, check, probe, answer):
    """``(best_sigma, cv_scores)``: the first σ of the grid with the smallest of the student's own scores."""
    best, scores = value
    sigmas = probe.args[2]
    scores = as_numbers(scores, (len(sigmas),), f"the cv_scores returned for {len(sigmas)} values of sigma")
    visible = any(p is probe for p in check.probes)
    label = f"with sigmas={fmt(np.array(sigmas))}" if visible else f"on {check.hidden_label}"
    check_grid_choice(best, sigmas, scores, f"choose_sigma {label}", first=True, what="cross-validation error")


# -------------------------------------------------------------------- the table
_P = PROBES
_NOISY = "the 6-point probe (one label against its neighbours, max_epochs=4)"
_SEP = "5 separable points (max_epochs=10)"
_CV = "the 42-point probe (sigmas=(0.05, 0.3, 1, 4), 4 folds, seed 0)"
_CV_ARGS = (_P["cv_sigmas"], _P["cv_folds"], _P["cv_seed"])

AVERAGED = Exercise(
    "averaged_dual_train", "ex1-averaged", "the averaged perceptron (timestamp trick)",
    returns=("alpha_avg", "b_avg"), mistakes=MISTAKES["averaged_dual_train"], checks=[
        Check("ex1-averaged-tests-alpha", part=0, rtol=0, atol=1e-12,
              mistakes=("last", "epochs", "no_plus_one", "zero_based", "over_t1", "mistake_clock"),
              hint="visit the samples 0..n-1 in order, a score y_i f_i <= 0 is a mistake; ᾱ = (α·(T + 1) − τ)/T",
              hidden_label="new noisy data (compared with explicit averaging)",
              probes=[Probe((np.ones((3, 4)), np.array([1, -1, 1]), 2), raises="ValueError",
                            why="K has shape (3, 4) for 3 labels"),
                      Probe((_P["avg_noisy_K"], _P["avg_noisy_y"], _P["avg_noisy_epochs"]), label=_NOISY)]),
        Check("ex1-averaged-tests-bias", compare="number", part=1, rtol=0, atol=1e-12,
              mistakes=("bias_last", "epochs", "no_plus_one", "zero_based", "over_t1", "mistake_clock"),
              hint="the bias is averaged over the T steps like alpha",
              hidden_label="new noisy data (compared with explicit averaging)",
              probes=[Probe((_P["avg_noisy_K"], _P["avg_noisy_y"], _P["avg_noisy_epochs"]), label=_NOISY)]),
        Check("ex1-averaged-tests-stop", compare="counts_bias", rtol=0, atol=1e-12, mistakes=("no_clean",),
              options={"names": ("alpha_avg", "b_avg")}, hidden_label="new separable data",
              hint="stop after the first epoch without a mistake; T counts every visit",
              probes=[Probe((_P["avg_separable_K"], _P["avg_separable_y"], _P["avg_separable_epochs"]),
                            label=_SEP),
                      Probe((_P["avg_separable_K"], _P["avg_separable_y"], 1), compare="counts_only",
                            label="5 separable points with max_epochs=1 (train for at most max_epochs epochs, "
                                  "then average over the steps made)")]),
    ])

MARGIN = Exercise(
    "geometric_margin", "ex2-margin", "the geometric margin", mistakes=MISTAKES["geometric_margin"], checks=[
        Check("ex2-margin-tests", compare="number", rtol=1e-9, atol=1e-12,
              mistakes=("functional", "squared", "norm_b", "no_b", "mean", "max"),
              hint="the margin is min_i y_i (w·x_i + b)/‖w‖", hidden_label="new separators",
              probes=[Probe(_P["margin_separator"], label="w=[3, 4], b=-2 and 5 points all on their side")]),
        Check("ex2-margin-tests-details", compare="number", rtol=1e-9, atol=1e-12, loop_free=True,
              mistakes=("abs", "functional", "squared", "norm_b", "no_b", "mean", "max"),
              hint="the margin is min_i y_i (w·x_i + b)/‖w‖, signed",
              hidden_label="lines that misclassify points (new data)",
              probes=[Probe(_P["margin_crossing"], label="a line that puts one of 4 points on the wrong side"),
                      Probe((np.zeros(2), 1.0, *_P["margin_crossing"][2:]), raises="ValueError",
                            why="w is all zeros: no line, no distance")]),
    ])

MARGIN_TRAIN = Exercise(
    "margin_dual_train", "ex3-margin-perceptron", "the margin perceptron", returns=("alpha", "b"),
    mistakes=MISTAKES["margin_dual_train"], checks=[
        Check("ex3-margin-perceptron-tests", compare="counts_bias", mistakes=("strict", "no_y", "ignore_tau"),
              hidden_label="new data",
              hint="on each visit, update (alpha[i] += 1, b += y_i) when y_i f_i <= tau, with "
                   "f_i = Σ_j alpha_j y_j K[j, i] + b; tau=0 is the plain perceptron",
              probes=[Probe(_P["mp_rule"], label="a 5-point probe with tau=2"),
                      Probe((*_P["mp_rule"][:2], 0.0, _P["mp_rule"][3]),
                            label="a 5-point probe with tau=0 (the plain perceptron)"),
                      Probe((*_P["mp_rule"][:2], -1.0, _P["mp_rule"][3]), raises="ValueError",
                            why="tau is negative (-1)")]),
        Check("ex3-margin-perceptron-tests-stop", compare="counts_bias", mistakes=("stop_mistakes",),
              hidden_label="new separable data",
              hint="stop after the first epoch without an update, or after max_epochs",
              probes=[Probe(_P["mp_stop"], label="4 points with tau=2")]),
    ])

CHOOSE = Exercise(
    "choose_sigma", "ex4-choose-sigma", "the cross-validation", returns=("best_sigma", "cv_scores"),
    mistakes=MISTAKES["choose_sigma"], time_limit=30.0, checks=[
        Check("ex4-choose-sigma-tests", part=1, rtol=0, atol=1e-9,
              mistakes=("whole", "fit_all", "no_shuffle", "one_fold", "weighted", "accuracy"),
              hint="shuffle with default_rng(seed).permutation(n), split with np.array_split, fit "
                   "validation_error on the other folds, measure on each fold, take the mean",
              hidden_label="new data, compared with the exercise's folds",
              probes=[Probe((*cv_probe(), *_CV_ARGS), like=1, compare="l08_identical", mistake="global_rng",
                            label=f"{_CV}, called twice"),
                      Probe((*cv_probe(), *_CV_ARGS), label=_CV),
                      Probe((*cv_probe(), _P["cv_sigmas"], _P["cv_folds"], _P["cv_seed"] + 1), mistake="seed",
                            label="the 42-point probe with seed=1"),
                      Probe((*cv_probe(), _P["cv_sigmas"], 2, _P["cv_seed"]), mistake="n_folds",
                            label="the 42-point probe with n_folds=2")]),
        Check("ex4-choose-sigma-tests-choice", compare="l08_choice", hidden_label="new data",
              probes=[Probe((*cv_probe(), *_CV_ARGS), label=_CV),
                      Probe((*cv_probe(), _P["cv_tie_sigmas"], _P["cv_folds"], _P["cv_seed"]),
                            label="a grid where two σ tie")]),
    ])

LESSON = Lesson("lesson08", [AVERAGED, MARGIN, MARGIN_TRAIN, CHOOSE])
test = LESSON.test
