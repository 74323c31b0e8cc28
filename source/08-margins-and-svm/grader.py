"""Grader of assignment 08 (averaging, margins, honest model selection): references and hidden probes.

Grader-only; the exercises are declared in ``kpcourse.checks.lesson08``.
"""

import numpy as np

from kpcourse.checks import lesson08 as visible
from kpcourse.checks.exercise import Probe
from kpcourse.grading.judge import declared
from kpcourse.grading.judge.testdata import new_seed, random_separable

_shared = declared.shared(__file__)
kept = _shared.kept

FORBIDDEN = ("kpcourse", "sklearn", "scipy")
#: Exercise 4 fits the notebook's model; calling the package's KernelPerceptron directly is fine too.
CV_ALLOW = ("kpcourse.perceptron.KernelPerceptron",)
#: What the sandbox holds besides the checks, data and plots: the model (and scikit-learn, which it
#: builds on, and SVC for Exercise 5).
SANDBOX_ALLOW = ("kpcourse.perceptron", "sklearn", "scipy")
OPTIONS = {"ex4-choose-sigma-tests": {"allow": CV_ALLOW}, "ex4-choose-sigma-tests-choice": {"allow": CV_ALLOW}}


# ----------------------------------------------------------------- references
def _log(K, y, max_epochs):
    """The plain dual run (0..n-1, y f <= 0 is a mistake): per step, the counts and the bias.

    Returns ``(alphas, biases, epoch_ends, mistakes)``: α(t) and b(t) after each step t = 1..T
    (arrays of shape (T, n) and (T,)), the steps that end an epoch, and the list of
    ``(t, i)`` for each mistake.
    """
    K, y = np.asarray(K, dtype=float), np.asarray(y)
    n = len(y)
    alpha, b, t = np.zeros(n), 0.0, 0
    alphas, biases, ends, mistakes = [], [], [], []
    for _ in range(max_epochs):
        made = 0
        for i in range(n):
            t += 1
            if y[i] * (np.dot(alpha * y, K[:, i]) + b) <= 0:
                alpha[i] += 1
                b += y[i]
                mistakes.append((t, i))
                made += 1
            alphas.append(alpha.copy())
            biases.append(b)
        ends.append(t)
        if made == 0:
            break
    return np.array(alphas), np.array(biases), ends, mistakes


def averaged_run(K, y, max_epochs, variant="explicit"):
    """``(alpha_avg, b_avg)`` of the averaged dual perceptron; ``variant`` names a common mistake.

    ``"explicit"``: the running sums of α(t), b(t) over every step, divided by T (the
    reference). The student writes the timestamp trick ᾱ = (α(T+1) − τ)/T; the hidden tests
    compare it with this brute force on new data, to 1e-12 (the tests check the trick too).
    Mistakes: ``"epochs"`` (α averaged over the epoch ends), ``"no_plus_one"``
    ((αT − τ)/T), ``"zero_based"`` (steps stamped from 0), ``"over_t1"`` (divided by T + 1),
    ``"mistake_clock"`` (the clock ticks at mistakes only), ``"last"`` (no averaging),
    ``"bias_last"`` (α averaged, b not), ``"no_clean"`` (the clean last epoch left out of T).
    """
    y = np.asarray(y, dtype=float)
    alphas, biases, ends, mistakes = _log(K, y, max_epochs)
    (T, n), M = alphas.shape, len(mistakes)
    alpha, b = alphas[-1], biases[-1]
    if variant in ("explicit", "bias_last"):
        return alphas.sum(0) / T, float(biases.sum() / T if variant == "explicit" else b)
    if variant == "epochs":
        idx = np.array(ends) - 1
        return alphas[idx].mean(0), float(biases[idx].mean())
    if variant == "last":
        return alpha.copy(), float(b)
    if variant == "no_clean":
        T2 = ends[-2] if len(ends) > 1 and not [m for m in mistakes if m[0] > ends[-2]] else T
        return alphas[:T2].sum(0) / T2, float(biases[:T2].sum() / T2)
    # the timestamp trick's slips, (α·c − τ)/D: τ sums the stamps of each sample's mistakes, τ_b those times y_i
    c, D = {"no_plus_one": (T, T), "zero_based": (T + 1, T), "over_t1": (T + 1, T + 1),
            "mistake_clock": (M + 1, M)}[variant]
    stamps = range(1, M + 1) if variant == "mistake_clock" else [t for t, _ in mistakes]
    tau, tau_b = np.zeros(n), 0.0
    for t, (_, i) in zip(stamps, mistakes, strict=True):
        tau[i] += t
        tau_b += t * y[i]
    if variant == "zero_based":
        tau, tau_b = tau - alpha, tau_b - b
    return (alpha * c - tau) / D, float((b * c - tau_b) / D)


