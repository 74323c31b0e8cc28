"""kpcourse.checks: every diagnosis names a purposely wrong function and passes a right one.

The right functions below are the model solutions of assignments 02 and 03; each wrong
one makes a single common mistake. Messages must name the mistake and never contain
the expected numbers.
"""

import re
import time

import numpy as np
import pytest

from kpcourse import checks
from kpcourse.perceptron import KernelPerceptron, Perceptron


def _message(func, *args, **kwargs):
    with pytest.raises(AssertionError) as info:
        func(*args, **kwargs)
    return str(info.value)


# --------------------------------------------------------------------------- #
# Model solutions and their common mistakes
# --------------------------------------------------------------------------- #

def predict(w, b, X):
    X = np.asarray(X, dtype=float)
    if X.shape[1] != len(w):
        raise ValueError("X and w do not match")
    return np.where(X @ w + b > 0, 1, -1)


def make_update(*, zero_is_mistake=True, bias=True, bias_lr=True, w_step="right", in_place=False,
                always=False):
    def update(w, b, x, y, learning_rate):
        if y not in (-1, 1):
            raise ValueError("y must be -1 or +1")
        s = y * (np.dot(w, x) + b)
        wrong = s <= 0 if zero_is_mistake else s < 0
        if zero_is_mistake == "predict":
            wrong = np.where(np.dot(w, x) + b > 0, 1, -1) != y
        if wrong or always:
            step = {"right": learning_rate * y * x, "sign": -learning_rate * y * x, "no_lr": y * x,
                    "no_y": learning_rate * x}[w_step]
            if in_place:
                w += step
            else:
                w = w + step
            if bias:
                b = b + (learning_rate if bias_lr else 1.0) * y
        return w, b
    return update


def make_train(**flags):
    def train(X, y, learning_rate=1.0, max_epochs=100):
        if len(X) != len(y):
            raise ValueError("X and y do not match")
        w, b, trace = checks._primal(np.asarray(X, float), y, learning_rate, max_epochs, **flags)
        return w, b, trace
    return train


def make_dual_train(step="one", lr_on_alpha=False, check=True, **flags):
    def dual_train(K, y, max_epochs=10, learning_rate=1.0):
        if check and np.shape(K) != (len(y), len(y)):
            raise ValueError("K must be (n, n)")
        if lr_on_alpha:  # alpha += learning_rate, everything else right
            alpha, b = checks._dual(K, y, max_epochs, learning_rate, **flags)
            return learning_rate * alpha, b
        alpha, b = checks._dual(K, y, max_epochs, learning_rate, step=step, **flags)
        return alpha.astype(int), b
    return dual_train


def make_dual_predict(*, labels=True, bias=True, lr=True, zero=-1, scores=False):
    def dual_predict(K_test_train, alpha, y, b, learning_rate=1.0):
        K_test_train = np.asarray(K_test_train, float)
        if K_test_train.shape[1] != len(alpha):
            raise ValueError("columns of K_test_train != len(alpha)")
        coef = alpha * (y if labels else 1)
        s = (learning_rate if lr else 1.0) * K_test_train @ coef + (b if bias else 0.0)
        if scores:
            return s
        return np.where(s > 0, 1, np.where(s < 0, -1, zero))
    return dual_predict


update = make_update()
train = make_train()
dual_train = make_dual_train()
dual_predict = make_dual_predict()


# --------------------------------------------------------------------------- #
# Generic checks
# --------------------------------------------------------------------------- #

def test_check_shape_names_column_vectors_and_transposes():
    checks.check_shape(np.zeros(4), (4,), "w")
    checks.check_shape(np.zeros((7, 6)), (None, 6), "trace")
    msg = _message(checks.check_shape, np.zeros((4, 1)), (4,), "w")
    assert "shape (4,) expected, got (4, 1)" in msg and "column vector" in msg
    assert "transposed" in _message(checks.check_shape, np.zeros((3, 2)), (2, 3), "K")


