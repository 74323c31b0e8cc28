"""Golden submissions of assignment 01 (similarity and exemplars): common mistakes.

Each case is the release with every solution cell filled in from the source, except the
cells in ``replace`` (grade_id -> the whole cell as a student would have typed it).
``expect``: scores of the graded cells listed (every other autograded cell gets full
marks); ``message``: what the failing visible test must say.
"""

_COSINE = '''def cosine_similarity(A, B):
    A = np.asarray(A, dtype=float)
    B = np.asarray(B, dtype=float)
    if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[1]:
        raise ValueError(f"A {A.shape} and B {B.shape} must be 2-D with the same number of columns")
'''

_WORDS = '''    if isinstance(a, str) or isinstance(b, str):
        raise TypeError("a and b must be collections of words, not strings")
'''

_NN = '''def nearest_neighbour_predict(K_test_train, y_train):
    K = np.asarray(K_test_train)
    y_train = np.asarray(y_train)
    if K.ndim != 2 or K.shape[1] != len(y_train):
        raise ValueError("K_test_train must have one column per training label")
'''

CASES = {
    # Only the rows of A are divided by their lengths.
    "cosine-one-side": {
        "replace": {"ex1-cosine": _COSINE + '''    norms = np.linalg.norm(A, axis=1, keepdims=True)
    return (A / np.where(norms == 0, 1.0, norms)) @ B.T
'''},
        "expect": {"ex1-cosine-tests-values": 0, "ex1-cosine-tests-interface": 1},
        "message": "only the rows of A are normalised",
    },
    # The norms of the columns (axis=0) instead of the rows.
    "cosine-wrong-axis": {
        "replace": {"ex1-cosine": _COSINE + '''    norms_A = np.linalg.norm(A, axis=0)
    norms_B = np.linalg.norm(B, axis=0)
    A_unit = A / np.where(norms_A == 0, 1.0, norms_A)
    B_unit = B / np.where(norms_B == 0, 1.0, norms_B)
    return A_unit @ B_unit.T
'''},
        "expect": {"ex1-cosine-tests-values": 0, "ex1-cosine-tests-interface": 1},
        "message": "you normalised by the wrong axis",
    },
    # Repeated words counted (a multiset instead of a set).
    "shared-multiset": {
        "replace": {"ex2-shared": '''def shared_word_count(a, b):
''' + _WORDS + '''    count = 0
    for word in a:
        if word in b:
            count += 1
    return count
'''},
        "expect": {"ex2-shared-tests-count": 0, "ex2-shared-tests-input": 1},
        "message": "repeated words are counted",
    },
    # Normalised by the union: the Jaccard index, not the normalised kernel.
    "normalised-jaccard": {
        "replace": {"ex3-normalised": '''def normalised_shared_word_count(a, b):
''' + _WORDS + '''    set_a, set_b = set(a), set(b)
    if not set_a or not set_b:
        return 0.0
    return len(set_a & set_b) / len(set_a | set_b)
'''},
        "expect": {"ex3-normalised-tests-values": 0, "ex3-normalised-tests-edge": 1},
        "message": "that is the Jaccard index",
    },
    # argmin: the similarity matrix treated as a distance matrix.
    "nn-argmin": {
        "replace": {"ex4-nn": _NN + '''    return y_train[np.argmin(K, axis=1)]
'''},
        "expect": {"ex4-nn-tests-values": 0, "ex4-nn-tests-interface": 1},
        "message": "you took the argmin",
    },
    # The reference instead of the idea: no credit on exercise 1.
    "reference-call": {
        "replace": {"ex1-cosine": '''from kpcourse import kernels


def cosine_similarity(A, B):
    return kernels.cosine(A, B)
'''},
        "expect": {"ex1-cosine-tests-values": 0, "ex1-cosine-tests-interface": 0},
        "message": "calling kpcourse.kernels.cosine gets no credit",
    },
    # The same through a name imported before the test (not only the module attribute).
    "reference-call-imported-name": {
        "replace": {"ex1-cosine": '''from sklearn.metrics.pairwise import cosine_similarity as sk_cosine


def cosine_similarity(A, B):
    A = np.asarray(A, dtype=float)
    B = np.asarray(B, dtype=float)
    if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[1]:
        raise ValueError("A and B must be 2-D with the same number of columns")
    return sk_cosine(A, B)
'''},
        "expect": {"ex1-cosine-tests-values": 0, "ex1-cosine-tests-interface": 0},
        "message": "calling sklearn.metrics.pairwise.cosine_similarity gets no credit",
    },
}
