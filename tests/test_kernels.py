"""kpcourse.kernels: formulas, the lecture's numbers, feature maps and bad input."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import cosine_similarity, polynomial_kernel, rbf_kernel

from kpcourse import kernels as K

rng = np.random.default_rng(0)
X = rng.normal(size=(7, 3))
Z = rng.normal(size=(5, 3))


def test_numeric_kernels_match_sklearn():
    np.testing.assert_allclose(K.linear(X, Z), X @ Z.T)
    np.testing.assert_allclose(K.polynomial(X, Z, degree=3, gamma=0.5, coef0=2.0),
                               polynomial_kernel(X, Z, degree=3, gamma=0.5, coef0=2.0))
    np.testing.assert_allclose(K.rbf(X, Z, gamma=0.3), rbf_kernel(X, Z, gamma=0.3))
    np.testing.assert_allclose(K.cosine(X, Z), cosine_similarity(X, Z))


def test_rbf_sigma_and_gamma_agree_and_default_z():
    np.testing.assert_allclose(K.rbf(X, sigma=2.0), K.rbf(X, X, gamma=1 / 8))
    G = K.rbf(X, sigma=1.0)
    assert G.shape == (7, 7)
    np.testing.assert_array_equal(np.diag(G), 1.0)
    np.testing.assert_array_equal(G, G.T)


@pytest.mark.parametrize("kw", [{}, {"sigma": 1.0, "gamma": 1.0}])
def test_rbf_needs_exactly_one_parameter(kw):
    with pytest.raises(ValueError, match="exactly one of sigma"):
        K.rbf(X, **kw)


def test_msdn_worked_prediction():
    """MSDN (2017): four kernel values, the weighted sum 1.9175, prediction +1."""
    Xtr = np.array([[2, 3], [3, 2], [3, 5], [4, 3]], float)
    y = np.array([-1, 1, 1, -1])
    a = np.array([1, 2, 3, 4])
    k = K.rbf(Xtr, [[3.0, 6.0]], sigma=1.5)[:, 0]
    np.testing.assert_allclose(k, [0.1084, 0.0286, 0.8007, 0.1084], atol=5e-5)
    # The article truncates instead of rounding: 0.1083 and 0.0285.
    np.testing.assert_allclose(np.floor(k * 1e4) / 1e4, [0.1083, 0.0285, 0.8007, 0.1083])
    s = float(np.sum(a * y * k))
    assert round(s, 4) == 1.9175
    assert np.sign(s) == 1


def test_circle_exemplars_give_x2_plus_y2():
    """¼ Σ k(pᵢ, x) over the corners minus k(0, x), with k = (a·b)², is x² + y²."""
    corners = np.array([[1, 1], [1, -1], [-1, 1], [-1, -1]], float)
    grid = rng.uniform(-2, 2, size=(50, 2))
    k = K.polynomial(corners, grid, degree=2, coef0=0.0)
    k0 = K.polynomial([[0.0, 0.0]], grid, degree=2, coef0=0.0)[0]
    np.testing.assert_allclose(k.mean(0) - k0, (grid ** 2).sum(1))


def test_quadratic_features_reproduce_the_kernel():
    P = rng.normal(size=(6, 2))
    phi = K.quadratic_features(P)
    np.testing.assert_allclose(phi @ phi.T, K.polynomial(P, degree=2, coef0=0.0))
    np.testing.assert_allclose(phi[0], [P[0, 0] ** 2, P[0, 1] ** 2, np.sqrt(2) * P[0, 0] * P[0, 1]])


@pytest.mark.parametrize("d,degree,coef0", [(2, 2, 1.0), (3, 3, 1.0), (4, 2, 0.0), (3, 4, 2.5), (1, 5, 1.0)])
def test_polynomial_features_reproduce_the_kernel(d, degree, coef0):
    P = rng.normal(size=(5, d))
    phi = K.polynomial_features(P, degree, coef0=coef0)
    assert phi.shape == (5, K.n_polynomial_features(d, degree, coef0=coef0))
    np.testing.assert_allclose(phi @ phi.T, K.polynomial(P, degree=degree, coef0=coef0), rtol=1e-10)


def test_n_polynomial_features_counts():
    assert K.n_polynomial_features(2, 2) == 6  # 1, x, y, x², xy, y²
    assert K.n_polynomial_features(2, 2, coef0=0) == 3  # x², xy, y²
    assert K.n_polynomial_features(3, 3) == 20  # C(6, 3)
    assert K.n_polynomial_features(784, 4) == 788 * 787 * 786 * 785 // 24


def test_shared_words_counts_distinct_shared_words():
    A = [["whale", "ocean", "ship", "ship"], "pride and prejudice"]
    B = [["ship", "whale"], ["dance", "pride"], []]
    G = K.shared_words(A, B)
    np.testing.assert_array_equal(G, [[2, 0, 0], [0, 1, 0]])
    assert G.dtype == np.int64
    np.testing.assert_array_equal(np.diag(K.shared_words(A)), [3, 3])


def test_shared_words_same_counts_by_sets_and_by_sparse_matrices():
    """Few pairs go through set intersections, many through sparse incidence matrices: one answer."""
    rng = np.random.default_rng(0)
    vocab = [f"w{i}" for i in range(40)]
    docs = [list(rng.choice(vocab, size=rng.integers(0, 12))) for _ in range(30)]  # 900 pairs: sparse
    G = K.shared_words(docs)
    assert len(docs) ** 2 > K._FEW_PAIRS and G.dtype == np.int64
    for i in range(0, 30, 7):  # 1 x 30 pairs: sets
        small = K.shared_words(docs[i:i + 1], docs)
        assert small.dtype == np.int64
        np.testing.assert_array_equal(small, G[i:i + 1])


def test_spectrum_kernel():
    np.testing.assert_array_equal(K.spectrum(["abab"], ["abc"], k=2), [[2]])
    # φ_ab(abab) = 2, φ_ba = 1 → k(abab, abab) = 4 + 1
    assert K.spectrum(["abab"], None, 2)[0, 0] == 5
    assert K.spectrum(["ab"], ["abc"], 3)[0, 0] == 0
    assert K.is_psd(K.spectrum(["the whale", "a whale", "pride"], k=2).astype(float))


def test_is_psd():
    assert K.is_psd(K.rbf(X, sigma=1.0))
    assert K.is_psd(K.linear(X))
    assert not K.is_psd(np.array([[1.0, 2.0], [2.0, 1.0]]))
    assert not K.is_psd(np.array([[1.0, 0.5], [0.0, 1.0]]))  # not symmetric
    # tanh "kernel" is a classic non-Mercer similarity
    assert not K.is_psd(np.tanh(2 * K.linear(X) - 1))


@pytest.mark.parametrize("call", [
    lambda: K.linear(np.ones(3)),                      # 1-D
    lambda: K.linear(X, np.ones((2, 4))),              # feature mismatch
    lambda: K.linear(np.empty((0, 3))),                # empty
    lambda: K.linear([[np.nan, 1.0]]),                 # NaN
    lambda: K.cosine([[np.inf, 1.0]]),                 # inf
    lambda: K.polynomial(X, degree=0),                 # bad degree
    lambda: K.polynomial(X, gamma=-1.0),               # bad gamma
    lambda: K.polynomial(X, coef0=-1.0),               # bad coef0
    lambda: K.rbf(X, sigma=0.0),                       # bad sigma
    lambda: K.rbf(X, gamma=float("nan")),
    lambda: K.quadratic_features(X),                   # not 2-D points
    lambda: K.polynomial_features(X, 0),
    lambda: K.is_psd(np.ones((2, 3))),
    lambda: K.shared_words([]),
    lambda: K.spectrum(["abc"], k=0),
])
def test_bad_input_raises_clear_error(call):
    with pytest.raises((ValueError, TypeError)) as info:
        call()
    assert len(str(info.value)) > 20


def test_messages_name_the_problem():
    with pytest.raises(ValueError, match="reshape"):
        K.linear(np.ones(3))
    with pytest.raises(ValueError, match="same number of features"):
        K.linear(X, np.ones((2, 4)))
    with pytest.raises(ValueError, match="NaN"):
        K.rbf([[np.nan, 0.0]], sigma=1.0)
    with pytest.raises(TypeError, match="list of documents"):
        K.shared_words("a single string")
    with pytest.raises(TypeError, match="must be a str"):
        K.spectrum([["already", "split"]], k=2)


# ------------------------------------------------------------------ the kernel table
def test_the_table_calls_the_numpy_versions_and_names_their_parameters():
    assert K.KERNEL_NAMES == ("linear", "poly", "polynomial", "rbf", "cosine")
    assert K.KERNELS["poly"] is K.KERNELS["polynomial"]
    np.testing.assert_array_equal(K.KERNELS["rbf"](X, Z, sigma=1.3), K.rbf(X, Z, sigma=1.3))
    np.testing.assert_array_equal(K.KERNELS["cosine"](X), K.cosine(X))
    assert K.KERNELS["poly"].uses == ("degree", "gamma", "coef0") and K.KERNELS["rbf"].uses == ("sigma", "gamma")
    assert K.KERNELS["poly"].params(degree=3) == {"degree": 3, "gamma": 1.0, "coef0": 1.0}
    assert K.KERNELS["rbf"].params(sigma=2.0) == {"gamma": 1 / 8}
    assert K.KERNELS["rbf"].params(X=X) == {"gamma": pytest.approx(1 / (3 * X.var()))}  # the "scale" rule
    assert K.KERNELS["linear"].params(degree=5, sigma=3.0) == {}  # unused parameters are ignored
    with pytest.raises(ValueError, match="kernel must be one of"):
        K.get_kernel("tanh")


@pytest.mark.parametrize("name", ["linear", "poly", "rbf", "cosine"])
def test_the_fast_finish_equals_the_numpy_version(name):
    """A tile of dot products, finished in place, is the Gram matrix of the NumPy version."""
    from kpcourse._backend import NumpyOps
    from kpcourse.gram import prepare

    spec = K.KERNELS[name]
    p = spec.params(degree=3, gamma=0.4)
    A, na = prepare(NumpyOps(), X, spec, "float64", mean=X.mean(0))
    B, nb = prepare(NumpyOps(), Z, spec, "float64", mean=X.mean(0))
    G = spec.finish(A @ B.T, p, na, nb, np)
    np.testing.assert_allclose(G, spec(X, Z, **{k: v for k, v in p.items() if k in spec.uses}), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name,params", [("linear", {}), ("poly", {"degree": 5, "gamma": 0.5, "coef0": 2.0}),
                                         ("rbf", {"gamma": 1.0}), ("cosine", {})])
def test_the_overflow_bound_holds(name, params):
    spec = K.KERNELS[name]
    r2 = float((np.r_[X, Z] ** 2).sum(1).max())
    assert np.abs(spec(np.r_[X, Z], **params)).max() <= spec.bound(spec.params(**params), r2) * (1 + 1e-12)
