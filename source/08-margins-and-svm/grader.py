"""Grader of assignment 08 (averaging, margins, honest model selection): hidden tests and references.

Grader-only: never released, never visible to the student's code (the sandbox does
not mount the course folder). ``cells()`` says, for each autograded test cell, which
tests decide its points: the visible tests of ``kpcourse.checks.lesson08`` (replayed
on the student's answers) and hidden tests built here. ``visible_data()`` computes the
data the visible checks hold (expected outputs of their probes and the outputs of
common mistakes); ``python -m kpcourse.grading checks-data 08-margins-and-svm`` writes it
to ``kpcourse/checks/data/lesson08.json`` and a unit test keeps the two equal.

References:

* :func:`averaged_run` — the dual perceptron (samples 0..n-1, a score of 0 is a mistake)
  averaged **explicitly**: α(t) and b(t) are added to running sums after every single
  step. The student writes the timestamp trick ᾱ = (α(T+1) − τ)/T; the hidden tests
  compare it with this brute force on new data, to 1e-12. The common mistakes (averaging
  over epochs, an off-by-one T, a clock that ticks at mistakes only, …) are variants.
* :func:`margin_run` — the dual margin perceptron (update when y·f ≤ τ) and its slips;
  :func:`primal_margin_run`, a separate primal loop, checks it on linear kernels.
* :func:`signed_margin` — min_i y_i (w·x_i + b)/‖w‖ and its slips.
* :func:`cv_scores` — k-fold cross-validation on the training data only, with the folds
  of the exercise (``np.array_split`` of ``default_rng(seed).permutation(n)``) and the
  notebook's model :func:`validation_error` (the averaged RBF kernel perceptron of the
  package, visiting the fitting rows in sorted order). The grader recomputes the folds:
  the procedure, not only its result, is graded, and no test data exists to touch.
"""

import numpy as np

from kpcourse.checks import lesson08 as visible
from kpcourse.checks._core import Call, Test, check_close, expect_raises, fail, fmt, same
from kpcourse.grading.spec import Cell
from kpcourse.grading.testdata import random_separable

FORBIDDEN = ("kpcourse", "sklearn", "scipy")
#: Exercise 4 fits the notebook's model; calling the package's KernelPerceptron directly is fine too.
CV_ALLOW = ("kpcourse.perceptron.KernelPerceptron",)
#: What the sandbox holds besides the checks, data and plots: the model (and scikit-learn, which it
#: builds on, and SVC for Exercise 5).
SANDBOX_ALLOW = ("kpcourse.perceptron", "sklearn", "scipy")


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
    reference). Mistakes: ``"epochs"`` (α averaged over the epoch ends), ``"no_plus_one"``
    ((αT − τ)/T), ``"zero_based"`` (steps stamped from 0), ``"over_t1"`` (divided by T + 1),
    ``"mistake_clock"`` (the clock ticks at mistakes only), ``"last"`` (no averaging),
    ``"bias_last"`` (α averaged, b not), ``"no_clean"`` (the clean last epoch left out of T).
    """
    y = np.asarray(y, dtype=float)
    alphas, biases, ends, mistakes = _log(K, y, max_epochs)
    T, n = alphas.shape
    alpha, b = alphas[-1], biases[-1]
    tau, tau_b = np.zeros(n), 0.0
    for t, i in mistakes:  # the timestamp sums (only the mistake variants use them)
        tau[i] += t
        tau_b += t * y[i]
    if variant == "explicit":
        return alphas.sum(0) / T, float(biases.sum() / T)
    if variant == "epochs":
        idx = np.array(ends) - 1
        return alphas[idx].mean(0), float(biases[idx].mean())
    if variant == "no_plus_one":
        return (alpha * T - tau) / T, float((b * T - tau_b) / T)
    if variant == "zero_based":
        return (alpha * (T + 1) - (tau - alpha)) / T, float((b * (T + 1) - (tau_b - b)) / T)
    if variant == "over_t1":
        return (alpha * (T + 1) - tau) / (T + 1), float((b * (T + 1) - tau_b) / (T + 1))
    if variant == "mistake_clock":
        M = len(mistakes)
        tau_m, tau_mb = np.zeros(n), 0.0
        for k, (_, i) in enumerate(mistakes, start=1):
            tau_m[i] += k
            tau_mb += k * y[i]
        return (alpha * (M + 1) - tau_m) / M, float((b * (M + 1) - tau_mb) / M)
    if variant == "last":
        return alpha.copy(), float(b)
    if variant == "bias_last":
        return alphas.sum(0) / T, float(b)
    if variant == "no_clean":
        T2 = ends[-2] if len(ends) > 1 and not [m for m in mistakes if m[0] > ends[-2]] else T
        return alphas[:T2].sum(0) / T2, float(biases[:T2].sum() / T2)
    raise ValueError(variant)


def timestamp_average(K, y, max_epochs):
    """The timestamp trick itself, ᾱ = (α(T+1) − τ)/T (checked against the explicit average)."""
    y = np.asarray(y, dtype=float)
    alphas, biases, _, mistakes = _log(K, y, max_epochs)
    T, n = alphas.shape
    tau, tau_b = np.zeros(n), 0.0
    for t, i in mistakes:
        tau[i] += t
        tau_b += t * y[i]
    return (alphas[-1] * (T + 1) - tau) / T, float((biases[-1] * (T + 1) - tau_b) / T)


def margin_run(K, y, tau, max_epochs, *, strict=False, no_y=False, ignore_tau=False, stop="updates"):
    """The dual margin perceptron: update when y_i f_i <= tau; ``(alpha, b)``.

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


