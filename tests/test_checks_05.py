"""kpcourse.checks, lesson 05: each diagnosis passes the model solution and names each mistake.

The right functions are the model solutions of assignment 05; each wrong one makes a single
common mistake. Messages must name the mistake, never contain the expected numbers, and a
call of a reference RBF implementation, by any name, must get no credit.
"""

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel as imported_rbf_kernel

from kpcourse import checks, kernels
from kpcourse.kernels import rbf as imported_rbf  # as a student imports it, before the test
from kpcourse.perceptron import KernelPerceptron


def _message(func, *args, **kwargs):
    with pytest.raises(AssertionError) as info:
        func(*args, **kwargs)
    return str(info.value)


# --------------------------------------------------------------------------- #
# Exercise 1: rbf_gram
# --------------------------------------------------------------------------- #

def make_gram(kind="right", check=True):
    def rbf_gram(X, Z, sigma):
        X, Z = np.asarray(X, dtype=float), np.asarray(Z, dtype=float)
        if check and (X.shape[1] != Z.shape[1] or not sigma > 0):
            raise ValueError("X and Z must have the same columns and sigma > 0")
        d2 = np.maximum((X ** 2).sum(1)[:, None] - 2.0 * X @ Z.T + (Z ** 2).sum(1)[None, :], 0.0)
        denominator = {"right": 2.0 * sigma ** 2, "sigma": 2.0 * sigma, "no2": sigma ** 2}[kind]
        with np.errstate(divide="ignore", invalid="ignore"):  # sigma = 0 when check=False
            return np.exp(-d2 / denominator)
    return rbf_gram


