"""Golden submissions of assignment 01 (similarity and exemplars): common mistakes, the nearest
course code adapted, and reference calls.

Each case is the release with every solution cell filled in from the source, except the
cells in ``replace`` (grade_id -> the whole cell as a student would have typed it).
``expect``: scores of the graded cells listed (every other autograded cell gets full
marks); ``message``: what the failing visible test (or the grader's verdict) must say.

The reference-call cases reach each reference near an exercise (kpcourse.kernels.spectrum,
scikit-learn's KNeighborsClassifier, SciPy's ndimage.shift) by import, by importlib, by
getattr on the module and by exec-ing the module's file: the attacked exercise gets 0.
"""

_KGRAMS = '''def kgram_similarity(s, t, max_k, decay):
    if not isinstance(s, str) or not isinstance(t, str):
        raise TypeError("s and t must be strings")
    if max_k < 1 or decay <= 0:
        raise ValueError("max_k must be at least 1 and decay positive")
'''

_KNN = '''def knn_vote(S, y_train, k):
    S, y = np.asarray(S, dtype=float), np.asarray(y_train)
    if S.ndim != 2 or S.shape[1] != len(y) or not 1 <= k <= len(y) or (S < 0).any():
        raise ValueError("bad S, y_train or k")
'''

_SHIFTS = '''def best_shift_cosine(a, b, s):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.ndim != 2 or a.shape != b.shape or s < 0:
        raise ValueError("a and b must be 2-D of one shape, s >= 0")
    h, w = a.shape
    best = 0.0
'''

_SUBSEQ = '''def subsequence_kernel(s, t, n, lam):
    if not isinstance(s, str) or not isinstance(t, str):
        raise TypeError("s and t must be strings")
    if n < 1 or not 0 < lam <= 1:
        raise ValueError("n >= 1 and 0 < lam <= 1")
'''

# The package's spectrum kernel, one k at a time: it counts repeated k-grams (a reference call too).
_SUM_SPECTRA = '''    return float(sum(decay ** k * spectrum([s], [t], k=k)[0, 0] for k in range(1, max_k + 1)))
'''
_BY_SPECTRUM = _KGRAMS + _SUM_SPECTRA

