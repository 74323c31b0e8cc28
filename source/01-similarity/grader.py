"""Grader of assignment 01 (similarity and exemplars): hidden tests and references.

Grader-only: never released, never visible to the student's code (the sandbox does
not mount the course folder). ``cells()`` says, for each autograded test cell, which
tests decide its points: the visible tests of ``kpcourse.checks.lesson01`` (replayed
on the student's answers) and hidden tests built here. ``visible_data()`` computes the
data the visible checks hold (expected outputs of their probes and the outputs of
common mistakes); ``python -m kpcourse.grading checks-data 01-similarity`` writes it to
``kpcourse/checks/data/lesson01.json`` and a unit test keeps the two equal.
"""

from collections import Counter

import numpy as np

from kpcourse import kernels
from kpcourse.checks import lesson01 as visible
from kpcourse.checks._core import Call, Test, check_close, expect_raises
from kpcourse.grading.spec import Cell

#: No graded function may reach kpcourse (its kernels.cosine, kernels.shared_words,
#: gram.gram_matrix), scikit-learn (cosine_similarity, pairwise_kernels, normalize,
#: KNeighborsClassifier, NearestNeighbors) or SciPy (cdist): plain Python and NumPy only.
FORBIDDEN = ("kpcourse", "sklearn", "scipy")
TIME_LIMIT = visible.TIME_LIMIT


# ----------------------------------------------------------------- references
def unit_rows(X, axis=1, power=1):
    """Rows (or, with ``axis=0``, columns) divided by their length (to a ``power``); zeros kept."""
    X = np.asarray(X, dtype=float)
    norms = np.linalg.norm(X, axis=axis, keepdims=True) ** power
    return X / np.where(norms == 0, 1.0, norms)


def cosine(A, B):
    return unit_rows(A) @ unit_rows(B).T


def shared(a, b):
    return len(set(a) & set(b))


def normalised(a, b):
    sa, sb = set(a), set(b)
    return len(sa & sb) / np.sqrt(len(sa) * len(sb)) if sa and sb else 0.0


def visible_data():
    """Expected outputs and common-mistake outputs of the visible probes."""
    P = visible.PROBES
    A, B = P["cosine_A"], P["cosine_B"]
    An, Bn = unit_rows(A), unit_rows(B)
    cos = {
        "values": cosine(A, B),
        "pixels": cosine(P["cosine_pixels"], P["cosine_other"]),
        "mistakes": {
            "rows_a_only": An @ B.T, "rows_b_only": A @ Bn.T, "not_normalised": A @ B.T,
            "wrong_axis": unit_rows(A, axis=0) @ unit_rows(B, axis=0).T,
            "squared": unit_rows(A, power=2) @ unit_rows(B, power=2).T, "distance": 1.0 - An @ Bn.T,
        },
    }
    a, b = P["words_a"], P["words_b"]
    ca, cb = Counter(a), Counter(b)
    words = {"count": shared(a, b), "mistakes": {
        "repeated_in_a": sum(w in cb for w in a), "repeated_in_b": sum(w in ca for w in b),
        "repeated_min": sum((ca & cb).values()), "repeated_product": sum(ca[w] * cb[w] for w in ca),
        "union": len(set(a) | set(b)),
    }}
    b2 = P["words_b2"]
    sa, sb = set(a), set(b2)
    k, na, nb = len(sa & sb), len(sa), len(sb)
    norm = {"value": float(normalised(a, b2)), "mistakes": {
        "jaccard": k / len(sa | sb), "no_sqrt": k / (na * nb), "dice": 2 * k / (na + nb),
        "len": float(k / np.sqrt(len(a) * len(b2))), "repeated": float(sum(w in sb for w in a) / np.sqrt(na * nb)),
        "one_side_a": k / na, "one_side_b": k / nb, "not_normalised": float(k),
    }}
    K, y, K_tie = P["nn_K"], P["nn_y"], P["nn_K_tie"]
    nn = {"labels": y[K.argmax(axis=1)], "axis0": y[K.argmax(axis=0)], "argmin": y[K.argmin(axis=1)],
          "indices": K.argmax(axis=1), "tie": y[K_tie.argmax(axis=1)]}
    return {"cosine": cos, "shared": words, "normalised": norm, "nn": nn}


def _raise_test(fname, args, exception, why):
    """A hidden test: ``fname(*args)`` must raise ``exception``."""
    def judge(answers):
        expect_raises(answers[0], exception, why)
    return Test([Call(fname, *args)], judge, time_limit=TIME_LIMIT)


