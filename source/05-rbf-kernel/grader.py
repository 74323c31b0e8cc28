"""Grader of assignment 05 (the Gaussian kernel): hidden tests and references.

Grader-only: never released, never visible to the student's code (the sandbox does
not mount the course folder). ``cells()`` says, for each autograded test cell, which
tests decide its points: the visible tests of ``kpcourse.checks.lesson05`` (replayed
on the student's answers) and hidden tests built here. ``visible_data()`` computes the
data the visible checks hold (expected outputs of their probes and the outputs of
common mistakes); ``python -m kpcourse.grading checks-data 05-rbf-kernel`` writes it to
``kpcourse/checks/data/lesson05.json`` and a unit test keeps the two equal.

Exercises 1 and 2 ask for the RBF kernel written with NumPy: a graded function that
reaches anything in kpcourse, scikit-learn or SciPy gets no credit. Exercise 3 trains
models with ``kpcourse.perceptron.KernelPerceptron`` (allowed); the choice of σ is the
student's. Whether ``rbf_gram`` is loop-free is decided from its source (``loop_free``),
never by timing it.
"""

import numpy as np

from kpcourse import datasets
from kpcourse.checks import lesson05 as visible
from kpcourse.checks._core import Call, Test, check_close, check_shape
from kpcourse.grading.spec import Cell
from kpcourse.perceptron import KernelPerceptron

FORBIDDEN = ("kpcourse", "sklearn", "scipy")
#: What choose_sigma may use although FORBIDDEN covers it: the model is not the exercise.
CHOOSE_ALLOW = ("kpcourse.perceptron.KernelPerceptron",)
#: What the sandbox holds besides the checks, data and plots: the model (and scikit-learn, which it
#: builds on).
SANDBOX_ALLOW = ("kpcourse.perceptron", "sklearn", "scipy")
#: The reference model of Exercise 3.
MAX_EPOCHS = 10


