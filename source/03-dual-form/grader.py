"""Grader of assignment 03 (the dual form): hidden tests and references.

Grader-only: never released, never visible to the student's code (the sandbox does
not mount the course folder). ``cells()`` says, for each autograded test cell, which
tests decide its points: the visible tests of ``kpcourse.checks.lesson03`` (replayed
on the student's answers) and hidden tests built here. ``visible_data()`` computes the
data the visible checks hold (expected outputs of their probes and the outputs of
common mistakes); ``python -m kpcourse.grading checks-data 03-dual-form`` writes it to
``kpcourse/checks/data/lesson03.json`` and a unit test keeps the two equal.

The references are the package's primal perceptron (``Perceptron.alpha_`` holds the
dual counts of a run, ``coef_`` its w) and the dual loop :func:`dual` below, with the
common mistakes the visible checks name as variants; a unit test checks that
:func:`dual` trains exactly like ``KernelPerceptron`` (which this file does not
import: it would load torch in the grader for every submission).
"""

import numpy as np

from kpcourse.checks import lesson03 as visible
from kpcourse.checks._core import Call, Test, check_close, check_labels, expect_raises, same
from kpcourse.datasets import circles, worked_example
from kpcourse.grading.spec import Cell
from kpcourse.grading.testdata import random_separable
from kpcourse.kernels import rbf
from kpcourse.perceptron import Perceptron

FORBIDDEN = ("kpcourse", "sklearn", "scipy")

#: The perceptron quiz's graded answer, from its own recipe (points rescaled, learning
#: rate 1, w = 0, file order): the weights of the two rescaled features, then the weight
#: of the constant-1 column, which is the bias of a perceptron that has one.
QUIZ_W = np.array([-1.26035052, -1.21318978])
QUIZ_B = 2.0
#: The dual counts of that run (checked against the primal run in visible_data).
QUIZ_ALPHA = np.array([1, 1, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0])


# ----------------------------------------------------------------- references
def dual(K, y, max_epochs, lr, *, zero_is_mistake=True, bias=True, bias_lr=True, bias_in_score=True,
         step="one"):
    """The dual perceptron loop and its common mistakes (the default is right)."""
    n = len(y)
    alpha, b = np.zeros(n), 0.0
    for _ in range(max_epochs):
        made = 0
        for i in range(n):
            s = y[i] * (lr * np.dot(alpha * y, K[:, i]) + (b if bias_in_score else 0.0))
            if (s <= 0) if zero_is_mistake else (s < 0):
                alpha[i] = {"one": alpha[i] + 1, "set": 1.0}[step]
                b += ((lr if bias_lr else 1.0) * y[i]) if bias else 0.0
                made += 1
        if made == 0:
            break
    return alpha, b


def _differs(right, *mistakes):
    for m in mistakes:
        assert not same(right, m), "a common mistake gives the right answer on a probe: change the probe"


