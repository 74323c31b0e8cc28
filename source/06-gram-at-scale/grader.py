"""Grader of assignment 06 (Gram matrices at scale): references and hidden probes.

Hidden inputs are drawn from the per-notebook seed: memory budgets around the exact
boundaries (and far beyond float precision), mistake sequences with a few frequent
columns, points, landmarks and bandwidths for the Nyström features (duplicated landmarks
and points far from the origin among them), and Gram matrices rounded to float16 or
bfloat16 whose scores lie on both sides of the rounding bound.
"""

import math

import numpy as np

from kpcourse.checks import lesson06 as visible
from kpcourse.checks.exercise import Probe
from kpcourse.grading.judge import declared

_shared = declared.shared(__file__)
rbf = _shared.rbf

#: kpcourse (its Gram routines, column stores and perceptrons), scikit-learn (its Nystroem) and SciPy.
FORBIDDEN = ("kpcourse", "sklearn", "scipy")


# ----------------------------------------------------------------- references
def _whole(value, name, least):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < least:
        raise ValueError(f"{name} must be a whole number >= {least}, got {value!r}")
    return int(value)


def _need(N, b, packed, r):
    """Bytes of an N x N matrix (packed: N(N+1)/2 values) of b bytes each, and N rows of r bytes."""
    return b * N * (N + 1) // 2 + r * N if packed else b * N * N + r * N


def largest_n(max_bytes, bytes_per_value, packed=False, row_bytes=0, mistake=None):
    """The largest N whose N x N matrix (N(N+1)/2 values when packed) and N rows of row_bytes fit max_bytes."""
    M, b, r = _whole(max_bytes, "max_bytes", 0), _whole(bytes_per_value, "bytes_per_value", 1), \
        _whole(row_bytes, "row_bytes", 0)
    if mistake == "no_rows":
        r = 0
    half = packed and mistake != "full_only"

    def fits(N):
        need = b * N * N / 2 + r * N if half and mistake == "half_square" else _need(N, b, half, r)
        return need < M if mistake == "strict" else need <= M
    if mistake == "float_sqrt":  # the root of b N^2 + r N = M in floats (packed: (b/2) N^2 + (b/2 + r) N)
        a, q = (b / 2, b / 2 + r) if half else (b, r)
        return int((-q + math.sqrt(q * q + 4 * a * M)) / (2 * a))
    lo, hi = 0, math.isqrt(2 * M) + 2  # fits(hi) is False: b N(N+1)/2 > M there
    while lo < hi:  # bisection on whole numbers: exact however large M is
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid - 1)
    return lo


_POLICIES = ("fifo", "lru", "opt")


def columns_computed(mistakes, capacity, policy, mistake=None):
    """How many kernel columns a store of ``capacity`` columns computes for the mistake sequence."""
    seq = [int(i) for i in mistakes]
    capacity = _whole(capacity, "capacity", 1)
    if policy not in _POLICIES:
        raise ValueError(f"policy must be one of {_POLICIES}, got {policy!r}")
    if mistake == "opt_nearest" and policy == "opt":
        policy = "nearest"
    if mistake == "opt_lru" and policy == "opt":
        policy = "lru"
    refresh = policy == "lru" or (policy == "fifo" and mistake == "fifo_refresh")
    if policy == "lru" and mistake == "lru_no_refresh":
        refresh = False
    store, computed = [], 0  # store: oldest (or least recently used) first
    for t, i in enumerate(seq):
        if i in store:
            if refresh:
                store.remove(i)
                store.append(i)
            continue
        computed += 1
        if len(store) == capacity:
            if policy in ("opt", "nearest"):
                ahead = seq[t + 1:]
                nxt = {j: (ahead.index(j) if j in ahead else math.inf) for j in store}
                pick = (min if policy == "nearest" else max)(store, key=lambda j: (nxt[j], -j))
                store.remove(pick)
            else:
                store.pop(0)
        store.append(i)
    return computed - (min(capacity, len(set(seq))) if mistake == "cold" else 0)  # cold: evictions only


def _gauss(A, B, sigma, clamp=True):
    d2 = (A * A).sum(1)[:, None] - 2.0 * A @ B.T + (B * B).sum(1)[None, :]
    return np.exp(-(np.maximum(d2, 0.0) if clamp else d2) / (2.0 * sigma ** 2))