# ----------------------------------------------------------------- references
def squared_distances(X, Z):
    """‖X[i] − Z[j]‖² by broadcasting (exact, no cancellation)."""
    X, Z = np.asarray(X, float), np.asarray(Z, float)
    return ((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1)


def rbf(X, Z, sigma):
    """The Gaussian kernel exp(-‖x − z‖² / (2σ²)) for all pairs."""
    return np.exp(-squared_distances(X, Z) / (2.0 * sigma ** 2))


def kernel_mistakes(d2, sigma):
    """What each common mistake of ``visible.KERNEL_HINTS`` computes from squared distances."""
    return {
        "sigma": np.exp(-d2 / (2.0 * sigma)),
        "no2": np.exp(-d2 / sigma ** 2),
        "over_sigma": np.exp(-d2 / sigma),
        "gamma": np.exp(-sigma * d2),
        "times": np.exp(-d2 * 2.0 * sigma ** 2),
        "distance": np.exp(-np.sqrt(d2) / (2.0 * sigma ** 2)),
        "sign": np.exp(d2 / (2.0 * sigma ** 2)),
        "d2": d2,
    }


def rbf_score(X, y, alpha, query, sigma):
    """Σᵢ αᵢ yᵢ exp(-‖xᵢ − q‖² / (2σ²)) (no bias)."""
    return float(np.sum(np.asarray(alpha) * np.asarray(y) * rbf(X, np.asarray(query)[None], sigma)[:, 0]))


def sigma_errors(X_train, y_train, X_val, y_val, sigmas, max_epochs=MAX_EPOCHS):
    """Training and validation error rates of ``KernelPerceptron(kernel="rbf", sigma=s)`` per σ.

    The reference of Exercise 3: ``max_epochs=10, random_state=0`` on the CPU.

    Returns
    -------
    train, val : ndarray of shape (len(sigmas),)
    """
    train, val = [], []
    for s in sigmas:
        model = KernelPerceptron(kernel="rbf", sigma=s, max_epochs=max_epochs, random_state=0,
                                 device="cpu").fit(X_train, y_train)
        train.append(np.mean(model.predict(X_train) != y_train))
        val.append(np.mean(model.predict(X_val) != y_val))
    return np.array(train), np.array(val)


def visible_data():
    """Expected outputs and common-mistake outputs of the visible probes."""
    P = visible.PROBES
    X, Z = P["gram_X"], P["gram_Z"]
    d2 = squared_distances(X, Z)
    gram = {"K": [rbf(X, Z, s) for s in P["gram_sigmas"]],
            "mistakes": [kernel_mistakes(d2, s) for s in P["gram_sigmas"]]}
    Xp, yp, ap, qp, sp = P["predict"]
    d2q = squared_distances(Xp, qp[None])[:, 0]
    k = np.exp(-d2q / (2.0 * sp ** 2))
    predict = {"score": rbf_score(Xp, yp, ap, qp, sp),
               "weights": {"no_y": float(np.sum(ap * k)), "no_alpha": float(np.sum(yp * k)),
                           "plain": float(np.sum(k))},
               "kernel": {key: float(np.sum(ap * yp * kv)) for key, kv in kernel_mistakes(d2q, sp).items()}}
    train, val = sigma_errors(*visible.rings_probe(), P["choose_sigmas"])
    return {"gram": gram, "predict": predict, "choose": {"train": train, "val": val}}


# ------------------------------------------------------------- hidden tests
def _gram_new_data():
    rng = np.random.default_rng(501)
    calls, expected = [], []
    for n, m, d, s in ((13, 7, 4, 0.6), (9, 9, 1, 3.0), (25, 18, 6, 1.3)):
        A, B = rng.normal(size=(n, d)), 2.0 * rng.normal(size=(m, d))
        calls.append(Call("rbf_gram", A, B, s))
        expected.append((rbf(A, B, s), f"rbf_gram on new data ({n} x {m} points, sigma={s})"))
    A = rng.normal(size=(12, 3))
    calls.append(Call("rbf_gram", A, A, 0.9))
    expected.append((rbf(A, A, 0.9), "rbf_gram(A, A, 0.9) on new data"))

    def judge(answers):
        for a, (K, name) in zip(answers, expected, strict=True):
            check_close(a.get(), K, name, rtol=0, atol=1e-10)
    return Test(calls, judge)


def _gram_new_shapes():
    cases = [(np.ones((n, d)), np.zeros((m, d)), 2.0, (n, m), f"rbf_gram for {n} x {m} points in {d}-D")
             for n, m, d in ((2, 7, 4), (7, 2, 1), (1, 1, 3))]
    cases.append((np.arange(6).reshape(3, 2), np.arange(10).reshape(5, 2), 2.0, (3, 5), "rbf_gram for integer arrays"))
    errors = [(np.ones((4, 5)), np.ones((4, 4)), 1.0), (np.ones((2, 2)), np.ones((3, 2)), -0.1)]
    calls = [Call("rbf_gram", X, Z, s) for X, Z, s, _, _ in cases] + [Call("rbf_gram", *e) for e in errors]

    def judge(answers):
        for a, (_, _, _, shape, name) in zip(answers, cases, strict=False):
            check_shape(a.get(), shape, name)
        for a in answers[len(cases):]:
            if a.error != "ValueError":
                if a.error in ("NotImplementedError", "TimeUp", "NameError", "NoAnswer"):
                    a.get()
                raise AssertionError("rbf_gram should raise ValueError for inputs that do not match, or sigma <= 0")
    return Test(calls, judge)


def _gram_large():
    rng = np.random.default_rng(503)
    A, B = rng.normal(size=(1200, 8)), rng.normal(size=(900, 8))

    def judge(answers):
        K = answers[0].get()
        check_shape(K, (1200, 900), "rbf_gram for 1200 x 900 new points")
        K = np.asarray(K, dtype=float)  # the values are the first test cell's business
        assert np.all(np.isfinite(K)) and K.min() >= 0 and K.max() <= 1 + 1e-12, \
            "rbf_gram on 1200 x 900 new points: kernel values must be finite and between 0 and 1"
    # a loop-free but slow function (np.vectorize) takes seconds here: the time limit only
    # stops endless loops, no point depends on speed
    return Test([Call("rbf_gram", A, B, 2.5)], judge, time_limit=60.0)


def _predict_scores():
    ex = datasets.msdn_example()
    X4, y4, a4, q4, s4 = ex["X"], ex["y"], ex["alpha"], ex["query"], ex["sigma"]
    calls = [Call("rbf_predict", X4, y4, a4, q4, s4)]
    expected = [(rbf_score(X4, y4, a4, q4, s4), "the score of the article's example")]
    rng = np.random.default_rng(504)
    for n, d, s in ((10, 3, 0.7), (25, 5, 2.0), (1, 2, 1.0)):
        X, q = rng.normal(size=(n, d)), rng.normal(size=d)
        y, alpha = rng.choice([-1, 1], size=n), rng.integers(0, 4, size=n)
        calls.append(Call("rbf_predict", X, y, alpha, q, s))
        expected.append((rbf_score(X, y, alpha, q, s), f"the score on new data ({n} points in {d}-D, sigma={s})"))
    # a trained kernel perceptron without bias scores with the same formula
    Xc, yc = datasets.circles(120, noise=0.1, random_state=505)
    model = KernelPerceptron(kernel="rbf", sigma=0.4, fit_intercept=False, max_epochs=MAX_EPOCHS, random_state=0,
                             device="cpu").fit(Xc, yc)
    queries = np.random.default_rng(505).uniform(-1.3, 1.3, size=(10, 2))
    trained = [Call("rbf_predict", Xc, yc, model.alpha_, qq, 0.4) for qq in queries]
    decision = model.decision_function(queries)

    def judge(answers):
        for a, (score, name) in zip(answers, expected, strict=False):
            got, _ = visible.unpack_predict(a)
            check_close(got, score, name, rtol=1e-9, atol=1e-12)
        got = [visible.unpack_predict(a)[0] for a in answers[len(expected):]]
        check_close(np.array(got), decision, "the scores of a trained kernel perceptron (no bias) on new queries",
                    rtol=1e-9, atol=1e-12)
    return Test(calls + trained, judge)


def _predict_labels():
    rng = np.random.default_rng(506)
    X, y, alpha = rng.normal(size=(15, 3)), rng.choice([-1, 1], size=15), rng.integers(0, 3, size=15)
    calls = [Call("rbf_predict", X, y, alpha, qq, 1.1) for qq in rng.normal(size=(20, 3))]
    # opposite labels at the same distance with the same count: a score of exactly 0
    calls.append(Call("rbf_predict", np.array([[1.0, 2.0, 0.0], [1.0, -2.0, 0.0]]), np.array([-1, 1]),
                      np.array([3, 3]), np.array([1.0, 0.0, 5.0]), 0.5))

    def judge(answers):
        for a in answers[:-1]:
            score, label = visible.unpack_predict(a)
            assert label in (-1, 1) and label == (1 if score > 0 else -1), \
                "rbf_predict: the label must be +1 for a positive score and -1 otherwise"
        score, label = visible.unpack_predict(answers[-1])
        if score == 0:
            assert label == -1, "rbf_predict: a score of exactly 0 must give the label -1"
    return Test(calls, judge)


def _rings(random_state):
    X, y = datasets.circles(250, noise=0.1, factor=0.5, random_state=random_state)
    return X[:150], y[:150], X[150:], y[150:]


def _choose_errors():
    data, grid = _rings(24), (0.003, 0.03, 0.3, 3.0, 30.0)
    _, ref_val = sigma_errors(*data, grid)

    def judge(answers):
        _, errors = visible.unpack_choice(answers[0], len(grid))
        check_close(errors, ref_val, "the validation errors on new data", rtol=0, atol=0.05)
    return Test([Call("choose_sigma", *data, grid)], judge, time_limit=30.0)


def _choose_choice():
    data, grid = _rings(28), (0.002, 0.02, 0.2, 2.0, 20.0)
    ref_train, ref_val = sigma_errors(*data, grid)

    def judge(answers):
        best, _ = visible.unpack_choice(answers[0], len(grid))
        visible.check_sigma_choice(best, grid, ref_val, ref_train, name="choose_sigma on new data")
    return Test([Call("choose_sigma", *data, grid)], judge, time_limit=30.0)


def cells():
    """The tests that decide each autograded cell of assignment 05."""
    gram, predict, choose = "the RBF Gram matrix", "the RBF prediction", "the choice of σ"
    return {
        "ex1-rbf-gram-tests-values": Cell("ex1-rbf-gram", gram,
                                          [*visible.rbf_gram_tests("values"), _gram_new_data()]),
        "ex1-rbf-gram-tests-shape": Cell("ex1-rbf-gram", gram,
                                         [*visible.rbf_gram_tests("shape"), _gram_new_shapes()]),
        "ex1-rbf-gram-tests-loop-free": Cell("ex1-rbf-gram", gram,
                                             [*visible.rbf_gram_tests("loop_free"), _gram_large()],
                                             loop_free=("rbf_gram",), answer_bytes=16 * 2**20),  # 12 MB
        "ex2-rbf-predict-tests-score": Cell("ex2-rbf-predict", predict,
                                            [*visible.rbf_predict_tests("score"), _predict_scores()]),
        "ex2-rbf-predict-tests-label": Cell("ex2-rbf-predict", predict,
                                            [*visible.rbf_predict_tests("label"), _predict_labels()]),
        "ex3-choose-sigma-tests-errors": Cell("ex3-choose-sigma", choose,
                                              [*visible.choose_sigma_tests("errors"), _choose_errors()],
                                              allow=CHOOSE_ALLOW),
        "ex3-choose-sigma-tests-choice": Cell("ex3-choose-sigma", choose,
                                              [*visible.choose_sigma_tests("choice"), _choose_choice()],
                                              allow=CHOOSE_ALLOW),
    }
