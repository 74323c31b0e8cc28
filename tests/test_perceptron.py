"""kpcourse.perceptron: the lecture's numbers, exact online training, sklearn conformance."""

import numpy as np
import pytest
from sklearn.utils.estimator_checks import check_estimator

from kpcourse import kernels
from kpcourse.perceptron import KernelPerceptron, Perceptron

X4 = np.array([[1, 2], [1, 1], [2, 4], [3, 2]], float)
y4 = np.array([1, -1, 1, -1])

# The lecture's 16 visited steps, learning rate 0.25: (bias, w1, w2) after each step.
LECTURE_STEPS = [
    (0.25, 0.25, 0.5), (0.0, 0.0, 0.25), (0.0, 0.0, 0.25), (-0.25, -0.75, -0.25),
    (0.0, -0.5, 0.25), (0.0, -0.5, 0.25), (0.25, 0.0, 1.25), (0.0, -0.75, 0.75),
    (0.0, -0.75, 0.75), (-0.25, -1.0, 0.5), (0.0, -0.5, 1.5), (-0.25, -1.25, 1.0),
    (-0.25, -1.25, 1.0), (-0.25, -1.25, 1.0), (-0.25, -1.25, 1.0), (-0.25, -1.25, 1.0),
]


def test_lecture_four_points_primal():
    clf = Perceptron(learning_rate=0.25).fit(X4, y4)
    assert clf.trace_.shape == (16, 6)
    np.testing.assert_array_equal(clf.trace_[:, 3:], LECTURE_STEPS)
    np.testing.assert_array_equal(clf.trace_[:, 0], np.repeat([1, 2, 3, 4], 4))
    np.testing.assert_array_equal(clf.trace_[:, 1], np.tile([0, 1, 2, 3], 4))
    np.testing.assert_array_equal(clf.trace_[:, 2], [1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 1, 0, 0, 0, 0])
    assert clf.intercept_ == -0.25 and isinstance(clf.intercept_, float)
    np.testing.assert_array_equal(clf.coef_, [-1.25, 1.0])
    assert clf.n_epochs_ == 4 and clf.converged_
    np.testing.assert_array_equal(clf.mistakes_, [2, 2, 2, 3])
    np.testing.assert_array_equal(clf.alpha_, clf.mistakes_)
    # Dual view: W = λ Σ αᵢ yᵢ xᵢ
    np.testing.assert_allclose(0.25 * (clf.alpha_ * y4) @ X4, [-1.25, 1.0])
    np.testing.assert_array_equal(clf.predict(X4), y4)


def test_score_zero_counts_as_mistake():
    # At step 1 the score is 0 for a +1 point: it must be updated.
    clf = Perceptron(max_epochs=1).fit(X4[:1].repeat(2, 0) * [[1], [-1]], [1, -1])
    assert clf.trace_[0, 2] == 1


def test_kernel_perceptron_linear_reproduces_dual_of_lecture():
    kp = KernelPerceptron(kernel="linear", shuffle=False).fit(X4, y4)
    np.testing.assert_array_equal(kp.alpha_, [2, 2, 2, 3])
    assert kp.intercept_ == -1.0  # λ Σ αᵢ yᵢ with λ = 1
    np.testing.assert_allclose((kp.alpha_ * y4) @ X4, [-5.0, 4.0])  # (−5λ, 4λ)
    assert kp.n_epochs_ == 4 and kp.history_ == [3, 3, 3, 0]
    np.testing.assert_array_equal(kp.support_, [0, 1, 2, 3])


def _loop(K, y, *, orders, fit_intercept=True):
    """Plain per-sample kernel perceptron: f(xᵢ) recomputed from scratch at each visit."""
    n = len(y)
    alpha = np.zeros(n, int)
    b = 0.0
    for order in orders:
        mistakes = 0
        for i in order:
            if y[i] * (np.sum(alpha * y * K[:, i]) + b) <= 0:
                alpha[i] += 1
                b += y[i] if fit_intercept else 0
                mistakes += 1
        if mistakes == 0:
            break
    return alpha, b


def _orders(n, epochs, seed):
    if seed is None:
        return [np.arange(n)] * epochs
    rng = np.random.default_rng(seed)
    return [rng.permutation(n) for _ in range(epochs)]


