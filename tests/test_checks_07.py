"""kpcourse.checks, lesson 07: every diagnosis passes the model solution and names each mistake.

The right functions are the model solutions of assignment 07; each wrong one makes a
single common mistake (or keeps one flaw of the lecture's GPU trainer). Messages must
name the mistake and never contain the expected labels or values.
"""

import numpy as np
import pytest
import torch

from kpcourse import checks
from kpcourse.kernels import polynomial
from kpcourse.perceptron import KernelPerceptron


def _message(func, *args, **kwargs):
    with pytest.raises(AssertionError) as info:
        func(*args, **kwargs)
    return str(info.value)


# --------------------------------------------------------------------------- #
# ovr_predict
# --------------------------------------------------------------------------- #

def make_predict(pick=np.argmax, use_y=True, use_b=True, indices=False, check=True):
    def ovr_predict(K_test_train, alpha, Y_pm, b, classes):
        K, alpha, Y = np.asarray(K_test_train, float), np.asarray(alpha, float), np.asarray(Y_pm, float)
        if check and K.shape[1] != alpha.shape[1]:
            raise ValueError("K_test_train does not match alpha")
        coef = alpha * Y.T if use_y else alpha
        S = K @ coef.T + (np.asarray(b) if use_b else 0.0)
        idx = pick(S, axis=1)
        return idx if indices else np.asarray(classes)[idx]
    return ovr_predict


def test_ovr_model_solution_passes_and_matches_the_package():
    f = make_predict()
    checks.diagnose_ovr_predict(f)
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 4)), rng.integers(0, 4, 60) * 2 + 1
    Xt = rng.normal(size=(25, 4))
    m = KernelPerceptron(kernel="precomputed", shuffle=False, max_epochs=5, device="cpu").fit(X @ X.T, y)
    Y = np.where(y[:, None] == m.classes_[None, :], 1.0, -1.0)
    np.testing.assert_array_equal(f(Xt @ X.T, m.alpha_, Y, m.intercept_, m.classes_), m.predict(Xt @ X.T))


def test_ovr_argmin_fails_only_the_basic_aspect():
    f = make_predict(pick=np.argmin)
    checks.diagnose_ovr_predict(f, aspect="scores")
    assert "lowest score (argmin)" in _message(checks.diagnose_ovr_predict, f, aspect="basic")


def test_ovr_names_score_mistakes():
    assert "ignore the bias" in _message(checks.diagnose_ovr_predict, make_predict(use_b=False), aspect="scores")
    assert "ignore the labels Y_pm" in _message(checks.diagnose_ovr_predict, make_predict(use_y=False),
                                                aspect="scores")
    assert "column indices" in _message(checks.diagnose_ovr_predict, make_predict(indices=True), aspect="basic")
    checks.diagnose_ovr_predict(make_predict(check=False), aspect="basic")  # numpy's matmul raises ValueError


def test_ovr_probe_variants_all_differ():
    S = checks._ovr_scores(checks._O_K, checks._O_ALPHA, checks._O_Y, checks._O_B)
    right = S.argmax(1)
    others = [S.argmin(1),
              checks._ovr_scores(checks._O_K, checks._O_ALPHA, np.ones_like(checks._O_Y), checks._O_B).argmax(1),
              checks._ovr_scores(checks._O_K, checks._O_ALPHA, checks._O_Y, 0 * checks._O_B).argmax(1),
              checks._ovr_scores(checks._O_K, np.ones_like(checks._O_ALPHA), checks._O_Y, checks._O_B).argmax(1)]
    for other in others:
        assert not np.array_equal(other, right)
    assert len(np.unique(right)) == 3


# --------------------------------------------------------------------------- #
# fixed_update_rule
# --------------------------------------------------------------------------- #

def make_update(batch=False, check=True):
    def fixed_update_rule(K, Y, max_epochs=10):
        K, Y = np.asarray(K, float), np.asarray(Y, float)
        n, C = Y.shape
        if check and K.shape != (n, n):
            raise ValueError("K must be (n, n)")
        return checks.ovr_train(K, Y, max_epochs, batch=batch)
    return fixed_update_rule