def nystrom_features(X, L, sigma, rtol=1e-10, mistake=None):
    """Z (n, r) with Z Zᵀ = K_XL K_LL⁺ K_LX, K_LL's eigenvalues below rtol·(largest) cut off."""
    X, L = np.asarray(X, dtype=float), np.asarray(L, dtype=float)
    if X.ndim != 2 or L.ndim != 2 or X.shape[1] != L.shape[1] or len(L) == 0:
        raise ValueError("X and L must be 2-D with the same number of columns, L not empty")
    if not sigma > 0 or not 0 <= rtol < 1:
        raise ValueError("sigma must be positive and 0 <= rtol < 1")
    clamp = mistake != "no_clamp"
    K_LL, K_XL = _gauss(L, L, sigma, clamp), _gauss(X, L, sigma, clamp)
    if mistake == "inverse":
        return K_XL @ np.linalg.pinv(K_LL, rcond=rtol, hermitian=True)
    lam, U = np.linalg.eigh(K_LL)
    keep = lam > (-np.inf if mistake == "no_cutoff" else rtol * lam[-1])
    U = U[:, keep]
    U = U * np.sign(U[np.abs(U).argmax(axis=0), np.arange(U.shape[1])])  # each column's largest entry > 0:
    # Z is unique only up to the signs of its columns; one choice keeps the stored data the same on every machine
    return K_XL @ (U / np.sqrt(lam[keep]))


#: Per storage format: (u, eta) of the rounding model |k - k̂| <= u|k̂|/(1 - u) + eta.
ROUNDING = {"float16": (2.0 ** -11, 2.0 ** -25), "bfloat16": (2.0 ** -8, 2.0 ** -134)}


def _bounds(K, c, b, fmt):
    """The score and its tightest bound per row: the kernel term (every entry off by its own bound, all
    the same way) and the rounding of the float64 sum."""
    u, eta = ROUNDING[fmt]
    n = K.shape[1]
    gamma = (n + 1) * 2.0 ** -53 / (1 - (n + 1) * 2.0 ** -53)
    size = np.abs(K) @ np.abs(c)
    return K @ c + b, size * u / (1 - u) + np.abs(c).sum() * eta, gamma * (size + abs(b))


def certified_signs(K_low, c, b, fmt, mistake=None):
    """Per row of K_low: +1 or -1 where every Gram matrix the rounding model allows gives that sign of
    K c + b, 0 where one of them gives the other sign or 0. (The probes hold no row whose |score| lies
    between the tightest bound and twice it: any sound bound up to twice the tightest gives this answer.)"""
    K, c = np.asarray(K_low, dtype=float), np.asarray(c, dtype=float)
    if K.ndim != 2 or c.shape != (K.shape[1],) or np.ndim(b) != 0:
        raise ValueError("K_low must be (m, n), c of length n and b one number")
    if fmt not in ROUNDING:
        raise ValueError(f"fmt must be 'float16' or 'bfloat16', got {fmt!r}")
    s, kernel, summed = _bounds(K, c, b, "float16" if mistake == "bf16_as_fp16" else fmt)
    u, eta = ROUNDING[fmt]
    if mistake == "no_abs":
        kernel = K @ c * u / (1 - u) + c.sum() * eta
    elif mistake == "loose":  # |k̂| <= 1
        kernel = np.full(len(K), np.abs(c).sum() * (u / (1 - u) + eta))
    elif mistake == "no_eta":
        kernel = kernel - np.abs(c).sum() * eta
    sign = np.sign(s).astype(int)
    return sign if mistake == "sign_only" else np.where(np.abs(s) > kernel + summed, sign, 0)


REFERENCES = {"largest_n": largest_n, "columns_computed": columns_computed, "nystrom_features": nystrom_features,
              "certified_signs": certified_signs}


# --------------------------------------------------------------- hidden probes
def _largest_mnist(rng):
    probes = []
    for _ in range(4):
        b, packed = int(rng.choice([2, 4, 8])), bool(rng.integers(2))
        r = int(rng.choice([0, 784, 3072])) * int(rng.choice([1, 4]))
        M = int(rng.integers(2, 80)) * 2 ** 30 + int(rng.integers(0, 2 ** 20))
        probes.append(Probe((M, b, packed, r)))
    return probes