def test_check_close_never_shows_the_reference():
    ref = np.array([0.123456, 7.654321, 3.5])
    checks.check_close(ref + 1e-12, ref, "w")
    msg = _message(checks.check_close, [0.123456, 9.25, 3.5], ref, "w", hint="check the bias")
    assert "1 of 3 values differ" in msg and "9.25" in msg and "check the bias" in msg
    assert "7.65" not in msg
    msg = _message(checks.check_close, 2.75, -0.8125, "b")
    assert "2.75" in msg and "0.8125" not in msg
    assert "NaN" in _message(checks.check_close, [np.nan, 1, 2], ref, "w")
    assert "shape (3,) expected" in _message(checks.check_close, [1.0, 2.0], ref, "w")


def test_check_labels_and_type():
    checks.check_labels(np.array([1, -1, 1]), 3, "pred")
    assert "True/False" in _message(checks.check_labels, np.array([True, False]), 2, "pred")
    assert "contains 0" in _message(checks.check_labels, np.array([1, 0]), 2, "pred")
    assert "-1 or +1" in _message(checks.check_labels, np.array([1, 2]), 2, "pred")
    checks.check_type((1, 2), tuple, "result")
    assert "should be a tuple, got list" in _message(checks.check_type, [1, 2], tuple, "result")


def test_check_trace_points_at_first_difference_without_reference_values():
    X, y = checks._T_X, checks._T_Y
    ref = Perceptron(learning_rate=0.5).fit(X, y).trace_
    checks.check_trace(ref.copy(), ref)
    bad = ref.copy()
    bad[5, 3] = 41.0
    msg = _message(checks.check_trace, bad, ref)
    assert "step 6" in msg and "intercept" in msg and "41" in msg
    assert f"{ref[5, 3]:g}" not in msg.split("your intercept")[1]
    assert "rows" in _message(checks.check_trace, ref[:-2], ref)


def test_check_raises():
    checks.check_raises(predict, ValueError, np.ones(2), 0.0, np.ones((3, 3)), why="X is 3-D")
    msg = _message(checks.check_raises, lambda X: X, ValueError, 1, why="X is wrong")
    assert "should raise ValueError when X is wrong; it returned normally" in msg

    def asserts(X):
        assert X > 2

    assert "it raised AssertionError" in _message(checks.check_raises, asserts, ValueError, 1, why="X < 2")


# --------------------------------------------------------------------------- #
# Reference blocking and time limit
# --------------------------------------------------------------------------- #

def test_reference_blocked_raises_inside_and_restores_after():
    X, y = checks._T_X, checks._T_Y
    with pytest.raises(AssertionError, match="write the update yourself; calling "
                       "kpcourse.perceptron.Perceptron gets no credit"):
        with checks.reference_blocked(what="the update"):
            Perceptron(learning_rate=0.5).fit(X, y)
    with pytest.raises(AssertionError, match="KernelPerceptron gets no credit"):
        with checks.reference_blocked():
            KernelPerceptron(kernel="linear")
    sk = pytest.importorskip("sklearn.linear_model")
    with pytest.raises(AssertionError, match="sklearn.linear_model.Perceptron gets no credit"):
        with checks.reference_blocked():
            sk.Perceptron()
    # Everything works again afterwards.
    assert Perceptron(learning_rate=0.5).fit(X, y).n_epochs_ == 4
    assert KernelPerceptron(kernel="linear", shuffle=False, device="cpu").fit(X, y).alpha_.sum() > 0
    sk.Perceptron().fit(X, y)


def test_reference_call_swallowed_by_student_still_fails():
    def sneaky(X, y):
        try:
            return Perceptron().fit(X, y).coef_
        except Exception:
            return np.zeros(2)

    with pytest.raises(AssertionError, match="gets no credit"):
        checks.no_reference(sneaky, what="the training loop")(checks._T_X, checks._T_Y)


