"""Grader of assignment 02 (the perceptron by hand): hidden tests and references.

Grader-only: never released, never visible to the student's code (the sandbox does
not mount the course folder). ``cells()`` says, for each autograded test cell, which
tests decide its points: the visible tests of ``kpcourse.checks.lesson02`` (replayed
on the student's answers) and hidden tests built here. ``visible_data()`` computes the
data the visible checks hold (expected outputs of their probes and the outputs of
common mistakes); ``python -m kpcourse.grading checks-data`` writes it to
``kpcourse/checks/data/lesson02.json`` and a unit test keeps the two equal.
"""

import numpy as np

from kpcourse.checks import lesson02 as visible
from kpcourse.checks._core import Call, Test, check_close, check_labels
from kpcourse.datasets import quiz_points, quiz_transform, worked_example
from kpcourse.grading.spec import Cell
from kpcourse.grading.testdata import random_separable
from kpcourse.perceptron import Perceptron

FORBIDDEN = ("kpcourse", "sklearn", "scipy")


# ----------------------------------------------------------------- references
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


def _update(w, b, x, y, lr):
    return (w + lr * y * x, b + lr * y) if y * (w @ x + b) <= 0 else (w, b)


def visible_data():
    """Expected outputs and common-mistake outputs of the visible probes."""
    P = visible.PROBES
    w, b = P["predict_w"], P["predict_b"]
    scores = P["predict_X"] @ w + b
    predict = {"labels": np.where(scores > 0, 1, -1), "scores": scores,
               "no_bias": np.where(P["predict_X"] @ w > 0, 1, -1),
               "zero_labels": np.where(P["predict_X0"] @ w + b > 0, 1, -1)}
    update = {}
    for key, (uw, ub, ux, uy, lr) in P["update"].items():
        right = _update(uw, ub, ux, uy, lr)
        update[key] = {"w": right[0], "b": float(right[1]), "no_y": uw + lr * ux, "minus": uw - lr * uy * ux,
                       "no_lr": uw + uy * ux, "lr_on_w": lr * (uw + uy * ux), "lr_on_w2": lr * uw + uy * ux,
                       "b_no_lr": ub + uy, "b_minus": ub - lr * uy}
    X, y, lr, E = P["train_X"], P["train_y"], P["train_lr"], P["train_epochs"]
    w, b, t = primal(X, y, lr, E)
    t0, t1 = t.copy(), t.copy()
    t0[:, 0] -= 1
    t1[:, 1] += 1
    mistakes = [
        ("epochs", (w, b, t0)), ("index", (w, b, t1)),
        ("columns", (w, b, np.hstack([t[:, :3], t[:, 4:], t[:, 3:4]]))),
        ("before", primal(X, y, lr, E, before=True)), ("only_mistakes", (w, b, t[t[:, 2] == 1])),
        ("no_stop", primal(X, y, lr, E, stop=False)), ("sign0", primal(X, y, lr, E, zero_is_mistake=False)),
        ("no_bias", primal(X, y, lr, E, bias=False)), ("bias_no_lr", primal(X, y, lr, E, bias_lr=False)),
        ("no_lr", primal(X, y, lr, E, bias_lr=False, w_lr=False)),
    ]
    train = {"w": w, "b": float(b), "trace": t,
             "mistakes": {k: {"w": v[0], "b": float(v[1]), "trace": v[2]} for k, v in mistakes}}
    return {"predict": predict, "update": update, "train": train}


# ------------------------------------------------------------- hidden tests
def _predict_new_points():
    calls, expected = [], []
    for seed in (11, 12, 13):
        X, y = random_separable(40, 3, random_state=seed)
        clf = Perceptron(max_epochs=5).fit(X, y)
        X_new = np.random.default_rng(seed).normal(size=(25, 3))
        calls.append(Call("predict", clf.coef_, clf.intercept_, X_new))
        expected.append(clf.predict(X_new))

    def judge(answers):
        for a, e in zip(answers, expected, strict=True):
            labels = a.get()
            check_labels(labels, 25, "predict on new points")
            check_close(labels, e, "predict on new points")
    return Test(calls, judge)


def _predict_boundary_grid():
    X4, y4 = worked_example()
    grid = np.array([[i, j] for i in range(-4, 6) for j in range(-4, 6)], dtype=float)
    calls, expected = [], []
    for lr in (0.25, 1.0):
        clf = Perceptron(learning_rate=lr).fit(X4, y4)
        assert np.sum(grid @ clf.coef_ + clf.intercept_ == 0) >= 2  # points on the boundary
        calls.append(Call("predict", clf.coef_, clf.intercept_, grid))
        expected.append(clf.predict(grid))

    def judge(answers):
        for a, e in zip(answers, expected, strict=True):
            check_close(a.get(), e, "predict on a grid with points on the boundary",
                        hint="a score of exactly 0 gives -1")
    return Test(calls, judge)


