"""Grader of assignment 08 (margins, the SVM, honest model selection): references and hidden probes.

Hidden inputs are drawn from the per-notebook seed: soft-margin states with coefficients at both
bounds and margins on both sides of the tolerance, Gram matrices and step sequences for Pegasos
(repeats included) with no decision within 1e-6 of the margin, data sets for nested
cross-validation, and mistake logs up to 10^9 steps long.
"""

import math

import numpy as np

from kpcourse.checks import lesson08 as visible
from kpcourse.checks.exercise import Probe
from kpcourse.grading.judge import declared

_shared = declared.shared(__file__)

#: kpcourse (its perceptrons and replay), scikit-learn (its SVM, Nystroem, GridSearchCV) and SciPy.
FORBIDDEN = ("kpcourse", "sklearn", "scipy")


# ----------------------------------------------------------------- references
def _system(K, y, alpha):
    K, y, alpha = np.asarray(K, dtype=float), np.asarray(y, dtype=float), np.asarray(alpha, dtype=float)
    if K.shape != (len(y), len(y)) or alpha.shape != y.shape:
        raise ValueError("K must be (n, n), with one label and one coefficient per point")
    return K, y, alpha


def kkt_violations(K, y, alpha, b, C, tol, mistake=None):
    """The points whose margin m_i = y_i f_i breaks the soft-margin KKT conditions, most violating first."""
    K, y, alpha = _system(K, y, alpha)
    if not C > 0 or not 0 <= tol < 1 or np.any(alpha < 0) or np.any(alpha > C):
        raise ValueError("C > 0, 0 <= tol < 1 and 0 <= alpha <= C")
    m = y * (K @ (alpha * y) + b)
    low = alpha <= (tol if mistake == "tol_scale" else tol * C)
    high = alpha >= ((C - tol) if mistake == "tol_scale" else (1 - tol) * C)
    if mistake == "no_bounds":
        low = high = np.zeros(len(y), dtype=bool)
    size = np.where(low, 1 - m, np.where(high, m - 1, np.abs(m - 1)))
    broken = np.flatnonzero(size > tol)
    if mistake == "unordered":
        return broken
    return broken[np.lexsort((broken, -size[broken]))]


def kernel_pegasos(K, y, lam, steps, mistake=None):
    """Integer α with w_{T+1} = (1/λT) Σ α_j y_j φ(x_j) after the primal Pegasos run on ``steps``."""
    K, y, _ = _system(K, y, np.zeros(len(y)))
    steps = np.asarray(steps)
    if not lam > 0 or steps.ndim != 1 or len(steps) == 0 or np.any(steps < 0) or np.any(steps >= len(y)):
        raise ValueError("lam > 0, and steps a non-empty list of point indices")
    alpha, s = np.zeros(len(y), dtype=np.int64), np.zeros(len(y))  # s = Σ_j α_j y_j K[j, :]
    for t, i in enumerate(steps.tolist(), start=1):
        if mistake == "no_scale":
            margin = y[i] * s[i]
        elif t == 1:
            margin = 0.0
        else:
            margin = y[i] * s[i] / (lam * (t if mistake == "step_count" else t - 1))
        if margin <= 1 if mistake == "le" else margin < 1:
            alpha[i] += 1
            s += y[i] * K[i]
    return alpha


#: The notebook's locked helper (an averaged RBF kernel perceptron), run from the source notebook's own cell.
fit_predict = _shared.locked_cell(__file__, "helper", "fit_predict")


def _error(X, y, fit, test, sigma):
    return float(np.mean(fit_predict(X[fit], y[fit], X[test], sigma) != y[test]))


