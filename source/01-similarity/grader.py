"""Grader of assignment 01 (similarity and exemplars): references and hidden probes."""

from collections import Counter

import numpy as np

from kpcourse.checks import lesson01 as visible
from kpcourse.checks.exercise import Probe
from kpcourse.grading import declared

#: No graded function may reach kpcourse (its kernels.cosine, kernels.shared_words,
#: gram.gram_matrix), scikit-learn (cosine_similarity, pairwise_kernels, normalize,
#: KNeighborsClassifier, NearestNeighbors) or SciPy (cdist): plain Python and NumPy only.
FORBIDDEN = ("kpcourse", "sklearn", "scipy")


# ----------------------------------------------------------------- references
def unit_rows(X, axis=1, power=1, zero_nan=False):
    """Rows (or, with ``axis=0``, columns) divided by their length (to a ``power``); zeros kept."""
    X = np.asarray(X, dtype=float)
    norms = np.linalg.norm(X, axis=axis, keepdims=True) ** power
    with np.errstate(invalid="ignore", divide="ignore"):
        return X / (norms if zero_nan else np.where(norms == 0, 1.0, norms))


def cosine_similarity(A, B, mistake=None):
    A0, B0 = np.asarray(A), np.asarray(B)
    if A0.ndim != 2 or B0.ndim != 2 or A0.shape[1] != B0.shape[1]:
        raise ValueError("A and B must be 2-D with the same number of columns")
    A, B = A0.astype(float), B0.astype(float)
    if mistake == "uint8_wrap":
        norms = np.outer(np.linalg.norm(A, axis=1), np.linalg.norm(B, axis=1))
        return (A0 @ B0.T).astype(float) / np.where(norms == 0, 1.0, norms)
    An, Bn = unit_rows(A, zero_nan=mistake == "zero_nan"), unit_rows(B, zero_nan=mistake == "zero_nan")
    return {"transposed": lambda: Bn @ An.T, "rows_a_only": lambda: An @ B.T, "rows_b_only": lambda: A @ Bn.T,
            "not_normalised": lambda: A @ B.T, "wrong_axis": lambda: unit_rows(A, axis=0) @ unit_rows(B, axis=0).T,
            "squared": lambda: unit_rows(A, power=2) @ unit_rows(B, power=2).T,
            "distance": lambda: 1.0 - An @ Bn.T}.get(mistake, lambda: An @ Bn.T)()


def _words(a, b):
    if isinstance(a, str) or isinstance(b, str):
        raise TypeError("a and b are collections of words, not strings")
    return set(a), set(b)


def shared_word_count(a, b, mistake=None):
    sa, sb = _words(a, b)
    ca, cb = Counter(a), Counter(b)
    return {"repeated_in_a": lambda: sum(w in cb for w in a), "repeated_in_b": lambda: sum(w in ca for w in b),
            "repeated_min": lambda: sum((ca & cb).values()), "repeated_product": lambda: sum(ca[w] * cb[w] for w in ca),
            "union": lambda: len(sa | sb)}.get(mistake, lambda: len(sa & sb))()


def normalised_shared_word_count(a, b, mistake=None):
    sa, sb = _words(a, b)
    k, na, nb = len(sa & sb), len(sa), len(sb)
    if not (sa and sb):
        if mistake == "empty_division":
            raise ZeroDivisionError("division by zero")
        return float("nan") if mistake == "empty_nan" else 0.0
    return float({"jaccard": lambda: k / len(sa | sb), "no_sqrt": lambda: k / (na * nb),
                  "dice": lambda: 2 * k / (na + nb), "len": lambda: k / np.sqrt(len(a) * len(b)),
                  "repeated": lambda: sum(w in sb for w in a) / np.sqrt(na * nb), "one_side_a": lambda: k / na,
                  "one_side_b": lambda: k / nb, "asymmetric": lambda: k / na,
                  "not_normalised": lambda: k}.get(mistake, lambda: k / np.sqrt(na * nb))())


def nearest_neighbour_predict(K_test_train, y_train, mistake=None):
    K, y = np.asarray(K_test_train, dtype=float), np.asarray(y_train)
    if K.ndim != 2 or K.shape[1] != len(y):
        raise ValueError("K_test_train must be (n_test, n_train) with n_train = len(y_train)")
    return {"axis0": lambda: y[K.argmax(axis=0)], "argmin": lambda: y[K.argmin(axis=1)],
            "indices": lambda: K.argmax(axis=1),
            "tie": lambda: y[K.shape[1] - 1 - K[:, ::-1].argmax(axis=1)],  # the last of the maxima
            }.get(mistake, lambda: y[K.argmax(axis=1)])()