def _largest_exact(rng):
    probes = []
    for packed in (True, False, True):
        N, b = int(rng.integers(10 ** 4, 10 ** 6)), int(rng.choice([2, 4, 8]))
        M = _need(N, b, packed, 0)
        probes += [Probe((M, b, packed)), Probe((M - 1, b, packed))]  # N, then N - 1
    huge = 10 ** int(rng.integers(38, 45)) + int(rng.integers(0, 10 ** 6))  # N ~ 1e20: beyond float precision
    return [*probes, Probe((huge, int(rng.choice([2, 4, 8])))), Probe((int(rng.integers(0, 4)), 8, True)),
            Probe((-int(rng.integers(1, 100)), 4), raises="ValueError", why="max_bytes is negative")]


def _zipf(rng, length, columns):
    """A mistake sequence where a few columns come back often (a hard sample errs again and again)."""
    weights = 1.0 / np.arange(1, columns + 1) ** rng.uniform(0.8, 1.3)
    return rng.permutation(columns)[rng.choice(columns, size=length, p=weights / weights.sum())].tolist()


def _columns_small(rng):
    probes = []
    for policy in _POLICIES:
        seq = rng.integers(0, 6, size=int(rng.integers(12, 18))).tolist()
        probes.append(Probe((seq, int(rng.integers(2, 4)), policy)))
    return probes


def _columns_zipf(rng):
    probes = [Probe((_zipf(rng, 300, int(rng.integers(20, 60))), int(rng.integers(1, 20)), policy))
              for policy in (*_POLICIES, *_POLICIES)]
    return [*probes, Probe(([1, 2, 3], 0, "fifo"), raises="ValueError", why="capacity is 0"),
            Probe(([1, 2, 3], 2, "random"), raises="ValueError", why="'random' is not a policy")]


def _landmarks(rng, X, m):
    return X[rng.choice(len(X), size=m, replace=False)]


def _clear_cut(L, sigma, rtol):
    """K_LL's eigenvalues are either below rtol/100 or above 1e-5 of the largest: no answer depends on
    rounding at the cutoff, and no kept direction amplifies rounding more than 1e5 times."""
    lam = np.linalg.eigvalsh(_gauss(L, L, sigma))
    ratio = lam / lam[-1]
    return not np.any((ratio > rtol / 100) & (ratio < 1e-5))


def _nystrom_draw(rng, n, d, m, sigma, duplicates=0, rtol=1e-10):
    while True:
        X = rng.normal(size=(n, d))
        L = _landmarks(rng, X, m)
        L = np.r_[L, L[rng.choice(m, size=duplicates, replace=False)]]
        if _clear_cut(L, sigma, rtol):
            return Probe((X, L, sigma, rtol))


def _nystrom_values(rng):
    return [_nystrom_draw(rng, n, d, m, sigma) for n, d, m, sigma in ((40, 3, 8, 1.5), (60, 6, 15, 3.0),
                                                                     (30, 2, 5, 0.8))]


def _nystrom_traps(rng):
    dup = _nystrom_draw(rng, 25, 4, 6, 2.0, duplicates=2)  # two landmarks twice: K_LL is singular
    every = _nystrom_draw(rng, 10, 4, 10, 1.5)  # L = X
    dup.mistake = "no_cutoff"
    return [Probe((every.args[0], every.args[0], 1.5, 1e-10)), dup, _far(rng),
            Probe((dup.args[0], dup.args[1], 0.0, 1e-10), raises="ValueError", why="sigma is 0")]


def _far(rng):
    """Points far from the origin (‖x‖² about 7e9) where the distance trick without its clamp gives
    kernel values above 1: the cancellation the clamp is for."""
    while True:
        far = 3e4 * rng.choice([-1, 1], size=8) + rng.normal(size=(30, 8))
        probe = Probe((far, far[rng.permutation(30)[:8]], 1.0, 1e-8), compare="l06_far", mistake="no_clamp")
        Z = nystrom_features(*probe.args, mistake="no_clamp")
        if (Z @ Z.T).max() > 1 + 1e-7:
            return probe


def _nystrom_memory(rng):
    """4,000 points, 20 landmarks: the full kernel (128 MB) cannot be formed under the limit."""
    X = rng.normal(size=(4000, 10))
    L = _landmarks(rng, X, 20)
    return [Probe((X[visible.NYSTROM_ROWS], L, 3.0, 1e-10)),
            Probe((X, L, 3.0, 1e-10), measured=True, like=0, compare="l06_memory",
                  memory_limit=visible.nystrom_limit(4000, 20, 10))]