KERNEL_CASES = [
    ("linear", {}, lambda A, B: kernels.linear(A, B)),
    ("poly", {"degree": 3, "coef0": 1.0}, lambda A, B: kernels.polynomial(A, B, degree=3)),
    ("rbf", {"sigma": 0.8}, lambda A, B: kernels.rbf(A, B, sigma=0.8)),
    ("cosine", {}, lambda A, B: kernels.cosine(A, B)),
]


@pytest.mark.parametrize("name,params,ref", KERNEL_CASES)
@pytest.mark.parametrize("seed", [None, 0, 7])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_exact_online_equals_per_sample_loop(name, params, ref, seed, fit_intercept):
    rng = np.random.default_rng(100 + (seed or 0))
    X = rng.normal(size=(80, 3))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * rng.normal(size=80) > 0.3, 1, -1)
    kp = KernelPerceptron(kernel=name, shuffle=seed is not None, random_state=seed,
                          fit_intercept=fit_intercept, max_epochs=6, **params).fit(X, y)
    alpha, b = _loop(ref(X, X), y, orders=_orders(80, 6, seed), fit_intercept=fit_intercept)
    np.testing.assert_array_equal(kp.alpha_, alpha)
    assert kp.intercept_ == pytest.approx(b)


@pytest.mark.parametrize("kind", ["callable", "precomputed"])
def test_exact_online_callable_and_precomputed(kind):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 2))
    y = np.where((X ** 2).sum(1) > 1.0, 1, -1)

    def k(A, B):
        return kernels.polynomial(A, B, degree=2, coef0=0.0)

    G = k(X, X)
    kp = KernelPerceptron(kernel=k if kind == "callable" else "precomputed",
                          random_state=5, max_epochs=20)
    kp.fit(X if kind == "callable" else G, y)
    alpha, b = _loop(G, y, orders=_orders(60, 20, 5))
    np.testing.assert_array_equal(kp.alpha_, alpha)
    Xt = rng.normal(size=(10, 2))
    scores = kp.decision_function(Xt if kind == "callable" else k(Xt, X))
    np.testing.assert_allclose(scores, k(Xt, X) @ (alpha * y) + b)


def test_multiclass_is_one_vs_rest_with_shared_orders():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(90, 2))
    y = np.array(["a", "b", "c"])[rng.integers(0, 3, 90)]
    kp = KernelPerceptron(kernel="rbf", sigma=0.5, random_state=1, max_epochs=5).fit(X, y)
    assert kp.alpha_.shape == (3, 90) and kp.intercept_.shape == (3,)
    G = kernels.rbf(X, sigma=0.5)
    for c, label in enumerate(kp.classes_):
        yc = np.where(y == label, 1, -1)
        alpha, b = _loop(G, yc, orders=_orders(90, 5, 1))
        np.testing.assert_array_equal(kp.alpha_[c], alpha)
        assert kp.intercept_[c] == pytest.approx(b)
    assert set(kp.predict(X)) <= set("abc")
    assert kp.decision_function(X).shape == (90, 3)


def test_primal_multiclass_and_shuffle():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 3))
    y = rng.integers(0, 3, 40)
    clf = Perceptron(shuffle=True, random_state=0, max_epochs=3).fit(X, y)
    assert clf.coef_.shape == (3, 3) and clf.mistakes_.shape == (3, 40)
    assert isinstance(clf.trace_, list) and len(clf.trace_) == 3
    again = Perceptron(shuffle=True, random_state=0, max_epochs=3).fit(X, y)
    np.testing.assert_array_equal(clf.coef_, again.coef_)


def test_rbf_scale_rule_and_separable_circles():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(100, 4)) * 3
    kp = KernelPerceptron(random_state=0).fit(X, (X[:, 0] > 0).astype(int))
    assert kp.gamma_ == pytest.approx(1 / (4 * X.var()))
    assert KernelPerceptron(kernel="poly").fit(X, X[:, 0] > 0).gamma_ == 1.0


def test_lazy_columns_match_full_gram():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(70, 3))
    y = np.where(np.sin(2 * X[:, 0]) + X[:, 1] > 0, 1, -1)
    full = KernelPerceptron(kernel="rbf", sigma=0.7, random_state=2).fit(X, y)
    lazy = KernelPerceptron(kernel="rbf", sigma=0.7, random_state=2, precision="float64",
                            max_memory=2 * 70 * 8).fit(X, y)  # room for 2 columns: constant eviction
    np.testing.assert_array_equal(full.alpha_, lazy.alpha_)
    assert full.columns_computed_ == len(full.support_) < lazy.columns_computed_


