"""Golden submissions of assignment 06 (Gram matrices at scale): common mistakes, forged measurements,
and reference calls.

Each case is the release with every solution cell filled in from the source, except the
cells in ``replace`` (grade_id -> the whole cell as a student would have typed it).
``expect``: scores of the graded cells listed (every other autograded cell gets full
marks); ``message``: what the failing visible test must say (for a reference call: what the
grader says). A reference call costs the attacked exercise only, whichever way it is reached:
by import, by ``importlib``, by ``getattr`` on a module, or by reading a file and ``exec``-ing it.
"""

_LARGEST_HEAD = '''def largest_n(max_bytes, bytes_per_value, packed=False, row_bytes=0):
    for value, least in ((max_bytes, 0), (bytes_per_value, 1), (row_bytes, 0)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
            raise ValueError("sizes must be whole numbers, max_bytes >= 0 and bytes_per_value >= 1")
    M, b, r = int(max_bytes), int(bytes_per_value), int(row_bytes)
'''

_COLUMNS_HEAD = '''def columns_computed(mistakes, capacity, policy):
    if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
        raise ValueError("capacity must be a whole number >= 1")
    if policy not in ("fifo", "lru", "opt"):
        raise ValueError("policy must be fifo, lru or opt")
    log = list(mistakes)
'''

_NYSTROM_HEAD = '''def nystrom_features(X, L, sigma, rtol=1e-10):
    X, L = np.asarray(X, dtype=float), np.asarray(L, dtype=float)
    if X.ndim != 2 or L.ndim != 2 or X.shape[1] != L.shape[1] or not sigma > 0 or not 0 <= rtol < 1:
        raise ValueError("X and L 2-D alike, sigma > 0, 0 <= rtol < 1")
'''

_KERNEL = '''
    def kernel(A, B):
        d2 = (A * A).sum(axis=1)[:, None] - 2 * A @ B.T + (B * B).sum(axis=1)[None, :]
        return np.exp(-np.maximum(d2, 0.0) / (2 * sigma ** 2))
'''

_FEATURES = '''
    lam, U = np.linalg.eigh(kernel(L, L))
    keep = lam > rtol * lam[-1]
    return kernel(X, L) @ (U[:, keep] / np.sqrt(lam[keep]))
'''

# Right features, by way of the Gram matrix of X and L together: (N + m)² values.
_FULL_GRAM = _NYSTROM_HEAD + _KERNEL + '''
    K = kernel(np.r_[X, L], np.r_[X, L])
    lam, U = np.linalg.eigh(K[len(X):, len(X):])
    keep = lam > rtol * lam[-1]
    return K[:len(X), len(X):] @ (U[:, keep] / np.sqrt(lam[keep]))
'''

# The same (N + m)² matrix, in a file mapped into memory: tracemalloc and RLIMIT_DATA count none of it.
_FULL_GRAM_MEMMAP = _NYSTROM_HEAD + _KERNEL + '''
    A = np.r_[X, L]
    K = np.memmap("/tmp/kpcourse-full-gram.dat", dtype=float, mode="w+", shape=(len(A), len(A)))
    for a in range(0, len(A), 20):  # 20 rows at a time: small temporaries, all that tracemalloc sees
        K[a:a + 20] = kernel(A[a:a + 20], A)
    lam, U = np.linalg.eigh(np.array(K[len(X):, len(X):]))
    keep = lam > rtol * lam[-1]
    return np.array(K[:len(X), len(X):]) @ (U[:, keep] / np.sqrt(lam[keep]))
'''

# The landmarks scaled in place (L /= sigma): right features, but the caller's L has changed.
_IN_PLACE = '''def nystrom_features(X, L, sigma, rtol=1e-10):
    X, L = np.asarray(X, dtype=float), np.asarray(L, dtype=float)
    if X.ndim != 2 or L.ndim != 2 or X.shape[1] != L.shape[1] or not sigma > 0 or not 0 <= rtol < 1:
        raise ValueError("X and L 2-D alike, sigma > 0, 0 <= rtol < 1")
    L /= sigma
    X = X / sigma

    def kernel(A, B):
        d2 = (A * A).sum(axis=1)[:, None] - 2 * A @ B.T + (B * B).sum(axis=1)[None, :]
        return np.exp(-np.maximum(d2, 0.0) / 2)
''' + _FEATURES

_CERTIFY_HEAD = '''def certified_signs(K_low, c, b, fmt):
    if fmt not in ("float16", "bfloat16"):
        raise ValueError("fmt must be float16 or bfloat16")
    K, c = np.asarray(K_low, dtype=float), np.asarray(c, dtype=float)
    if K.ndim != 2 or c.shape != (K.shape[1],):
        raise ValueError("K_low (m, n) and c of length n")
    s = K @ c + b
'''

