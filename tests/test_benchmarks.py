"""The benchmark code itself: the naive reference agrees with the engine; RESULTS.md sections."""

import numpy as np

from benchmarks import common, naive
from kpcourse.perceptron import KernelPerceptron


def test_naive_reference_matches_engine_binary_and_multiclass():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y2 = (X[:, 0] + 0.3 * rng.normal(size=60) > 0).astype(int)
    y3 = np.digitize(X[:, 1], [-0.5, 0.5])
    for y in (y2, y3):
        ours = KernelPerceptron(kernel="rbf", gamma=0.5, max_epochs=4, random_state=3).fit(X, y)
        ref = naive.fit(X, y, naive.rbf(0.5), 4, 3)
        np.testing.assert_array_equal(np.atleast_2d(ours.alpha_), ref)
    ours = KernelPerceptron(kernel="poly", degree=3, gamma=0.5, coef0=1.0, max_epochs=3, random_state=1).fit(X, y2)
    np.testing.assert_array_equal(np.atleast_2d(ours.alpha_), naive.fit(X, y2, naive.poly(3, 0.5, 1.0), 3, 1))


def test_results_sections_are_replaced_in_place(tmp_path, monkeypatch):
    monkeypatch.setattr(common, "RESULTS", tmp_path / "RESULTS.md")
    common.write_section("a", "first")
    common.write_section("b", "second")
    common.write_section("a", "third")
    text = (tmp_path / "RESULTS.md").read_text()
    assert "third" in text and "first" not in text and text.index("third") < text.index("second")
    assert common.table(["x", "y"], [[1, 2]]).splitlines()[2] == "| 1 | 2 |"


def test_validation_split_never_overlaps_the_training_digits():
    import pytest

    with pytest.raises(ValueError, match="overlap"):
        common.mnist(55_000, 10_000, split="validation")


def test_machine_load_and_commit_lines():
    assert common.load().startswith("load average ") and "cores" in common.load()
    assert common.git_rev()  # a commit id (or "unknown" outside a checkout)


def test_per_sample_loop_of_the_benchmark_matches_the_precomputed_engine():
    from kpcourse import kernels

    rng = np.random.default_rng(2)
    X = rng.normal(size=(70, 4))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)
    K = kernels.polynomial(X, degree=2)
    rng5 = np.random.default_rng(5)
    orders = [rng5.permutation(70) for _ in range(6)]
    alpha, _ = naive.train_binary(K, y.astype(float), orders)
    ours = KernelPerceptron(kernel="precomputed", max_epochs=6, random_state=5).fit(K, y)
    np.testing.assert_array_equal(ours.alpha_, alpha)
