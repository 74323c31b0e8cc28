"""Lesson 01's checks, what the declaration table cannot say (tests/test_exercises.py says the rest).

The grader's references agree with slower, independent computations (every substring, a
sort with the tie rules spelled out, padded windows, a listing of the subsequences); the
nearest course code fails the visible and the hidden tests; the numbers the notebook's texts
and rubric state are what the references compute.
"""

import functools
import itertools
from pathlib import Path

import judging
import numpy as np
import pytest

from kpcourse import kernels
from kpcourse.checks import lesson01 as checks
from kpcourse.grading.judge.declared import hidden_probes
from kpcourse.grading.judge.trusted import load_grader

ROOT = Path(__file__).resolve().parents[1]
GRADER = load_grader(ROOT / "source" / "01-similarity" / "grader.py")


def _probes(cell, seed=1):
    """A test cell's visible probes and its hidden ones for ``seed``, those that do not raise."""
    return [p for p in judging.probes(GRADER, checks.LESSON, cell, seed) if not p.raises]


_passes = functools.partial(judging.passes, GRADER, checks.LESSON)


# ----------------------------------------------------------------- references
def _kgrams_by_definition(s, t, max_k, decay):
    def pieces(x, k):
        return {x[i:j] for i in range(len(x)) for j in range(i + 1, len(x) + 1) if j - i == k}
    return sum(decay ** k * len(pieces(s, k) & pieces(t, k)) for k in range(1, max_k + 1))


def _vote_by_sorting(S, y, k):
    out = []
    for row in np.asarray(S, float):
        order = sorted(range(len(row)), key=lambda i: (-row[i], i))[:k]
        labels = [np.asarray(y).tolist()[i] for i in order]
        totals = {lab: sum(row[i] for i, m in zip(order, labels, strict=True) if m == lab) for lab in labels}
        best = max(totals.values())
        out.append(next(lab for lab in labels if totals[lab] == best))
    return out


def _best_shift_by_padding(a, b, s):
    a, b = np.asarray(a, float), np.asarray(b, float)
    h, w = a.shape
    padded = np.pad(a, s)
    best = 0.0
    for dy, dx in itertools.product(range(2 * s + 1), repeat=2):
        window = padded[dy:dy + h, dx:dx + w]
        if np.linalg.norm(window) > 0 and np.linalg.norm(b) > 0:
            best = max(best, float((window * b).sum() / (np.linalg.norm(window) * np.linalg.norm(b))))
    return best


def _subsequences_by_listing(s, t, n, lam):
    def features(x):
        f = {}
        for idx in itertools.combinations(range(len(x)), n):
            u = "".join(x[i] for i in idx)
            f[u] = f.get(u, 0.0) + lam ** (idx[-1] - idx[0] + 1)
        return f
    fs, ft = features(s), features(t)
    return sum(v * ft.get(u, 0.0) for u, v in fs.items())


@pytest.mark.parametrize("seed", [1, 2])
def test_kgram_reference_is_the_definition(seed):
    for cell in ("ex1-kgrams-tests-values", "ex1-kgrams-tests-edges"):
        for p in _probes(cell, seed):
            assert GRADER.kgram_similarity(*p.args) == pytest.approx(_kgrams_by_definition(*p.args), rel=1e-12)


@pytest.mark.parametrize("seed", [1, 2])
def test_vote_reference_follows_the_tie_rules(seed):
    for cell in ("ex2-knn-tests-values", "ex2-knn-tests-inputs"):
        for p in _probes(cell, seed):
            assert GRADER.knn_vote(*p.args).tolist() == _vote_by_sorting(*p.args)


def test_hidden_votes_hold_ties():
    """Equal similarities and equal totals: for every seed tried, the hidden probes tell each mistake
    from the right vote (the tie rules, not only the weights)."""
    differ = dict.fromkeys(("majority", "tie_smallest", "reverse_ties", "nearest"), 0)
    for seed in (1, 2, 3):
        for p in hidden_probes("ex2-knn-tests-values", GRADER.HIDDEN["ex2-knn-tests-values"], seed):
            right = GRADER.knn_vote(*p.args)
            for mistake in differ:
                differ[mistake] += int((GRADER.knn_vote(*p.args, mistake=mistake) != right).sum())
    assert all(n > 0 for n in differ.values()), differ


@pytest.mark.parametrize("seed", [1, 2])
def test_best_shift_reference_is_a_window_of_the_padded_image(seed):
    for cell in ("ex3-shifts-tests-values", "ex3-shifts-tests-inputs"):
        for p in _probes(cell, seed):
            if p.compare == "none" or p.like is not None:
                continue
            assert GRADER.best_shift_cosine(*p.args) == pytest.approx(_best_shift_by_padding(*p.args), abs=1e-12)