def margin_run(K, y, tau, max_epochs, *, strict=False, no_y=False, ignore_tau=False, stop="updates"):
    """The dual margin perceptron: update when y_i f_i <= tau; ``(alpha, b)``.

    The tests check it against a separate primal loop on linear kernels.

    Mistakes: ``strict`` (y f < τ), ``no_y`` (f <= τ, the label forgotten), ``ignore_tau``
    (the plain perceptron, y f <= 0), ``stop="mistakes"`` (stops after an epoch without a
    *mistake* y f <= 0, although updates happened).
    """
    K, y = np.asarray(K, dtype=float), np.asarray(y)
    n = len(y)
    alpha, b = np.zeros(n, dtype=np.int64), 0.0
    limit = 0.0 if ignore_tau else tau
    for _ in range(max_epochs):
        updates = mistakes = 0
        for i in range(n):
            f = np.dot(alpha * y, K[:, i]) + b
            s = f if no_y else y[i] * f
            if (s < limit) if strict else (s <= limit):
                alpha[i] += 1
                b += y[i]
                updates += 1
            if y[i] * f <= 0:
                mistakes += 1
        if (updates if stop == "updates" else mistakes) == 0:
            break
    return alpha, float(b)


def signed_margin(w, b, X, y, variant="right"):
    """min_i y_i (w·x_i + b)/‖w‖ and its slips."""
    w, X, y = np.asarray(w, dtype=float), np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    s, norm = y * (X @ w + b), np.linalg.norm(w)
    with np.errstate(divide="ignore", invalid="ignore"):  # w = 0: the test of a missing ValueError
        return float({"right": s.min() / norm, "abs": np.abs(s).min() / norm, "functional": s.min(),
                      "mean": s.mean() / norm, "max": s.max() / norm,
                      "norm_b": s.min() / np.linalg.norm(np.append(w, b)), "squared": s.min() / norm ** 2,
                      "no_b": (y * (X @ w)).min() / norm}[variant])


def validation_error(X_fit, y_fit, X_val, y_val, sigma):
    """The notebook's model (its setup cell defines the same function): validation error rate of the
    averaged RBF kernel perceptron, 5 epochs, fitted on the rows of X_fit in sorted order."""
    from kpcourse.perceptron import KernelPerceptron  # torch: loaded only when Exercise 4 is judged

    X_fit, y_fit = np.asarray(X_fit, dtype=float), np.asarray(y_fit)
    order = np.lexsort(X_fit.T[::-1])
    model = KernelPerceptron(kernel="rbf", sigma=sigma, mode="averaged", max_epochs=5, shuffle=False,
                             device="cpu").fit(X_fit[order], y_fit[order])
    return float(np.mean(model.predict(np.asarray(X_val, dtype=float)) != np.asarray(y_val)))


def folds_of(n, n_folds, seed, shuffle=True):
    """The exercise's folds: ``np.array_split`` of ``default_rng(seed).permutation(n)``."""
    order = np.random.default_rng(seed).permutation(n) if shuffle else np.arange(n)
    return np.array_split(order, n_folds)


