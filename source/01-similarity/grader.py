"""Grader of assignment 01 (similarity and exemplars): references and hidden probes.

Every hidden input is drawn from the per-notebook seed: strings over small alphabets (many
shared pieces), similarities in multiples of 1/8 with planted ties (sums exact), small
non-negative images with ink at the border, strings of more than 100 characters.
"""

import itertools

import numpy as np

from kpcourse.checks import lesson01 as visible
from kpcourse.checks.exercise import Probe
from kpcourse.grading.judge import declared
from kpcourse.perceptron._virtual import _shift as shift_images

#: kpcourse (kernels.spectrum, kernels.cosine, the perceptrons' shifts), scikit-learn
#: (KNeighborsClassifier) and SciPy (ndimage.shift): plain Python and NumPy only.
FORBIDDEN = ("kpcourse", "sklearn", "scipy")


# ----------------------------------------------------------------- references
def _text(s, name):
    if not isinstance(s, str):
        raise TypeError(f"{name} must be a str")
    return s


def _grams(s, k):
    return {s[i:i + k] for i in range(len(s) - k + 1)}


def _gram_counts(s, k):
    counts = {}
    for i in range(len(s) - k + 1):
        counts[s[i:i + k]] = counts.get(s[i:i + k], 0) + 1
    return counts


def kgram_similarity(s, t, max_k, decay, mistake=None):
    """Σ_{k=1}^{max_k} decay^k |G_k(s) ∩ G_k(t)| over the sets of distinct k-grams, or a mistake's."""
    s, t = _text(s, "s"), _text(t, "t")
    if int(max_k) != max_k or max_k < 1 or not decay > 0:
        raise ValueError("max_k must be a whole number >= 1 and decay positive")
    lengths = {"only_max": [max_k], "off_by_one": range(1, max_k)}.get(mistake, range(1, max_k + 1))
    total = 0.0
    for k in lengths:
        weight = {"no_decay": 1.0, "decay_from_zero": decay ** (k - 1)}.get(mistake, decay ** k)
        if mistake == "counts_repeats":
            cs, ct = _gram_counts(s, k), _gram_counts(t, k)
            shared = sum(n * ct.get(g, 0) for g, n in cs.items())
        else:
            shared = len(_grams(s, k) & _grams(t, k))
        total += weight * shared
    return float(total)


def knn_vote(S, y_train, k, mistake=None):
    """The label of the k most similar training examples' vote, weighted by similarity, or a mistake's."""
    S, y = np.asarray(S, dtype=float), np.asarray(y_train)
    if S.ndim != 2 or y.shape != (S.shape[1],) or not 1 <= k <= len(y) or (S < 0).any():
        raise ValueError("S must be (n_test, n_train) and >= 0, y_train of length n_train, 1 <= k <= n_train")
    labels = y.tolist()
    out = []
    for row in S:
        if mistake == "reverse_ties":  # among equal similarities, the higher index first
            order = len(row) - 1 - np.argsort(-row[::-1], kind="stable")
        else:
            order = np.argsort(-row, kind="stable")
        neighbours = order[:1 if mistake == "nearest" else k].tolist()
        totals = {}
        for i in neighbours:
            totals[labels[i]] = totals.get(labels[i], 0.0) + (1.0 if mistake == "majority" else row[i])
        winners = [label for label, total in totals.items() if total == max(totals.values())]
        out.append(sorted(winners)[0] if mistake == "tie_smallest"
                   else next(labels[i] for i in neighbours if labels[i] in winners))
    return np.array(out, dtype=y.dtype)


def _shift(a, dy, dx, wrap=False):
    """``a`` moved dy rows down and dx columns right, zero fill (the package's shift), or wrapped around."""
    return np.roll(a, (dy, dx), axis=(0, 1)) if wrap else shift_images(a[None], dy, dx)[0]


def best_shift_cosine(a, b, s, mistake=None):
    """max over |dy|, |dx| <= s of cos(shift(a, dy, dx), b), zero fill, 0 for a blank image; or a mistake's."""
    a0, b0 = np.asarray(a), np.asarray(b)
    if a0.ndim != 2 or a0.shape != b0.shape or int(s) != s or s < 0:
        raise ValueError("a and b must be 2-D of one shape and s a whole number >= 0")
    a, b = (a0, b0) if mistake == "uint8_wrap" else (a0.astype(float), b0.astype(float))
    norm_b = np.linalg.norm(b.astype(float))
    best = 0.0
    for dy, dx in itertools.product(range(-s, s + 1), repeat=2):
        if mistake == "one_axis" and dy != 0:
            continue
        moved = _shift(a, dy, dx, wrap=mistake == "wrap")
        norm_a = np.linalg.norm((a if mistake == "normalise_before" else moved).astype(float))
        if norm_a > 0 and norm_b > 0:
            best = max(best, float((moved * b).sum()) / (norm_a * norm_b))
    return float(best)