def visible_data():
    """Expected outputs and common-mistake outputs of the visible probes."""
    P, E = visible.PROBES, visible.PROBES["max_epochs"]

    def probe(K, y, bias_decides=True):
        alpha, b = dual(K, y, E, 1.0)
        out_alpha, out_b = dual(K, y, E, 1.0, bias_in_score=False)
        out = {"alpha": alpha.astype(np.int64), "b": float(b), "set": dual(K, y, E, 1.0, step="set")[0],
               "no_bias": dual(K, y, E, 1.0, bias=False)[0], "bias_out": np.array([*out_alpha, out_b])}
        _differs(alpha, out["set"])
        if bias_decides:
            _differs(alpha, out["no_bias"])
            _differs(np.array([*alpha, b]), out["bias_out"])
        return out

    counts = probe(P["counts_K"], P["counts_y"], bias_decides=False)
    counts = {"alpha": counts["alpha"], "set": counts["set"]}
    bias = probe(P["bias_K"], P["bias_y"])
    Z, yq, Kq = visible.quiz_probe()
    quiz = probe(Kq, yq)
    primal = Perceptron(learning_rate=1.0, max_epochs=100).fit(Z, yq)
    assert np.array_equal(quiz["alpha"], QUIZ_ALPHA) and quiz["b"] == QUIZ_B
    assert np.array_equal(primal.alpha_, QUIZ_ALPHA) and np.allclose(primal.coef_, QUIZ_W, rtol=0, atol=1e-8)
    s = (quiz["alpha"] * yq) @ Z
    quiz.update(w={"one": s}, no_y={"one": quiz["alpha"] @ Z})
    _differs(s, quiz["no_y"]["one"], -s)

    va, vb = dual(P["bias_K"], P["bias_y"], E, 0.25, bias_lr=False)
    rate = {"alpha": bias["alpha"], "b": bias["b"], "bias_step_no_lr": np.array([*va, vb])}

    K, a, y, b = P["predict_K"], P["predict_alpha"], P["predict_y"], P["predict_b"]
    scores = K[:3] @ (a * y) + b
    predict = {"scores": scores, "labels": np.where(scores > 0, 1, -1),
               "no_y": np.where(K[:3] @ a + b > 0, 1, -1), "no_b": np.where(K[:3] @ (a * y) > 0, 1, -1)}
    _differs(predict["labels"], predict["no_y"], predict["no_b"])
    assert K[3] @ (a * y) + b == 0  # the probe with a score of exactly 0
    Kl, al, yl, bl, lr = P["predict_lr"]
    predict["lr_label"] = np.where(lr * Kl @ (al * yl) + bl > 0, 1, -1)
    _differs(predict["lr_label"], np.where(Kl @ (al * yl) + bl > 0, 1, -1))

    X, a, y = P["primal_X"], P["primal_alpha"], P["primal_y"]
    assert all(P["primal_b"][r] == r * float(a @ y) for r in (1.0, 0.5))
    s = (a * y) @ X
    primal = {"w": {"one": s, "half": 0.5 * s}, "no_y": {"one": a @ X, "half": 0.5 * (a @ X)},
              "no_lr": {"half": s}, "lr_twice": {"half": 0.25 * s}}
    _differs(s, primal["no_y"]["one"], -s)
    _differs(0.5 * s, primal["no_y"]["half"], primal["no_lr"]["half"], primal["lr_twice"]["half"], -0.5 * s)
    return {"counts": counts, "bias": bias, "quiz": quiz, "rate": rate, "predict": predict, "primal": primal}


# ------------------------------------------------------------- hidden tests
def _quiz():
    Z, yq, Kq = visible.quiz_probe()
    return Z, yq, Kq


def rbf_problem():
    """Rings and their RBF Gram matrix (sigma 0.5): the dual form beyond the linear kernel."""
    X, y = circles(40, noise=0.05, random_state=5)
    return rbf(X, sigma=0.5), y


def _dual_counts():
    calls, expected = [], []
    for seed in (68, 73, 98):
        # points far from the origin, separable through it: the bias never decides a mistake
        X, y = random_separable(40, 2, margin=0.05, offset=False, scale=100.0, random_state=seed)
        calls.append(Call("dual_train", X @ X.T, y, max_epochs=100))
        expected.append(Perceptron(learning_rate=1.0, max_epochs=100).fit(X, y).alpha_)  # the dual counts

    def judge(answers):
        for a, ref in zip(answers, expected, strict=True):
            alpha, _ = visible.unpack_dual(a, len(ref))
            check_close(alpha, ref, "alpha on random data", hint="alpha[i] counts the mistakes on sample i")
    return Test(calls, judge)


def _dual_bias():
    calls, expected = [], []
    for seed in (72, 73):
        X, y = random_separable(30, 2, random_state=seed)
        primal = Perceptron(learning_rate=1.0, max_epochs=100).fit(X, y)  # alpha_, intercept_: the dual run
        calls.append(Call("dual_train", X @ X.T, y, max_epochs=100))
        expected.append(("random data", primal.alpha_, primal.intercept_, X, y, primal))
    K, y = rbf_problem()
    alpha, b = dual(K, y, 20, 1.0)  # = KernelPerceptron(kernel="precomputed", shuffle=False) (a unit test)
    calls.append(Call("dual_train", K, y, max_epochs=20))
    expected.append(("an RBF Gram matrix", alpha, b, None, y, None))
    # the perceptron quiz: the whole run, and the run stopped after its first epoch
    Z, yq, Kq = _quiz()
    for E in (100, 1):
        primal = Perceptron(learning_rate=1.0, max_epochs=E).fit(Z, yq)
        calls.append(Call("dual_train", Kq, yq, max_epochs=E))
        expected.append((f"the quiz's points (max_epochs={E})", primal.alpha_, primal.intercept_, Z, yq, primal))
    assert np.allclose(expected[-2][5].coef_, QUIZ_W, rtol=0, atol=1e-8) and expected[-2][5].intercept_ == QUIZ_B
    assert not np.array_equal(expected[-1][1], QUIZ_ALPHA)  # the first epoch is not the whole run

    def judge(answers):
        for a, (name, ref_alpha, ref_b, X, y, primal) in zip(answers, expected, strict=True):
            alpha, b = visible.unpack_dual(a, len(ref_alpha))
            check_close(alpha, ref_alpha, f"alpha on {name}", hint="alpha[i] counts the mistakes on sample i")
            check_close(b, ref_b, f"b on {name}", hint="b += learning_rate·y_i on each mistake")
            if primal is not None:
                check_close((alpha * y) @ X, primal.coef_, f"the primal weights Σ_i alpha_i y_i x_i on {name}")
                check_close(b, primal.intercept_, f"b compared with the primal perceptron on {name}")
    return Test(calls, judge)


