"""Grader of assignment 04 (the kernel trick): hidden tests and references.

Grader-only: never released, never visible to the student's code (the sandbox does
not mount the course folder). ``cells()`` says, for each autograded test cell, which
tests decide its points: the visible tests of ``kpcourse.checks.lesson04`` (replayed
on the student's answers) and hidden tests built here. ``visible_data()`` computes the
data the visible checks hold (expected outputs of their probes and the outputs of
common mistakes); ``python -m kpcourse.grading checks-data 04-kernel-trick`` writes it
to ``kpcourse/checks/data/lesson04.json`` and a unit test keeps the two equal.

The references below are plain NumPy (the kernel perceptron is the online rule of
``KernelPerceptron(kernel="poly", degree=2, coef0=1.0, shuffle=False)``; a unit test
checks that they agree).

``identity_gap(feature_map, X, Z)`` is called with the maps that the assignment gives
in a locked cell (``phi_without_root``, ``all_ordered_products``), passed by name:
never with the student's ``phi``, so that exercise 2 is graded on its own.
"""

import math

import numpy as np

from kpcourse.checks import lesson04 as visible
from kpcourse.checks._core import Call, Test, check_close, check_labels, check_shape, expect_raises
from kpcourse.datasets import unit_disc
from kpcourse.grading.spec import Cell

#: kpcourse (its feature maps, kernels, KernelPerceptron, n_polynomial_features),
#: scikit-learn (PolynomialFeatures, ...) and SciPy (scipy.special.comb, ...).
FORBIDDEN = ("kpcourse", "sklearn", "scipy")


# ----------------------------------------------------------------- references
def quadratic(X, cross=None):
    """(x1², x2², cross·x1x2): the exercise's φ (cross factor √2 by default), or a mistake's."""
    X = np.asarray(X, dtype=float)
    cross = math.sqrt(2.0) if cross is None else cross
    return np.column_stack([X[:, 0] ** 2, X[:, 1] ** 2, cross * X[:, 0] * X[:, 1]])


def gap(feature_map, X, Z, how="max"):
    """max |φ(X) φ(Z)ᵀ − (X Zᵀ)²| and the common mistakes (signed, flipped, mean, sum)."""
    D = feature_map(X) @ feature_map(Z).T - (X @ Z.T) ** 2
    return float({"max": np.abs(D).max(), "signed": D.max(), "flipped": (-D).max(),
                  "mean": np.abs(D).mean(), "sum": np.abs(D).sum()}[how])


def _kernel(A, B, kernel="quadratic"):
    G = np.asarray(A, dtype=float) @ np.asarray(B, dtype=float).T
    return {"quadratic": (1.0 + G) ** 2, "homogeneous": G ** 2, "linear": G}[kernel]


def kernel_train(X, y, max_epochs, *, kernel="quadratic", zero_is_mistake=True, bias=True,
                 bias_in_score=True, step="one"):
    """The kernel perceptron with k = (1 + x·z)² and its common mistakes (the default is right)."""
    K = _kernel(X, X, kernel)
    n = len(y)
    alpha, b = np.zeros(n), 0.0
    for _ in range(max_epochs):
        made = 0
        for i in range(n):
            s = y[i] * (np.dot(alpha * y, K[:, i]) + (b if bias_in_score else 0.0))
            if (s <= 0) if zero_is_mistake else (s < 0):
                alpha[i] = alpha[i] + 1 if step == "one" else 1.0
                b += y[i] if bias else 0.0
                made += 1
        if made == 0:
            break
    return alpha, float(b)


def kernel_scores(X_train, y_train, alpha, b, X_new, *, kernel="quadratic", use_y=True, use_b=True):
    """f(x) = Σ_j alpha_j y_j k(x_j, x) + b for the rows of X_new (and the common mistakes)."""
    weights = np.asarray(alpha, dtype=float) * (np.asarray(y_train) if use_y else 1.0)
    return _kernel(X_new, X_train, kernel) @ weights + (b if use_b else 0.0)