# ------------------------------------------------------------- hidden tests
def _cosine_hidden_values():
    rng = np.random.default_rng(101)
    calls, expected = [], []
    for n, m, d in ((7, 4, 5), (1, 9, 3), (12, 12, 20)):
        A = rng.normal(size=(n, d)) * rng.uniform(0.1, 20.0, size=(n, 1))
        B = rng.normal(size=(m, d)) * rng.uniform(0.1, 20.0, size=(m, 1))
        calls.append(Call("cosine_similarity", A, B))
        expected.append((kernels.cosine(A, B), f"cosine_similarity on hidden data of shapes {(n, d)}, {(m, d)}"))

    def judge(answers):
        for a, (ref, name) in zip(answers, expected, strict=True):
            check_close(a.get(), ref, name, rtol=1e-6, atol=1e-9)
    return Test(calls, judge, time_limit=TIME_LIMIT)


def _cosine_hidden_pixels():
    rng = np.random.default_rng(102)
    P = np.vstack([np.zeros((2, 49)), rng.integers(0, 256, size=(8, 49))]).astype(np.uint8)
    Q = np.vstack([rng.integers(0, 256, size=(5, 49)), np.zeros((1, 49))]).astype(np.uint8)
    calls = [Call("cosine_similarity", P, Q), Call("cosine_similarity", P.astype(float), Q.astype(float))]

    def judge(answers):
        S_int = np.asarray(answers[0].get(), dtype=float)
        S_float = np.asarray(answers[1].get())
        assert S_int.shape == (10, 6) and S_float.shape == S_int.shape and np.allclose(S_int, S_float), \
            "cosine_similarity: hidden uint8 images and the same images as floats give different results"
        assert np.all(S_int[:2] == 0) and np.all(S_int[:, -1] == 0), \
            "cosine_similarity: hidden blank images must give 0"
    return [Test(calls, judge, time_limit=TIME_LIMIT),
            _raise_test("cosine_similarity", (np.ones((5, 3)), np.ones((2, 2))), "ValueError",
                        "A has 3 columns but B has 2")]


def _word_pairs(seed, vocab, longest):
    rng = np.random.default_rng(seed)
    pairs = []
    for _ in range(25):
        a = rng.choice(vocab, size=rng.integers(1, longest)).tolist()
        b = rng.choice(vocab, size=rng.integers(1, longest)).tolist()
        pairs.append((a, b))
    return pairs


def _shared_hidden_count():
    vocab = np.array(["ahab", "whale", "ocean", "bennet", "darcy", "letter", "harpoon", "marriage", "sailor",
                      "ball"])
    pairs = _word_pairs(201, vocab, 12)
    calls = [Call("shared_word_count", a, b) for a, b in pairs]
    expected = [kernels.shared_words([a], [b])[0, 0] for a, b in pairs]

    def judge(answers):
        for a, ref in zip(answers, expected, strict=True):
            check_close(a.get(), ref, "shared_word_count on hidden word lists")
    return Test(calls, judge, time_limit=TIME_LIMIT)


def _shared_hidden_input():
    cases = ((frozenset({"sea", "ship"}), ("ship", "ship", "sea", "whale"), 2), ((), set(), 0))
    calls = [Call("shared_word_count", a, b) for a, b, _ in cases]

    def judge(answers):
        for a, (_, _, k) in zip(answers, cases, strict=True):
            got = a.get()
            assert isinstance(got, (int, np.integer)) and got == k, \
                "shared_word_count is wrong on hidden frozenset/tuple/empty inputs"
    return [Test(calls, judge, time_limit=TIME_LIMIT),
            _raise_test("shared_word_count", (["sea"], "sea"), "TypeError", "b is a string")]


def _normalised_hidden_values():
    vocab = np.array(["ahab", "whale", "ocean", "bennet", "darcy", "letter", "harpoon", "marriage", "sailor",
                      "ball", "pemberley", "pequod"])
    pairs = _word_pairs(301, vocab, 15)
    calls = [Call("normalised_shared_word_count", a, b) for a, b in pairs]
    expected = []
    for a, b in pairs:
        K = kernels.shared_words([a, b]).astype(float)
        expected.append(K[0, 1] / np.sqrt(K[0, 0] * K[1, 1]))

    def judge(answers):
        for a, ref in zip(answers, expected, strict=True):
            check_close(a.get(), ref, "normalised_shared_word_count on hidden word lists")
    return Test(calls, judge, time_limit=TIME_LIMIT)


