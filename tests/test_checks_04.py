"""kpcourse.checks, lesson 04: every diagnosis passes the model solution and names each mistake.

The right functions are the model solutions of assignment 04; each wrong one makes a
single common mistake. Messages must name the mistake and never contain the expected
numbers. Also: a reference function imported by name before the test is still caught.
"""

import math

import numpy as np
import pytest

from kpcourse import checks, kernels
from kpcourse.perceptron import KernelPerceptron


def _message(func, *args, **kwargs):
    with pytest.raises(AssertionError) as info:
        func(*args, **kwargs)
    return str(info.value)


# --------------------------------------------------------------------------- #
# Model solutions and their common mistakes
# --------------------------------------------------------------------------- #

SQRT2 = np.sqrt(2.0)


def make_phi(cross=SQRT2, order=(0, 1, 2), check=True):
    def phi(X):
        X = np.asarray(X, dtype=float)
        if check and (X.ndim != 2 or X.shape[1] != 2):
            raise ValueError(f"X must have shape (n, 2), got {X.shape}")
        cols = [X[:, 0] ** 2, X[:, 1] ** 2, cross * X[:, 0] * X[:, 1]]
        return np.column_stack([cols[i] for i in order])
    return phi


def make_gap(how="max", check=True):
    def identity_gap(feature_map, X, Z):
        X, Z = np.asarray(X, dtype=float), np.asarray(Z, dtype=float)
        if check and X.shape[1] != Z.shape[1]:
            raise ValueError("X and Z must have the same number of columns")
        D = feature_map(X) @ feature_map(Z).T - (X @ Z.T) ** 2
        if how == "table":
            return np.abs(D)
        return float({"max": np.abs(D).max(), "signed": D.max(), "mean": np.abs(D).mean()}[how])
    return identity_gap


def make_train(kernel="quadratic", zero_is_mistake=True, bias=True, step="one", epochs_extra=0):
    def kernel_perceptron_train(X, y, max_epochs):
        X, y = np.asarray(X, dtype=float), np.asarray(y)
        if X.ndim != 2 or len(y) != len(X):
            raise ValueError("X must be (n, d) and y must hold n labels")
        G = X @ X.T
        K = {"quadratic": (1 + G) ** 2, "homogeneous": G ** 2, "linear": G}[kernel]
        alpha, b = np.zeros(len(y), dtype=int), 0.0
        for _ in range(max_epochs + epochs_extra):
            mistakes = 0
            for i in range(len(y)):
                s = y[i] * ((alpha * y) @ K[:, i] + b)
                if (s <= 0) if zero_is_mistake else (s < 0):
                    alpha[i] = alpha[i] + 1 if step == "one" else 1
                    b += y[i] if bias else 0
                    mistakes += 1
            if mistakes == 0:
                break
        return alpha, b
    return kernel_perceptron_train


def make_predict(kernel="quadratic", use_y=True, use_b=True, zero=-1, scores=False):
    def kernel_perceptron_predict(X_train, y_train, alpha, b, X_new):
        X_train, X_new = np.asarray(X_train, dtype=float), np.asarray(X_new, dtype=float)
        if X_new.shape[1] != X_train.shape[1]:
            raise ValueError("X_new and X_train must have the same number of columns")
        G = X_new @ X_train.T
        K = {"quadratic": (1 + G) ** 2, "homogeneous": G ** 2, "linear": G}[kernel]
        f = K @ (alpha * (y_train if use_y else 1)) + (b if use_b else 0)
        if scores:
            return f
        return np.where(f > 0, 1, np.where(f < 0, -1, zero))
    return kernel_perceptron_predict


def make_count(kind="right", check=True):
    def count_features(d, degree):
        if check and (d < 1 or degree < 1):
            raise ValueError("d and degree must be at least 1")
        return {"right": lambda: math.comb(d + degree, degree),
                "exact": lambda: math.comb(d + degree - 1, degree),
                "float": lambda: math.factorial(d + degree) / (math.factorial(d) * math.factorial(degree)),
                "ordered": lambda: (d + 1) ** degree,
                "no_constant": lambda: math.comb(d + degree, degree) - 1}[kind]()
    return count_features


# --------------------------------------------------------------------------- #
# phi
# --------------------------------------------------------------------------- #

def test_phi_right_passes_every_aspect():
    checks.diagnose_phi(make_phi())


@pytest.mark.parametrize("wrong,aspect,needle", [
    (make_phi(cross=1.0), "values", "the cross term needs the factor √2"),
    (make_phi(cross=2.0), "values", "the factor is √2"),
    (make_phi(order=(0, 2, 1)), "values", "wrong order"),
    (make_phi(check=False), "shape", "should raise ValueError when X has shape (4, 3)"),
])
def test_phi_mistakes_are_named(wrong, aspect, needle):
    msg = _message(checks.diagnose_phi, wrong, aspect=aspect)
    assert needle in msg, msg