def cv_scores(X, y, sigmas, n_folds, seed, variant="right"):
    """Mean validation error per σ over the folds; ``variant`` names a common mistake.

    ``"no_shuffle"`` (folds in file order), ``"whole"`` (fitted and measured on all the
    data), ``"fit_all"`` (fitted on all the data, measured on each fold), ``"one_fold"``
    (a single hold-out fold), ``"weighted"`` (fold errors weighted by fold size). The grader
    recomputes the folds: the procedure, not only its result, is graded, and no test data exists to touch.
    """
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    n = len(y)
    folds = folds_of(n, n_folds, seed, shuffle=variant != "no_shuffle")
    out = []
    for s in sigmas:
        if variant == "whole":
            out.append(validation_error(X, y, X, y, s))
            continue
        errs, sizes = [], []
        for fold in folds:
            rest = np.setdiff1d(np.arange(n), fold)
            fit = np.arange(n) if variant == "fit_all" else rest
            errs.append(validation_error(X[fit], y[fit], X[fold], y[fold], s))
            sizes.append(len(fold))
            if variant == "one_fold":
                break
        out.append(float(np.average(errs, weights=sizes if variant == "weighted" else None)))
    return np.array(out)


def best_of(sigmas, scores, variant="right"):
    """The chosen σ: the first with the smallest score (``"argmax"``, ``"last_tie"``: slips)."""
    scores = np.asarray(scores)
    if variant == "argmax":
        return float(sigmas[int(np.argmax(scores))])
    if variant == "last_tie":
        return float(sigmas[len(scores) - 1 - int(np.argmin(scores[::-1]))])
    return float(sigmas[int(np.argmin(scores))])


# ---------------------------------------------------- the exercises' references
def averaged_dual_train(K, y, max_epochs=10, mistake=None):
    K = np.asarray(K, dtype=float)
    if K.shape != (len(y), len(y)):
        raise ValueError("K must be square, one row per label")
    return averaged_run(K, y, max_epochs, mistake or "explicit")


def geometric_margin(w, b, X, y, mistake=None):
    if not np.any(w):
        raise ValueError("w is all zeros")
    return signed_margin(w, b, X, y, mistake or "right")


def margin_dual_train(K, y, tau, max_epochs=100, mistake=None):
    K = np.asarray(K, dtype=float)
    if K.shape != (len(y), len(y)) or tau < 0:
        raise ValueError("K must be (n, n) and tau >= 0")
    flags = {"strict": {"strict": True}, "no_y": {"no_y": True}, "ignore_tau": {"ignore_tau": True},
             "stop_mistakes": {"stop": "mistakes"}}.get(mistake, {})
    return margin_run(K, y, tau, max_epochs, **flags)


_cv = kept(cv_scores)  # each named mistake asks again


def choose_sigma(X_train, y_train, sigmas, n_folds=5, seed=0, mistake=None):
    if mistake == "global_rng":
        seed = int(np.random.default_rng().integers(2**31))
    seed = 0 if mistake == "seed" else seed
    n_folds = 4 if mistake == "n_folds" else n_folds
    variant = mistake if mistake in ("no_shuffle", "whole", "fit_all", "one_fold", "weighted") else "right"
    scores = _cv(X_train, y_train, sigmas, n_folds, seed, variant)
    return best_of(sigmas, scores), (1 - scores if mistake == "accuracy" else scores)


REFERENCES = {"averaged_dual_train": averaged_dual_train, "geometric_margin": geometric_margin,
              "margin_dual_train": margin_dual_train, "choose_sigma": choose_sigma}


