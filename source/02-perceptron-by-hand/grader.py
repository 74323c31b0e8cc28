"""Grader of assignment 02 (the perceptron by hand): references and hidden probes."""

import numpy as np

from kpcourse.checks import lesson02 as visible
from kpcourse.checks.exercise import Probe
from kpcourse.datasets import quiz_points, quiz_transform, worked_example
from kpcourse.grading import declared
from kpcourse.grading.testdata import random_separable

_shared = declared.shared(__file__)
labels_or_mistake = _shared.labels_or_mistake

FORBIDDEN = ("kpcourse", "sklearn", "scipy")


# ----------------------------------------------------------------- references
def predict(w, b, X, mistake=None):
    X = np.asarray(X, float)
    if X.shape[1] != len(w):
        raise ValueError("X and w do not match")
    return labels_or_mistake(X @ w + (0.0 if mistake == "no_bias" else b), mistake)


def update(w, b, x, y, learning_rate, mistake=None):
    if y not in (-1, 1):
        raise ValueError("y must be -1 or +1")
    w, x, lr = np.asarray(w, float), np.asarray(x, float), learning_rate
    score = y * (w @ x + b)
    wrong = {"never": False, "always": True, "sign0": score < 0,
             "via_predict": (1 if w @ x + b > 0 else -1) != y}.get(mistake, score <= 0)
    if not wrong:
        return w, b
    new_w = {"no_y": w + lr * x, "wrong_sign": w - lr * y * x, "no_lr": w + y * x,
             "lr_on_w": lr * (w + y * x), "lr_on_both": lr * w + y * x}.get(mistake, w + lr * y * x)
    new_b = {"no_bias": b, "bias_no_lr": b + y, "bias_wrong_sign": b - lr * y}.get(mistake, b + lr * y)
    return new_w, new_b


def primal(X, y, lr, max_epochs, *, zero_is_mistake=True, bias=True, bias_lr=True, w_lr=True,
           before=False, stop=True):
    """The perceptron loop with a trace, and its common mistakes (the default is right)."""
    X = np.asarray(X, float)
    w, b, rows = np.zeros(X.shape[1]), 0.0, []
    for epoch in range(1, max_epochs + 1):
        made = 0
        for i in range(len(y)):
            s = y[i] * (X[i] @ w + b)
            wrong = s <= 0 if zero_is_mistake else s < 0
            old = [b, *w]
            if wrong:
                w = w + (lr if w_lr else 1.0) * y[i] * X[i]
                b = b + ((lr if bias_lr else 1.0) * y[i] if bias else 0.0)
                made += 1
            rows.append([epoch, i, int(wrong), *(old if before else [b, *w])])
        if stop and made == 0:
            break
    return w, b, np.array(rows, float)


_TRAIN_OPTIONS = {"before": {"before": True}, "no_stop": {"stop": False}, "sign0": {"zero_is_mistake": False},
                  "no_bias": {"bias": False}, "bias_no_lr": {"bias_lr": False},
                  "no_lr": {"bias_lr": False, "w_lr": False}}
#: The trace of each trace mistake, from the right one: epochs numbered from 0, samples from 1, the intercept
#: last, the rows of mistakes only.
_TRACES = {"epochs": lambda t: np.c_[t[:, 0] - 1, t[:, 1:]], "index": lambda t: np.c_[t[:, 0], t[:, 1] + 1, t[:, 2:]],
           "columns": lambda t: np.hstack([t[:, :3], t[:, 4:], t[:, 3:4]]), "only_mistakes": lambda t: t[t[:, 2] == 1]}


def train(X, y, learning_rate=1.0, max_epochs=100, mistake=None):
    if len(X) != len(y):
        raise ValueError("X and y do not match")
    w, b, t = primal(X, y, learning_rate, max_epochs, **_TRAIN_OPTIONS.get(mistake, {}))
    return w, b, _TRACES.get(mistake, lambda t: t)(t)


REFERENCES = {"predict": predict, "update": update, "train": train}


# --------------------------------------------------------------- hidden probes
def _new_points(rng):
    return [Probe((rng.normal(size=3), float(rng.normal()), rng.normal(size=(25, 3)))) for _ in range(3)]


def _boundary_grid(rng):
    grid = np.array([[i, j] for i in range(-4, 6) for j in range(-4, 6)], dtype=float)
    probes = []
    while len(probes) < 2:
        w = rng.integers(-3, 4, size=2).astype(float)
        b = float(rng.integers(-3, 4))
        if w.any() and np.sum(grid @ w + b == 0) >= 2:  # points on the boundary
            probes.append(Probe((w, b, grid)))
    return probes


def _step(rng):
    """A random step (a mistake or a correct point) of a random size."""
    d = int(rng.integers(2, 5))
    return Probe((rng.normal(size=d), float(rng.normal()), rng.normal(size=d), int(rng.choice([-1, 1])),
                  float(rng.choice([0.1, 0.5, 2.0]))))


def _steps(rng):
    """20 random steps, both mistakes and correct points."""
    return [_step(rng) for _ in range(20)]


def _zero_steps(rng):
    """Integer steps whose score is exactly 0, for both labels."""
    wx = [(rng.integers(-3, 4, size=3).astype(float), rng.integers(-3, 4, size=3).astype(float)) for _ in range(6)]
    return [Probe((w, -float(w @ x), x, y, 0.5)) for (w, x), y in zip(wx, (-1, 1) * 3, strict=True)]


def _traces(rng):
    return [Probe((*worked_example(), 0.25, 100)),
            *(Probe((*random_separable(20, 3, random_state=rng), 0.5, 100)) for _ in range(2))]


def _results(rng):
    probes = [Probe((*random_separable(30, 4, random_state=rng), 0.5, 200)) for _ in range(3)]
    Xq, yq = quiz_points()  # the perceptron quiz's 20 points, its own recipe: transformed, learning rate 1
    return [*probes, Probe((quiz_transform(Xq)[:, :2], yq, 1.0, 100))]


def _stopping(rng):
    X = rng.normal(size=(12, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)  # no line separates these
    return [*(Probe((X, y, 1.0, E)) for E in (1, 7)),
            *(Probe((*random_separable(15, 2, random_state=rng), 1.0, 100)) for _ in range(2))]


HIDDEN = {"ex1-predict-tests": _new_points, "ex1-predict-tests-zero": _boundary_grid,
          "ex2-update-tests-weights": _steps, "ex2-update-tests-zero": _zero_steps,
          "ex2-update-tests-bias": _steps, "ex3-train-tests-trace": _traces,
          "ex3-train-tests-result": _results, "ex3-train-tests-stop": _stopping}

visible_data, cells = declared.grader(visible.LESSON, REFERENCES, HIDDEN)