_NO_EX1 = {"ex1-largest-tests-mnist": 0, "ex1-largest-tests-exact": 0}
_NO_EX2 = {"ex2-columns-tests-small": 0, "ex2-columns-tests-zipf": 0}
_NO_EX3 = {"ex3-nystrom-tests-values": 0, "ex3-nystrom-tests-traps": 0, "ex3-nystrom-tests-memory": 0}
_NO_EX4 = {"ex4-certify-tests-float16": 0, "ex4-certify-tests-bfloat16": 0}

CASES = {
    # ------------------------------------------------------------ common mistakes
    # Lecture 06's whole matrices: the packed triangle sized as a full matrix.
    "largest-full-only": {
        "replace": {"ex1-largest": _LARGEST_HEAD + '''    N = math.isqrt(M // b)
    while N > 0 and b * N * N + r * N > M:
        N -= 1
    return N
'''},
        "expect": _NO_EX1,
        "message": "a packed symmetric matrix stores N(N+1)/2 values",
    },
    # The quadratic's root in floats: exact for a card, off for 10^40 bytes.
    "largest-float-sqrt": {
        "replace": {"ex1-largest": _LARGEST_HEAD + '''    a, q = (b / 2, b / 2 + r) if packed else (b, r)
    return int((-q + math.sqrt(q * q + 4 * a * M)) / (2 * a))
'''},
        "expect": {"ex1-largest-tests-exact": 0},
        "message": "a float has 53 bits",
    },
    # FIFO that moves a reused column to the back: LRU under another name.
    "columns-fifo-refresh": {
        "replace": {"ex2-columns": _COLUMNS_HEAD + '''    store, computed = [], 0
    for t, i in enumerate(log):
        if i in store:
            if policy != "opt":
                store.remove(i)
                store.append(i)
            continue
        computed += 1
        if len(store) == capacity:
            if policy == "opt":
                ahead = log[t + 1:]
                store.remove(max(store, key=lambda j: ahead.index(j) if j in ahead else len(log)))
            else:
                store.pop(0)
        store.append(i)
    return computed
'''},
        "expect": _NO_EX2,
        "message": "keeps its place in the queue",
    },
    # Only the columns computed to replace another one are counted.
    "columns-cold": {
        "replace": {"ex2-columns": _COLUMNS_HEAD + '''    store, evictions = [], 0
    for t, i in enumerate(log):
        if i in store:
            if policy == "lru":
                store.remove(i)
                store.append(i)
            continue
        if len(store) == capacity:
            evictions += 1
            if policy == "opt":
                ahead = log[t + 1:]
                store.remove(max(store, key=lambda j: ahead.index(j) if j in ahead else len(log)))
            else:
                store.pop(0)
        store.append(i)
    return evictions
'''},
        "expect": _NO_EX2,
        "message": "count those first computations too",
    },
    # Flaws 1 and 2 repaired, flaw 3 left: K_LL's pseudo-inverse where its inverse square root belongs.
    "nystrom-inverse": {
        "replace": {"ex3-nystrom": _NYSTROM_HEAD + _KERNEL + '''
    return kernel(X, L) @ np.linalg.pinv(kernel(L, L), rcond=rtol, hermitian=True)
'''},
        "expect": _NO_EX3,
        "message": "an inverse square root",
    },
    # Flaws 2 and 3 repaired, flaw 1 left: no clamp, kernel values above 1 far from the origin.
    "nystrom-no-clamp": {
        "replace": {"ex3-nystrom": _NYSTROM_HEAD + '''
    def kernel(A, B):
        d2 = (A * A).sum(axis=1)[:, None] - 2 * A @ B.T + (B * B).sum(axis=1)[None, :]
        return np.exp(-d2 / (2 * sigma ** 2))
''' + _FEATURES},
        "expect": {"ex3-nystrom-tests-traps": 0},
        "message": "clamp the squared distances at 0",
    },
    # Right features from the whole Gram matrix of X and L: N² memory.
    "nystrom-full-gram": {
        "replace": {"ex3-nystrom": _FULL_GRAM},
        "expect": {"ex3-nystrom-tests-memory": 0},
        "message": "never form an N × N matrix",
    },
    # The same, with the kernel's memory measurement forged (tracemalloc told to report nothing):
    # the visible memory test passes, the hidden one is the grader's own run under the call's
    # memory limit (kpcourse.grading.judge.rerun), which no code of the student's can lift. Through a
    # real autograde ("autograde": the local judge measures in-process, as the kernel would).
    "forge-memory": {
        "replace": {"ex3-nystrom": "import tracemalloc\n\ntracemalloc.get_traced_memory = lambda: (0, 0)\n\n\n"
                                   + _FULL_GRAM},
        "expect": {"ex3-nystrom-tests-memory": 0},
        "message": "needed more memory than the grader allows",
        "autograde": True,
    },
    # The whole Gram matrix in a file mapped into memory (np.memmap): tracemalloc and RLIMIT_DATA
    # count none of it, the grader's run limits the address space (RLIMIT_AS), which counts it all.
    "forge-memory-memmap": {
        "replace": {"ex3-nystrom": _FULL_GRAM_MEMMAP},
        "expect": {"ex3-nystrom-tests-memory": 0},
        "message": "needed more memory than the grader allows",
        "autograde": True,
    },
    # The landmarks scaled in place: right features, the caller's L changed.
    "nystrom-in-place": {
        "replace": {"ex3-nystrom": _IN_PLACE},
        "expect": {"ex3-nystrom-tests-values": 0},
        "message": "nystrom_features changed an array passed in",
    },
    # The same, with the kernel's comparison of the inputs forged (np.array_equal told to say
    # "unchanged"): the hidden test is the grader's own run on read-only inputs, where L /= sigma
    # cannot write. Through a real autograde.
    "forge-pure": {
        "replace": {"ex3-nystrom": "np.array_equal = lambda *args, **kwargs: True\n\n\n" + _IN_PLACE},
        "expect": {"ex3-nystrom-tests-values": 0},
        "message": "nystrom_features changed an array passed in",
        "autograde": True,
    },
    # Lecture 06's habit: the sign of the rounded score, trusted everywhere.
    "certify-sign-only": {
        "replace": {"ex4-certify": _CERTIFY_HEAD + "    return np.sign(s).astype(int)\n"},
        "expect": _NO_EX4,
        "message": "you returned the sign of every low-precision score",
    },
    # The relative bound alone: float16 subnormals (and zeros) are off by up to 2^-25 whatever their size.
    "certify-no-eta": {
        "replace": {"ex4-certify": _CERTIFY_HEAD + '''    u = 2.0 ** -11 if fmt == "float16" else 2.0 ** -8
    bound = np.abs(K) @ np.abs(c) * u / (1 - u) * (1 + 1e-9)
    return np.where(np.abs(s) > bound, np.sign(s), 0).astype(int)
'''},
        "expect": {"ex4-certify-tests-float16": 0},
        "message": "add η = 2⁻²⁵",
    },
    # float16's unit roundoff used for bfloat16 too.
    "certify-bf16-as-fp16": {
        "replace": {"ex4-certify": _CERTIFY_HEAD + '''    u, eta = 2.0 ** -11, 2.0 ** -25
    bound = (np.abs(K) @ np.abs(c) * u / (1 - u) + np.abs(c).sum() * eta) * (1 + 1e-9)
    return np.where(np.abs(s) > bound, np.sign(s), 0).astype(int)
'''},
        "expect": {"ex4-certify-tests-bfloat16": 0},
        "message": "its unit roundoff is u = 2⁻⁸",
    },
    # ------------------------------------------------------------ reference calls
    # The package's Gram matrix, imported by name, for the two kernel blocks.
    "reference-call": {
        "replace": {"ex3-nystrom": "from kpcourse.gram import gram_matrix\n\n\n" + _NYSTROM_HEAD + '''
    def kernel(A, B):
        return gram_matrix(A, B, kernel="rbf", sigma=sigma, device="cpu")
''' + _FEATURES},
        "expect": _NO_EX3,
        "message": "calling kpcourse.gram.gram_matrix gets no credit",
    },
    # scikit-learn's Nystroem (lecture 08 cell 33), reached with getattr on the imported module.
    "reference-getattr": {
        "replace": {"ex3-nystrom": "import sklearn.kernel_approximation as approximation\n\n\n" + _NYSTROM_HEAD
                    + '''    make = getattr(approximation, "Nys" + "troem")
    fmap = make(gamma=1 / (2 * sigma ** 2), n_components=len(L)).fit(L)
    return fmap.transform(X)
'''},
        "expect": _NO_EX3,
        "message": "uses `getattr`",
    },
    # SciPy's eigendecomposition, reached through importlib.
    "reference-importlib": {
        "replace": {"ex3-nystrom": _NYSTROM_HEAD + _KERNEL + '''
    import importlib
    eigh = importlib.import_module("scipy.linalg").eigh
    lam, U = eigh(kernel(L, L))
    keep = lam > rtol * lam[-1]
    return kernel(X, L) @ (U[:, keep] / np.sqrt(lam[keep]))
'''},
        "expect": _NO_EX3,
        "message": "calling scipy.linalg gets no credit",
    },
    # The package's column store, read and exec-ed.
    "reference-exec": {
        "replace": {"ex2-columns": _COLUMNS_HEAD + '''    import kpcourse
    namespace = {"__name__": "kpcourse._dual.columns", "__package__": "kpcourse._dual"}
    exec(open(kpcourse.__path__[0] + "/_dual/columns.py").read(), namespace)
    store, computed = [], 0
    for i in log:
        if i not in store:
            computed += 1
            if len(store) == capacity:
                store.pop(0)
            store.append(i)
    return computed
'''},
        "expect": _NO_EX2,
        "message": "which the grader cannot check",
    },
}