def gram_broadcast(X, Z, sigma):
    X, Z = np.asarray(X, dtype=float), np.asarray(Z, dtype=float)
    if X.shape[1] != Z.shape[1] or sigma <= 0:
        raise ValueError("bad input")
    return np.exp(-((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1) / (2.0 * sigma ** 2))


def gram_row_loop(X, Z, sigma):
    X, Z = np.asarray(X, dtype=float), np.asarray(Z, dtype=float)
    if X.shape[1] != Z.shape[1] or sigma <= 0:
        raise ValueError("bad input")
    K = np.empty((len(X), len(Z)))
    for i in range(len(X)):
        K[i] = np.exp(-((X[i] - Z) ** 2).sum(1) / (2.0 * sigma ** 2))
    return K


def gram_comprehension(X, Z, sigma):
    X, Z = np.asarray(X, dtype=float), np.asarray(Z, dtype=float)
    if X.shape[1] != Z.shape[1] or sigma <= 0:
        raise ValueError("bad input")
    return np.array([np.exp(-((x - Z) ** 2).sum(1) / (2.0 * sigma ** 2)) for x in X])


def gram_vectorize(X, Z, sigma):  # no loop statement, but a Python call per pair
    X, Z = np.asarray(X, dtype=float), np.asarray(Z, dtype=float)
    if X.shape[1] != Z.shape[1] or sigma <= 0:
        raise ValueError("bad input")
    pair = np.vectorize(lambda i, j: np.exp(-np.sum((X[i] - Z[j]) ** 2) / (2.0 * sigma ** 2)))
    return pair(*np.meshgrid(np.arange(len(X)), np.arange(len(Z)), indexing="ij"))


def test_rbf_gram_right_passes_every_aspect():
    for f in (make_gram(), gram_broadcast):
        for aspect in ("values", "shape", "fast"):
            checks.diagnose_rbf_gram(f, aspect)


@pytest.mark.parametrize("kind,phrase", [("sigma", "σ instead of σ²"), ("no2", "the factor 2 is missing")])
def test_rbf_gram_common_mistakes_fail_values_only(kind, phrase):
    f = make_gram(kind)
    msg = _message(checks.diagnose_rbf_gram, f, "values")
    assert phrase in msg
    ref = np.round(kernels.rbf(checks._G_X, checks._G_Z, sigma=0.7), 4)
    assert not any(f"{v:.4f}" in msg for v in ref.ravel() if v > 1e-3)
    checks.diagnose_rbf_gram(f, "shape")
    checks.diagnose_rbf_gram(f, "fast")


@pytest.mark.parametrize("formula,phrase", [
    (lambda d2, s: np.exp(-s * d2), "not scikit-learn's γ"),
    (lambda d2, s: np.exp(-np.sqrt(d2) / (2 * s * s)), "squared distance"),
    (lambda d2, s: np.exp(d2 / (2 * s * s)), "must be negative"),
    (lambda d2, s: d2, "squared distances, not the kernel"),
])
def test_rbf_gram_other_named_mistakes(formula, phrase):
    def rbf_gram(X, Z, sigma):
        if X.shape[1] != Z.shape[1] or sigma <= 0:
            raise ValueError("bad")
        return formula(((X[:, None] - Z[None]) ** 2).sum(-1), sigma)
    assert phrase in _message(checks.diagnose_rbf_gram, rbf_gram, "values")


def test_rbf_gram_transposed_and_missing_errors():
    def transposed(X, Z, sigma):
        return gram_broadcast(Z, X, sigma)
    assert "transposed" in _message(checks.diagnose_rbf_gram, transposed, "values")
    msg = _message(checks.diagnose_rbf_gram, make_gram(check=False), "shape")
    assert "should raise ValueError when sigma is 0" in msg  # X @ Z.T raises for the columns itself
    assert "sigma is negative" in msg


@pytest.mark.parametrize("f,kind", [(gram_row_loop, "a `for` loop"),
                                    (gram_comprehension, "a list comprehension")])
def test_rbf_gram_loops_fail_fast_only(f, kind):
    assert kind in _message(checks.diagnose_rbf_gram, f, "fast")
    checks.diagnose_rbf_gram(f, "values")
    checks.diagnose_rbf_gram(f, "shape")


def test_rbf_gram_slow_without_loop_statement_fails_the_timing():
    msg = _message(checks.diagnose_rbf_gram, gram_vectorize, "fast")
    assert "times faster than a double Python loop" in msg


def test_check_loop_free_passes_functions_without_source():
    namespace = {}
    exec("def f(x):\n    return [v for v in x]\n", namespace)  # no file: inspect cannot read it
    checks.check_loop_free(namespace["f"])
    checks.check_loop_free(len)


def gram_module_call(X, Z, sigma):
    return kernels.rbf(X, Z, sigma=sigma)


def gram_alias_call(X, Z, sigma):
    return imported_rbf(X, Z, sigma=sigma)


def gram_alias_swallowed(X, Z, sigma):
    try:
        return imported_rbf(X, Z, sigma=sigma)
    except AssertionError:
        return gram_broadcast(X, Z, sigma)


def gram_sklearn(X, Z, sigma):
    return imported_rbf_kernel(X, Z, gamma=1.0 / (2.0 * sigma ** 2))


def gram_dict(X, Z, sigma):
    return kernels.KERNELS["rbf"](X, Z, sigma=sigma)


@pytest.mark.parametrize("f,target", [(gram_module_call, "kpcourse.kernels.rbf"),
                                      (gram_alias_call, "kpcourse.kernels.rbf"),
                                      (gram_alias_swallowed, "kpcourse.kernels.rbf"),
                                      (gram_dict, "kpcourse.kernels.rbf"),
                                      (gram_sklearn, "sklearn.metrics.pairwise.rbf_kernel")])
def test_rbf_gram_reference_calls_get_no_credit_in_every_aspect(f, target):
    for aspect in ("values", "shape", "fast"):
        msg = _message(checks.diagnose_rbf_gram, f, aspect)
        assert f"calling {target} gets no credit" in msg


def test_no_rbf_reference_restores_everything():
    wrapped = checks.no_rbf_reference(gram_alias_call)
    with pytest.raises(AssertionError):
        wrapped(np.ones((2, 2)), np.ones((3, 2)), 1.0)
    assert imported_rbf is kernels.rbf
    assert kernels.rbf(np.zeros((1, 2)), np.ones((1, 2)), sigma=1.0).shape == (1, 1)
    assert KernelPerceptron(kernel="rbf", sigma=1.0).fit([[0.0], [1.0]], [-1, 1]).n_epochs_ >= 1


# --------------------------------------------------------------------------- #
# Exercise 2: rbf_predict
# --------------------------------------------------------------------------- #

def make_predict(kind="right"):
    def rbf_predict(X, y, alpha, query, sigma):
        X, query = np.asarray(X, dtype=float), np.asarray(query, dtype=float)
        if len(y) != len(X) or len(alpha) != len(X) or query.shape != (X.shape[1],):
            raise ValueError("shapes do not match")
        d2 = ((X - query) ** 2).sum(1)
        k = np.exp(-d2 / {"sigma": 2.0 * sigma, "no2": sigma ** 2}.get(kind, 2.0 * sigma ** 2))
        weights = {"no_y": np.asarray(alpha), "no_alpha": np.asarray(y)}.get(kind, np.asarray(alpha) * y)
        score = float(np.sum(weights * k))
        label = {"sign": int(np.sign(score)), "geq": 1 if score >= 0 else -1}.get(kind, 1 if score > 0 else -1)
        return score, label
    return rbf_predict


def test_rbf_predict_right_passes_and_gives_the_article_numbers():
    f = make_predict()
    for aspect in ("score", "label"):
        checks.diagnose_rbf_predict(f, aspect)
    from kpcourse.datasets import msdn_example
    ex = msdn_example()
    score, label = f(ex["X"], ex["y"], ex["alpha"], ex["query"], ex["sigma"])
    assert round(score, 4) == 1.9175 and label == 1


@pytest.mark.parametrize("kind,phrase", [("sigma", "σ instead of σ²"), ("no2", "the factor 2 is missing"),
                                         ("no_y", "ignores the labels y"),
                                         ("no_alpha", "ignores the mistake counts")])
def test_rbf_predict_score_mistakes(kind, phrase):
    assert phrase in _message(checks.diagnose_rbf_predict, make_predict(kind), "score")


@pytest.mark.parametrize("kind,phrase", [("sign", "gave the label 0"), ("geq", "gave +1")])
def test_rbf_predict_zero_score_fails_label_only(kind, phrase):
    f = make_predict(kind)
    assert phrase in _message(checks.diagnose_rbf_predict, f, "label")
    checks.diagnose_rbf_predict(f, "score")


def test_rbf_predict_missing_value_error_and_reference_call():
    def no_check(X, y, alpha, query, sigma):
        k = [np.exp(-np.sum((x - query[:len(x)]) ** 2) / (2 * sigma ** 2)) for x in X]
        score = float(sum(a * yy * kk for a, yy, kk in zip(alpha, y, k, strict=False)))  # hides the mismatch
        return score, 1 if score > 0 else -1
    assert "should raise ValueError when alpha has 3 counts" in _message(
        checks.diagnose_rbf_predict, no_check, "label")

    def via_reference(X, y, alpha, query, sigma):
        score = float(np.sum(alpha * y * imported_rbf(X, query[None], sigma=sigma)[:, 0]))
        return score, 1 if score > 0 else -1
    assert "gets no credit" in _message(checks.diagnose_rbf_predict, via_reference, "score")


# --------------------------------------------------------------------------- #
# Exercise 3: choose_sigma
# --------------------------------------------------------------------------- #

def make_choose(kind="right"):
    def choose_sigma(X_train, y_train, X_val, y_val, sigmas):
        val, train = [], []
        for s in sigmas:
            m = KernelPerceptron(kernel="rbf", sigma=s, max_epochs=10, random_state=0,
                                 device="cpu").fit(X_train, y_train)
            val.append(np.mean(m.predict(X_val) != y_val))
            train.append(np.mean(m.predict(X_train) != y_train))
        val, train = np.array(val), np.array(train)
        errors = {"counts": val * len(y_val), "accuracy": 1 - val, "train_errors": train}.get(kind, val)
        chosen = {"train": int(np.argmin(train)), "max": int(np.argmax(val))}.get(kind, int(np.argmin(val)))
        return (chosen if kind == "index" else sigmas[chosen]), errors
    return choose_sigma


def test_choose_sigma_right_passes():
    for aspect in ("errors", "choice"):
        checks.diagnose_choose_sigma(make_choose(), aspect)


@pytest.mark.parametrize("kind,phrase", [("counts", "not counts"), ("accuracy", "accuracies"),
                                         ("train_errors", "training errors")])
def test_choose_sigma_error_mistakes_fail_errors_only(kind, phrase):
    f = make_choose(kind)
    assert phrase in _message(checks.diagnose_choose_sigma, f, "errors")
    checks.diagnose_choose_sigma(f, "choice")


@pytest.mark.parametrize("kind,phrase", [("train", "by the training error"), ("index", "index"),
                                         ("max", "the largest validation error")])
def test_choose_sigma_choice_mistakes_fail_choice_only(kind, phrase):
    f = make_choose(kind)
    assert phrase in _message(checks.diagnose_choose_sigma, f, "choice")
    checks.diagnose_choose_sigma(f, "errors")


def test_check_sigma_choice_tolerance():
    val = np.array([0.2, 0.03, 0.06, 0.5])
    checks.check_sigma_choice(1.0, (0.01, 0.1, 1.0, 10.0), val)        # 0.06 is within 0.05 of 0.03
    assert "not one of sigmas" in _message(checks.check_sigma_choice, 0.5, (0.01, 0.1, 1.0, 10.0), val)
    assert "clearly better" in _message(checks.check_sigma_choice, 0.01, (0.01, 0.1, 1.0, 10.0),
                                        np.array([0.2, 0.03, 0.06, 0.5]))