def kernel_predict(*args, **kwargs):
    """Labels of :func:`kernel_scores`: +1 where the score is positive, else -1."""
    return np.where(kernel_scores(*args, **kwargs) > 0, 1, -1)


def count(d, n):
    """Monomials of degree 0..n in d variables: C(d + n, n) (stars and bars)."""
    return math.comb(d + n, n)


_TRAIN_MISTAKES = {"homogeneous": {"kernel": "homogeneous"}, "linear": {"kernel": "linear"},
                   "no_bias": {"bias": False}, "bias_not_in_score": {"bias_in_score": False},
                   "set_one": {"step": "set"}}


def visible_data():
    """Expected outputs and common-mistake outputs of the visible probes."""
    P, maps = visible.PROBES, visible.FEATURE_MAPS
    X = P["phi_X"]
    phi = {"features": quadratic(X), "no_root": quadratic(X, 1.0), "doubled": quadratic(X, 2.0)}
    wrong = maps["phi_without_root"]
    gaps = {key: {how: gap(wrong, P["gap_X"], Z, how) for how in ("max", "signed", "flipped", "mean", "sum")}
            for key, Z in (("wrong", P["gap_Z"]), ("wrong_flipped", P["gap_Zf"]))}
    Xt, yt, E = P["train_X"], P["train_y"], P["train_epochs"]
    alpha, b = kernel_train(Xt, yt, E)
    mistakes = {}
    for key, flags in _TRAIN_MISTAKES.items():
        a, bb = kernel_train(Xt, yt, E, **flags)
        mistakes[key] = {"alpha": a, "b": bb}
    train = {"alpha": alpha, "b": b, "mistakes": mistakes,
             "twin_alpha": [kernel_train(P["twin_X"], P["twin_y"], e)[0] for e in (1, 3)]}
    args = (P["predict_X"], P["predict_y"], P["predict_alpha"], P["predict_b"], P["predict_new"])
    predict = {"scores": kernel_scores(*args), "labels": kernel_predict(*args),
               "no_y": kernel_predict(*args, use_y=False), "no_b": kernel_predict(*args, use_b=False),
               "homogeneous": kernel_predict(*args, kernel="homogeneous"),
               "linear": kernel_predict(*args, kernel="linear")}
    counts = [{"right": count(d, n), "exact_degree": math.comb(d + n - 1, n), "no_constant": count(d, n) - 1,
               "ordered_exact": d ** n, "ordered": (d + 1) ** n} for d, n in P["count_values"]]
    return {"phi": phi, "gap": gaps, "train": train, "predict": predict, "count": counts}


# ------------------------------------------------------------- hidden tests
def _phi_new_shapes():
    cases = [(np.random.default_rng(40 + rows).normal(size=(rows, 2)), rows) for rows in (1, 6, 25)]
    calls = [Call("phi", X) for X, _ in cases]
    calls += [Call("phi", [[1.0, 2.0], [3.0, 4.0]]), Call("phi", np.ones((5, 1)))]

    def judge(answers):
        for a, (_, rows) in zip(answers[:3], cases, strict=True):
            check_shape(a.get(), (rows, 3), f"phi(X) for new X of shape ({rows}, 2)")
        check_shape(answers[3].get(), (2, 3), "phi(X) for X given as a list of lists")
        expect_raises(answers[4], "ValueError", "X has shape (5, 1)")
    return Test(calls, judge)


def _phi_new_values():
    A = np.random.default_rng(11).normal(scale=2.0, size=(40, 2))
    B = np.random.default_rng(12).normal(size=(30, 2))
    features, kernel = quadratic(A), (A @ B.T) ** 2

    def judge(answers):
        phi_a, phi_b = answers[0].get(), answers[1].get()
        check_close(phi_a, features, "phi(X) on 40 new points")
        check_shape(phi_b, (30, 3), "phi(X) on 30 new points")
        check_close(np.asarray(phi_a, float) @ np.asarray(phi_b, float).T, kernel,
                    "phi(a) . phi(b) against (a . b)^2 on new points", rtol=1e-9, atol=1e-9)
    return Test([Call("phi", A), Call("phi", B)], judge)


