"""Golden submissions of assignment 06 (Gram matrices at scale): common mistakes, reference calls.

Each case is the release with every solution cell filled in from the source, except the
cells in ``replace`` (grade_id -> the whole cell as a student would have typed it).
``expect``: scores of the graded cells listed (every other autograded cell gets full
marks); ``message``: what the failing test must say.

Reference calls: every reference a student could reach for each exercise (the package's
Gram matrix and RBF kernel, scikit-learn's ``rbf_kernel``, torch, ``KernelPerceptron``,
the package's storage helpers), by import, by ``importlib.import_module``, by ``getattr``
on a module and by reading a file and ``exec``-ing it, each inside the graded function.
Import, ``importlib`` and ``getattr``: 0 for the attacked exercise only. ``exec``: 0 for
every exercise, because the scratch cell under each exercise calls the function from
top-level code, and code that top-level code runs through ``exec`` could have redefined
any function of the notebook (kpcourse.grading.judge.policy, ``top_level_escapes``).
The messages checked for ``importlib``/``getattr``/``exec`` are the cell's verdict line
(``<exercise>: no credit``): the policy names the reference or the escape it found.
"""

_GRAM_HEAD = '''def tiled_rbf_gram(X, Z, sigma, max_memory):
    X, Z = np.asarray(X, dtype=float), np.asarray(Z, dtype=float)
    if X.shape[1] != Z.shape[1]:
        raise ValueError("X and Z need the same number of columns")
    n, m = len(X), len(Z)
    block_rows = max_memory // (4 * 8 * m)
    if block_rows < 1:
        raise ValueError("max_memory is too small for one row")
'''

_UNTILED_MEMMAP = '''    G, D, K = (np.memmap(f"/tmp/kpcourse-{name}.dat", dtype=float, mode="w+", shape=(n, m))
               for name in "GDK")
    np.matmul(X, Z.T, out=G)
    np.add((X * X).sum(axis=1)[:, None], (Z * Z).sum(axis=1)[None, :], out=D)
    np.subtract(D, G, out=D)
    np.subtract(D, G, out=D)
    np.maximum(D, 0, out=D)
    np.divide(D, -2 * sigma ** 2, out=K)
    np.exp(K, out=K)
    return K
'''

_TRAIN_HEAD = '''def train_incremental(K, y, max_epochs=10):
    K = np.asarray(K, dtype=float)
    n = len(y)
    if K.shape != (n, n):
        raise ValueError("K must be a square matrix with one row per label")
    alpha, b, F = np.zeros(n, dtype=int), 0.0, np.zeros(n)
    for epoch in range(max_epochs):
        mistakes = 0
        for i in range(n):
            if y[i] * F[i] <= 0:
                alpha[i] += 1
                b += y[i]
                mistakes += 1
'''

_TRAIN_TAIL = '''        if mistakes == 0:
            break
    return alpha, b
'''

_BIAS_IN_K = '''                F += y[i] * K[:, i]
'''

# the bias folded into K in place (the caller's K changes), the decision values moved by that K
_TRAIN_IN_PLACE = _TRAIN_HEAD.replace("    alpha, b, F", "    K += 1.0\n    alpha, b, F") + _BIAS_IN_K + _TRAIN_TAIL

_UNTILED = '''    xx, zz = (X * X).sum(axis=1), (Z * Z).sum(axis=1)
    d2 = xx[:, None] - 2 * X @ Z.T + zz[None, :]
    return np.exp(-np.maximum(d2, 0) / (2 * sigma ** 2))
'''

_STORAGES = '''STORAGES = [("float64", 8, 1.7976931348623157e308), ("float32", 4, 3.4028234663852886e38),
            ("float16", 2, 65504.0), ("bfloat16", 2, 3.3895313892515355e38)]


'''

_EX1 = {"ex1-tiled-tests-values": 0, "ex1-tiled-tests-clamp": 0, "ex1-tiled-tests-memory": 0}
_EX2 = {"ex2-incremental-tests-counts": 0, "ex2-incremental-tests-bias": 0, "ex2-incremental-tests-first": 0}
_EX3 = {"ex3-storage-tests-memory": 0, "ex3-storage-tests-overflow": 0, "ex3-storage-tests-tile": 0}