@pytest.mark.parametrize("est,err,match", [
    (KernelPerceptron(kernel="tanh"), ValueError, "kernel must be one of"),
    (KernelPerceptron(kernel="rbf", sigma=1.0, gamma=1.0), ValueError, "exactly one of sigma"),
    (KernelPerceptron(kernel="rbf", sigma=-1.0), ValueError, "sigma"),
    (KernelPerceptron(kernel="poly", degree=0), ValueError, "degree"),
    (KernelPerceptron(kernel="poly", degree=2.5), TypeError, "degree"),
    (KernelPerceptron(max_epochs=0), ValueError, "max_epochs"),
    (KernelPerceptron(shuffle="yes"), TypeError, "shuffle"),
    (Perceptron(learning_rate=0), ValueError, "learning_rate"),
    (Perceptron(random_state="seed"), TypeError, "random_state"),
])
def test_bad_parameters(est, err, match):
    with pytest.raises(err, match=match):
        est.fit(X4, y4)


@pytest.mark.parametrize("Est", [Perceptron, KernelPerceptron])
def test_bad_data(Est):
    with pytest.raises(ValueError, match="at least 2 distinct labels"):
        Est().fit(X4, [1, 1, 1, 1])
    with pytest.raises(ValueError, match="continuous|Unknown label"):
        Est().fit(X4, [0.5, 1.5, 0.2, 0.1])
    with pytest.raises(ValueError, match="NaN"):
        Est().fit([[np.nan, 1.0], [1.0, 2.0]], [0, 1])
    with pytest.raises(ValueError, match="infinity|inf"):
        Est().fit([[np.inf, 1.0], [1.0, 2.0]], [0, 1])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        Est().fit(X4, [1, -1])
    with pytest.raises(ValueError, match="0 sample"):
        Est().fit(np.empty((0, 2)), [])
    clf = Est().fit(X4, y4)
    with pytest.raises(ValueError, match="features"):
        clf.predict(np.ones((2, 3)))
    with pytest.raises(ValueError, match="2D array"):
        clf.predict(np.ones(2))


def test_precomputed_needs_square_gram():
    with pytest.raises(ValueError, match="square"):
        KernelPerceptron(kernel="precomputed").fit(np.ones((4, 3)), y4)


def test_callable_kernel_wrong_shape():
    with pytest.raises(ValueError, match="must return shape"):
        KernelPerceptron(kernel=lambda A, B: np.ones((2, 2))).fit(X4, y4)


# scikit-learn conformance. No check is skipped; see README ("Design notes") if one ever must be.
@pytest.mark.parametrize("est", [Perceptron(), KernelPerceptron(),
                                 KernelPerceptron(kernel="precomputed"),
                                 KernelPerceptron(kernel="poly", precision="float64", max_memory=40_000)],
                         ids=["primal", "kernel-rbf", "kernel-precomputed", "kernel-lazy"])
def test_check_estimator(est):
    check_estimator(est)


# ------------------------------------------------------------ averaged, voted, staged, precision
def _loop_full(K, y, orders, fit_intercept=True):
    """Per-sample loop keeping every intermediate predictor: for averaged and voted references."""
    n = len(y)
    alpha, b = np.zeros(n), 0.0
    alpha_sum, b_sum, steps = np.zeros(n), 0.0, 0
    predictors = []  # (alpha, b, survival count)
    survive = 0
    for order in orders:
        mistakes = 0
        for i in order:
            if y[i] * (np.sum(alpha * y * K[:, i]) + b) <= 0:
                predictors.append((alpha.copy(), b, survive))
                alpha[i] += 1
                b += y[i] if fit_intercept else 0
                mistakes += 1
                survive = 0
            survive += 1
            steps += 1
            alpha_sum += alpha
            b_sum += b
        if mistakes == 0:
            break
    predictors.append((alpha.copy(), b, survive))
    return alpha_sum / steps, b_sum / steps, predictors


