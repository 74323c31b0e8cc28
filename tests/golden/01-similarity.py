"""Golden submissions of assignment 01 (similarity and exemplars): common mistakes, reference calls.

Each case is the release with every solution cell filled in from the source, except the
cells in ``replace`` (grade_id -> the whole cell as a student would have typed it).
``expect``: scores of the graded cells listed (every other autograded cell gets full
marks); ``message``: what the failing visible test (or the grader's verdict) must say.

The reference-call cases reach each reference of the lesson (kpcourse.kernels.cosine and
shared_words, scikit-learn's cosine_similarity and KNeighborsClassifier, SciPy's cdist) by
import, by importlib, by getattr on the module and by exec-ing the module's file.
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

_LOAD_KERNELS = '''    import kpcourse.kernels
    namespace = {"__name__": "kpcourse.kernels", "__package__": "kpcourse"}
    exec(open(kpcourse.kernels.__file__).read(), namespace)
'''

_NN_CHECKED = _NN + '''    K = K.astype(float)
'''

_KNN = '''    knn = KNeighborsClassifier(n_neighbors=1, metric="precomputed")
    knn.fit(np.zeros((len(y_train), len(y_train))), y_train)
    return knn.predict(K.max() - K)
'''

_EVERY_CELL_ZERO = dict.fromkeys(
    ["ex1-cosine-tests-values", "ex1-cosine-tests-interface", "ex2-shared-tests-count", "ex2-shared-tests-input",
     "ex3-normalised-tests-values", "ex3-normalised-tests-edge", "ex4-nn-tests-values", "ex4-nn-tests-interface"],
    0)

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
    # A loop over the rows: right values, but the exercise asks for whole-array operations.
    "cosine-loop": {  # one row at a time (a double loop would also time out the notebook's MNIST cell)
        "replace": {"ex1-cosine": _COSINE + '''    S = np.zeros((len(A), len(B)))
    norms_B = np.linalg.norm(B, axis=1)
    for i in range(len(A)):
        lengths = np.linalg.norm(A[i]) * norms_B
        S[i] = np.where(lengths > 0, B @ A[i] / np.where(lengths > 0, lengths, 1.0), 0.0)
    return S
'''},
        "expect": {"ex1-cosine-tests-values": 0, "ex1-cosine-tests-interface": 1},
        "message": "uses a Python loop",
    },
    # Reference calls, one per way of reaching a reference. An import, importlib or getattr with a
    # constant name costs the attacked exercise only; exec-ing a module's file costs every exercise:
    # the scratch cell below the function calls it at top level, and exec could define any name.
    "cosine-reference-importlib": {
        "replace": {"ex1-cosine": _COSINE + '''    import importlib
    return importlib.import_module("kpcourse.kernels").cosine(A, B)
'''},
        "expect": {"ex1-cosine-tests-values": 0, "ex1-cosine-tests-interface": 0},
        "message": "gets no credit",
    },
    "cosine-reference-getattr": {
        "replace": {"ex1-cosine": "from kpcourse import kernels\n\n\n" + _COSINE
                    + '    return getattr(kernels, "cosine")(A, B)\n'},
        "expect": {"ex1-cosine-tests-values": 0, "ex1-cosine-tests-interface": 0},
        "message": "gets no credit",
    },
    "cosine-reference-exec-file": {
        "replace": {"ex1-cosine": _COSINE + _LOAD_KERNELS + '''    return namespace["cosine"](A, B)
'''},
        "expect": _EVERY_CELL_ZERO,
        "message": "which the grader cannot check",
    },
    "cosine-reference-scipy": {
        "replace": {"ex1-cosine": "from scipy.spatial.distance import cdist\n\n\n" + _COSINE
                    + '    return 1.0 - cdist(A, B, "cosine")\n'},
        "expect": {"ex1-cosine-tests-values": 0, "ex1-cosine-tests-interface": 0},
        "message": "calling scipy.spatial.distance.cdist gets no credit",
    },
    "shared-reference": {
        "replace": {"ex2-shared": '''from kpcourse.kernels import shared_words


def shared_word_count(a, b):
''' + _WORDS + '''    return int(shared_words([list(a)], [list(b)])[0, 0])
'''},
        "expect": {"ex2-shared-tests-count": 0, "ex2-shared-tests-input": 0},
        "message": "calling kpcourse.kernels.shared_words gets no credit",
    },
    "shared-reference-importlib": {
        "replace": {"ex2-shared": '''import importlib


def shared_word_count(a, b):
''' + _WORDS + '''    kernels = importlib.import_module("kpcourse.kernels")
    return int(kernels.shared_words([list(a)], [list(b)])[0, 0])
'''},
        "expect": {"ex2-shared-tests-count": 0, "ex2-shared-tests-input": 0},
        "message": "gets no credit",
    },
    "shared-reference-getattr": {
        "replace": {"ex2-shared": '''import kpcourse.kernels


def shared_word_count(a, b):
''' + _WORDS + '''    return int(getattr(kpcourse.kernels, "shared_words")([list(a)], [list(b)])[0, 0])
'''},
        "expect": {"ex2-shared-tests-count": 0, "ex2-shared-tests-input": 0},
        "message": "gets no credit",
    },
    # the module's file run once, kept in a default argument (the notebook's last cell calls it
    # some 60,000 times: a run per call would time that cell out)
    "shared-reference-exec-file": {
        "replace": {"ex2-shared": "def shared_word_count(a, b, namespace={}):\n" + _WORDS + '''    if not namespace:
        import kpcourse.kernels
        namespace.update({"__name__": "kpcourse.kernels", "__package__": "kpcourse"})
        exec(open(kpcourse.kernels.__file__).read(), namespace)
'''
                    + '    return int(namespace["shared_words"]([list(a)], [list(b)])[0, 0])\n'},
        "expect": _EVERY_CELL_ZERO,
        "message": "which the grader cannot check",
    },
    "normalised-reference": {
        "replace": {"ex3-normalised": '''from kpcourse import kernels


def normalised_shared_word_count(a, b):
''' + _WORDS + '''    if not set(a) or not set(b):
        return 0.0
    K = kernels.shared_words([list(a), list(b)]).astype(float)
    return float(K[0, 1] / np.sqrt(K[0, 0] * K[1, 1]))
'''},
        "expect": {"ex3-normalised-tests-values": 0, "ex3-normalised-tests-edge": 0},
        "message": "calling kpcourse.kernels.shared_words gets no credit",
    },
    "nn-reference": {
        "replace": {"ex4-nn": "from sklearn.neighbors import KNeighborsClassifier\n\n\n" + _NN_CHECKED + _KNN},
        "expect": {"ex4-nn-tests-values": 0, "ex4-nn-tests-interface": 0},
        "message": "calling sklearn.neighbors.KNeighborsClassifier gets no credit",
    },
    "nn-reference-importlib": {
        "replace": {"ex4-nn": _NN_CHECKED + '''    import importlib
    KNeighborsClassifier = importlib.import_module("sklearn.neighbors").KNeighborsClassifier
''' + _KNN},
        "expect": {"ex4-nn-tests-values": 0, "ex4-nn-tests-interface": 0},
        "message": "gets no credit",
    },
    "nn-reference-getattr": {
        "replace": {"ex4-nn": "import sklearn.neighbors\n\n\n" + _NN_CHECKED
                    + '    KNeighborsClassifier = getattr(sklearn.neighbors, "KNeighborsClassifier")\n' + _KNN},
        "expect": {"ex4-nn-tests-values": 0, "ex4-nn-tests-interface": 0},
        "message": "gets no credit",
    },
}