def _gap_new_values():
    X = np.random.default_rng(21).normal(size=(25, 2))
    Z = np.random.default_rng(22).normal(size=(15, 2))
    want = gap(visible.FEATURE_MAPS["phi_without_root"], X, Z)
    calls = [Call("identity_gap", visible.WRONG_MAP, X, Z), Call("identity_gap", visible.EXACT_MAP, X, Z)]

    def judge(answers):
        check_close(visible.gap_value(answers[0]), want, "identity_gap for a wrong map on new points")
        if not visible.gap_value(answers[1]) < 1e-9:
            raise AssertionError("the gap of the exact map is not rounding-size")
    return Test(calls, judge)


def _gap_new_dimensions():
    dims = (1, 4)
    calls = [Call("identity_gap", visible.EXACT_MAP, np.random.default_rng(dim).normal(size=(6, dim)),
                  np.ones((3, dim))) for dim in dims]
    calls.append(Call("identity_gap", visible.EXACT_MAP, np.ones((2, 4)), np.ones((2, 3))))

    def judge(answers):
        for a, dim in zip(answers, dims, strict=False):
            got = a.get()
            if not (np.ndim(got) == 0 and abs(float(got)) < 1e-9):
                raise AssertionError(f"identity_gap for {dim}-D points is wrong")
        expect_raises(answers[2], "ValueError", "X has 4 columns and Z has 3")
    return Test(calls, judge)


def _train_new_basic():
    X = np.random.default_rng(31).normal(size=(12, 3))
    y = np.where(np.random.default_rng(32).random(12) < 0.5, -1, 1)

    def judge(answers):
        alpha, b = visible.unpack_train(answers[0])
        check_shape(alpha, (12,), "alpha for 12 new points in 3-D")
        if not (np.ndim(b) == 0 and alpha[0] >= 1):
            raise AssertionError("alpha or b on new 3-D data is not right")
    return Test([Call(visible.TRAIN, X, y, 5)], judge)


def _disc(n, margin, seed):
    """Points of the unit-disc problem on a 1/8 grid: every kernel value and score is exact."""
    X, _ = unit_disc(n, margin=margin, random_state=seed)
    X = np.round(X * 8) / 8
    return X, np.where(np.linalg.norm(X, axis=1) < 1, -1, 1)


def _train_new_rule():
    X, y = _disc(60, 0.15, 33)
    epochs = (2, 30)
    expected = [kernel_train(X, y, e) for e in epochs]

    def judge(answers):
        for a, e, (alpha_ref, b_ref) in zip(answers, epochs, expected, strict=True):
            alpha, b = visible.unpack_train(a)
            check_close(alpha, alpha_ref, f"alpha on 60 new points, max_epochs={e}")
            check_close(b, b_ref, f"b on 60 new points, max_epochs={e}")
    return Test([Call(visible.TRAIN, X, y, e) for e in epochs], judge)


def _train_new_stop():
    pair_X, pair_y = np.array([[0.5, -1.0], [0.5, -1.0]]), np.array([-1, 1])
    epochs = (2, 5)
    Xs, ys = np.array([[0.0, 0.25], [2.0, 0.0], [-0.25, 0.0], [0.0, -2.0]]), np.array([-1, 1, -1, 1])
    calls = [Call(visible.TRAIN, pair_X, pair_y, e) for e in epochs]
    calls.append(Call(visible.TRAIN, Xs, ys, 10 ** 6))  # separable: stops long before max_epochs

    def judge(answers):
        for a, e in zip(answers, epochs, strict=False):
            alpha, _ = visible.unpack_train(a)
            if not np.allclose(alpha, e):
                raise AssertionError(f"the number of epochs run with max_epochs={e} is not right")
        if answers[2].error in ("TimeUp", "NoAnswer"):
            raise AssertionError("with max_epochs=1000000 on separable points your function did not return "
                                 "within 5 s: stop after the first epoch without a mistake")
        visible.unpack_train(answers[2])
    return Test(calls, judge, time_limit=5.0)