def _noisy_data(seed, n=70):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] * X[:, 1] + 0.4 * rng.normal(size=n) > 0, 1, -1)
    return X, y


@pytest.mark.parametrize("seed", [0, 1])
def test_averaged_perceptron_equals_per_step_average(seed):
    X, y = _noisy_data(seed)
    kp = KernelPerceptron(kernel="rbf", sigma=0.7, random_state=seed, max_epochs=4, mode="averaged").fit(X, y)
    K = kernels.rbf(X, sigma=0.7)
    a_avg, b_avg, _ = _loop_full(K, y, _orders(len(y), 4, seed))
    np.testing.assert_allclose(kp.alpha_avg_, a_avg, rtol=1e-12, atol=1e-12)
    assert kp.intercept_avg_ == pytest.approx(b_avg)
    Xt = np.random.default_rng(9).normal(size=(15, 2))
    np.testing.assert_allclose(kp.decision_function(Xt), kernels.rbf(Xt, X, sigma=0.7) @ (a_avg * y) + b_avg)


def test_voted_perceptron_equals_explicit_vote():
    X, y = _noisy_data(3)
    kp = KernelPerceptron(kernel="poly", degree=2, random_state=3, max_epochs=3, mode="voted").fit(X, y)
    K = kernels.polynomial(X, degree=2)
    _, _, predictors = _loop_full(K, y, _orders(len(y), 3, 3))
    Xt = np.random.default_rng(4).normal(size=(12, 2))
    Kt = kernels.polynomial(Xt, X, degree=2)
    vote = sum(c * np.sign(Kt @ (a * y) + b) for a, b, c in predictors)
    np.testing.assert_allclose(kp.decision_function(Xt), vote)


def test_staged_decision_function_matches_shorter_fits():
    X, y = _noisy_data(5)
    y3 = np.where(X[:, 0] > 0.5, 2, y)  # three classes
    kp = KernelPerceptron(kernel="rbf", sigma=0.5, random_state=1, max_epochs=5).fit(X, y3)
    stages = list(kp.staged_decision_function(X))
    stages_avg = list(kp.staged_decision_function(X, mode="averaged"))
    assert len(stages) == kp.n_epochs_
    for e, (scores, scores_avg) in enumerate(zip(stages, stages_avg, strict=True), start=1):
        short = KernelPerceptron(kernel="rbf", sigma=0.5, random_state=1, max_epochs=e).fit(X, y3)
        np.testing.assert_allclose(scores, short.decision_function(X), atol=1e-10)
        short.set_params(mode="averaged")
        np.testing.assert_allclose(scores_avg, short.decision_function(X), atol=1e-10)
    assert [list(p) for p in kp.staged_predict(X)][-1] == list(kp.predict(X))


@pytest.mark.parametrize("precision", ["float32", "float16"])
def test_low_precision_storage_is_exact_for_its_stored_kernel(precision):
    """The CUDA path stores float32 (or float16) columns; its α equals the loop on those values."""
    import torch

    from kpcourse.gram import gram_matrix

    X, y = _noisy_data(6, n=90)
    kp = KernelPerceptron(kernel="rbf", sigma=0.6, random_state=2, max_epochs=5, device="cpu",
                          precision=precision).fit(X, y)
    assert kp.precision_ == precision
    K = gram_matrix(X, kernel="rbf", sigma=0.6, dtype=torch.float32,
                    out_dtype=getattr(torch, precision)).astype(np.float64)
    alpha, b = _loop(K, y, orders=_orders(90, 5, 2))
    np.testing.assert_array_equal(kp.alpha_, alpha)


def test_cached_columns_with_eviction_and_float16():
    X, y = _noisy_data(7, n=120)
    full = KernelPerceptron(kernel="rbf", sigma=0.5, random_state=0, max_epochs=6, precision="float32")
    small = KernelPerceptron(kernel="rbf", sigma=0.5, random_state=0, max_epochs=6, precision="float32",
                             max_memory=5 * 120 * 4)  # 5 columns: constant eviction
    full.fit(X, y)
    small.fit(X, y)
    np.testing.assert_array_equal(full.alpha_, small.alpha_)
    assert small.columns_computed_ > 0