def nested_cv(X, y, sigmas, k_out, k_in, seed, mistake=None):
    """Outer test errors and the σ chosen in each outer fold by an inner cross-validation on its training part."""
    X, y, sigmas = np.asarray(X, dtype=float), np.asarray(y), np.asarray(sigmas, dtype=float)
    if X.ndim != 2 or y.shape != (len(X),) or len(sigmas) == 0 or np.any(sigmas <= 0):
        raise ValueError("X (n, d), one label per row, and positive sigmas")
    if k_out < 2 or k_in < 2 or k_out * k_in > len(y):
        raise ValueError("k_out, k_in >= 2 and k_out * k_in <= n")
    outer = np.array_split(np.random.default_rng(seed).permutation(len(y)), k_out)
    errors, chosen = [], []
    for o in range(k_out):
        train = np.concatenate([outer[p] for p in range(k_out) if p != o])
        inner = np.array_split(train, k_in) if mistake != "leak" else outer
        scores = []
        for s in sigmas:
            fold_errors = []
            for q in range(len(inner)):
                fit = np.concatenate([inner[p] for p in range(len(inner)) if p != q])
                fold_errors.append(_error(X, y, fit, inner[q], s))
            scores.append(float(np.mean(fold_errors)))
        scores = np.array(scores)
        best = len(scores) - 1 - int(np.argmin(scores[::-1])) if mistake == "last_tie" else int(np.argmin(scores))
        chosen.append(float(sigmas[best]))
        errors.append(_error(X, y, train, outer[o], sigmas[best]))
    return np.array(errors), np.array(chosen)


def ema_average(steps, index, label, n, T, rho, mistake=None):
    """α and b averaged over steps 1..T with weights ρ^(T - t), from the mistake log, in O(mistakes)."""
    steps, index, label = np.asarray(steps, dtype=float), np.asarray(index), np.asarray(label, dtype=float)
    if not (steps.shape == index.shape == label.shape) or steps.ndim != 1:
        raise ValueError("steps, index and label must be three lists of the same length")
    if not 0 < rho <= 1 or T < 1 or np.any(steps < 1) or np.any(steps > T) or np.any(index < 0) or \
            np.any(index >= n):
        raise ValueError("0 < rho <= 1, 1 <= steps <= T and 0 <= index < n")
    if mistake == "rho_one" or rho == 1:
        weight = (T - steps + 1) / T  # the timestamp trick: the share of the steps after each mistake
    else:
        after = T - steps + (0 if mistake == "state_before" else 1)
        weight = -np.expm1(after * math.log(rho))  # 1 - ρ^(T - s + 1)
        if mistake != "no_normalise":
            weight = weight / -math.expm1(T * math.log(rho))
    alpha_bar = np.bincount(index.astype(int), weights=weight, minlength=n)
    return alpha_bar, float(label @ weight)


REFERENCES = {"kkt_violations": kkt_violations, "kernel_pegasos": kernel_pegasos, "nested_cv": nested_cv,
              "ema_average": ema_average}


# --------------------------------------------------------------- hidden probes
def _kkt_state(rng, n, C, tol):
    """A state with coefficients at 0, at C, between and near the bounds, margins on both sides of the
    tolerance (none within 1e-6 of an edge), on which each named mistake gives another answer."""
    for _ in range(1000):
        X = rng.integers(-3, 4, size=(n, 2)) / 2.0
        y = rng.choice([-1.0, 1.0], size=n)
        alpha = rng.choice([0.0, C, C / 2, C / 4, tol * C / 2, 0.75 * tol * C, (1 - 0.75 * tol) * C], size=n)
        b = float(rng.integers(-4, 5)) / 4
        K = X @ X.T
        m = y * (K @ (alpha * y) + b)
        edges = np.r_[1 - tol, 1 + tol]
        right = kkt_violations(K, y, alpha, b, C, tol)
        telling = all(not np.array_equal(kkt_violations(K, y, alpha, b, C, tol, mistake=k), right)
                      for k in ("no_bounds", "unordered", "tol_scale"))
        if np.abs(m[:, None] - edges[None, :]).min() > 1e-6 and telling:
            break
    return Probe((K, y, alpha, b, C, tol))


def _kkt_values(rng):
    return [_kkt_state(rng, int(rng.integers(8, 15)), float(rng.choice([2.0, 10.0])), 0.25) for _ in range(3)]


def _kkt_edges(rng):
    C = float(rng.choice([2.0, 4.0]))
    probe = _kkt_state(rng, 10, C, 0.1)
    K, y, alpha, b, _, _ = probe.args
    return [probe,
            Probe((K, y, alpha + 2 * C, b, C, 0.1), raises="ValueError", why="alpha is above C")]


def _pegasos_clear(rng, K, y, lam, steps):
    """True when no decision of the run lies within 1e-6 of the margin 1 (none hangs on rounding)."""
    alpha, s = np.zeros(len(y)), np.zeros(len(y))
    for t, i in enumerate(steps, start=1):
        if t > 1:
            margin = y[i] * s[i] / (lam * (t - 1))
            if abs(margin - 1) < 1e-6:
                return False
        else:
            margin = 0.0
        if margin < 1:
            alpha[i] += 1
            s += y[i] * K[i]
    return True