def test_reference_call_fails_every_diagnosis():
    def train_ref(X, y, learning_rate=1.0, max_epochs=100):
        clf = Perceptron(learning_rate=learning_rate, max_epochs=max_epochs).fit(X, y)
        return clf.coef_, clf.intercept_, clf.trace_

    def dual_ref(K, y, max_epochs=10, learning_rate=1.0):
        kp = KernelPerceptron(kernel="precomputed", shuffle=False, max_epochs=max_epochs).fit(K, y)
        return kp.alpha_, learning_rate * kp.intercept_

    for aspect in ("trace", "result", "stop"):
        assert "gets no credit" in _message(checks.diagnose_trace, train_ref, aspect=aspect)
    for aspect in ("counts", "bias", "learning_rate"):
        assert "gets no credit" in _message(checks.diagnose_dual, dual_ref, aspect=aspect)


def test_no_reference_reports_unwritten_and_endless_functions():
    def unwritten(X):
        raise NotImplementedError()

    assert "not written yet" in _message(checks.no_reference(unwritten), 1)

    def endless(X):
        while True:
            try:
                X += 1
            except Exception:
                pass

    start = time.perf_counter()
    msg = _message(checks.no_reference(endless, time_limit=0.3), 1)
    assert "ran for more than 0.3 s" in msg and time.perf_counter() - start < 5

    def nested(X):  # a quick limited call inside must not cancel the enclosing limit
        checks.no_reference(lambda z: z, time_limit=5)(X)
        endless(X)

    start = time.perf_counter()
    assert "ran for more than 0.4 s" in _message(checks.no_reference(nested, time_limit=0.4), 1)
    assert time.perf_counter() - start < 5


def test_random_separable():
    X, y = checks.random_separable(40, 3, random_state=1)
    assert X.shape == (40, 3) and set(y.tolist()) == {-1, 1}
    assert Perceptron(max_epochs=1000).fit(X, y).converged_
    X0, _ = checks.random_separable(20, 2, offset=False, scale=10.0, random_state=2)
    assert np.abs(X0).max() > 2


# --------------------------------------------------------------------------- #
# The private simulators agree with the package's references
# --------------------------------------------------------------------------- #

@pytest.mark.parametrize("seed", [0, 1, 2])
def test_primal_simulator_is_the_reference(seed):
    X, y = checks.random_separable(25, 3, random_state=seed)
    clf = Perceptron(learning_rate=0.5, max_epochs=50).fit(X, y)
    w, b, trace = checks._primal(X, y, 0.5, 50)
    np.testing.assert_allclose(trace, clf.trace_)
    np.testing.assert_allclose(w, clf.coef_)
    assert b == pytest.approx(clf.intercept_)


@pytest.mark.parametrize("data", ["counts", "bias", "random"])
def test_dual_simulator_is_the_reference(data):
    X, y = {"counts": (checks._D_XC, checks._D_YC), "bias": (checks._D_XB, checks._D_YB),
            "random": checks.random_separable(30, 2, random_state=4)}[data]
    kp = KernelPerceptron(kernel="precomputed", shuffle=False, max_epochs=20, device="cpu").fit(X @ X.T, y)
    alpha, b = checks._dual(X @ X.T, y, 20, 1.0)
    np.testing.assert_array_equal(alpha, kp.alpha_)
    assert b == kp.intercept_
    assert kp.converged_


def test_counts_probe_is_blind_to_the_bias():
    K, y = checks._gram(checks._D_XC), checks._D_YC
    np.testing.assert_array_equal(checks._dual(K, y, 20, 1.0)[0], checks._dual(K, y, 20, 1.0, bias=False)[0])


# --------------------------------------------------------------------------- #
# Diagnoses: lesson 02
# --------------------------------------------------------------------------- #

def test_diagnose_predict_passes_the_solution():
    for aspect in ("all", "basic", "zero"):
        checks.diagnose_predict(predict, aspect=aspect)