def primal_margin_run(X, y, tau, max_epochs):
    """The same algorithm written in the primal (w, b), for linear kernels: a separate check."""
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    w, b = np.zeros(X.shape[1]), 0.0
    for _ in range(max_epochs):
        clean = True
        for i in range(len(y)):
            if y[i] * (X[i] @ w + b) <= tau:
                w = w + y[i] * X[i]
                b = b + y[i]
                clean = False
        if clean:
            break
    return w, b


def signed_margin(w, b, X, y, variant="right"):
    """min_i y_i (w·x_i + b)/‖w‖ and its slips."""
    w, X, y = np.asarray(w, dtype=float), np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    s = y * (X @ w + b)
    norm = np.linalg.norm(w)
    with np.errstate(divide="ignore", invalid="ignore"):  # w = 0: the test of a missing ValueError
        return _pick_margin(s, norm, w, b, X, y, variant)


def _pick_margin(s, norm, w, b, X, y, variant):
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
    (a single hold-out fold), ``"weighted"`` (fold errors weighted by fold size).
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


def _differs(right, *mistakes):
    """Each mistake differs from the right answer and from the other mistakes (so each is named)."""
    for k, m in enumerate(mistakes):
        assert not same(right, m), "a common mistake gives the right answer on a probe: change the probe"
        assert not any(same(m, other) for other in mistakes[k + 1:]), "two mistakes look alike on a probe"


AVERAGING_MISTAKES = ("epochs", "no_plus_one", "zero_based", "over_t1", "mistake_clock", "last", "bias_last",
                      "no_clean")
MARGIN_MISTAKES = ("abs", "functional", "mean", "max", "norm_b", "squared", "no_b")
CV_MISTAKES = ("no_shuffle", "whole", "fit_all", "one_fold", "weighted")