def test_auto_precision_is_the_highest_that_holds_every_column():
    X, y = _noisy_data(8, n=50)
    kp = KernelPerceptron(kernel="rbf", sigma=0.5, random_state=0, max_epochs=5).fit(X, y)
    need = kp.columns_computed_
    assert kp.precision_ == "float64" and need == len(kp.support_) < 50
    kp.set_params(max_memory=need * 50 * 4).fit(X, y)  # float64 cannot hold them all: float32 can
    assert kp.precision_ == "float32" and kp.columns_computed_ == need
    with pytest.warns(UserWarning, match="float16"):
        kp.set_params(max_memory=need * 50 * 2).fit(X, y)  # only float16 holds them: it warns
    assert kp.precision_ == "float16"
    kp.set_params(kernel="poly", degree=12, gamma=10.0, max_memory=5 * 50 * 4).fit(X, y)
    assert kp.precision_ == "float32" and kp.columns_computed_ > len(kp.support_)  # overflow-safe: evicts


def test_auto_precision_levels_per_device():
    from kpcourse._dual.choose import _levels

    X = np.ones((3, 2))
    assert _levels(X, "rbf", {"gamma": 1.0}, "auto", cpu=True) == ["float64", "float32", "float16"]
    assert _levels(X, "rbf", {"gamma": 1.0}, "auto", cpu=False) == ["float32", "float16"]
    big = {"degree": 12, "gamma": 10.0, "coef0": 1.0}
    assert _levels(X, "poly", big, "auto", cpu=False) == ["float32"]
    assert _levels(X, np.dot, {}, "auto", cpu=True) == ["float64", "float32"]


def test_kernel_evaluations_are_counted_and_proportional_to_erring_samples():
    """Kernel work ≤ 1.2 n × (distinct samples that erred), counted by a counting kernel."""
    X, y = _noisy_data(12, n=400)
    calls = []

    def counting_rbf(A, B):
        calls.append(A.shape[0] * B.shape[0])
        return kernels.rbf(A, B, sigma=0.5)

    kp = KernelPerceptron(kernel=counting_rbf, random_state=0, max_epochs=8).fit(X, y)
    named = KernelPerceptron(kernel="rbf", sigma=0.5, random_state=0, max_epochs=8).fit(X, y)
    np.testing.assert_array_equal(kp.alpha_, named.alpha_)
    distinct = len(kp.support_)
    assert sum(calls) == kp.kernel_evaluations_ == named.kernel_evaluations_
    assert kp.columns_computed_ == named.columns_computed_ == distinct
    assert sum(calls) <= 1.2 * len(y) * distinct
    assert named.timings_["columns"] == distinct and named.timings_["gram"] >= 0


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("order", ["C", "F"])
def test_precomputed_gram_is_read_in_place(dtype, order):
    import torch

    from kpcourse._dual import column_sources

    X, y = _noisy_data(13, n=60)
    K = np.asarray(kernels.rbf(X, sigma=0.6), dtype=dtype, order=order)
    (src,) = column_sources(K, "precomputed", {}, torch.device("cpu"), None, "auto", True)
    assert np.shares_memory(src.cols, K)  # no copy: column i is read from K itself
    kp = KernelPerceptron(kernel="precomputed", random_state=1, max_epochs=6).fit(K, y)
    alpha, _ = _loop(K.astype(np.float64), y, orders=_orders(60, 6, 1))
    np.testing.assert_array_equal(kp.alpha_, alpha)
    assert kp.precision_ == np.dtype(dtype).name and kp.columns_computed_ == 0


def test_precomputed_matrix_that_is_not_symmetric_is_read_by_columns():
    X, y = _noisy_data(14, n=50)
    K = kernels.rbf(X, sigma=0.6) + 0.3 * np.triu(np.ones((50, 50)), 1)  # K[i, j] != K[j, i]
    kp = KernelPerceptron(kernel="precomputed", random_state=3, max_epochs=6).fit(K, y)
    # f(x_i) = Σ_j α_j y_j K[i, j], as predict uses K(test, train): the loop takes it from Kᵀ
    alpha, _ = _loop(K.T, y, orders=_orders(50, 6, 3))
    np.testing.assert_array_equal(kp.alpha_, alpha)