@pytest.mark.parametrize("wrong,aspect,expected", [
    (lambda w, b, X: np.sign(X @ w + b), "zero", "np.sign(0) is 0"),
    (lambda w, b, X: np.where(X @ w + b >= 0, 1, -1), "zero", "exactly 0 gave +1"),
    (lambda w, b, X: np.where(X @ w > 0, 1, -1), "basic", "ignores the bias b"),
    (lambda w, b, X: X @ w + b, "basic", "returned the scores"),
    (lambda w, b, X: X @ w + b > 0, "basic", "True/False"),
    (lambda w, b, X: np.where(X @ w + b > 0, 1, -1)[:, None], "basic", "column vector"),
    (lambda w, b, X: np.where(X @ w + b > 0, -1, 1), "basic", "flipped"),
    (lambda w, b, X: np.where(np.asarray(X)[:, :2] @ w + b > 0, 1, -1), "basic", "should raise ValueError"),
])
def test_diagnose_predict_names_mistakes(wrong, aspect, expected):
    assert expected in _message(checks.diagnose_predict, wrong, aspect=aspect)


def test_diagnose_update_passes_the_solution():
    for aspect in ("all", "weights", "zero", "bias"):
        checks.diagnose_update(update, aspect=aspect)


@pytest.mark.parametrize("flags,failing,expected", [
    ({"zero_is_mistake": False}, "zero", "sign(0) must count as a mistake"),
    ({"zero_is_mistake": "predict"}, "zero", "correct for the label -1"),
    ({"bias": False}, "bias", "your update ignores the bias"),
    ({"bias_lr": False}, "bias", "must scale the bias step too"),
    ({"w_step": "sign"}, "weights", "wrong sign"),
    ({"w_step": "no_lr"}, "weights", "learning rate is not applied"),
    ({"w_step": "no_y"}, "weights", "ignores the label y"),
    ({"in_place": True}, "weights", "in place"),
])
def test_diagnose_update_fails_only_the_aspect_of_the_mistake(flags, failing, expected):
    wrong = make_update(**flags)
    for aspect in ("weights", "zero", "bias"):
        if aspect == failing:
            assert expected in _message(checks.diagnose_update, wrong, aspect=aspect)
        else:
            checks.diagnose_update(wrong, aspect=aspect)


def test_diagnose_update_other_mistakes():
    always = make_update(always=True)
    assert "on a correctly classified point" in _message(checks.diagnose_update, always, aspect="weights")
    assert "on a correctly classified point" in _message(checks.diagnose_update, always, aspect="bias")

    def scaled(w, b, x, y, learning_rate):
        if y not in (-1, 1):
            raise ValueError("y must be -1 or +1")
        if y * (w @ x + b) <= 0:
            return learning_rate * (w + y * x), b + learning_rate * y
        return w, b

    assert "applied to the wrong thing" in _message(checks.diagnose_update, scaled, aspect="weights")
    msg = _message(checks.diagnose_update, lambda w, b, x, y, lr: w, aspect="weights")
    assert "should return a tuple (w, b)" in msg


def test_update_messages_hide_the_expected_values():
    # Right answers of the probes: w (1.625, -0.75), b 1.125; w (-2, -2.75), b -1.
    for wrong in (make_update(bias=False), make_update(w_step="sign"), make_update(w_step="no_lr"),
                  make_update(bias_lr=False), make_update(w_step="no_y")):
        msg = _message(checks.diagnose_update, wrong)
        for secret in ("1.625", "1.125", "-2.75"):
            assert secret not in msg, (secret, msg)


def test_diagnose_trace_passes_the_solution():
    for aspect in ("all", "trace", "result", "stop"):
        checks.diagnose_trace(train, aspect=aspect)


def _shifted(column, amount):
    def wrong(X, y, learning_rate=1.0, max_epochs=100):
        w, b, t = train(X, y, learning_rate, max_epochs)
        t = t.copy()
        t[:, column] += amount
        return w, b, t
    return wrong


def _only_mistakes(X, y, learning_rate=1.0, max_epochs=100):
    w, b, t = train(X, y, learning_rate, max_epochs)
    return w, b, t[t[:, 2] == 1]