def test_ovr_train_matches_the_package():
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(80, 5)), rng.integers(0, 3, 80)
    K = (X @ X.T + 1.0) ** 2
    m = KernelPerceptron(kernel="precomputed", shuffle=False, max_epochs=7, device="cpu").fit(K, y)
    alpha, b = checks.ovr_train(K, np.where(y[:, None] == np.arange(3), 1.0, -1.0), 7)
    np.testing.assert_array_equal(alpha, m.alpha_)
    np.testing.assert_array_equal(b, m.intercept_)


def test_update_model_solution_passes():
    checks.diagnose_fixed_update(make_update())


def test_batch_update_is_named():
    f = make_update(batch=True)
    checks.diagnose_fixed_update(f, aspect="bias")
    assert "at once" in _message(checks.diagnose_fixed_update, f, aspect="online")


def test_update_reference_call_gets_no_credit():
    def fixed_update_rule(K, Y, max_epochs=10):
        y = np.argmax(Y, axis=1)
        m = KernelPerceptron(kernel="precomputed", shuffle=False, max_epochs=max_epochs, device="cpu").fit(K, y)
        return m.alpha_, m.intercept_
    assert "gets no credit" in _message(checks.diagnose_fixed_update, fixed_update_rule, aspect="online")


# --------------------------------------------------------------------------- #
# fixed_kernel_precision
# --------------------------------------------------------------------------- #

def make_kernel(dtype=torch.float32, out=None):
    def fixed_kernel_precision(X, Z, degree=4, gamma=1.0, coef0=1.0):
        Xt, Zt = torch.tensor(np.asarray(X), dtype=dtype), torch.tensor(np.asarray(Z), dtype=dtype)
        K = (gamma * (Xt @ Zt.T) + coef0) ** degree
        return K if out == "tensor" else K.double().numpy()
    return fixed_kernel_precision


def test_kernel_model_solutions_pass():
    checks.diagnose_fixed_kernel(make_kernel())
    checks.diagnose_fixed_kernel(make_kernel(torch.float64))
    checks.diagnose_fixed_kernel(make_kernel(out="tensor"))


def test_float16_kernel_is_named():
    msg = _message(checks.diagnose_fixed_kernel, make_kernel(torch.float16), aspect="overflow")
    assert "largest float16" in msg


def test_bfloat16_kernel_fails_only_accuracy():
    f = make_kernel(torch.bfloat16)
    checks.diagnose_fixed_kernel(f, aspect="overflow")
    assert "bfloat16" in _message(checks.diagnose_fixed_kernel, f, aspect="accuracy")


def test_kernel_reference_call_gets_no_credit():
    def fixed_kernel_precision(X, Z, degree=4, gamma=1.0, coef0=1.0):
        return polynomial(X, Z, degree=degree, gamma=gamma, coef0=coef0)
    assert "gets no credit" in _message(checks.diagnose_fixed_kernel, fixed_kernel_precision, aspect="overflow")


# --------------------------------------------------------------------------- #
# fixed_label_mapping
# --------------------------------------------------------------------------- #

def fixed_label_mapping(y, classes):
    return np.where(np.asarray(y)[:, None] == np.asarray(classes)[None, :], 1.0, -1.0)


def lecture_mapping(y, classes):
    y = np.where(np.asarray(y) == 0, -1, y)
    return np.where(y[:, None] == np.asarray(classes)[None, :], 1.0, -1.0)


def in_place_mapping(y, classes):
    y[y == 0] = 0  # harmless, but writes into the caller's array
    Y = np.where(y[:, None] == np.asarray(classes)[None, :], 1.0, -1.0)
    y[:] = y[::-1]
    return Y[::-1]


def test_mapping_model_solution_passes():
    checks.diagnose_label_mapping(fixed_label_mapping)


def test_lecture_mapping_is_named():
    assert "digit 0 never gets a +1" in _message(checks.diagnose_label_mapping, lecture_mapping, aspect="zero")


def test_in_place_mapping_is_named():
    assert "changed the y passed in" in _message(checks.diagnose_label_mapping, in_place_mapping,
                                                 aspect="general")