def _dual_rate():
    problems = []
    for seed in (81, 82):
        X, y = random_separable(30, 3, random_state=seed)
        problems.append(("random data", X @ X.T, y))
    _, yq, Kq = _quiz()
    problems.append(("the quiz's points", Kq, yq))
    rates = (1.0, 0.5, 2.0)
    calls = [Call("dual_train", K, y, max_epochs=100, learning_rate=lr) for _, K, y in problems for lr in rates]

    def judge(answers):
        for k, (name, _, y) in enumerate(problems):
            runs = [visible.unpack_dual(a, len(y)) for a in answers[3 * k:3 * k + 3]]
            alpha1, b1 = runs[0]
            for lr, (alpha, b) in zip(rates[1:], runs[1:], strict=True):
                check_close(alpha, alpha1, f"alpha on {name} with learning_rate={lr} (compared with 1)",
                            hint="alpha counts mistakes: +1 per mistake, whatever the learning rate")
                check_close(b, lr * b1, f"b on {name} with learning_rate={lr} (compared with 1)",
                            hint="b grows by learning_rate * y_i at each mistake")
    return Test(calls, judge)


def _predict_new_points():
    calls, expected = [], []
    for seed in (91, 92, 93):
        X, y = random_separable(30, 3, random_state=seed)
        primal = Perceptron(learning_rate=1.0, max_epochs=100).fit(X, y)  # alpha_: the dual counts
        X_new = np.random.default_rng(seed).uniform(-1, 1, size=(40, 3))
        calls.append(Call("dual_predict", X_new @ X.T, primal.alpha_, y, primal.intercept_))
        expected.append(primal.predict(X_new))
    Z, yq, _ = _quiz()
    primal = Perceptron(learning_rate=1.0).fit(Z, yq)
    grid = np.random.default_rng(94).uniform(-0.5, 2.0, size=(60, 2))  # around the rescaled quiz points
    calls.append(Call("dual_predict", grid @ Z.T, primal.alpha_, yq, primal.intercept_))
    expected.append(primal.predict(grid))

    def judge(answers):
        for a, e in zip(answers, expected, strict=True):
            labels = a.get()
            check_labels(labels, len(e), "dual_predict on new points")
            check_close(labels, e, "dual_predict on new points")
    return Test(calls, judge)


def _predict_rates():
    X4, y4 = worked_example()
    grid = np.array([[i, j] for i in range(-4, 6) for j in range(-4, 6)], dtype=float)
    cases = []
    for lr in (0.25, 2.0):
        clf = Perceptron(learning_rate=lr).fit(X4, y4)
        assert np.sum(grid @ clf.coef_ + clf.intercept_ == 0) >= 2  # points on the boundary
        cases.append((grid @ X4.T, clf, grid, y4, lr))
    Z, yq, _ = _quiz()
    clf = Perceptron(learning_rate=0.5).fit(Z, yq)
    grid_q = np.random.default_rng(95).uniform(-0.5, 2.0, size=(60, 2))
    cases.append((grid_q @ Z.T, clf, grid_q, yq, 0.5))
    calls = [Call("dual_predict", K, clf.alpha_, y, clf.intercept_, learning_rate=lr) for K, clf, _, y, lr in cases]
    expected = [(clf.predict(g), lr) for _, clf, g, _, lr in cases]

    def judge(answers):
        for a, (e, lr) in zip(answers, expected, strict=True):
            check_close(a.get(), e, f"dual_predict with learning_rate={lr} on a grid",
                        hint="the score is learning_rate * sum_j alpha_j y_j K[t, j] + b; "
                             "a score of exactly 0 gives -1")
    return Test(calls, judge)


def _primal_random():
    rng = np.random.default_rng(301)
    calls, expected = [], []
    for n, d, lr in ((9, 3, 1.0), (5, 7, 0.3), (12, 2, 2.5)):
        X = rng.normal(size=(n, d))
        y = rng.choice(np.array([-1, 1]), size=n)
        alpha = rng.integers(0, 4, size=n)
        calls.append(Call("primal_from_dual", X, alpha, y, lr * float(alpha @ y), learning_rate=lr))
        expected.append((lr * ((alpha * y) @ X), n, d))

    def judge(answers):
        for a, (w_ref, n, d) in zip(answers, expected, strict=True):
            w = visible.unpack_w(a, n, d)
            check_close(w, w_ref, "w on random counts", hint="w = learning_rate·Σ_i alpha_i y_i x_i")
    return Test(calls, judge)