def _predict_new_points():
    X, y = _disc(50, 0.1, 41)
    alpha, b = kernel_train(X, y, 20)
    new = np.round(np.random.default_rng(42).uniform(-2, 2, size=(80, 2)) * 8) / 8
    expected = kernel_predict(X, y, alpha, b, new)

    def judge(answers):
        labels = answers[0].get()
        check_labels(labels, 80, "the labels of 80 new points")
        check_close(labels, expected, "the labels of 80 new points")
    return Test([Call(visible.PREDICT, X, y, alpha, b, new)], judge)


def _predict_zero_and_kernel():
    Xz = np.array([[2.0, 0.0], [0.0, 2.0]])
    calls = [Call(visible.PREDICT, Xz, np.array([1, -1]), np.array([3, 3]), 0.0, np.array([[1.0, 1.0], [-0.5, -0.5]])),
             Call(visible.PREDICT, np.array([[1.0, 0.0]]), np.array([1]), np.array([1]), -2.0, np.array([[-2.0, 0.0]]))]

    def judge(answers):
        if not np.array_equal(np.asarray(answers[0].get()), [-1, -1]):
            raise AssertionError("a score of exactly 0 must predict -1")
        if not np.array_equal(np.asarray(answers[1].get()), [-1]):
            raise AssertionError("the kernel is not (1 + x . z)^2")
    return Test(calls, judge)


def _count_new_types():
    cases = ((1, 1), (50, 3), (3000, 6))
    calls = [Call(visible.COUNT, d, n) for d, n in cases] + [Call(visible.COUNT, 5, -1)]

    def judge(answers):
        for a, (d, n) in zip(answers, cases, strict=False):
            if not visible.is_int(a.get()):
                raise AssertionError(f"count_features({d}, {n}) is not an int")
        expect_raises(answers[3], "ValueError", "degree = -1")
    return Test(calls, judge)


def _count_new_values():
    cases = [(d, n) for d in (1, 2, 5, 13, 100, 784) for n in (1, 2, 3, 4, 5, 7)]

    def judge(answers):
        for a, (d, n) in zip(answers, cases, strict=True):
            got = a.get()
            try:
                right = int(got) == count(d, n)
            except (TypeError, ValueError, OverflowError):
                right = False
            if not right:
                raise AssertionError(f"count_features({d}, {n}) is wrong")
    return Test([Call(visible.COUNT, d, n) for d, n in cases], judge)


def cells():
    """The tests that decide each autograded cell of assignment 04."""
    phi, gap_, train = "the feature map φ", "the identity check", "the kernel perceptron"
    predict, count_ = "the kernel perceptron's prediction", "the feature count"
    return {
        "ex1-phi-tests-shape": Cell("ex1-phi", phi, [*visible.phi_tests("shape"), _phi_new_shapes()]),
        "ex1-phi-tests-values": Cell("ex1-phi", phi, [*visible.phi_tests("values"), _phi_new_values()]),
        "ex2-gap-tests-values": Cell("ex2-gap", gap_, [*visible.gap_tests("values"), _gap_new_values()]),
        "ex2-gap-tests-errors": Cell("ex2-gap", gap_, [*visible.gap_tests("errors"), _gap_new_dimensions()]),
        "ex3-train-tests-basic": Cell("ex3-train", train, [*visible.train_tests("basic"), _train_new_basic()]),
        "ex3-train-tests-rule": Cell("ex3-train", train, [*visible.train_tests("rule"), _train_new_rule()]),
        "ex3-train-tests-stop": Cell("ex3-train", train, [*visible.train_tests("stop"), _train_new_stop()]),
        "ex4-predict-tests-basic": Cell("ex4-predict", predict,
                                        [*visible.predict_tests("basic"), _predict_new_points()]),
        "ex4-predict-tests-details": Cell("ex4-predict", predict,
                                          [*visible.predict_tests("details"), _predict_zero_and_kernel()]),
        "ex5-count-tests-basic": Cell("ex5-count", count_, [*visible.count_tests("basic"), _count_new_types()]),
        "ex5-count-tests-values": Cell("ex5-count", count_, [*visible.count_tests("values"), _count_new_values()]),
    }