def visible_data():
    """Expected outputs and common-mistake outputs of the visible probes."""
    P = visible.PROBES
    # Exercise 1: the noisy probe (never converges) and the separable one (stops)
    avg = {}
    for key in ("noisy", "separable"):
        K, y, E = P[f"avg_{key}_K"], P[f"avg_{key}_y"], P[f"avg_{key}_epochs"]
        right = averaged_run(K, y, E)
        trick = timestamp_average(K, y, E)
        assert np.allclose(trick[0], right[0], rtol=0, atol=1e-12) and abs(trick[1] - right[1]) <= 1e-12
        entry = {"alpha": right[0], "b": right[1]}
        for v in AVERAGING_MISTAKES:
            m = averaged_run(K, y, E, v)
            entry[v] = {"alpha": m[0], "b": m[1]}
        avg[key] = entry
    noisy = avg["noisy"]
    _differs(noisy["alpha"], *[noisy[v]["alpha"] for v in AVERAGING_MISTAKES if v not in ("bias_last", "no_clean")])
    _differs(noisy["b"], *[noisy[v]["b"] for v in AVERAGING_MISTAKES if v not in ("bias_last", "no_clean", "last")])
    _differs(noisy["b"], noisy["bias_last"]["b"])
    sep = avg["separable"]
    _differs(sep["alpha"], sep["no_clean"]["alpha"])
    K, y = P["avg_separable_K"], P["avg_separable_y"]
    avg["one_epoch"] = averaged_run(K, y, 1)[0]
    _differs(avg["one_epoch"], sep["alpha"])

    # Exercise 2: a separator, and a line that misclassifies one point
    margin = {}
    for key in ("separator", "crossing"):
        w, b, X, y = P[f"margin_{key}"]
        margin[key] = {v: signed_margin(w, b, X, y, v) for v in ("right", *MARGIN_MISTAKES)}
    sep_m, cross = margin["separator"], margin["crossing"]
    assert sep_m["right"] > 0 > cross["right"]
    _differs(sep_m["right"], *[sep_m[v] for v in ("functional", "mean", "max", "norm_b", "squared", "no_b")])
    _differs(cross["right"], *[cross[v] for v in MARGIN_MISTAKES])

    # Exercise 3: the update rule and the stopping rule
    mp = {}
    for key in ("rule", "stop"):
        K, y, tau, E = P[f"mp_{key}"]
        right = margin_run(K, y, tau, E)
        mp[key] = {"alpha": right[0], "b": right[1]}
        for name, flags in (("strict", {"strict": True}), ("no_y", {"no_y": True}),
                            ("ignore_tau", {"ignore_tau": True}), ("stop_mistakes", {"stop": "mistakes"})):
            m = margin_run(K, y, tau, E, **flags)
            mp[key][name] = {"alpha": m[0], "b": m[1]}
    _differs(np.append(mp["rule"]["alpha"], mp["rule"]["b"]),
             *[np.append(mp["rule"][v]["alpha"], mp["rule"][v]["b"]) for v in ("strict", "no_y", "ignore_tau")])
    _differs(np.append(mp["stop"]["alpha"], mp["stop"]["b"]),
             np.append(mp["stop"]["stop_mistakes"]["alpha"], mp["stop"]["stop_mistakes"]["b"]))
    K, y, _, E = P["mp_rule"]
    zero = margin_run(K, y, 0.0, E)
    mp["tau0"] = {"alpha": zero[0], "b": zero[1]}

    # Exercise 4: the procedure on the probe, another seed, two folds
    X, y = visible.cv_probe()
    sigmas, k, seed = P["cv_sigmas"], P["cv_folds"], P["cv_seed"]
    right = cv_scores(X, y, sigmas, k, seed)
    cv = {"scores": right, "best": best_of(sigmas, right), "seed1": cv_scores(X, y, sigmas, k, seed + 1),
          "two_folds": cv_scores(X, y, sigmas, 2, seed)}
    for v in CV_MISTAKES:
        cv[v] = cv_scores(X, y, sigmas, k, seed, v)
    _differs(right, *[cv[v] for v in CV_MISTAKES], 1 - right)
    _differs(right, cv["seed1"])
    _differs(cv["two_folds"], right)
    tie_sigmas = P["cv_tie_sigmas"]
    tie = cv_scores(X, y, tie_sigmas, k, seed)
    cv["tie_scores"] = tie
    cv["tie_best"] = best_of(tie_sigmas, tie)
    assert cv["tie_best"] != best_of(tie_sigmas, tie, "last_tie") and cv["tie_best"] != best_of(tie_sigmas, tie,
                                                                                                 "argmax")
    assert best_of(tie_sigmas, 1 - tie) != cv["tie_best"]  # choosing by accuracy gives another σ
    return {"averaged": avg, "margin": margin, "margin_perceptron": mp, "cv": cv}