def _update_steps(seed, n_features, what, count=20):
    """One step from the reference's own first step, on random data; judge w or b."""
    rng = np.random.default_rng(seed)
    calls, expected = [], []
    for _ in range(count):
        X2 = rng.normal(size=(2, n_features))
        y1 = int(rng.choice([-1, 1]))
        lr = float(rng.choice([0.1, 0.5, 2.0]))
        steps = Perceptron(learning_rate=lr, max_epochs=1).fit(X2, [y1, -y1]).trace_
        calls.append(Call("update", steps[0, 4:].copy(), steps[0, 3], X2[1].copy(), -y1, lr))
        expected.append((steps[1, 4:], steps[1, 3]))

    def judge(answers):
        for a, (ew, eb) in zip(answers, expected, strict=True):
            w, b = visible.unpack_update(a)
            if what == "w":
                check_close(w, ew, "w after one step on random data")
            else:
                check_close(b, eb, "b after one step on random data")
    return Test(calls, judge)


def _update_zero_scores():
    calls, expected = [], []
    for x1, x2 in [((1, 2, 0), (1, -1, 3)), ((2, 1, 1), (0, -1, 0)), ((1, 1, 1), (-1, 0, 0))]:
        X2 = np.array([x1, x2], dtype=float)
        for y1 in (-1, 1):
            steps = Perceptron(learning_rate=0.5, max_epochs=1).fit(X2, [y1, -y1]).trace_
            assert steps[1, 2] == 1  # the second point scores exactly 0: a mistake
            calls.append(Call("update", steps[0, 4:].copy(), steps[0, 3], X2[1].copy(), -y1, 0.5))
            expected.append(steps[1, 4:])

    def judge(answers):
        for a, e in zip(answers, expected, strict=True):
            w, _ = visible.unpack_update(a)
            check_close(w, e, "w after a step on a point with score exactly 0",
                        hint="sign(0) must count as a mistake")
    return Test(calls, judge)


def _train_traces():
    X4, y4 = worked_example()
    cases = [(X4, y4, 0.25, "your trace of the lesson's four points (learning rate 0.25)")]
    for seed in (31, 32):
        X, y = random_separable(20, 3, random_state=seed)
        cases.append((X, y, 0.5, "your trace on random data"))
    calls = [Call("train", X, y, learning_rate=lr, max_epochs=100) for X, y, lr, _ in cases]
    expected = [(Perceptron(learning_rate=lr).fit(X, y).trace_, name) for X, y, lr, name in cases]

    def judge(answers):
        for a, (trace, name) in zip(answers, expected, strict=True):
            _, _, got = visible.unpack_train(a, trace.shape[1] - 4)
            visible.check_trace(got, trace, name)
    return Test(calls, judge)


def _train_results():
    cases = []
    for seed in (41, 42, 43):
        X, y = random_separable(30, 4, random_state=seed)
        cases.append((X, y, 0.5, 200, "on random data"))
    # the perceptron quiz's 20 points, its own recipe: transformed, learning rate 1
    Xq, yq = quiz_points()
    cases.append((quiz_transform(Xq)[:, :2], yq, 1.0, 100, "on the quiz's 20 points"))
    calls = [Call("train", X, y, learning_rate=lr, max_epochs=E) for X, y, lr, E, _ in cases]
    expected = []
    for X, y, lr, E, name in cases:
        clf = Perceptron(learning_rate=lr, max_epochs=E).fit(X, y)
        expected.append((clf.coef_, clf.intercept_, X.shape[1], name))

    def judge(answers):
        for a, (w_ref, b_ref, d, name) in zip(answers, expected, strict=True):
            w, b, _ = visible.unpack_train(a, d)
            check_close(w, w_ref, f"w {name}", rtol=1e-6)
            check_close(b, b_ref, f"b {name}", rtol=1e-6)
    return Test(calls, judge)


def _train_stopping():
    rng = np.random.default_rng(51)
    X = rng.normal(size=(12, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)  # no line separates these
    cases = [(X, y, 1.0, E) for E in (1, 7)]
    for seed in (52, 53):
        Xs, ys = random_separable(15, 2, random_state=seed)
        cases.append((Xs, ys, 1.0, 100))
    calls = [Call("train", X, y, learning_rate=lr, max_epochs=E) for X, y, lr, E in cases]

    def judge(answers):
        for a, (X, y, _, E) in zip(answers, cases, strict=True):
            _, _, trace = visible.unpack_train(a, X.shape[1])
            visible.check_stopping(trace, len(y), E)
    return Test(calls, judge)


def cells():
    """The tests that decide each autograded cell of assignment 02."""
    return {
        "ex1-predict-tests": Cell("ex1-predict", "the prediction",
                                  [*visible.predict_tests("basic"), _predict_new_points()]),
        "ex1-predict-tests-zero": Cell("ex1-predict", "the prediction",
                                       [*visible.predict_tests("zero"), _predict_boundary_grid()]),
        "ex2-update-tests-weights": Cell("ex2-update", "the update",
                                         [*visible.update_tests("weights"), _update_steps(201, 3, "w")]),
        "ex2-update-tests-zero": Cell("ex2-update", "the update",
                                      [*visible.update_tests("zero"), _update_zero_scores()]),
        "ex2-update-tests-bias": Cell("ex2-update", "the update",
                                      [*visible.update_tests("bias"), _update_steps(202, 2, "b")]),
        "ex3-train-tests-trace": Cell("ex3-train", "the training loop",
                                      [*visible.train_tests("trace"), _train_traces()]),
        "ex3-train-tests-result": Cell("ex3-train", "the training loop",
                                       [*visible.train_tests("result"), _train_results()]),
        "ex3-train-tests-stop": Cell("ex3-train", "the training loop",
                                     [*visible.train_tests("stop"), _train_stopping()]),
    }