def test_overflow_is_a_clear_error():
    import torch

    from kpcourse.gram import gram_matrix

    X = np.full((4, 10), 3.0)
    with pytest.raises(OverflowError, match="float16"):
        KernelPerceptron(kernel="poly", degree=6, precision="float16").fit(X, [0, 1, 0, 1])
    with pytest.raises(OverflowError, match="overflow float16"):
        gram_matrix(X, kernel="poly", degree=6, out_dtype=torch.float16)


def test_bad_mode_and_precision():
    with pytest.raises(ValueError, match="mode must be one of"):
        KernelPerceptron(mode="median").fit(X4, y4)
    with pytest.raises(ValueError, match="precision must be one of"):
        KernelPerceptron(precision="int8").fit(X4, y4)
    with pytest.raises(ValueError, match="staged_decision_function supports"):
        next(KernelPerceptron(kernel="linear").fit(X4, y4).staged_decision_function(X4, mode="voted"))


def test_progress_bar(capsys):
    KernelPerceptron(kernel="linear", shuffle=False, verbose=True).fit(X4, y4)
    assert "epoch" in capsys.readouterr().err


@pytest.mark.parametrize("source", ["columns", "gram"])
def test_torch_path_runs_on_cpu_with_identical_alpha(source):
    """The GPU code path (torch arrays, float32 decision values), exercised on the CPU."""
    from kpcourse import _dual
    from kpcourse._backend import TorchOps
    from kpcourse.perceptron._common import Orders

    X, y = _noisy_data(11, n=80)
    y3 = np.where(X[:, 1] > 0.8, 2, np.where(y > 0, 1, 0))
    classes = np.unique(y3)
    Y = np.where(y3[:, None] == classes[None, :], 1.0, -1.0)
    ops = TorchOps("cpu")
    K32 = kernels.rbf(X, sigma=0.6).astype(np.float32)
    if source == "gram":
        src = _dual.GramColumns(ops, ops.asarray(K32, "float32"), "float32", True)
    else:
        kern = _dual.NamedKernel(ops, X, kernels.KERNELS["rbf"], {"gamma": 1 / (2 * 0.6 ** 2)}, "float32")
        src = _dual.KernelColumns(ops, kern, "float32", "float32", 80, True, True)
        K32 = np.stack([ops.host(kern.block(np.array([i]), ops.empty((1, 80), "float32"))[0]) for i in range(80)]).T
    r = _dual.dual_train([src], Y, True, 6, Orders(80, True, 4))
    for c in range(3):
        alpha, _ = _loop(K32.astype(float), Y[:, c], orders=_orders(80, 6, 4))
        np.testing.assert_array_equal(r.alpha[c], alpha)


@pytest.mark.parametrize("make", [
    lambda X, y: (X, y),  # plain: checked directly
    lambda X, y: (X.tolist(), y),  # a list: validate_data converts it
    lambda X, y: (X.astype(np.float32), y),  # another dtype: validate_data converts it
    lambda X, y: (np.asfortranarray(X), y.astype(np.int8)),
])
def test_plain_inputs_are_validated_as_validate_data_would(make):
    """The fast path for plain arrays gives what scikit-learn's validate_data gives, attributes included."""
    from sklearn.utils.validation import validate_data

    from kpcourse.perceptron._common import fit_labels

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(20, 3)), rng.choice([0, 1, 2], size=20)
    Xa, ya = make(X, y)
    mine, theirs = KernelPerceptron(), KernelPerceptron()
    mine.feature_names_in_ = np.array(["stale"])  # from an earlier fit on a DataFrame
    got, _, classes = fit_labels(mine, Xa, ya, dtype=np.float64)
    want, want_y = validate_data(theirs, Xa, ya, dtype=np.float64)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype and mine.n_features_in_ == theirs.n_features_in_ == 3
    assert not hasattr(mine, "feature_names_in_")
    np.testing.assert_array_equal(classes, np.unique(want_y))


@pytest.mark.parametrize("X, y, match", [
    (np.array([[0.0, np.nan], [1.0, 2.0]]), np.array([0, 1]), "NaN"),
    (np.ones((3, 2)), np.array([0, 1]), "inconsistent numbers of samples"),
    (np.ones((2, 0)), np.array([0, 1]), "0 feature"),
])
def test_inputs_that_are_not_plain_get_scikit_learns_message(X, y, match):
    with pytest.raises(ValueError, match=match):
        KernelPerceptron().fit(X, y)