def _w_first(X, y, learning_rate=1.0, max_epochs=100):
    w, b, t = train(X, y, learning_rate, max_epochs)
    return w, b, np.hstack([t[:, :3], t[:, 4:], t[:, 3:4]])


@pytest.mark.parametrize("wrong,failing,expected", [
    (_shifted(0, -1), {"trace"}, "numbered from 1"),
    (_shifted(1, 1), {"trace", "stop"}, "from 0"),
    (_w_first, {"trace"}, "the intercept comes before w"),
    (make_train(before=True), {"trace"}, "after that step, not before"),
    (_only_mistakes, {"trace", "stop"}, "one row per visited sample"),
    (make_train(stop=False), {"trace", "stop"}, "stop after the first epoch without a mistake"),
    (make_train(zero_is_mistake=False), {"trace", "result"}, "sign(0) must count as a mistake"),
    (make_train(bias=False), {"trace", "result"}, "ignores the bias"),
    (make_train(bias_lr=False), {"trace", "result"}, "scale the bias step too"),
    (make_train(bias_lr=False, w_lr=False), {"trace", "result"}, "learning rate is not applied"),
])
def test_diagnose_trace_names_mistakes(wrong, failing, expected):
    for aspect in ("trace", "result", "stop"):
        if aspect in failing:
            msg = _message(checks.diagnose_trace, wrong, aspect=aspect)
            if aspect != "stop":
                assert expected in msg, msg
        else:
            checks.diagnose_trace(wrong, aspect=aspect)


def test_check_stopping_judges_the_loop_by_its_own_flags():
    _, _, trace = checks._primal(checks._T_X, checks._T_Y, 0.5, 20, zero_is_mistake=False)
    checks.check_stopping(trace, 5, 20)  # a wrong rule, but a loop that stops right
    _, _, trace = checks._primal(checks._XOR_X, checks._XOR_Y, 1.0, 3)
    checks.check_stopping(trace, 4, 3)
    assert "ran 3 epochs with max_epochs=2" in _message(checks.check_stopping, trace, 4, 2)
    assert "one row per visited sample" in _message(checks.check_stopping, trace[:-1], 4, 3)
    _, _, trace = checks._primal(checks._T_X, checks._T_Y, 0.5, 20, stop=False)
    assert "went on" in _message(checks.check_stopping, trace, 5, 20)


def test_diagnose_trace_other_mistakes():
    def early(X, y, learning_rate=1.0, max_epochs=100):
        return train(X, y, learning_rate, 1)

    msg = _message(checks.diagnose_trace, early, aspect="stop")
    assert "stopped after 1 epochs although the last one had mistakes" in msg

    def last_row_mismatch(X, y, learning_rate=1.0, max_epochs=100):
        w, b, t = train(X, y, learning_rate, max_epochs)
        return w, b + 1, t

    assert "those of the last trace row" in _message(checks.diagnose_trace, last_row_mismatch, aspect="trace")
    assert "tuple (w, b, trace)" in _message(checks.diagnose_trace, lambda X, y, lr, e: (1, 2))

    def unchecked(X, y, learning_rate=1.0, max_epochs=100):
        return checks._primal(np.asarray(X, float), y, learning_rate, max_epochs)

    assert "should raise ValueError" in _message(checks.diagnose_trace, unchecked, aspect="stop")


def test_trace_messages_hide_the_final_weights():
    # Right answer on the probe: w = (-1.5, 1.5), b = -2.5.
    for flags in ({"bias": False}, {"zero_is_mistake": False}, {"w_lr": False}):
        msg = _message(checks.diagnose_trace, make_train(**flags), aspect="result")
        assert "-1.5" not in msg and "-2.5" not in msg, msg


# --------------------------------------------------------------------------- #
# Diagnoses: lesson 03
# --------------------------------------------------------------------------- #