CASES = {
    # Counts of k-grams (a multiset), as kernels.spectrum counts them: wrong on repeated pieces.
    "kgrams-repeats": {
        "replace": {"ex1-kgrams": _KGRAMS + '''    total = 0.0
    for k in range(1, max_k + 1):
        grams = [t[i:i + k] for i in range(len(t) - k + 1)]
        total += decay ** k * sum(grams.count(s[i:i + k]) for i in range(len(s) - k + 1))
    return total
'''},
        "expect": {"ex1-kgrams-tests-values": 0, "ex1-kgrams-tests-edges": 0},
        "message": "a k-gram that occurs several times in a string counts once",
    },
    # The lecture's nearest example (cell 14's argmax): k ignored.
    "knn-nearest": {
        "replace": {"ex2-knn": _KNN + '''    return y[np.argmax(S, axis=1)]
'''},
        "expect": {"ex2-knn-tests-values": 0, "ex2-knn-tests-inputs": 0},
        "message": "k neighbours vote, not only the most similar one",
    },
    # One vote each: a plain majority of the k nearest.
    "knn-majority": {
        "replace": {"ex2-knn": _KNN + '''    out = []
    for row in S:
        neighbours = np.argsort(-row, kind="stable")[:k]
        labels, counts = np.unique(y[neighbours], return_counts=True)
        out.append(labels[np.argmax(counts)])
    return np.array(out, dtype=y.dtype)
'''},
        "expect": {"ex2-knn-tests-values": 0, "ex2-knn-tests-inputs": 0},
        "message": "each neighbour votes with its similarity as weight",
    },
    # np.roll: the ink that leaves one side comes back on the other.
    "shifts-roll": {
        "replace": {"ex3-shifts": "import itertools\n\n\n" + _SHIFTS
                    + '''    for dy, dx in itertools.product(range(-s, s + 1), repeat=2):
        moved = np.roll(a, (dy, dx), axis=(0, 1))
        if np.linalg.norm(moved) > 0 and np.linalg.norm(b) > 0:
            best = max(best, float(np.sum(moved * b)) / (np.linalg.norm(moved) * np.linalg.norm(b)))
    return best
'''},
        "expect": {"ex3-shifts-tests-values": 0, "ex3-shifts-tests-inputs": 1},
        "message": "np.roll brings them back on the other side",
    },
    # Normalised before shifting: the length of a still counts the ink that left the frame.
    "shifts-normalise-before": {
        "replace": {"ex3-shifts": "import itertools\n\n\n" + _SHIFTS
                    + '''    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na == 0 or nb == 0:
        return 0.0
    for dy, dx in itertools.product(range(-s, s + 1), repeat=2):
        moved = np.zeros_like(a)
        moved[max(dy, 0):h + min(dy, 0), max(dx, 0):w + min(dx, 0)] = \\
            a[max(-dy, 0):h - max(dy, 0), max(-dx, 0):w - max(dx, 0)]
        best = max(best, float(np.sum(moved * b)) / (na * nb))
    return best
'''},
        "expect": {"ex3-shifts-tests-values": 0, "ex3-shifts-tests-inputs": 1},
        "message": "normalise the shifted image",
    },
    # Contiguous pieces only: the spectrum kernel, weighted.
    "subsequences-contiguous": {
        "replace": {"ex4-subsequences": _SUBSEQ + '''    grams = [t[j:j + n] for j in range(len(t) - n + 1)]
    return float(sum(grams.count(s[i:i + n]) for i in range(len(s) - n + 1)) * lam ** (2 * n))
'''},
        "expect": {"ex4-subsequences-tests-small": 0, "ex4-subsequences-tests-large": 0},
        "message": "a subsequence may skip characters",
    },
    # Listing the occurrences with itertools: right on short strings, hopeless on 120 characters.
    "subsequences-listing": {
        "replace": {"ex4-subsequences": "import itertools\n\n\n" + _SUBSEQ + '''    def features(x):
        f = {}
        for idx in itertools.combinations(range(len(x)), n):
            u = "".join(x[i] for i in idx)
            f[u] = f.get(u, 0.0) + lam ** (idx[-1] - idx[0] + 1)
        return f
    fs, ft = features(s), features(t)
    return float(sum(v * ft.get(u, 0.0) for u, v in fs.items()))
'''},
        "expect": {"ex4-subsequences-tests-small": 2, "ex4-subsequences-tests-large": 0},
        "message": "subsequence_kernel ran for more than",
    },
    # The package's spectrum kernel, imported by name.
    "reference-spectrum": {
        "replace": {"ex1-kgrams": "from kpcourse.kernels import spectrum\n\n\n" + _BY_SPECTRUM},
        "expect": {"ex1-kgrams-tests-values": 0, "ex1-kgrams-tests-edges": 0},
        "message": "calling kpcourse.kernels.spectrum gets no credit",
    },
    # The same, through importlib.
    "reference-importlib": {
        "replace": {"ex1-kgrams": _KGRAMS + '''    import importlib
    spectrum = importlib.import_module("kpcourse.kernels").spectrum
    return float(sum(decay ** k * spectrum([s], [t], k=k)[0, 0] for k in range(1, max_k + 1)))
'''},
        "expect": {"ex1-kgrams-tests-values": 0, "ex1-kgrams-tests-edges": 0},
        "message": "calling kpcourse.kernels gets no credit",
    },
    # The same, through getattr on the module.
    "reference-getattr": {
        "replace": {"ex1-kgrams": "import kpcourse.kernels as library\n\n\n" + _KGRAMS
                    + '''    spectrum = getattr(library, "spec" + "trum")
    return float(sum(decay ** k * spectrum([s], [t], k=k)[0, 0] for k in range(1, max_k + 1)))
'''},
        "expect": {"ex1-kgrams-tests-values": 0, "ex1-kgrams-tests-edges": 0},
        "message": "uses `getattr`",
    },
    # The package's kernels file read and exec-ed.
    "reference-exec-file": {
        "replace": {"ex1-kgrams": _KGRAMS + '''    import kpcourse.kernels
    namespace = {"__name__": "kpcourse.kernels", "__package__": "kpcourse"}
    exec(open(kpcourse.kernels.__file__).read(), namespace)
    spectrum = namespace["spectrum"]
    return float(sum(decay ** k * spectrum([s], [t], k=k)[0, 0] for k in range(1, max_k + 1)))
'''},
        # exec can define anything, and the ungraded cell at the end runs kgram_similarity at top
        # level: the grader cannot trust any exercise of this notebook
        "expect": {g: 0 for g in ("ex1-kgrams-tests-values", "ex1-kgrams-tests-edges", "ex2-knn-tests-values",
                                  "ex2-knn-tests-inputs", "ex3-shifts-tests-values", "ex3-shifts-tests-inputs",
                                  "ex4-subsequences-tests-small", "ex4-subsequences-tests-large")},
        "message": "which the grader cannot check",
    },
    # scikit-learn's weighted k-nearest neighbours on precomputed distances (1 - S).
    "reference-sklearn": {
        "replace": {"ex2-knn": "from sklearn.neighbors import KNeighborsClassifier\n\n\n" + _KNN
                    + '''    clf = KNeighborsClassifier(n_neighbors=k, metric="precomputed", weights=lambda d: 1 - d)
    clf.fit(1 - np.zeros((len(y), len(y))), y)
    return clf.predict(1 - S)
'''},
        "expect": {"ex2-knn-tests-values": 0, "ex2-knn-tests-inputs": 0},
        "message": "calling sklearn.neighbors.KNeighborsClassifier gets no credit",
    },
    # SciPy's ndimage.shift, as lecture 01 cell 30 shifts the digits.
    "reference-scipy": {
        "replace": {"ex3-shifts": "import itertools\n\nfrom scipy import ndimage\n\n\n" + _SHIFTS
                    + '''    for dy, dx in itertools.product(range(-s, s + 1), repeat=2):
        moved = ndimage.shift(a, (dy, dx), order=0)
        if np.linalg.norm(moved) > 0 and np.linalg.norm(b) > 0:
            best = max(best, float(np.sum(moved * b)) / (np.linalg.norm(moved) * np.linalg.norm(b)))
    return best
'''},
        "expect": {"ex3-shifts-tests-values": 0, "ex3-shifts-tests-inputs": 0},
        "message": "calling scipy.ndimage.shift gets no credit",
    },
}