def test_phi_missing_sqrt2_still_passes_the_shape_aspect():
    checks.diagnose_phi(make_phi(cross=1.0), aspect="shape")


def test_phi_calling_the_reference_through_an_imported_name_gets_no_credit():
    from kpcourse.kernels import quadratic_features  # bound before the check starts

    def phi(X):
        return quadratic_features(X)

    for aspect in ("shape", "values"):
        msg = _message(checks.diagnose_phi, phi, aspect=aspect)
        assert "calling kpcourse.kernels.quadratic_features gets no credit" in msg, msg
    phi_alias = kernels.quadratic_features
    assert "gets no credit" in _message(checks.diagnose_phi, phi_alias, aspect="values")
    # ... and through the module attribute, even if the student catches the error
    def phi_catching(X):
        try:
            return kernels.polynomial_features(X, degree=2, coef0=0.0)
        except Exception:
            return np.zeros((len(X), 3))
    assert "gets no credit" in _message(checks.diagnose_phi, phi_catching, aspect="values")
    assert kernels.quadratic_features(np.ones((1, 2))).shape == (1, 3)  # restored afterwards


def test_no_reference_calls_leaves_other_code_alone():
    wrapped = checks.no_reference_calls(lambda X: kernels.polynomial(X, degree=2),
                                        forbidden=checks.PHI_FORBIDDEN)
    assert wrapped(np.ones((2, 2))).shape == (2, 2)


# --------------------------------------------------------------------------- #
# identity_gap
# --------------------------------------------------------------------------- #

def test_gap_right_passes_and_matches_the_lesson():
    gap = make_gap()
    checks.diagnose_identity_gap(gap)
    A = np.random.default_rng(0).normal(size=(30, 2))
    assert gap(kernels.quadratic_features, A, A[:7]) < 1e-12


@pytest.mark.parametrize("wrong,aspect,needle", [
    (make_gap("signed"), "values", "take np.abs"),
    (make_gap("mean"), "values", "not the mean"),
    (make_gap("table"), "errors", "should return one number"),
])
def test_gap_mistakes_are_named(wrong, aspect, needle):
    msg = _message(checks.diagnose_identity_gap, wrong, aspect=aspect)
    assert needle in msg, msg


def test_gap_without_squaring_is_caught():
    def gap(feature_map, X, Z):
        return float(np.abs(feature_map(X) @ feature_map(Z).T - X @ Z.T).max())
    assert "not rounding-size" in _message(checks.diagnose_identity_gap, gap, aspect="values")


# --------------------------------------------------------------------------- #
# kernel perceptron: train
# --------------------------------------------------------------------------- #

def test_train_right_passes_and_matches_the_reference():
    train = make_train()
    checks.diagnose_kernel_train(train)
    X, y = checks._KT_X, checks._KT_Y
    ref = KernelPerceptron(kernel="poly", degree=2, coef0=1.0, shuffle=False, max_epochs=20,
                           device="cpu").fit(X, y)
    alpha, b = train(X, y, 20)
    assert np.array_equal(alpha, ref.alpha_) and b == ref.intercept_
    assert ref.alpha_.max() >= 2 and ref.n_epochs_ >= 3  # the probe exercises repeated mistakes


def test_train_probe_separates_every_variant():
    X, y = checks._KT_X, checks._KT_Y
    results = [checks._kp04(X, y, 20)] + [checks._kp04(X, y, 20, **kw) for kw, _ in checks._KT_VARIANTS]
    keys = {(tuple(a), b) for a, b in results}
    assert len(keys) == len(results)


@pytest.mark.parametrize("wrong,aspect,needle", [
    (make_train(bias=False), "rule", "ignores the bias"),
    (make_train(kernel="homogeneous"), "rule", "(x·z)², without the 1"),
    (make_train(kernel="linear"), "rule", "linear x·z"),
    (make_train(step="set"), "rule", "not just mark them with 1"),
    (make_train(zero_is_mistake=False), "basic", "sign(0) must count as a mistake"),
    (make_train(epochs_extra=1), "stop", "run at most max_epochs epochs"),
])
def test_train_mistakes_are_named(wrong, aspect, needle):
    msg = _message(checks.diagnose_kernel_train, wrong, aspect=aspect)
    assert needle in msg, msg


def test_train_without_bias_keeps_the_other_aspects():
    for aspect in ("basic", "stop"):
        checks.diagnose_kernel_train(make_train(bias=False), aspect=aspect)


def test_train_calling_kernel_perceptron_gets_no_credit():
    def train(X, y, max_epochs):
        m = KernelPerceptron(kernel="poly", degree=2, coef0=1.0, shuffle=False,
                             max_epochs=max_epochs).fit(X, y)
        return m.alpha_, m.intercept_
    assert "gets no credit" in _message(checks.diagnose_kernel_train, train, aspect="rule")