# --------------------------------------------------------------- hidden probes
def _noisy(n, d, seed, flip=0.15):
    """Overlapping classes (labels of ~15 % of the points redrawn): never separable."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0, 1, -1)
    y[rng.random(n) < flip] *= -1
    return X, y


def _linear(data, *args, max_epochs):
    """A probe of a trainer on the linear Gram matrix of ``data = (X, y)``."""
    X, y = data
    return Probe((X @ X.T, y, *args), {"max_epochs": max_epochs})


def _averaged_noisy(rng):
    probes = [_linear(_noisy(n, d, new_seed(rng)), max_epochs=E) for n, d, E in ((40, 3, 6), (55, 2, 4))]
    X, y = _noisy(50, 2, new_seed(rng), flip=0.25)
    return [*probes, Probe((_shared.rbf(X, X, 0.5), y), {"max_epochs": 5})]


def _averaged_stop(rng):
    return [*(_linear(random_separable(30, 2, random_state=new_seed(rng)), max_epochs=E) for E in (20, 20, 1, 2)),
            Probe((np.ones((4, 3)), np.array([1, -1, 1, 1])), {"max_epochs": 3}, raises="ValueError",
                  why="K has shape (4, 3) for 4 labels")]


def _margin_values(rng):
    probes = []
    for n, d, tau in ((12, 2, 0.0), (30, 5, 1.0), (25, 2, 3.0)):
        # separators found by the (margin) perceptron on separable data: every margin is positive
        X, y = random_separable(n, d, margin=0.1, random_state=new_seed(rng))
        alpha, b = margin_run(X @ X.T, y, tau, 200)
        probes.append(Probe(((alpha * y) @ X, b, X, y)))
    X, w = rng.normal(size=(1, 3)), np.array([0.5, -1.0, 2.0])  # a single point
    return [*probes, Probe((w, -float(X[0] @ w) - 0.7, X, np.array([-1])))]


def _margin_details(rng):
    probes = []
    for k in range(4):
        X, y = rng.normal(size=(20, 3)), rng.choice(np.array([-1, 1]), size=20)
        w, b = rng.normal(size=3), float(rng.normal())
        probes.append(Probe((w * 10 ** (k - 1), b * 10 ** (k - 1), X, y)))  # the same lines at other scales
    return [*probes, Probe((np.zeros(3), 0.5, X, y), raises="ValueError", why="w is all zeros (and b is not)")]


def _margin_rule(rng):
    probes = [_linear(random_separable(30, 2, margin=0.15, random_state=new_seed(rng)), tau, max_epochs=50)
              for tau in (0.5, 2.0, 0.0)]
    X, y = _noisy(40, 2, new_seed(rng))
    return [*probes, Probe((_shared.rbf(X, X, 0.7), y, 0.5), {"max_epochs": 50})]


def _margin_stop(rng):
    return [*(_linear(random_separable(25, 3, margin=0.1, random_state=new_seed(rng)), tau, max_epochs=E)
              for tau, E in ((1.0, 100), (3.0, 2), (0.25, 1))),
            Probe((np.eye(3), np.array([1, -1, 1]), -0.5), {"max_epochs": 5}, raises="ValueError",
                  why="tau is negative")]


def _cv_data(rng, n):
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)  # XOR-like: the width matters
    y[rng.random(n) < 0.1] *= -1
    return X, y


def _cv_scores(rng):
    return [Probe((*_cv_data(rng, n), sigmas), {"n_folds": k, "seed": new_seed(rng) % 1000})
            for n, k, sigmas in ((45, 4, (0.1, 0.4, 1.5, 6.0)), (38, 5, (0.2, 0.8, 3.0)))]


def _cv_choice(rng):
    probes = _cv_scores(rng)
    # grids with a repeated width (to 1e-9): a tie between two σ whatever the scores
    X, y, _ = probes[0].args
    return [*probes, *[Probe((X, y, grid), probes[0].kwargs)
                       for grid in ((0.4, 6.0, 0.4 + 1e-9, 1.5), (6.0, 0.1, 0.1 * (1 + 1e-9)))]]


HIDDEN = {"ex1-averaged-tests-alpha": _averaged_noisy, "ex1-averaged-tests-bias": _averaged_noisy,
          "ex1-averaged-tests-stop": _averaged_stop, "ex2-margin-tests": _margin_values,
          "ex2-margin-tests-details": _margin_details, "ex3-margin-perceptron-tests": _margin_rule,
          "ex3-margin-perceptron-tests-stop": _margin_stop, "ex4-choose-sigma-tests": _cv_scores,
          "ex4-choose-sigma-tests-choice": _cv_choice}

visible_data, cells = declared.grader(visible.LESSON, REFERENCES, HIDDEN, OPTIONS)