def _no_credit(what, ref):
    return f"this exercise asks you to write {what} yourself; calling {ref} gets no credit"


def _verdict(exercise):
    return f"{exercise}: no credit"


_ALL = {**_EX1, **_EX2, **_EX3}


CASES = {
    # ------------------------------------------------------------ common mistakes
    # The distance trick without the clamp: rounding makes some squared distances negative.
    "no-clamp": {
        "replace": {"ex1-tiled": _GRAM_HEAD + '''    K = np.empty((n, m))
    for a in range(0, n, block_rows):
        B = X[a:a + block_rows]
        d2 = (B * B).sum(axis=1)[:, None] - 2 * B @ Z.T + (Z * Z).sum(axis=1)[None, :]
        K[a:a + block_rows] = np.exp(-d2 / (2 * sigma ** 2))
    return K
'''},
        "expect": {"ex1-tiled-tests-values": 2, "ex1-tiled-tests-clamp": 0, "ex1-tiled-tests-memory": 2},
        "message": "clamp the squared distances at 0",
    },
    # Right values, but the whole matrix at once: the temporaries are several n x m arrays.
    "untiled": {
        "replace": {"ex1-tiled": _GRAM_HEAD + _UNTILED},
        "expect": {"ex1-tiled-tests-values": 2, "ex1-tiled-tests-clamp": 1, "ex1-tiled-tests-memory": 0},
        "message": "over the budget",
    },
    # The same, with the kernel's memory measurement forged (tracemalloc told to report nothing):
    # the visible memory test passes, the hidden one is the grader's own run under the kernel's
    # memory limit (kpcourse.grading.judge.rerun), which no code of the student's can lift. Through a
    # real autograde ("autograde": the local judge measures in-process, as the kernel would).
    "forge-memory": {
        "replace": {"ex1-tiled": """import tracemalloc

tracemalloc.get_traced_memory = lambda: (0, 0)


""" + _GRAM_HEAD + _UNTILED},
        "expect": {"ex1-tiled-tests-values": 2, "ex1-tiled-tests-clamp": 1, "ex1-tiled-tests-memory": 0},
        "message": "needed more memory than the grader allows",
        "autograde": True,
    },
    # The same untiled computation with every n x m array in a file mapped into memory
    # (np.memmap): tracemalloc and RLIMIT_DATA count none of them, the grader's run limits the
    # address space (RLIMIT_AS), which counts them all. Through a real autograde.
    "forge-memory-memmap": {
        "replace": {"ex1-tiled": _GRAM_HEAD + _UNTILED_MEMMAP},
        "expect": {"ex1-tiled-tests-values": 2, "ex1-tiled-tests-clamp": 1, "ex1-tiled-tests-memory": 0},
        "message": "needed more memory than the grader allows",
        "autograde": True,
    },
    # The bias folded into K in place (K += 1): right counts, but the caller's K has changed.
    "bias-into-K-in-place": {
        "replace": {"ex2-incremental": _TRAIN_IN_PLACE},
        "expect": {"ex2-incremental-tests-counts": 2, "ex2-incremental-tests-bias": 2,
                   "ex2-incremental-tests-first": 0},
        "message": "train_incremental changed the K or y passed in",
    },
    # The same, with the kernel's comparison of the inputs forged (np.array_equal told to say
    # "unchanged"): the visible test passes, the hidden one is the grader's own run on read-only
    # inputs (kpcourse.grading.judge.rerun), where K += 1 cannot write. Through a real autograde.
    "forge-pure": {
        "replace": {"ex2-incremental": "np.array_equal = lambda *args, **kwargs: True\n\n\n" + _TRAIN_IN_PLACE},
        "expect": {"ex2-incremental-tests-counts": 2, "ex2-incremental-tests-bias": 2,
                   "ex2-incremental-tests-first": 0},
        "message": "train_incremental changed the K or y passed in",
        "autograde": True,
    },
    # The decision values move by the kernel column but not by the bias step.
    "no-bias-in-F": {
        "replace": {"ex2-incremental": _TRAIN_HEAD + _BIAS_IN_K + _TRAIN_TAIL},
        "expect": {"ex2-incremental-tests-counts": 2, "ex2-incremental-tests-bias": 0,
                   "ex2-incremental-tests-first": 1},
        "message": "your decision values ignore the bias",
    },
    # Only the decision value of the misclassified sample is updated.
    "only-current": {
        "replace": {"ex2-incremental": _TRAIN_HEAD + '''                F[i] += y[i] * (K[i, i] + 1)
''' + _TRAIN_TAIL},
        "expect": {"ex2-incremental-tests-counts": 0, "ex2-incremental-tests-bias": 0,
                   "ex2-incremental-tests-first": 1},
        "message": "you updated only the decision value of the sample that was misclassified",
    },
    # Bytes vs elements: the matrix's n * n values compared with a budget in bytes.
    "storage-bytes-vs-elements": {
        "replace": {"ex3-storage": _STORAGES + '''def choose_storage(n, d, max_value, max_bytes):
    for name, itemsize, largest in STORAGES:
        left = max_bytes - n * n
        if max_value <= largest and left >= 8 * (1 + 2 * d):
            return name, min(n, math.isqrt(d * d + left // 8) - d)
    raise ValueError("no storage precision is safe here")
'''},
        "expect": _EX3,
        "message": "you compared a number of values with a number of bytes",
    },
    # The overflow bound forgotten: float16 whenever it fits, even for values above 65,504.
    "storage-no-overflow-bound": {
        "replace": {"ex3-storage": _STORAGES + '''def choose_storage(n, d, max_value, max_bytes):
    for name, itemsize, largest in STORAGES:
        left = max_bytes - n * n * itemsize
        if left >= 8 * (1 + 2 * d):
            return name, min(n, math.isqrt(d * d + left // 8) - d)
    raise ValueError("the matrix does not fit in max_bytes")
'''},
        "expect": {"ex3-storage-tests-memory": 1, "ex3-storage-tests-overflow": 0, "ex3-storage-tests-tile": 1},
        "message": "a precision is safe only if the kernel's largest value fits it",
    },
    # The tile sized against the whole budget, as if the stored matrix took no room.
    "storage-tile-whole-budget": {
        "replace": {"ex3-storage": _STORAGES + '''def choose_storage(n, d, max_value, max_bytes):
    for name, itemsize, largest in STORAGES:
        if max_value <= largest and n * n * itemsize + 8 * (1 + 2 * d) <= max_bytes:
            return name, min(n, math.isqrt(d * d + max_bytes // 8) - d)
    raise ValueError("no storage precision is safe here")
'''},
        "expect": {"ex3-storage-tests-memory": 1, "ex3-storage-tests-overflow": 1, "ex3-storage-tests-tile": 0},
        "message": "not in the whole budget",
    },
    # ------------------------------------------------------------ Exercise 1: references
    "ref-gram-import": {
        "replace": {"ex1-tiled": '''from kpcourse.gram import gram_matrix


def tiled_rbf_gram(X, Z, sigma, max_memory):
    if np.shape(X)[1] != np.shape(Z)[1] or max_memory < 4 * 8 * len(Z):
        raise ValueError("bad input")
    return gram_matrix(X, Z, kernel="rbf", sigma=sigma, max_memory=max_memory, device="cpu")
'''},
        "expect": _EX1,
        "message": _no_credit("the tiled Gram matrix", "kpcourse.gram.gram_matrix"),
    },
    "ref-gram-importlib": {
        "replace": {"ex1-tiled": '''import importlib


def tiled_rbf_gram(X, Z, sigma, max_memory):
    if np.shape(X)[1] != np.shape(Z)[1] or max_memory < 4 * 8 * len(Z):
        raise ValueError("bad input")
    gram = importlib.import_module("kpcourse.gram")
    return gram.gram_matrix(X, Z, kernel="rbf", sigma=sigma, max_memory=max_memory, device="cpu")
'''},
        "expect": _EX1,
        "message": _verdict("ex1-tiled"),
    },
    "ref-gram-getattr": {
        "replace": {"ex1-tiled": '''import kpcourse as kp


def tiled_rbf_gram(X, Z, sigma, max_memory):
    if np.shape(X)[1] != np.shape(Z)[1] or max_memory < 4 * 8 * len(Z):
        raise ValueError("bad input")
    module = getattr(kp, "gr" + "am")
    return getattr(module, "gram_matrix")(X, Z, kernel="rbf", sigma=sigma, max_memory=max_memory, device="cpu")
'''},
        "expect": _EX1,
        "message": _verdict("ex1-tiled"),
    },
    "ref-gram-exec-file": {
        "replace": {"ex1-tiled": '''def tiled_rbf_gram(X, Z, sigma, max_memory):
    if np.shape(X)[1] != np.shape(Z)[1] or max_memory < 4 * 8 * len(Z):
        raise ValueError("bad input")
    import kpcourse
    path = kpcourse.__path__[0] + "/gram.py"
    namespace = {"__name__": "kpcourse.gram", "__package__": "kpcourse"}
    exec(open(path).read(), namespace)
    return namespace["gram_matrix"](X, Z, kernel="rbf", sigma=sigma, max_memory=max_memory, device="cpu")
'''},
        "expect": _ALL,
        "message": _verdict("ex1-tiled"),
    },
    "ref-rbf-kernel-import": {
        "replace": {"ex1-tiled": '''from kpcourse.kernels import rbf


def tiled_rbf_gram(X, Z, sigma, max_memory):
    if np.shape(X)[1] != np.shape(Z)[1] or max_memory < 4 * 8 * len(Z):
        raise ValueError("bad input")
    rows = max_memory // (4 * 8 * len(Z))
    K = np.empty((len(X), len(Z)))
    for a in range(0, len(X), rows):
        K[a:a + rows] = rbf(X[a:a + rows], Z, sigma=sigma)
    return K
'''},
        "expect": _EX1,
        "message": _no_credit("the tiled Gram matrix", "kpcourse.kernels.rbf"),
    },
    "ref-sklearn-import": {
        "replace": {"ex1-tiled": '''from sklearn.metrics.pairwise import rbf_kernel


def tiled_rbf_gram(X, Z, sigma, max_memory):
    if np.shape(X)[1] != np.shape(Z)[1] or max_memory < 4 * 8 * len(Z):
        raise ValueError("bad input")
    rows = max_memory // (4 * 8 * len(Z))
    K = np.empty((len(X), len(Z)))
    for a in range(0, len(X), rows):
        K[a:a + rows] = rbf_kernel(X[a:a + rows], Z, gamma=1 / (2 * sigma ** 2))
    return K
'''},
        "expect": _EX1,
        "message": _no_credit("the tiled Gram matrix", "sklearn.metrics.pairwise.rbf_kernel"),
    },
    # torch's memory is invisible to tracemalloc: the exercise is NumPy only.
    "ref-torch": {
        "replace": {"ex1-tiled": '''import torch


def tiled_rbf_gram(X, Z, sigma, max_memory):
    if np.shape(X)[1] != np.shape(Z)[1] or max_memory < 4 * 8 * len(Z):
        raise ValueError("bad input")
    d2 = torch.cdist(torch.as_tensor(X, dtype=torch.float64), torch.as_tensor(Z, dtype=torch.float64)) ** 2
    return torch.exp(-d2 / (2 * sigma ** 2)).numpy()
'''},
        "expect": _EX1,
        "message": _no_credit("the tiled Gram matrix", "torch.as_tensor"),
    },
    # ------------------------------------------------------------ Exercise 2: references
    "ref-kp-import": {
        "replace": {"ex2-incremental": '''from kpcourse.perceptron import KernelPerceptron


def train_incremental(K, y, max_epochs=10):
    model = KernelPerceptron(kernel="precomputed", shuffle=False, max_epochs=max_epochs, device="cpu")
    model.fit(K, y)
    return model.alpha_, model.intercept_
'''},
        "expect": _EX2,
        "message": _no_credit("the incremental training", "kpcourse.perceptron.KernelPerceptron"),
    },
    "ref-kp-importlib": {
        "replace": {"ex2-incremental": '''import importlib


def train_incremental(K, y, max_epochs=10):
    module = importlib.import_module("kpcourse.perceptron")
    model = module.KernelPerceptron(kernel="precomputed", shuffle=False, max_epochs=max_epochs, device="cpu")
    model.fit(K, y)
    return model.alpha_, model.intercept_
'''},
        "expect": _EX2,
        "message": _verdict("ex2-incremental"),
    },
    "ref-kp-getattr": {
        "replace": {"ex2-incremental": '''import kpcourse.perceptron as kpp


def train_incremental(K, y, max_epochs=10):
    cls = getattr(kpp, "Kernel" + "Perceptron")
    model = cls(kernel="precomputed", shuffle=False, max_epochs=max_epochs, device="cpu").fit(K, y)
    return model.alpha_, model.intercept_
'''},
        "expect": _EX2,
        "message": _verdict("ex2-incremental"),
    },
    "ref-kp-exec-file": {
        "replace": {"ex2-incremental": '''def train_incremental(K, y, max_epochs=10):
    import kpcourse
    namespace = {}
    exec(open(kpcourse.__path__[0] + "/perceptron/_kernel.py").read(), namespace)
    model = namespace["KernelPerceptron"](kernel="precomputed", shuffle=False, max_epochs=max_epochs)
    model.fit(K, y)
    return model.alpha_, model.intercept_
'''},
        "expect": _ALL,
        "message": _verdict("ex2-incremental"),
    },
    # ------------------------------------------------------------ Exercise 3: references
    # The package decides storage precisions too (kpcourse._backend, kpcourse._dual.choose).
    "ref-storage-import": {
        "replace": {"ex3-storage": '''from kpcourse._backend import itemsize
from kpcourse._dual.choose import FLOAT16_MAX


def choose_storage(n, d, max_value, max_bytes):
    for name, largest in (("float64", 1.7976931348623157e308), ("float32", 3.4028234663852886e38),
                          ("float16", FLOAT16_MAX), ("bfloat16", 3.3895313892515355e38)):
        left = max_bytes - n * n * itemsize(name)
        if max_value <= largest and left >= 8 * (1 + 2 * d):
            return name, min(n, math.isqrt(d * d + left // 8) - d)
    raise ValueError("no storage precision is safe here")
'''},
        "expect": _EX3,
        "message": _no_credit("the storage plan", "kpcourse._backend.itemsize"),
    },
    "ref-storage-importlib": {
        "replace": {"ex3-storage": _STORAGES + '''import importlib


def choose_storage(n, d, max_value, max_bytes):
    backend = importlib.import_module("kpcourse._backend")
    for name, _, largest in STORAGES:
        left = max_bytes - n * n * backend.itemsize(name)
        if max_value <= largest and left >= 8 * (1 + 2 * d):
            return name, min(n, math.isqrt(d * d + left // 8) - d)
    raise ValueError("no storage precision is safe here")
'''},
        "expect": _EX3,
        "message": _verdict("ex3-storage"),
    },
    "ref-storage-getattr": {
        "replace": {"ex3-storage": _STORAGES + '''import kpcourse._backend as backend


def choose_storage(n, d, max_value, max_bytes):
    size = getattr(backend, "item" + "size")
    for name, _, largest in STORAGES:
        left = max_bytes - n * n * size(name)
        if max_value <= largest and left >= 8 * (1 + 2 * d):
            return name, min(n, math.isqrt(d * d + left // 8) - d)
    raise ValueError("no storage precision is safe here")
'''},
        "expect": _EX3,
        "message": _verdict("ex3-storage"),
    },
    "ref-storage-exec-file": {
        "replace": {"ex3-storage": _STORAGES + '''def choose_storage(n, d, max_value, max_bytes):
    import kpcourse
    namespace = {}
    exec(open(kpcourse.__path__[0] + "/_backend.py").read(), namespace)
    for name, _, largest in STORAGES:
        left = max_bytes - n * n * namespace["itemsize"](name)
        if max_value <= largest and left >= 8 * (1 + 2 * d):
            return name, min(n, math.isqrt(d * d + left // 8) - d)
    raise ValueError("no storage precision is safe here")
'''},
        "expect": _ALL,
        "message": _verdict("ex3-storage"),
    },
}
