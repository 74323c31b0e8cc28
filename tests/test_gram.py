"""kpcourse.gram: tiled torch Gram matrices equal the NumPy references."""

import numpy as np
import pytest
import torch

from kpcourse import kernels
from kpcourse.gram import default_device, gram_matrix, resolve_device

rng = np.random.default_rng(1)
X = rng.normal(size=(57, 6))
Z = rng.normal(size=(23, 6))

CASES = [
    ("linear", {}, kernels.linear),
    ("poly", {"degree": 3, "gamma": 0.5, "coef0": 1.0}, kernels.polynomial),
    ("rbf", {"sigma": 1.7}, kernels.rbf),
    ("rbf", {"gamma": 0.2}, kernels.rbf),
    ("cosine", {}, kernels.cosine),
]


@pytest.mark.parametrize("name,params,ref", CASES)
@pytest.mark.parametrize("max_memory", [None, 4096, 20_000])
def test_tiled_equals_reference(name, params, ref, max_memory):
    G = gram_matrix(X, Z, kernel=name, max_memory=max_memory, device="cpu", **params)
    assert isinstance(G, np.ndarray) and G.dtype == np.float64 and G.shape == (57, 23)
    np.testing.assert_allclose(G, ref(X, Z, **params), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name,params,ref", CASES)
def test_square_gram_is_exactly_symmetric(name, params, ref):
    G = gram_matrix(X, kernel=name, max_memory=3000, device="cpu", **params)
    np.testing.assert_array_equal(G, G.T)
    np.testing.assert_allclose(G, ref(X, **params), rtol=1e-10, atol=1e-12)
    if name == "rbf":
        np.testing.assert_array_equal(np.diag(G), 1.0)


def test_float32_and_tensor_input():
    Xt = torch.as_tensor(X, dtype=torch.float32)
    G = gram_matrix(Xt, kernel="rbf", sigma=2.0, device="cpu")
    assert isinstance(G, torch.Tensor) and G.dtype == torch.float32
    np.testing.assert_allclose(G.numpy(), kernels.rbf(X, sigma=2.0), atol=1e-5)
    G32 = gram_matrix(X.astype(np.float32), kernel="linear")
    assert G32.dtype == np.float32


def test_distances_are_clamped_at_zero():
    """Cancellation in ‖x‖² − 2x·z + ‖z‖² must not give RBF values above 1."""
    big = np.full((3, 50), 1e4) + rng.normal(scale=1e-6, size=(3, 50))
    G = gram_matrix(big, big.copy(), kernel="rbf", gamma=1.0, dtype=torch.float32)
    assert G.max() <= 1.0


def test_devices_and_errors():
    assert default_device().type in ("cpu", "cuda")
    assert resolve_device("cpu").type == "cpu"
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="no CUDA"):
            resolve_device("cuda")
    with pytest.raises(ValueError, match="kernel must be one of"):
        gram_matrix(X, kernel="tanh")
    with pytest.raises(ValueError, match="exactly one of sigma"):
        gram_matrix(X, kernel="rbf")
    with pytest.raises(ValueError, match="raise max_memory"):
        gram_matrix(X, kernel="linear", max_memory=10)
    with pytest.raises(ValueError, match="same number of features"):
        gram_matrix(X, Z[:, :2], kernel="linear")
    with pytest.raises(ValueError, match="NaN"):
        gram_matrix(np.array([[np.nan, 1.0]]), kernel="linear")


def test_import_touches_no_gpu():
    import subprocess
    import sys

    code = ("import kpcourse, kpcourse.kernels, kpcourse.gram, kpcourse.perceptron, sys;"
            "import torch; print(torch.cuda.is_initialized())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_rbf_is_centred_so_float32_far_from_the_origin_stays_accurate():
    """Lesson 06's trap 1: nearly equal points far from the origin, in float32."""
    rng = np.random.default_rng(0)
    P = (1000.0 * rng.normal(size=10) + 0.01 * rng.normal(size=(200, 10))).astype(np.float32)
    exact = kernels.rbf(P.astype(np.float64), sigma=0.05)  # the float32 points, exactly
    G = gram_matrix(P, kernel="rbf", sigma=0.05, device="cpu")
    assert G.dtype == np.float32
    assert np.abs(G - exact).max() < 1e-4  # uncentred float32 distances are off by up to 1
    np.testing.assert_allclose(gram_matrix(P, P[:50].copy(), kernel="rbf", sigma=0.05), exact[:, :50], atol=1e-4)


def test_features_that_are_zero_everywhere_are_left_out_without_changing_k():
    Xz = np.zeros((40, 9))
    Xz[:, [1, 4, 5]] = rng.normal(size=(40, 3))
    for name, params, ref in CASES:
        np.testing.assert_allclose(gram_matrix(Xz, kernel=name, device="cpu", **params), ref(Xz, **params),
                                   rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(gram_matrix(Xz, Xz[:7], kernel=name, device="cpu", **params),
                                   ref(Xz, Xz[:7], **params), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("n", [300, 2300])  # one tile, or tiles of 768 in parallel
def test_square_gram_of_either_path_is_exactly_symmetric(n):
    A = rng.normal(size=(n, 20)).astype(np.float32)
    for name, params, ref in CASES:
        G = gram_matrix(A, kernel=name, device="cpu", **params)
        np.testing.assert_array_equal(G, G.T)
        np.testing.assert_allclose(G, ref(A.astype(np.float64), **params), rtol=2e-4, atol=1e-5)
        if name == "rbf":
            np.testing.assert_array_equal(np.diag(G), 1.0)


def test_max_memory_means_the_same_everywhere():
    import os

    from kpcourse._backend import memory_budget

    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert memory_budget(None, "cpu") == int(0.4 * total)  # gram_matrix's default and KernelPerceptron's
    assert memory_budget(4096, "cpu") == 4096
    with pytest.raises(TypeError, match="max_memory"):
        memory_budget(1.5, "cpu")


def test_bfloat16_storage_goes_through_torch_on_the_cpu():
    G = gram_matrix(torch.as_tensor(X), kernel="rbf", sigma=1.7, out_dtype=torch.bfloat16, device="cpu")
    assert isinstance(G, torch.Tensor) and G.dtype == torch.bfloat16
    np.testing.assert_allclose(G.double().numpy(), kernels.rbf(X, sigma=1.7), atol=4e-3)