def round_to(K, fmt):
    """K rounded to the nearest value of float16 or bfloat16 (ties to even), subnormals included, in float64."""
    K = np.asarray(K, dtype=float)
    p, emin = (11, -13) if fmt == "float16" else (8, -125)
    _, e = np.frexp(K)
    ulp = np.ldexp(1.0, np.maximum(e, emin) - p)
    return np.round(K / ulp) * ulp


def _line_rows(rng, fmt, m, sigma, far=False):
    """m queries on a line through a point where the score is 0, spread so that their |score| / bound
    ranges over about [0.02, 50]; with ``far`` the kernel values are tiny (float16 subnormals). None
    where the score is flat along the line."""
    n, d = int(rng.integers(15, 40)), int(rng.integers(2, 6))
    X = rng.normal(size=(n, d))
    c = (rng.integers(1, 5, size=n) * rng.choice([-1, 1], size=n)).astype(float)
    q0 = rng.normal(size=d) * (3.0 if far else 0.5)
    v = rng.normal(size=d)
    v /= np.linalg.norm(v)
    k0 = rbf(q0[None], X, sigma)[0]
    b = -float(k0 @ c)
    u, eta = ROUNDING[fmt]
    scale = (k0 @ np.abs(c)) * u + np.abs(c).sum() * eta  # the bound near q0
    h = 1e-6
    slope = abs(float((rbf((q0 + h * v)[None], X, sigma)[0] - rbf((q0 - h * v)[None], X, sigma)[0]) @ c)) / (2 * h)
    if not slope > 1e-6 * scale:  # the score barely moves along v: draw again
        return None
    t = scale / slope * np.geomspace(0.02, 50, m) * rng.choice([-1, 1], size=m)
    Q = q0[None] + t[:, None] * v[None]
    return round_to(rbf(Q, X, sigma), fmt), c, b


def _certify(rng, fmt, far=False, wrong=()):
    """A probe whose rows are certified (+1 and -1) or not (0), with no |score| between 1 - 1e-6 times
    the bound and twice it (rows there are dropped), and on which each mistake in ``wrong`` certifies a
    row that must stay 0."""
    for _ in range(200):
        sigma = float(rng.uniform(0.15, 0.25)) if far else float(rng.uniform(0.8, 2.0))
        drawn = _line_rows(rng, fmt, 30, sigma, far)
        if drawn is None:
            continue
        K, c, b = drawn
        s, kernel, summed = _bounds(K, c, b, fmt)
        K = K[(np.abs(s) <= kernel * (1 - 1e-6)) | (np.abs(s) > 2 * (kernel + summed) * (1 + 1e-6))]
        codes = certified_signs(K, c, b, fmt)
        if len(K) < 12 or not all(np.any(codes == k) for k in (0, 1, -1)):
            continue
        if all(np.any((codes == 0) & (certified_signs(K, c, b, fmt, mistake=w) != 0)) for w in wrong):
            return Probe((K, c, b, fmt))
    raise RuntimeError(f"no {fmt} probe found")  # pragma: no cover - 200 draws always find one


def _certify_float16(rng):
    return [_certify(rng, "float16", wrong=("no_abs",)), _certify(rng, "float16", far=True, wrong=("no_eta",))]


def _certify_bfloat16(rng):
    return [_certify(rng, "bfloat16", wrong=("bf16_as_fp16",)), _certify(rng, "bfloat16"),
            Probe((np.zeros((2, 3)), np.ones(3), 0.0, "float8"), raises="ValueError", why="'float8' is not a format")]


HIDDEN = {"ex1-largest-tests-mnist": _largest_mnist, "ex1-largest-tests-exact": _largest_exact,
          "ex2-columns-tests-small": _columns_small, "ex2-columns-tests-zipf": _columns_zipf,
          "ex3-nystrom-tests-values": _nystrom_values, "ex3-nystrom-tests-traps": _nystrom_traps,
          "ex3-nystrom-tests-memory": _nystrom_memory,
          "ex4-certify-tests-float16": _certify_float16, "ex4-certify-tests-bfloat16": _certify_bfloat16}

#: The measured call's answer (4,000 x 20 floats, 640 kB) must come back whole.
OPTIONS = {"ex3-nystrom-tests-memory": {"answer_bytes": 4 * 2**20}}

visible_data, cells = declared.grader(visible.LESSON, REFERENCES, HIDDEN, OPTIONS)
