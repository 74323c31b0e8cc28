"""Grader of assignment 02 (the perceptron by hand): references and hidden probes.

Every hidden input is drawn from the per-notebook seed (none is a fixed data set): dyadic
numbers where a count is decided at an exact multiple (exercise 1), integer points where
states are compared exactly (exercise 3), integer points in general position (exercise 4).
"""

import itertools

import numpy as np

from kpcourse.checks import lesson02 as visible
from kpcourse.checks.exercise import Probe
from kpcourse.grading.judge import declared
from kpcourse.grading.judge.testdata import random_separable

#: kpcourse (its perceptron and datasets), scikit-learn and SciPy (linprog).
FORBIDDEN = ("kpcourse", "sklearn", "scipy")


# ----------------------------------------------------------------- references
def _points(X, y):
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    if X.ndim != 2 or y.shape != (len(X),):
        raise ValueError("X must be 2-D with one label per row")
    return X, y


def repeats_to_fix(w, b, X, y, learning_rate, mistake=None):
    """For each point, the number of updates on it alone after which y(w·x + b) > 0, or a mistake's."""
    X, y = _points(X, y)
    w = np.asarray(w, dtype=float)
    if X.shape[1] != w.shape[0] or learning_rate <= 0:
        raise ValueError("X must have len(w) columns and the learning rate must be positive")
    score = (X @ w + b) * (1.0 if mistake == "no_label" else y)
    gain = learning_rate * (np.sum(X * X, axis=1) + (0.0 if mistake == "no_one" else 1.0))
    if mistake == "flag":
        return (score <= 0).astype(np.int64)
    if mistake == "strict":
        return np.where(score >= 0, 0, np.ceil(-score / gain)).astype(np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        count = np.where(score > 0, 0.0, np.floor(-score / gain) + 1)
    return count.astype(np.int64) if np.all(np.isfinite(count)) else None


def novikoff_slack(X, y, order, u, learning_rate, mistake=None):
    """(w̃_k·u - ηkγ, η²kR² - ||w̃_k||²) after each update k of ``order``, x̃ = (x, 1), or a mistake's."""
    X, y = _points(X, y)
    Xt, u = np.c_[X, np.ones(len(X))], np.asarray(u, dtype=float)
    if u.shape != (Xt.shape[1],) or abs(np.linalg.norm(u) - 1.0) > 1e-9:
        raise ValueError("u must be a unit vector with one entry per coordinate of (x, 1)")
    gamma = np.min(y * (Xt @ u))
    if gamma <= 0:
        raise ValueError("u does not separate the points")
    R2 = np.max(np.sum((X if mistake == "no_constant" else Xt) ** 2, axis=1))
    order = np.asarray(order, dtype=int).reshape(-1)
    steps = learning_rate * y[order, None] * Xt[order]
    W = np.cumsum(steps, axis=0)
    if mistake == "before":
        W = W - steps
    k = np.arange(len(order)) + (0 if mistake == "from_zero" else 1)
    progress = W @ u - learning_rate * k * gamma
    room = (learning_rate if mistake == "eta_once" else learning_rate ** 2) * k * R2 - np.sum(W * W, axis=1)
    return (room, progress) if mistake == "swapped" else (progress, room)


def cycle_of(X, y, max_epochs, mistake=None):
    """(μ, λ, mistakes per period) of the end-of-epoch states, η = 1, or None; or a mistake's."""
    X, y = _points(X, y)
    if max_epochs < 1:
        raise ValueError("max_epochs must be at least 1")
    w, b = np.zeros(X.shape[1]), 0.0
    seen, made = ({} if mistake == "from_one" else {(b, *w): 0}), [0]
    for epoch in range(1, max_epochs + 1):
        made.append(0)
        for i in range(len(X)):
            s = y[i] * (X[i] @ w + b)
            if s < 0 or (s == 0 and mistake != "sign0"):
                w, b = w + y[i] * X[i], b + y[i]
                made[-1] += 1
        state = (b, *w)
        if state in seen:
            mu = seen[state]
            mistakes = sum(made[1 if mistake == "total" else mu + 1:])
            return (epoch if mistake == "repeat_epoch" else mu), epoch - mu, int(mistakes)
        seen[state] = epoch
    return None


def _in_triangle(X, one, three):
    """(j, triangle, weights): a point of ``one`` inside a triangle of points of ``three``, or None."""
    for j, tri in itertools.product(one, itertools.combinations(three, 3)):
        A = np.vstack([X[list(tri)].T, np.ones(3)])
        if abs(np.linalg.det(A)) > 1e-12:
            c = np.linalg.solve(A, np.r_[X[j], 1.0])
            if c.min() >= 0:
                return [j], list(tri), c.tolist()
    return None


def _crossing(X, plus, minus):
    """(p, s, n, t): a segment between two +1 points that crosses one between two -1 points, or None."""
    for p, n in itertools.product(itertools.combinations(plus, 2), itertools.combinations(minus, 2)):
        M = np.c_[X[p[1]] - X[p[0]], X[n[0]] - X[n[1]]]
        if abs(np.linalg.det(M)) > 1e-12:
            s, t = np.linalg.solve(M, X[n[0]] - X[p[0]])
            if 0 <= s <= 1 and 0 <= t <= 1:
                return list(p), [float(1 - s), float(s)], list(n), [float(1 - t), float(t)]
    return None


def separation_certificate(X, y, mistake=None):
    """A certificate (plus, lam, minus, mu) that no line separates the classes, or None (points in
    general position: a point inside a triangle of the other class, or two crossing segments)."""
    X, y = _points(X, y)
    if X.shape[1] != 2:
        raise ValueError("the points must lie in the plane")
    plus, minus = np.flatnonzero(y > 0).tolist(), np.flatnonzero(y < 0).tolist()
    found = _in_triangle(X, minus, plus)
    if found:
        return found[1], found[2], found[0], [1.0]
    found = _in_triangle(X, plus, minus)
    if found:
        return found[0], [1.0], found[1], found[2]
    return _crossing(X, plus, minus)


REFERENCES = {"repeats_to_fix": repeats_to_fix, "novikoff_slack": novikoff_slack, "cycle_of": cycle_of,
              "separation_certificate": separation_certificate}


# --------------------------------------------------------------- hidden probes
def _dyadic(rng, shape, low=-8, high=9):
    """Multiples of 1/4: scores and gains exact in floating point."""
    return rng.integers(low, high, size=shape) / 4


def _repeats(rng, n, d):
    """n points and one of them at a score of exactly -j·gain (j from 0 to 5), set through the bias."""
    w, X, y = _dyadic(rng, d), _dyadic(rng, (n, d)), rng.choice([-1, 1], size=n)
    lr = float(rng.choice([2.0 ** -3, 0.25, 0.5, 2.0]))
    i, j = int(rng.integers(n)), int(rng.integers(0, 6))
    b = -j * lr * (X[i] @ X[i] + 1) * y[i] - X[i] @ w  # y_i (w·x_i + b) = -j·gain_i, exact
    return w, float(b), X, y, lr


def _repeat_values(rng):
    return [Probe(_repeats(rng, n, d)) for n, d in ((12, 2), (20, 4), (6, 1), (9, 3))]


def _repeat_large(rng):
    """About 2**40 updates. Every ||x||² + 1 is a power of 2, so that -score/gain is exact in floating point."""
    lr = 2.0 ** -int(rng.integers(18, 24))
    X = rng.choice([-1.0, 0.0, 1.0], size=(10, 3))
    X[np.sum(X != 0, axis=1) == 2, 0] = 0.0  # 0, 1 or 3 coordinates of ±1: ||x||² + 1 is 1, 2 or 4
    w = _dyadic(rng, 3) * 2 ** 10
    return [Probe((w, -float(rng.integers(1, 9)) * 2 ** 22, X, rng.choice([-1, 1], size=10), lr))]


def _run(X, y, lr, max_epochs=1000):
    """The points of a perceptron run's updates, in order, and its final (w, b) as a unit vector."""
    w, b, order = np.zeros(X.shape[1]), 0.0, []
    for _ in range(max_epochs):
        before = len(order)
        for i in range(len(X)):
            if y[i] * (X[i] @ w + b) <= 0:
                w, b = w + lr * y[i] * X[i], b + lr * y[i]
                order.append(i)
        if len(order) == before:
            break
    u = np.r_[w, b]
    return order, u / np.linalg.norm(u)


def _novikoff_values(rng):
    probes = []
    for n, d in ((15, 2), (25, 3), (20, 2)):
        X, y = random_separable(n, d, random_state=rng)
        lr = float(rng.choice([0.25, 1.0, 3.0]))
        order, u = _run(X, y, lr)
        probes.append(Probe((X, y, order, u, lr)))
    return probes


def _novikoff_forged(rng):
    X, y = random_separable(10, 2, random_state=rng)
    _, u = _run(X, y, 1.0)
    return [Probe((X, y, rng.integers(0, 10, size=m).tolist(), u, lr)) for m, lr in ((6, 0.5), (15, 2.0))]


def _novikoff_inputs(rng):
    X, y = random_separable(6, 2, random_state=rng)
    order, u = _run(X, y, 1.0)
    return [Probe((X.tolist(), y.tolist(), order, u.tolist(), 1.0)), Probe((X, y, [], u, 0.5)),
            Probe((X, y, order, 1.5 * u, 1.0), raises="ValueError", why="u is not a unit vector"),
            Probe((X, y, order, -u, 1.0), raises="ValueError", why="u does not separate the points")]


def _integer_points(rng, n):
    while True:
        X = rng.integers(-3, 4, size=(n, 2)).astype(float)
        if len({tuple(x) for x in X}) == n:
            return X, rng.choice([-1, 1], size=n)


def _cycle_values(rng):
    return [Probe((*_integer_points(rng, int(rng.integers(5, 10))), 2000)) for _ in range(4)]


def _cycle_limits(rng):
    probes = []
    while len(probes) < 2:  # a limit one epoch short of the repeat, and the limit at the repeat
        X, y = _integer_points(rng, int(rng.integers(4, 8)))
        found = cycle_of(X, y, 2000)
        if found and sum(found[:2]) > 2:
            probes = [Probe((X, y, sum(found[:2]) - 1)), Probe((X, y, sum(found[:2])))]
    X, y = random_separable(12, 2, random_state=rng)
    return [*probes, Probe((np.round(X * 4), y, 1000)),
            Probe((X, y[:-1], 10), raises="ValueError", why="X and y have different numbers of rows")]


def _general_position(rng, n):
    """n integer points, no three on one line (so no two equal)."""
    triples = np.array(list(itertools.combinations(range(n), 3)))
    while True:
        X = rng.integers(-100, 101, size=(n, 2)).astype(float)
        a, b, c = (X[triples[:, k]] for k in range(3))
        if np.all((b - a)[:, 0] * (c - a)[:, 1] != (b - a)[:, 1] * (c - a)[:, 0]):
            return X


def _by_a_line(rng, X):
    while True:
        w, b = rng.normal(size=2), rng.normal() * 50
        s = X @ w + b
        if np.all(np.abs(s) > 1e-6) and 0 < np.sum(s > 0) < len(X):
            return np.where(s > 0, 1, -1)


def _kind(X, y):
    """Which certificate exists: "minus_in_plus", "plus_in_minus" (only that one), "crossing" (only two
    crossing segments), or "separable"."""
    plus, minus = np.flatnonzero(y > 0).tolist(), np.flatnonzero(y < 0).tolist()
    if _in_triangle(X, minus, plus):
        return "minus_in_plus"
    if _in_triangle(X, plus, minus):
        return "plus_in_minus"
    return "crossing" if _crossing(X, plus, minus) else "separable"


def _blocked(rng, low, high, kinds):
    """Points in general position, 'low' to 'high' - 1 of them, with random labels of one of ``kinds``."""
    while True:
        X = _general_position(rng, int(rng.integers(low, high)))
        y = rng.choice([-1, 1], size=len(X))
        if _kind(X, y) in kinds:
            return Probe((X, y))


def _separable(rng, low, high):
    X = _general_position(rng, int(rng.integers(low, high)))
    return Probe((X, _by_a_line(rng, X)))


def _triangle_probes(rng):
    """A +1 point in a triangle of -1 points and no -1 point in one of +1 points; then either; separable."""
    return [_blocked(rng, 5, 8, ("plus_in_minus",)), _blocked(rng, 5, 8, ("minus_in_plus", "plus_in_minus")),
            _separable(rng, 5, 9)]


def _crossing_probes(rng):
    """Only two crossing segments block a line (no point inside a triangle of the other class); separable."""
    return [_blocked(rng, 4, 6, ("crossing",)), _blocked(rng, 6, 9, ("crossing",)), _separable(rng, 6, 9)]


def _random_probes(rng):
    return [_blocked(rng, 8, 21, ("minus_in_plus", "plus_in_minus", "crossing")), _blocked(rng, 8, 21, (
        "minus_in_plus", "plus_in_minus", "crossing", "separable")), _separable(rng, 12, 21)]


HIDDEN = {"ex1-repeats-tests-values": _repeat_values, "ex1-repeats-tests-large": _repeat_large,
          "ex2-novikoff-tests-values": _novikoff_values, "ex2-novikoff-tests-forged": _novikoff_forged,
          "ex2-novikoff-tests-inputs": _novikoff_inputs, "ex3-cycle-tests-values": _cycle_values,
          "ex3-cycle-tests-limit": _cycle_limits,
          "ex4-certificate-tests-triangle": _triangle_probes, "ex4-certificate-tests-crossing": _crossing_probes,
          "ex4-certificate-tests-random": _random_probes}

visible_data, cells = declared.grader(visible.LESSON, REFERENCES, HIDDEN)