# --------------------------------------------------------------------------- #
# kernel perceptron: predict
# --------------------------------------------------------------------------- #

def test_predict_right_passes_and_matches_the_reference():
    predict = make_predict()
    checks.diagnose_kernel_predict(predict)
    X, y = checks._KT_X, checks._KT_Y
    ref = KernelPerceptron(kernel="poly", degree=2, coef0=1.0, shuffle=False, device="cpu").fit(X, y)
    new = np.random.default_rng(1).uniform(-2, 2, size=(50, 2))
    assert np.array_equal(predict(X, y, ref.alpha_, ref.intercept_, new), ref.predict(new))


@pytest.mark.parametrize("wrong,aspect,needle", [
    (make_predict(use_y=False), "basic", "ignores the labels y"),
    (make_predict(use_b=False), "basic", "ignores the bias b"),
    (make_predict(scores=True), "basic", "returned the scores"),
    (make_predict(kernel="homogeneous"), "details", "(x·z)², without the 1"),
    (make_predict(kernel="linear"), "details", "linear x·z"),
    (make_predict(zero=0), "details", "np.sign(0) is 0"),
    (make_predict(zero=1), "details", "exactly 0 gave +1"),
])
def test_predict_mistakes_are_named(wrong, aspect, needle):
    msg = _message(checks.diagnose_kernel_predict, wrong, aspect=aspect)
    assert needle in msg, msg


# --------------------------------------------------------------------------- #
# count_features
# --------------------------------------------------------------------------- #

def test_count_right_passes_and_matches_the_reference():
    count = make_count()
    checks.diagnose_count_features(count)
    for d in (1, 2, 10, 784):
        for n in (1, 2, 3, 4, 5):
            assert count(d, n) == kernels.n_polynomial_features(d, n)


@pytest.mark.parametrize("wrong,aspect,needle", [
    (make_count("exact"), "values", "degree exactly"),
    (make_count("ordered"), "values", "ordered products"),
    (make_count("no_constant"), "values", "constant feature 1"),
    (make_count("float"), "basic", "should return an int"),
    (make_count(check=False), "basic", "should raise ValueError"),
])
def test_count_mistakes_are_named(wrong, aspect, needle):
    msg = _message(checks.diagnose_count_features, wrong, aspect=aspect)
    assert needle in msg, msg


def test_count_exact_degree_passes_the_basic_aspect():
    checks.diagnose_count_features(make_count("exact"), aspect="basic")


def test_count_calling_the_reference_gets_no_credit():
    from kpcourse.kernels import n_polynomial_features

    def count_features(d, degree):
        return n_polynomial_features(d, degree)
    assert "gets no credit" in _message(checks.diagnose_count_features, count_features, aspect="values")


# --------------------------------------------------------------------------- #
# Messages never show the expected answer
# --------------------------------------------------------------------------- #

def test_messages_do_not_show_expected_values():
    ra, rb = checks._kp04(checks._KT_X, checks._KT_Y, 20)
    msg = _message(checks.diagnose_kernel_train, make_train(kernel="linear"), aspect="rule")
    assert checks._fmt(ra) not in msg
    msg = _message(checks.diagnose_count_features, make_count("ordered"), aspect="values")
    assert "6" not in msg
    msg = _message(checks.diagnose_phi, make_phi(cross=1.0), aspect="values")
    assert "2.8284" not in msg and "1.414" not in msg


def test_train_that_never_stops_early_is_named():
    def kernel_perceptron_train(X, y, max_epochs):
        X, y = np.asarray(X, dtype=float), np.asarray(y)
        K = (1 + X @ X.T) ** 2
        alpha, b = np.zeros(len(y)), 0.0
        for _ in range(max_epochs):  # no early stop
            for i in range(len(y)):
                if y[i] * ((alpha * y) @ K[:, i] + b) <= 0:
                    alpha[i] += 1
                    b += y[i]
        return alpha, b
    msg = _message(checks.diagnose_kernel_train, kernel_perceptron_train, aspect="stop")
    assert "stop after the first epoch without a mistake" in msg, msg


def test_no_reference_calls_sees_through_decorators():
    """scikit-learn's public functions share one decorator: only the forbidden one may fire."""
    from sklearn.metrics import accuracy_score
    from sklearn.metrics.pairwise import rbf_kernel

    from kpcourse import checks

    allowed = checks.no_reference_calls(lambda: accuracy_score([1, 0], [1, 0]),
                                        forbidden=("sklearn.metrics.pairwise.rbf_kernel",))
    assert allowed() == 1.0
    caught = checks.no_reference_calls(lambda X: rbf_kernel(X), forbidden=("sklearn.metrics.pairwise.rbf_kernel",))
    with pytest.raises(AssertionError, match="no credit"):
        caught([[1.0]])