def subsequence_kernel(s, t, n, lam, mistake=None):
    """Gap-weighted subsequence kernel (Lodhi et al., 2002) by dynamic programming, or a mistake's."""
    s, t = _text(s, "s"), _text(t, "t")
    if int(n) != n or n < 1 or not 0 < lam <= 1:
        raise ValueError("n must be a whole number >= 1 and 0 < lam <= 1")
    if mistake == "contiguous":
        cs = _gram_counts(s, n)
        return float(sum(cs.get(t[j:j + n], 0) for j in range(len(t) - n + 1)) * lam ** (2 * n))
    if mistake == "length_not_span":
        return subsequence_kernel(s, t, n, 1.0) * lam ** (2 * n)
    if mistake == "up_to":
        return sum(subsequence_kernel(s, t, i, lam) for i in range(1, n + 1))
    ls, lt = len(s), len(t)
    Kp = np.zeros((n, ls + 1, lt + 1))  # Kp[i, a, b]: K'_i of s[:a] and t[:b]
    Kp[0] = 1.0
    for i in range(1, n):
        Kpp = np.zeros((ls + 1, lt + 1))
        for a in range(1, ls + 1):
            for b in range(1, lt + 1):
                Kpp[a, b] = lam * Kpp[a, b - 1] + (lam * lam * Kp[i - 1, a - 1, b - 1] if s[a - 1] == t[b - 1] else 0.0)
                Kp[i, a, b] = lam * Kp[i, a - 1, b] + Kpp[a, b]
    return float(sum(lam * lam * Kp[n - 1, a - 1, b - 1]
                     for a in range(1, ls + 1) for b in range(1, lt + 1) if s[a - 1] == t[b - 1]))


REFERENCES = {"kgram_similarity": kgram_similarity, "knn_vote": knn_vote, "best_shift_cosine": best_shift_cosine,
              "subsequence_kernel": subsequence_kernel}


# --------------------------------------------------------------- hidden probes
def _word(rng, low, high, letters="abc"):
    return "".join(rng.choice(list(letters), size=int(rng.integers(low, high))))


def _kgram_values(rng):
    return [Probe((_word(rng, 5, 30), _word(rng, 5, 30), int(rng.integers(2, 6)), float(rng.choice([0.5, 0.75, 2.0]))))
            for _ in range(4)]


def _kgram_edges(rng):
    return [Probe(("", _word(rng, 1, 6), 3, 0.5)), Probe((_word(rng, 1, 3), _word(rng, 3, 8), 6, 0.25)),
            Probe(("a" * int(rng.integers(4, 9)), "a" * int(rng.integers(2, 5)), 4, 1.5)),
            Probe(("ab", "ab", -1, 0.5), raises="ValueError", why="max_k is negative")]


def _similarities(rng, n_test, n_train):
    """0 and odd multiples of 1/16 (values the visible probes never print): many equal similarities,
    exact sums."""
    return rng.choice([0.0, 1.0, 3.0, 5.0, 7.0, 9.0], size=(n_test, n_train)) / 16


def _knn_values(rng):
    y = rng.choice(["sea", "ball", "dance"], size=9)
    y[:3] = rng.permutation(["sea", "ball", "ball"])  # one label once, another twice, at least
    probes = [Probe((_similarities(rng, 12, 9), y, k)) for k in (2, 3, 5)]
    # two rows where one strong neighbour outweighs two weaker ones of another label (k = 3)
    once = int(np.flatnonzero(y[:3] == "sea")[0])
    twice = np.flatnonzero(y[:3] == "ball")
    S = probes[1].args[0]
    S[:2] = rng.choice([0.0, 1.0], size=(2, 9)) / 16
    S[:2, once], S[:2, twice[0]], S[:2, twice[1]] = 15 / 16, 7 / 16, 5 / 16
    return probes


def _knn_inputs(rng):
    y = rng.integers(0, 3, size=7)
    return [Probe((_similarities(rng, 6, 7).tolist(), y.tolist(), 1)), Probe((_similarities(rng, 4, 7), y, 7)),
            Probe((_similarities(rng, 3, 7), y, 8), raises="ValueError", why="k is larger than n_train")]


def _image(rng, h, w, ink):
    im = np.zeros((h, w))
    im[rng.integers(0, h, size=ink), rng.integers(0, w, size=ink)] = rng.integers(1, 4, size=ink)
    im[rng.integers(0, h), rng.choice([0, w - 1])] = rng.integers(1, 4)  # ink at the border
    return im


def _shift_values(rng):
    return [Probe((_image(rng, 6, 7, 5), _image(rng, 6, 7, 5), int(rng.integers(1, 4)))) for _ in range(5)]


def _shift_inputs(rng):
    a, b = _image(rng, 5, 6, 4), _image(rng, 5, 6, 4)
    pa, pb = (rng.integers(150, 256, size=(4, 4)) * (rng.random((4, 4)) < 0.5)).astype(np.uint8), \
        (rng.integers(150, 256, size=(4, 4)) * (rng.random((4, 4)) < 0.5)).astype(np.uint8)
    return [Probe((a, np.zeros_like(a), 2)), Probe((a, b, 0)),
            Probe((pa.astype(float), pb.astype(float), 1), compare="none"),
            Probe((pa, pb, 1), like=2, mistake="uint8_wrap"),
            Probe((a, b[:, :5], 1), raises="ValueError", why="a and b have different shapes")]


def _subsequence_small(rng):
    return [Probe((_word(rng, 3, 12), _word(rng, 3, 12), int(rng.integers(1, 5)), float(rng.choice([0.5, 0.8, 1.0]))))
            for _ in range(5)]


def _subsequence_large(rng):
    return [Probe((_word(rng, 100, 140), _word(rng, 100, 140), int(rng.integers(5, 8)), 0.8))]


HIDDEN = {"ex1-kgrams-tests-values": _kgram_values, "ex1-kgrams-tests-edges": _kgram_edges,
          "ex2-knn-tests-values": _knn_values, "ex2-knn-tests-inputs": _knn_inputs,
          "ex3-shifts-tests-values": _shift_values, "ex3-shifts-tests-inputs": _shift_inputs,
          "ex4-subsequences-tests-small": _subsequence_small, "ex4-subsequences-tests-large": _subsequence_large}

visible_data, cells = declared.grader(visible.LESSON, REFERENCES, HIDDEN)