def test_subsequence_reference_is_the_listing_on_short_strings():
    rng = np.random.default_rng(0)
    for _ in range(60):
        s, t = ("".join(rng.choice(list("abc"), size=int(rng.integers(0, 9)))) for _ in range(2))
        n, lam = int(rng.integers(1, 5)), float(rng.choice([0.5, 0.8, 1.0]))
        assert GRADER.subsequence_kernel(s, t, n, lam) == pytest.approx(_subsequences_by_listing(s, t, n, lam),
                                                                         rel=1e-12, abs=1e-15)
    for p in _probes("ex4-subsequences-tests-small"):
        assert GRADER.subsequence_kernel(*p.args) == pytest.approx(_subsequences_by_listing(*p.args), rel=1e-12)


# ------------------------------------------------------ the numbers in the texts
def test_the_examples_of_the_notebook():
    assert GRADER.kgram_similarity("banana", "bandana", 3, 0.5) == 2.5
    assert GRADER.knn_vote([[0.75, 0.25, 0.25]], ["sea", "ball", "ball"], 3).tolist() == ["sea"]
    assert GRADER.knn_vote([[0.75, 0.25, 0.25]], ["sea", "ball", "ball"], 3, mistake="majority").tolist() == ["ball"]
    assert GRADER.best_shift_cosine(checks.L_SHAPE, checks.L_MOVED, 2) == pytest.approx(1.0)
    assert GRADER.best_shift_cosine(checks.L_SHAPE, checks.L_MOVED, 1) < 1.0
    assert GRADER.subsequence_kernel("cat", "car", 2, 0.5) == 0.0625
    assert GRADER.subsequence_kernel("cat", "cat", 2, 0.5) == 0.140625


def test_the_rubric_of_exercise_5():
    # cubing the similarities turns the vote: A at 0.9 against B twice at 0.5
    S, y = np.array([[0.9, 0.5, 0.5]]), ["A", "B", "B"]
    assert GRADER.knn_vote(S, y, 3).tolist() == ["B"] and GRADER.knn_vote(S ** 3, y, 3).tolist() == ["A"]
    # three one-pixel images in one row at columns 0, s, 2s: not positive semi-definite
    for s in (1, 2, 3):
        images = [np.zeros((3, 2 * s + 1)) for _ in range(3)]
        for i, image in enumerate(images):
            image[1, i * s] = 1.0
        K = np.array([[GRADER.best_shift_cosine(a, b, s) for b in images] for a in images])
        np.testing.assert_allclose(K, [[1, 1, 0], [1, 1, 1], [0, 1, 1]], atol=1e-12)
        assert np.linalg.eigvalsh(K).min() == pytest.approx(1 - np.sqrt(2))


# ------------------------------------------------- the nearest course code fails
def _by_spectrum(s, t, max_k, decay):
    """The package's spectrum kernel summed over the lengths (it counts repeats)."""
    if not isinstance(s, str) or not isinstance(t, str):
        raise TypeError("strings")
    if max_k < 1 or decay <= 0:
        raise ValueError("bad")
    return float(sum(decay ** k * kernels.spectrum([s], [t], k=k)[0, 0] for k in range(1, max_k + 1)))


def _nearest(S, y_train, k):
    """Lecture 01 cell 14: the most similar example."""
    S, y = np.asarray(S, float), np.asarray(y_train)
    if S.ndim != 2 or S.shape[1] != len(y) or not 1 <= k <= len(y) or (S < 0).any():
        raise ValueError("bad")
    return y[S.argmax(axis=1)]


def _cosine_unshifted(a, b, s):
    """kernels.cosine of the flattened images: no shift."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a.ndim != 2 or a.shape != b.shape or s < 0:
        raise ValueError("bad")
    return float(kernels.cosine(a.reshape(1, -1), b.reshape(1, -1))[0, 0])


def _spectrum_kernel(s, t, n, lam):
    """Contiguous pieces only: the spectrum kernel, weighted."""
    if not isinstance(s, str) or not isinstance(t, str):
        raise TypeError("strings")
    if n < 1 or not 0 < lam <= 1:
        raise ValueError("bad")
    return float(kernels.spectrum([s], [t], k=n)[0, 0]) * lam ** (2 * n)


@pytest.mark.parametrize("cell, function", [
    ("ex1-kgrams-tests-values", _by_spectrum), ("ex1-kgrams-tests-edges", _by_spectrum),
    ("ex2-knn-tests-values", _nearest), ("ex2-knn-tests-inputs", _nearest),
    ("ex3-shifts-tests-values", _cosine_unshifted),
    ("ex4-subsequences-tests-small", _spectrum_kernel), ("ex4-subsequences-tests-large", _spectrum_kernel),
])
def test_the_nearest_course_code_fails(cell, function):
    assert not _passes(cell, function)


def test_the_references_pass_every_cell():
    for cell in checks.LESSON.cells:
        assert _passes(cell, GRADER.REFERENCES[checks.LESSON.check(cell)[0].function]), cell