def _normalised_hidden_edge():
    f = "normalised_shared_word_count"
    calls = [Call(f, [], []), Call(f, ["sea"], set()), Call(f, ("sea",), ["whale"]),
             Call(f, {"sea", "ship", "whale"}, ["whale", "sea", "ship", "sea"])]

    def judge(answers):
        empty, empty2, disjoint, identical = (a.get() for a in answers)
        assert empty == 0.0 and empty2 == 0.0, "normalised_shared_word_count is wrong on hidden empty inputs"
        assert disjoint == 0.0, "normalised_shared_word_count is wrong on hidden disjoint inputs"
        assert abs(identical - 1.0) < 1e-12, "normalised_shared_word_count is wrong on hidden identical inputs"
    return [Test(calls, judge, time_limit=TIME_LIMIT),
            _raise_test(f, ("sea", ["sea"]), "TypeError", "a is a string")]


def _sklearn_1nn(K, y):
    from sklearn.neighbors import KNeighborsClassifier

    D = np.clip(1.0 - K, 0.0, None)  # cosine distances to the training points
    knn = KNeighborsClassifier(n_neighbors=1, metric="precomputed").fit(np.zeros((len(y), len(y))), y)
    return knn.predict(D)


def _nn_hidden_values():
    rng = np.random.default_rng(401)
    X_train, X_test = rng.random((80, 6)), rng.random((30, 6))
    y_train = rng.integers(0, 10, size=80)
    K = X_test @ X_train.T / np.outer(np.linalg.norm(X_test, axis=1), np.linalg.norm(X_train, axis=1))
    K_ties = rng.integers(0, 3, size=(20, 15)).astype(float)  # many ties
    y_ties = rng.integers(0, 5, size=15)
    calls = [Call("nearest_neighbour_predict", K, y_train), Call("nearest_neighbour_predict", K_ties, y_ties)]
    expected = [(_sklearn_1nn(K, y_train), "nearest_neighbour_predict against scikit-learn's 1-NN on hidden data"),
                (y_ties[np.argmax(K_ties, axis=1)], "nearest_neighbour_predict on hidden data with ties")]

    def judge(answers):
        for a, (ref, name) in zip(answers, expected, strict=True):
            check_close(a.get(), ref, name)
    return Test(calls, judge, time_limit=TIME_LIMIT)


def _nn_hidden_interface():
    books = ["pride_and_prejudice", "moby_dick", "moby_dick", "pride_and_prejudice"]
    calls = [Call("nearest_neighbour_predict", np.eye(4)[[2, 0, 3]].tolist(), books)]

    def judge(answers):
        got = answers[0].get()
        assert isinstance(got, np.ndarray) and got.shape == (3,), \
            "nearest_neighbour_predict: wrong type or shape on hidden inputs"
        assert set(got.tolist()) <= set(books), \
            "nearest_neighbour_predict: predictions on hidden inputs are not labels of y_train"
    return [Test(calls, judge, time_limit=TIME_LIMIT),
            _raise_test("nearest_neighbour_predict", (np.ones((3, 2)), np.arange(5)), "ValueError",
                        "K_test_train has 2 columns but y_train has 5 labels")]


def cells():
    """The tests that decide each autograded cell of assignment 01."""
    cos, words, norm = "the cosine similarity", "the shared-word count", "the normalised shared-word kernel"
    nn = "the nearest-neighbour rule"
    return {
        "ex1-cosine-tests-values": Cell("ex1-cosine", cos, [*visible.cosine_tests("values"), _cosine_hidden_values()],
                                        loop_free=("cosine_similarity",)),
        "ex1-cosine-tests-interface": Cell("ex1-cosine", cos,
                                           [*visible.cosine_tests("interface"), *_cosine_hidden_pixels()]),
        "ex2-shared-tests-count": Cell("ex2-shared", words,
                                       [*visible.shared_words_tests("count"), _shared_hidden_count()]),
        "ex2-shared-tests-input": Cell("ex2-shared", words,
                                       [*visible.shared_words_tests("input"), *_shared_hidden_input()]),
        "ex3-normalised-tests-values": Cell("ex3-normalised", norm,
                                            [*visible.normalised_tests("values"), _normalised_hidden_values()]),
        "ex3-normalised-tests-edge": Cell("ex3-normalised", norm,
                                          [*visible.normalised_tests("edge"), *_normalised_hidden_edge()]),
        "ex4-nn-tests-values": Cell("ex4-nn", nn, [*visible.nearest_neighbour_tests("values"), _nn_hidden_values()]),
        "ex4-nn-tests-interface": Cell("ex4-nn", nn,
                                       [*visible.nearest_neighbour_tests("interface"), *_nn_hidden_interface()]),
    }