def _pegasos_probe(rng, n, T, rbf):
    while True:
        X = rng.normal(size=(n, 2))
        y = np.where(X @ rng.normal(size=2) + rng.normal(scale=0.5, size=n) > 0, 1.0, -1.0)
        Z = np.c_[X, np.ones(n)]
        K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2) if rbf else Z @ Z.T
        lam = float(1 / (n * rng.choice([1.0, 10.0, 100.0])))
        steps = rng.integers(0, n, size=T).tolist()
        right = kernel_pegasos(K, y, lam, steps)
        telling = all(not np.array_equal(kernel_pegasos(K, y, lam, steps, mistake=k), right)
                      for k in ("no_scale", "step_count"))
        if telling and _pegasos_clear(rng, K, y, lam, steps):
            return Probe((K, y, lam, steps))


def _pegasos_quiz(rng):
    return [_pegasos_probe(rng, 20, int(rng.integers(500, 3000)), False), _pegasos_probe(rng, 15, 800, True)]


def _pegasos_steps(rng):
    probe = _pegasos_probe(rng, 12, 400, bool(rng.integers(2)))
    K, y, lam, _ = probe.args
    return [probe, Probe((K, y, -lam, [0, 1]), raises="ValueError", why="lam is negative")]


def _cv_data(rng, n):
    """Two overlapping noisy rings (radii 1 and 0.5), labels +1 outside and -1 inside."""
    r = np.where(np.arange(n) % 2 == 0, 1.0, 0.5) + rng.normal(scale=0.2, size=n)
    t = rng.uniform(0, 2 * np.pi, size=n)
    return np.c_[r * np.cos(t), r * np.sin(t)], np.where(np.arange(n) % 2 == 0, 1, -1)


def _telling(make, mistakes):
    """A nested_cv probe from ``make()`` on which each of ``mistakes`` gives another answer than the
    reference (the last one drawn if none does in 100 tries: still a fair probe, only less telling)."""
    return _shared.telling(make, nested_cv, mistakes, tries=100)


def _nested_values(rng):
    def make():
        X, y = _cv_data(rng, int(rng.integers(41, 70)))
        return Probe((X, y, [0.05, 0.3, 1.0, 4.0], 4, 3, int(rng.integers(1000))))
    return [_telling(make, ("leak", "last_tie"))]


def _nested_inputs(rng):
    def make():
        X, y = _cv_data(rng, int(rng.integers(40, 60)))
        return Probe((X, y, [0.2, 2.0], 3, 4, int(rng.integers(1000))))
    probe = _telling(make, ("leak",))
    return [probe, Probe((*probe.args[:2], [], 3, 3, 0), raises="ValueError", why="sigmas is empty")]


def _log(rng, n, T, mistakes):
    """A mistake log: distinct steps in 1..T (sorted), the point of each mistake and its label."""
    steps = np.unique(rng.integers(1, T + 1, size=mistakes))
    return steps, rng.integers(0, n, size=len(steps)), rng.choice([-1, 1], size=len(steps))


def _ema_small(rng):
    probes = []
    for rho in (0.5, 0.9, 1.0):
        n, T = int(rng.integers(3, 8)), int(rng.integers(20, 60))
        probes.append(Probe((*_log(rng, n, T, int(rng.integers(5, 15))), n, T, rho)))
    return probes


def _ema_large(rng):
    probes = []
    for rho in (0.999, 0.9999999, 1.0):
        n, T = int(rng.integers(10, 50)), int(rng.integers(10**8, 10**9))
        probes.append(Probe((*_log(rng, n, T, 5000), n, T, rho)))
    return [*probes, Probe(([1, 2], [0, 0], [1, 1], 2, 10, 0.0), raises="ValueError", why="rho is 0")]


HIDDEN = {"ex1-kkt-tests-values": _kkt_values, "ex1-kkt-tests-edges": _kkt_edges,
          "ex2-pegasos-tests-runs": _pegasos_quiz, "ex2-pegasos-tests-steps": _pegasos_steps,
          "ex3-nested-tests-values": _nested_values, "ex3-nested-tests-inputs": _nested_inputs,
          "ex4-ema-tests-small": _ema_small, "ex4-ema-tests-large": _ema_large}

visible_data, cells = declared.grader(visible.LESSON, REFERENCES, HIDDEN)