REFERENCES = {"cosine_similarity": cosine_similarity, "shared_word_count": shared_word_count,
              "normalised_shared_word_count": normalised_shared_word_count,
              "nearest_neighbour_predict": nearest_neighbour_predict}


# --------------------------------------------------------------- hidden probes
_VOCAB = np.array(["ahab", "whale", "ocean", "bennet", "darcy", "letter", "harpoon", "marriage", "sailor", "ball",
                   "pemberley", "pequod"])


def _cosine_values(rng):
    probes = []
    for n, m, d in ((7, 4, 5), (1, 9, 3), (12, 12, 20)):
        A = rng.normal(size=(n, d)) * rng.uniform(0.1, 20.0, size=(n, 1))
        B = rng.normal(size=(m, d)) * rng.uniform(0.1, 20.0, size=(m, 1))
        probes.append(Probe((A, B)))
    return probes


def _cosine_images(rng):
    P = np.vstack([np.zeros((2, 49)), rng.integers(0, 256, size=(8, 49))]).astype(np.uint8)
    Q = np.vstack([rng.integers(0, 256, size=(5, 49)), np.zeros((1, 49))]).astype(np.uint8)
    return [Probe((P, Q), like=1, mistake="uint8_wrap"), Probe((P.astype(float), Q.astype(float)), compare="none"),
            Probe((P, Q), compare="zero_rows", mistake="zero_nan"),
            Probe((np.ones((5, 3)), np.ones((2, 2))), raises="ValueError", why="A has 3 columns but B has 2")]


def _word_pairs(rng, longest, count=25):
    return [Probe((rng.choice(_VOCAB[:longest - 2], size=rng.integers(1, longest)).tolist(),
                   rng.choice(_VOCAB[:longest - 2], size=rng.integers(1, longest)).tolist())) for _ in range(count)]


def _shared_inputs(rng):
    words = rng.choice(_VOCAB, size=4, replace=False).tolist()
    return [Probe((frozenset(words[:2]), (words[1], words[1], words[0], words[2]))), Probe(((), set())),
            Probe(([words[3]], words[3]), raises="TypeError", why="b is a string")]


def _normalised_edges(rng):
    w = rng.choice(_VOCAB, size=3, replace=False).tolist()
    return [Probe(([], [])), Probe(([w[0]], set())), Probe(((w[0],), [w[1]])),
            Probe((set(w), [w[1], w[0], w[2], w[0]])),
            Probe((w[0], [w[0]]), raises="TypeError", why="a is a string")]


def _nn_values(rng):
    X_train, X_test = rng.random((80, 6)), rng.random((30, 6))
    K = X_test @ X_train.T / np.outer(np.linalg.norm(X_test, axis=1), np.linalg.norm(X_train, axis=1))
    K_ties = rng.integers(0, 3, size=(20, 15)).astype(float)  # many ties
    return [Probe((K, rng.integers(0, 10, size=80))), Probe((K_ties, rng.integers(0, 5, size=15)), mistake="tie")]


def _nn_inputs(rng):
    books = ["pride_and_prejudice", "moby_dick", "moby_dick", "pride_and_prejudice"]
    return [Probe((np.eye(4)[rng.permutation(4)[:3]].tolist(), books)),
            Probe((np.ones((3, 2)), np.arange(5)), raises="ValueError",
                  why="K_test_train has 2 columns but y_train has 5 labels")]


HIDDEN = {"ex1-cosine-tests-values": _cosine_values, "ex1-cosine-tests-interface": _cosine_images,
          "ex2-shared-tests-count": lambda rng: _word_pairs(rng, 12), "ex2-shared-tests-input": _shared_inputs,
          "ex3-normalised-tests-values": lambda rng: _word_pairs(rng, 14),
          "ex3-normalised-tests-edge": _normalised_edges,
          "ex4-nn-tests-values": _nn_values, "ex4-nn-tests-interface": _nn_inputs}

visible_data, cells = declared.grader(visible.LESSON, REFERENCES, HIDDEN)