# ------------------------------------------------------------- hidden tests
def _noisy(n, d, seed, flip=0.15):
    """Overlapping classes (labels of ~15 % of the points redrawn): never separable."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0, 1, -1)
    y[rng.random(n) < flip] *= -1
    return X, y


def _rbf(X, sigma):
    sq = (X ** 2).sum(1)
    return np.exp(-np.maximum(sq[:, None] + sq[None, :] - 2 * X @ X.T, 0.0) / (2 * sigma ** 2))


def _averaged_problems():
    probs = []
    for seed, n, d, E in ((801, 40, 3, 6), (802, 55, 2, 4)):
        X, y = _noisy(n, d, seed)
        probs.append((f"new noisy data ({n} points, linear kernel, max_epochs={E})", X @ X.T, y, E))
    X, y = _noisy(50, 2, 803, flip=0.25)
    probs.append(("new noisy data (RBF kernel, sigma 0.5, max_epochs=5)", _rbf(X, 0.5), y, 5))
    return probs


def _averaged_explicit(part):
    """Explicit averaging (the running sums) on new data: ᾱ (``part="alpha"``) or b̄, to 1e-12."""
    probs = _averaged_problems()
    calls = [Call("averaged_dual_train", K, y, max_epochs=E) for _, K, y, E in probs]
    expected = [averaged_run(K, y, E) for _, K, y, E in probs]

    def judge(answers):
        for a, (name, _, y, _), (ref_alpha, ref_b) in zip(answers, probs, expected, strict=True):
            alpha_avg, b_avg = visible.unpack_averaged(a, len(y))
            if part == "alpha":
                check_close(alpha_avg, ref_alpha, f"alpha_avg on {name} (compared with explicit averaging)",
                            rtol=0, atol=1e-12,
                            hint="alpha_avg is the mean of alpha(t) over all T steps, 1/T Σ_t alpha(t)")
            else:
                check_close(b_avg, ref_b, f"b_avg on {name} (compared with explicit averaging)", rtol=0, atol=1e-12,
                            hint="b_avg is the mean of b(t) over all T steps")
    return Test(calls, judge)


def _averaged_stop():
    cases = []
    for seed, E in ((811, 20), (812, 20), (813, 1), (814, 2)):
        X, y = random_separable(30, 2, random_state=seed)
        cases.append((f"new separable data (max_epochs={E})", X @ X.T, y, E))
    calls = [Call("averaged_dual_train", K, y, max_epochs=E) for _, K, y, E in cases]
    expected = [averaged_run(K, y, E) for _, K, y, E in cases]
    errors = [Call("averaged_dual_train", np.ones((4, 3)), np.array([1, -1, 1, 1]), max_epochs=3)]

    def judge(answers):
        for a, (name, _, y, _), (ref_alpha, ref_b) in zip(answers, cases, expected, strict=False):
            alpha_avg, b_avg = visible.unpack_averaged(a, len(y))
            check_close(alpha_avg, ref_alpha, f"alpha_avg on {name}", rtol=0, atol=1e-12,
                        hint="T counts every visit, the clean epoch that ends training included")
            check_close(b_avg, ref_b, f"b_avg on {name}", rtol=0, atol=1e-12)
        expect_raises(answers[-1], "ValueError", "K has shape (4, 3) for 4 labels")
    return Test(calls + errors, judge)


def _margin_values():
    cases = []
    for seed, n, d, tau in ((821, 12, 2, 0.0), (822, 30, 5, 1.0), (823, 25, 2, 3.0)):
        # separators found by the (margin) perceptron on separable data: every margin is positive
        X, y = random_separable(n, d, margin=0.1, random_state=seed)
        alpha, b = margin_run(X @ X.T, y, tau, 200)
        cases.append(((alpha * y) @ X, b, X, y))
    X, y = np.random.default_rng(824).normal(size=(1, 3)), np.array([-1])  # a single point
    cases.append((np.array([0.5, -1.0, 2.0]), -float(X[0] @ np.array([0.5, -1.0, 2.0])) - 0.7, X, y))
    calls = [Call("geometric_margin", *c) for c in cases]
    expected = [signed_margin(*c) for c in cases]
    assert all(e > 0 for e in expected)

    def judge(answers):
        for a, ref in zip(answers, expected, strict=True):
            got = visible.unpack_margin(a)
            check_close(got, ref, "geometric_margin of new separators", rtol=1e-9, atol=1e-12,
                        hint="the margin is min_i y_i (w·x_i + b) / ‖w‖")
    return Test(calls, judge)


def _margin_details():
    rng = np.random.default_rng(831)
    cases = []
    for k in range(4):
        X = rng.normal(size=(20, 3))
        y = rng.choice(np.array([-1, 1]), size=20)
        w, b = rng.normal(size=3), float(rng.normal())
        cases.append((w * 10 ** (k - 1), b * 10 ** (k - 1), X, y))  # the same lines at other scales
    calls = [Call("geometric_margin", *c) for c in cases]
    expected = [signed_margin(*c) for c in cases]
    errors = [Call("geometric_margin", np.zeros(3), 0.5, cases[0][2], cases[0][3])]

    def judge(answers):
        for a, ref in zip(answers, expected, strict=False):
            got = visible.unpack_margin(a)
            check_close(got, ref, "geometric_margin of lines that misclassify points (new data)", rtol=1e-9,
                        atol=1e-12, hint="the margin is signed: a misclassified point gives a negative margin")
        expect_raises(answers[-1], "ValueError", "w is all zeros (and b is not)")
    return Test(calls + errors, judge)


def _margin_perceptron_problems():
    probs = []
    for seed, tau in ((841, 0.5), (842, 2.0), (843, 0.0)):
        X, y = random_separable(30, 2, margin=0.15, random_state=seed)
        probs.append((f"new separable data, linear kernel, tau={tau:g}", X, X @ X.T, y, tau))
    X, y = _noisy(40, 2, 844)
    probs.append(("new noisy data, RBF kernel, tau=0.5", None, _rbf(X, 0.7), y, 0.5))
    return probs


def _margin_perceptron_rule():
    probs = _margin_perceptron_problems()
    calls = [Call("margin_dual_train", K, y, tau, max_epochs=50) for _, _, K, y, tau in probs]
    expected = [margin_run(K, y, tau, 50) for _, _, K, y, tau in probs]
    primal = [primal_margin_run(X, y, tau, 50) if X is not None else None for _, X, _, y, tau in probs]

    def judge(answers):
        for a, (name, X, _, y, _), (ref_alpha, ref_b), p in zip(answers, probs, expected, primal, strict=True):
            alpha, b = visible.unpack_margin_train(a, len(y))
            check_close(alpha, ref_alpha, f"alpha on {name}",
                        hint="update on sample i (alpha[i] += 1, b += y_i) whenever y_i f_i <= tau")
            check_close(b, ref_b, f"b on {name}")
            if p is not None:
                check_close((alpha * y) @ X, p[0], f"the primal w = Σ_i alpha_i y_i x_i on {name} (compared "
                            "with the margin perceptron written with w)")
    return Test(calls, judge)


def _margin_perceptron_stop():
    cases = []
    for seed, tau, E in ((851, 1.0, 100), (852, 3.0, 2), (853, 0.25, 1)):
        X, y = random_separable(25, 3, margin=0.1, random_state=seed)
        cases.append((f"new separable data (tau={tau:g}, max_epochs={E})", X @ X.T, y, tau, E))
    calls = [Call("margin_dual_train", K, y, tau, max_epochs=E) for _, K, y, tau, E in cases]
    expected = [margin_run(K, y, tau, E) for _, K, y, tau, E in cases]
    errors = [Call("margin_dual_train", np.eye(3), np.array([1, -1, 1]), -0.5, max_epochs=5)]

    def judge(answers):
        for a, (name, _, y, _, _), (ref_alpha, ref_b) in zip(answers, cases, expected, strict=False):
            alpha, b = visible.unpack_margin_train(a, len(y))
            check_close(np.append(alpha, b), np.append(ref_alpha, ref_b), f"(alpha, b) on {name}",
                        hint="training stops after the first epoch without an update, or after max_epochs")
        expect_raises(answers[-1], "ValueError", "tau is negative")
    return Test(calls + errors, judge)


def _cv_problems():
    probs = []
    for seed, n, k, sigmas in ((861, 45, 4, (0.1, 0.4, 1.5, 6.0)), (862, 38, 5, (0.2, 0.8, 3.0))):
        rng = np.random.default_rng(seed)
        X = rng.normal(size=(n, 2))
        y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)  # XOR-like: the width matters
        y[rng.random(n) < 0.1] *= -1
        probs.append((f"new data ({n} points, {k} folds, seed={seed})", X, y, sigmas, k, seed))
    return probs


def _cv_scores_hidden():
    """The procedure on new data: the grader rebuilds the folds and refits every model."""
    probs = _cv_problems()
    calls = [Call("choose_sigma", X, y, sigmas, n_folds=k, seed=seed) for _, X, y, sigmas, k, seed in probs]

    def judge(answers):  # the references are computed here, when judged (fitting loads torch)
        problems = []
        for a, (name, X, y, sigmas, k, seed) in zip(answers, probs, strict=True):
            _, scores = visible.unpack_cv(a, len(sigmas))
            if not same(scores, cv_scores(X, y, sigmas, k, seed), rtol=0, atol=1e-9):
                problems.append(f"the cross-validation errors on {name} are not those of the exercise's folds "
                                f"(you returned {fmt(scores)}): split np.random.default_rng(seed).permutation(n) "
                                "with np.array_split, fit on the other folds, measure on each fold, average the "
                                "n_folds error rates")
        fail("choose_sigma", problems)
    return Test(calls, judge, time_limit=30.0)


def _cv_choice_hidden():
    """The choice rule on new data and grids with ties, judged against the scores returned."""
    probs = _cv_problems()
    calls = [Call("choose_sigma", X, y, sigmas, n_folds=k, seed=seed) for _, X, y, sigmas, k, seed in probs]
    # grids with a repeated width (to 1e-9): a tie between two σ whatever the scores
    _, X, y, _, k, seed = probs[0]
    tied = [(0.4, 6.0, 0.4 + 1e-9, 1.5), (6.0, 0.1, 0.1 * (1 + 1e-9))]
    calls += [Call("choose_sigma", X, y, grid, n_folds=k, seed=seed) for grid in tied]
    grids = [p[3] for p in probs] + tied

    def judge(answers):
        for a, (name, *_), grid in zip(answers, [*probs, *[("a grid with a tie",)] * len(tied)], grids, strict=True):
            best, scores = visible.unpack_cv(a, len(grid))
            visible.check_choice(best, grid, scores, f"choose_sigma on {name}")
    return Test(calls, judge, time_limit=30.0)


def cells():
    """The tests that decide each autograded cell of assignment 08."""
    avg, mar = "the averaged perceptron (timestamp trick)", "the geometric margin"
    mp, cv = "the margin perceptron", "the cross-validation"
    return {
        "ex1-averaged-tests-alpha": Cell("ex1-averaged", avg,
                                         [*visible.averaged_tests("alpha"), _averaged_explicit("alpha")]),
        "ex1-averaged-tests-bias": Cell("ex1-averaged", avg,
                                        [*visible.averaged_tests("bias"), _averaged_explicit("bias")]),
        "ex1-averaged-tests-stop": Cell("ex1-averaged", avg, [*visible.averaged_tests("stop"), _averaged_stop()]),
        "ex2-margin-tests": Cell("ex2-margin", mar, [*visible.margin_tests("value"), _margin_values()]),
        "ex2-margin-tests-details": Cell("ex2-margin", mar, [*visible.margin_tests("details"), _margin_details()],
                                         loop_free=("geometric_margin",)),
        "ex3-margin-perceptron-tests": Cell("ex3-margin-perceptron", mp,
                                            [*visible.margin_train_tests("rule"), _margin_perceptron_rule()]),
        "ex3-margin-perceptron-tests-stop": Cell("ex3-margin-perceptron", mp,
                                                 [*visible.margin_train_tests("stop"), _margin_perceptron_stop()]),
        "ex4-choose-sigma-tests": Cell("ex4-choose-sigma", cv, [*visible.cv_tests("scores"), _cv_scores_hidden()],
                                       allow=CV_ALLOW),
        "ex4-choose-sigma-tests-choice": Cell("ex4-choose-sigma", cv,
                                              [*visible.cv_tests("choice"), _cv_choice_hidden()], allow=CV_ALLOW),
    }