def test_diagnose_dual_passes_the_solution():
    for aspect in ("all", "counts", "bias", "learning_rate"):
        checks.diagnose_dual(dual_train, aspect=aspect)


@pytest.mark.parametrize("wrong,failing,expected", [
    (make_dual_train(lr_on_alpha=True), {"learning_rate"},
     "the learning rate was applied to the dual counts"),
    (make_dual_train(bias=False), {"bias"}, "your dual training ignores the bias"),
    (make_dual_train(bias_in_score=False), {"bias"}, "never enters the score"),
    (make_dual_train(bias_lr=False), {"learning_rate"}, "scaled by the learning rate too"),
    (make_dual_train(step="y"), {"counts", "bias"}, "never negative"),
    (make_dual_train(zero_is_mistake=False), {"counts", "bias"}, "sign(0) must count as a mistake"),
    (make_dual_train(step="set"), {"counts", "bias"}, "not just mark them"),
    (make_dual_train(check=False), {"counts"}, "should raise ValueError"),
])
def test_diagnose_dual_fails_only_the_aspect_of_the_mistake(wrong, failing, expected):
    for aspect in ("counts", "bias", "learning_rate"):
        if aspect in failing:
            msg = _message(checks.diagnose_dual, wrong, aspect=aspect)
            if aspect == min(failing):
                assert expected in msg, msg
        else:
            checks.diagnose_dual(wrong, aspect=aspect)


def test_diagnose_dual_mixed_learning_rate():
    def unscaled_sum(K, y, max_epochs=10, learning_rate=1.0):
        # the kernel sum without the learning rate, the bias step with it
        alpha, b = np.zeros(len(y)), 0.0
        for _ in range(max_epochs):
            for i in range(len(y)):
                if y[i] * (np.dot(alpha * y, K[:, i]) + b) <= 0:
                    alpha[i] += 1
                    b += learning_rate * y[i]
        return alpha, b

    assert "alpha changed with the learning rate" in _message(
        checks.diagnose_dual, unscaled_sum, aspect="learning_rate")


def test_dual_messages_hide_the_expected_counts():
    ra, rb = checks._dual(checks._gram(checks._D_XB), checks._D_YB, 20, 1.0)
    secret = np.array2string(ra.astype(float), precision=4, separator=", ")
    for wrong in (make_dual_train(bias=False), make_dual_train(bias_in_score=False),
                  make_dual_train(step="y"), make_dual_train(zero_is_mistake=False)):
        msg = _message(checks.diagnose_dual, wrong)
        assert secret not in msg and not re.search(rf"b={rb:g}\b", msg), msg


def test_diagnose_dual_predict_passes_the_solution():
    for aspect in ("all", "basic", "details"):
        checks.diagnose_dual_predict(dual_predict, aspect=aspect)


@pytest.mark.parametrize("flags,failing,expected", [
    ({"labels": False}, "basic", "ignores the labels y"),
    ({"bias": False}, "basic", "ignores the bias b"),
    ({"scores": True}, "basic", "returned the scores"),
    ({"zero": 0}, "details", "np.sign(0) is 0"),
    ({"zero": 1}, "details", "exactly 0 gave +1"),
    ({"lr": False}, "details", "ignores the learning rate"),
])
def test_diagnose_dual_predict_names_mistakes(flags, failing, expected):
    wrong = make_dual_predict(**flags)
    for aspect in ("basic", "details"):
        if aspect == failing:
            assert expected in _message(checks.diagnose_dual_predict, wrong, aspect=aspect)
        elif not flags.get("scores") and flags.get("bias", True):
            checks.diagnose_dual_predict(wrong, aspect=aspect)


def test_diagnose_dual_predict_checks_the_columns():
    def unchecked(K_test_train, alpha, y, b, learning_rate=1.0):
        return np.where(learning_rate * np.asarray(K_test_train)[:, :len(alpha)] @ (alpha * y) + b > 0, 1, -1)

    assert "should raise ValueError" in _message(checks.diagnose_dual_predict, unchecked, aspect="basic")