def _primal_checks():
    calls, kinds = [], []
    for seed, lr in ((111, 0.1), (112, 0.7), (113, 3.0)):
        X, y = random_separable(25, 3, random_state=seed)
        p = Perceptron(learning_rate=lr).fit(X, y)
        extra = p.alpha_.copy()
        extra[0] += 1  # one count more than the run made: b no longer matches
        calls += [Call("primal_from_dual", X, p.alpha_, y, p.intercept_, learning_rate=lr),
                  Call("primal_from_dual", X, p.alpha_, y, p.intercept_ + lr, learning_rate=lr),
                  Call("primal_from_dual", X, extra, y, p.intercept_, learning_rate=lr),
                  Call("primal_from_dual", X[:-1], p.alpha_, y, p.intercept_, learning_rate=lr)]
        kinds += [("ok", lr), ("raise", "b is one bias step away from learning_rate·Σ_i alpha_i y_i"),
                  ("raise", "alpha has one count more than the run that gave b"),
                  ("raise", "X has one row fewer than alpha has entries")]

    def judge(answers):
        for a, (kind, detail) in zip(answers, kinds, strict=True):
            if kind == "ok":
                if a.error == "ValueError":
                    raise AssertionError(
                        f"primal_from_dual raised ValueError for the counts and b of a real run with "
                        f"learning_rate={detail:g}: b = learning_rate·Σ_i alpha_i y_i holds there up to "
                        "rounding; compare with np.isclose")
                a.get()
            else:
                expect_raises(a, "ValueError", detail)
    return Test(calls, judge)


def _primal_equals_primal_run():
    Z, yq, _ = _quiz()
    cases = []
    for lr in (0.5, 2.0):
        p = Perceptron(learning_rate=lr).fit(Z, yq)
        assert np.allclose(p.coef_, lr * QUIZ_W, rtol=0, atol=1e-8) and np.isclose(p.intercept_, lr * QUIZ_B)
        cases.append((Z, yq, p, lr, f"on the quiz's points with learning_rate={lr}"))
    for seed in (121, 122):
        X, y = random_separable(30, 4, random_state=seed)
        cases.append((X, y, Perceptron(learning_rate=1.0).fit(X, y), 1.0, "on random data"))
    calls = [Call("primal_from_dual", X, p.alpha_, y, p.intercept_, learning_rate=lr) for X, y, p, lr, _ in cases]

    def judge(answers):
        for a, (X, _, p, _, name) in zip(answers, cases, strict=True):
            w = visible.unpack_w(a, *X.shape)
            check_close(w, p.coef_, f"w {name} (compared with the primal perceptron's w)", rtol=1e-9,
                        hint="w = learning_rate·Σ_i alpha_i y_i x_i")
    return Test(calls, judge)


def cells():
    """The tests that decide each autograded cell of assignment 03."""
    dual_what, predict_what = "the dual training", "the dual prediction"
    primal_what = "the primal weights from the dual counts"
    return {
        "ex1-dual-train-tests-counts": Cell("ex1-dual-train", dual_what,
                                            [*visible.dual_tests("counts"), _dual_counts()]),
        "ex1-dual-train-tests-bias": Cell("ex1-dual-train", dual_what, [*visible.dual_tests("bias"), _dual_bias()]),
        "ex1-dual-train-tests-rate": Cell("ex1-dual-train", dual_what,
                                          [*visible.dual_tests("learning_rate"), _dual_rate()]),
        "ex2-dual-predict-tests": Cell("ex2-dual-predict", predict_what,
                                       [*visible.dual_predict_tests("basic"), _predict_new_points()]),
        "ex2-dual-predict-tests-details": Cell("ex2-dual-predict", predict_what,
                                               [*visible.dual_predict_tests("details"), _predict_rates()]),
        "ex3-primal-from-dual-tests": Cell("ex3-primal-from-dual", primal_what,
                                           [*visible.primal_tests("weights"), _primal_random()]),
        "ex3-primal-from-dual-tests-checks": Cell("ex3-primal-from-dual", primal_what,
                                                  [*visible.primal_tests("checks"), _primal_checks()]),
        "ex3-primal-from-dual-tests-quiz": Cell("ex3-primal-from-dual", primal_what,
                                                [*visible.primal_tests("quiz"), _primal_equals_primal_run()]),
    }
