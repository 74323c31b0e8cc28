"""Kernel functions: similarity scores between samples, written in plain NumPy.

Every numeric kernel takes ``X`` of shape (n, d) and an optional ``Z`` of shape
(m, d) (default ``X``) and returns the n×m Gram matrix ``K[i, j] = k(X[i], Z[j])``.
These are the readable reference versions used in the lessons and the tests;
:func:`kpcourse.gram.gram_matrix` computes the same matrices in fast tiles.

:data:`KERNELS` is the package's one table of kernel names: each row holds a kernel's
parameters and their validation, the in-place function that turns a tile of dot
products into kernel values (NumPy on the CPU, torch on a GPU), its overflow bound
for low-precision storage, and the NumPy version above.

Introduced in lesson 01 (similarity), used from lesson 03 on.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations_with_replacement
from math import comb, factorial, prod

import numpy as np

from ._validation import check_array, check_int, check_pair, check_positive

__all__ = [
    "linear",
    "polynomial",
    "rbf",
    "cosine",
    "shared_words",
    "spectrum",
    "quadratic_features",
    "polynomial_features",
    "n_polynomial_features",
    "is_psd",
    "rbf_gamma",
    "KERNELS",
    "KERNEL_NAMES",
    "Kernel",
    "get_kernel",
]


def linear(X, Z=None):
    """Linear kernel k(x, z) = x · z.

    Parameters
    ----------
    X : array-like of shape (n, d)
    Z : array-like of shape (m, d), default=None
        ``None`` means ``Z = X``.

    Returns
    -------
    K : ndarray of shape (n, m)

    Examples
    --------
    >>> linear([[1, 2]], [[3, 4]])
    array([[11.]])
    """
    X, Z = check_pair(X, Z)
    return X @ Z.T


def polynomial(X, Z=None, *, degree=2, gamma=1.0, coef0=1.0):
    """Polynomial kernel k(x, z) = (γ x · z + c)^degree.

    Parameters
    ----------
    X : array-like of shape (n, d)
    Z : array-like of shape (m, d), default=None
    degree : int, default=2
        Degree n >= 1 of the polynomial.
    gamma : float, default=1.0
        Scale γ > 0 of the dot product.
    coef0 : float, default=1.0
        Offset c >= 0; ``coef0=0`` gives the homogeneous kernel (x · z)^degree.

    Returns
    -------
    K : ndarray of shape (n, m)

    Examples
    --------
    >>> polynomial([[1.0, 2.0]], [[3.0, 4.0]], degree=2, coef0=0.0)
    array([[121.]])

    Lesson 04 (the kernel trick).
    """
    X, Z = check_pair(X, Z)
    degree = check_int(degree, "degree")
    gamma = check_positive(gamma, "gamma")
    coef0 = check_positive(coef0, "coef0", strict=False)
    return (gamma * (X @ Z.T) + coef0) ** degree


def rbf_gamma(sigma=None, gamma=None):
    """Return γ for the RBF kernel from exactly one of ``sigma`` and ``gamma``.

    exp(-‖x − z‖² / (2σ²)) = exp(-γ ‖x − z‖²) with γ = 1 / (2σ²).
    """
    if (sigma is None) == (gamma is None):
        raise ValueError(
            "rbf needs exactly one of sigma (bandwidth: exp(-|x-z|^2 / (2 sigma^2))) "
            f"or gamma (exp(-gamma |x-z|^2)); got sigma={sigma!r}, gamma={gamma!r}."
        )
    if sigma is not None:
        return 1.0 / (2.0 * check_positive(sigma, "sigma") ** 2)
    return check_positive(gamma, "gamma")


def squared_distances(X, Z=None):
    """Squared Euclidean distances ‖x − z‖² = ‖x‖² − 2 x·z + ‖z‖², clamped at 0."""
    X, Z = check_pair(X, Z)
    D = (X * X).sum(1)[:, None] - 2.0 * (X @ Z.T) + (Z * Z).sum(1)[None, :]
    np.maximum(D, 0.0, out=D)
    if Z is X:  # exact symmetry and zero self-distance despite rounding
        D = (D + D.T) / 2.0
        np.fill_diagonal(D, 0.0)
    return D


def rbf(X, Z=None, *, sigma=None, gamma=None):
    """Gaussian (RBF) kernel.

    k(x, z) = exp(-‖x − z‖² / (2σ²)) when ``sigma`` is given,
    k(x, z) = exp(-γ ‖x − z‖²) when ``gamma`` is given. Give exactly one.

    Parameters
    ----------
    X : array-like of shape (n, d)
    Z : array-like of shape (m, d), default=None
    sigma : float, default=None
        Bandwidth σ > 0.
    gamma : float, default=None
        Inverse width γ > 0 (scikit-learn's convention), γ = 1 / (2σ²).

    Returns
    -------
    K : ndarray of shape (n, m)
        Values in (0, 1]; exactly 1 on the diagonal when ``Z`` is None.

    Examples
    --------
    >>> rbf([[0.0, 0.0]], [[1.0, 0.0]], sigma=1.0).round(4)
    array([[0.6065]])

    Lesson 05 (the Gaussian kernel).
    """
    g = rbf_gamma(sigma, gamma)
    return np.exp(-g * squared_distances(X, Z))


def cosine(X, Z=None):
    """Cosine similarity k(x, z) = x · z / (‖x‖ ‖z‖).

    A zero vector has no direction: its similarity with anything is 0
    (scikit-learn's convention).

    Parameters
    ----------
    X : array-like of shape (n, d)
    Z : array-like of shape (m, d), default=None

    Returns
    -------
    K : ndarray of shape (n, m)
        Values in [-1, 1].

    Examples
    --------
    >>> cosine([[1.0, 0.0]], [[1.0, 1.0]]).round(4)
    array([[0.7071]])

    Lesson 01 (the matching detector).
    """
    X, Z = check_pair(X, Z)
    return _unit_rows(X) @ _unit_rows(Z).T


def _unit_rows(X):
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    return X / np.where(norms == 0.0, 1.0, norms)


# ---------------------------------------------------------------- string kernels
def _check_documents(A, name):
    if isinstance(A, (str, bytes)) or not hasattr(A, "__len__"):
        raise TypeError(
            f"{name} must be a list of documents (each a string or a collection of "
            f"words), got {type(A).__name__}; wrap a single document as [{name}]."
        )
    if len(A) == 0:
        raise ValueError(f"{name} is empty; at least one document is needed.")
    return A


def _words_of(doc):
    if isinstance(doc, str):
        return set(doc.split())
    return set(doc)


#: Up to this many pairs, :func:`shared_words` intersects sets (about 1 µs a pair) instead of
#: multiplying sparse incidence matrices (about 0.2 ms to build, whatever the size).
_FEW_PAIRS = 256


def shared_words(A, B=None):
    """Shared-word kernel: k(a, b) = number of distinct words that a and b share.

    k(a, b) = |words(a) ∩ words(b)|, the lecture's sentence similarity. A document
    is a collection of words, or a string split on whitespace.

    Parameters
    ----------
    A : sequence of n documents
    B : sequence of m documents, default=None
        ``None`` means ``B = A``.

    Returns
    -------
    K : ndarray of shape (n, m), dtype int64

    Examples
    --------
    >>> shared_words([["whale", "ocean", "ship"]], [["ship", "whale"], ["dance"]])
    array([[2, 0]])

    Lesson 01 (similarity and exemplars).
    """
    A = [_words_of(d) for d in _check_documents(A, "A")]
    B = A if B is None else [_words_of(d) for d in _check_documents(B, "B")]
    if len(A) * len(B) <= _FEW_PAIRS:  # a handful of documents: set intersections beat building matrices
        return np.array([[len(a & b) for b in B] for a in A], dtype=np.int64)
    from scipy import sparse

    vocab = {}
    for doc in (*A, *B):
        for w in doc:
            vocab.setdefault(w, len(vocab))

    def incidence(docs):
        rows = np.repeat(np.arange(len(docs)), [len(d) for d in docs])
        cols = np.fromiter((vocab[w] for d in docs for w in d), dtype=np.int64, count=rows.size)
        data = np.ones(rows.size, dtype=np.int64)
        return sparse.csr_matrix((data, (rows, cols)), shape=(len(docs), max(len(vocab), 1)))

    SA = incidence(A)
    SB = SA if B is A else incidence(B)
    return np.asarray((SA @ SB.T).todense(), dtype=np.int64)


def spectrum(A, B=None, k=3):
    """k-spectrum kernel on strings: k(s, t) = Σ_u φ_u(s) φ_u(t).

    φ_u(s) counts the occurrences of the substring u of length k in s.

    Parameters
    ----------
    A : sequence of n strings
    B : sequence of m strings, default=None
        ``None`` means ``B = A``.
    k : int, default=3
        Length of the substrings compared.

    Returns
    -------
    K : ndarray of shape (n, m), dtype int64

    Examples
    --------
    >>> spectrum(["abab"], ["abc"], k=2)
    array([[2]])

    Lesson 01 (string kernels).
    """
    k = check_int(k, "k")
    A = _check_documents(A, "A")
    B = A if B is None else _check_documents(B, "B")
    for name, docs in (("A", A), ("B", B)):
        if not all(isinstance(s, str) for s in docs):
            raise TypeError(f"spectrum compares strings: every item of {name} must be a str.")
    ca = [Counter(s[i:i + k] for i in range(len(s) - k + 1)) for s in A]
    cb = ca if B is A else [Counter(s[i:i + k] for i in range(len(s) - k + 1)) for s in B]
    K = np.zeros((len(ca), len(cb)), dtype=np.int64)
    for i, u in enumerate(ca):
        for j, v in enumerate(cb):
            small, large = (u, v) if len(u) <= len(v) else (v, u)
            K[i, j] = sum(c * large[s] for s, c in small.items())
    return K


# ---------------------------------------------------------- explicit feature maps
def quadratic_features(X):
    """Feature map of the homogeneous quadratic kernel in 2-D.

    φ(x) = (x₁², x₂², √2 x₁x₂), so that φ(x) · φ(z) = (x · z)².

    Parameters
    ----------
    X : array-like of shape (n, 2)

    Returns
    -------
    Phi : ndarray of shape (n, 3)

    Examples
    --------
    >>> quadratic_features([[1.0, 2.0]]).round(4)
    array([[1.    , 4.    , 2.8284]])

    Lesson 04 (the kernel trick).
    """
    X = check_array(X)
    if X.shape[1] != 2:
        raise ValueError(
            f"quadratic_features maps 2-D points; X has {X.shape[1]} features. "
            "Use polynomial_features(X, degree=2, coef0=0) for other dimensions."
        )
    x1, x2 = X[:, 0], X[:, 1]
    return np.column_stack([x1 ** 2, x2 ** 2, np.sqrt(2.0) * x1 * x2])


def polynomial_features(X, degree, coef0=1.0):
    """Explicit feature map φ of the polynomial kernel (x · z + c)^degree.

    By the multinomial theorem, (c + Σᵢ xᵢzᵢ)ⁿ = Σ_k n!/(k₀!k₁!…k_d!) c^k₀ Πᵢ(xᵢzᵢ)^kᵢ
    over exponents k₀ + k₁ + … + k_d = n, so φ_k(x) = √(n!/(k₀!…k_d!) c^k₀) Πᵢ xᵢ^kᵢ
    and φ(x) · φ(z) = ``polynomial(x, z, degree=n, gamma=1, coef0=c)``.

    Parameters
    ----------
    X : array-like of shape (n_samples, d)
    degree : int
    coef0 : float, default=1.0
        With ``coef0=0`` only the monomials of degree exactly ``degree`` remain.

    Returns
    -------
    Phi : ndarray of shape (n_samples, n_polynomial_features(d, degree, coef0))

    Examples
    --------
    >>> phi = polynomial_features([[1.0, 2.0]], degree=2)
    >>> float(phi @ phi.T)
    36.0

    Lesson 04 (the kernel trick).
    """
    X = check_array(X)
    degree = check_int(degree, "degree")
    coef0 = check_positive(coef0, "coef0", strict=False)
    d = X.shape[1]
    # Each multiset of size `degree` from {0 (the constant), 1..d} is one monomial.
    first = 0 if coef0 > 0 else 1
    columns = []
    for combo in combinations_with_replacement(range(first, d + 1), degree):
        counts = Counter(combo)
        coeff = factorial(degree) / prod(factorial(c) for c in counts.values())
        coeff *= coef0 ** counts.get(0, 0)
        col = np.full(X.shape[0], np.sqrt(coeff))
        for var, power in counts.items():
            if var > 0:
                col = col * X[:, var - 1] ** power
        columns.append(col)
    return np.column_stack(columns)


def n_polynomial_features(d, degree, coef0=1.0):
    """Number of features of the polynomial kernel's explicit map.

    C(d + n, n) monomials of degree ≤ n when c > 0, C(d + n − 1, n) when c = 0:
    Θ(dⁿ) features, against O(d) work for one kernel evaluation.

    Examples
    --------
    >>> n_polynomial_features(784, 4)
    15943435565
    """
    d = check_int(d, "d")
    degree = check_int(degree, "degree")
    coef0 = check_positive(coef0, "coef0", strict=False)
    return comb(d + degree, degree) if coef0 > 0 else comb(d + degree - 1, degree)


# --------------------------------------------------------------------- Mercer
def is_psd(K, tol=1e-10):
    """Whether a Gram matrix is symmetric positive semi-definite (Mercer's condition).

    True when K = Kᵀ (within ``tol`` relative to max |K|) and every eigenvalue is
    ≥ −tol · max(1, largest |eigenvalue|).

    Parameters
    ----------
    K : array-like of shape (n, n)
    tol : float, default=1e-10

    Returns
    -------
    bool

    Examples
    --------
    >>> is_psd([[1.0, 2.0], [2.0, 1.0]])
    False

    Lesson 01 (similarity), lesson 04 (Mercer).
    """
    K = check_array(K, "K")
    tol = check_positive(tol, "tol", strict=False)
    if K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be a square Gram matrix, got shape {K.shape}.")
    scale = max(1.0, float(np.abs(K).max()))
    if np.abs(K - K.T).max() > tol * scale:
        return False
    eig = np.linalg.eigvalsh((K + K.T) / 2.0)
    return bool(eig.min() >= -tol * max(1.0, float(np.abs(eig).max())))


# ------------------------------------------------------------- the kernel table
# One row per kernel name: everything the package knows about it. ``gram``, the
# training engine, ``perceptron`` and ``widgets`` look names up here; nothing else
# branches on a kernel's name. The torch/NumPy "finish" functions below turn a block
# of dot products G = A Bᵀ (rows prepared as the table says) into kernel values in
# place; ``xp`` is the array module of G (``numpy`` or ``torch``).

def _power(G, degree):
    """G ** degree in place; powers of two by repeated squaring (fast, no temporary)."""
    if degree & (degree - 1):  # not a power of two
        G **= degree
        return G
    while degree > 1:
        G *= G
        degree //= 2
    return G


def _finish_linear(G, p, na, nb, xp, zero=None, symmetric=False):
    return G


def _finish_poly(G, p, na, nb, xp, zero=None, symmetric=False):
    G *= p["gamma"]
    G += p["coef0"]
    return _power(G, p["degree"])


def _finish_rbf(G, p, na, nb, xp, zero=None, symmetric=False):
    # ‖a − b‖² = ‖a‖² − 2 a·b + ‖b‖², clamped at 0 (rounding can make it negative)
    G *= -2.0
    if symmetric:  # ‖a‖² + ‖b‖² as one term: a symmetric tile stays exactly symmetric
        G += na[:, None] + nb[None, :]
    else:
        G += na[:, None]
        G += nb[None, :]
    if xp is np:  # np.maximum: the same values as np.clip, without its wrapper (small tiles)
        np.maximum(G, 0.0, out=G)
    else:
        xp.clip(G, 0.0, None, out=G)
    if zero is not None:  # pairs of identical points: distance exactly 0, k exactly 1
        G[zero] = 0.0
    G *= -p["gamma"]
    return xp.exp(G, out=G)


def _params_linear(*, X=None, **_):
    return {}


def _params_poly(*, degree=2, gamma=None, coef0=1.0, X=None, **_):
    return {"degree": check_int(degree, "degree"),
            "gamma": 1.0 if gamma is None else check_positive(gamma, "gamma"),
            "coef0": check_positive(coef0, "coef0", strict=False)}


def _params_rbf(*, gamma=None, sigma=None, X=None, **_):
    if X is not None and gamma is None and sigma is None:  # the "scale" rule of KernelPerceptron
        var = float(np.var(X))
        gamma = 1.0 / (X.shape[1] * var) if var > 0 else 1.0
    return {"gamma": rbf_gamma(sigma, gamma)}


@dataclass(frozen=True)
class Kernel:
    """One row of :data:`KERNELS`: a kernel's parameters, fast tiles, overflow bound, NumPy version.

    Attributes
    ----------
    name : str
    numpy : callable
        The readable NumPy version, ``numpy(X, Z=None, **params)`` (lessons, tests);
        calling the row calls it.
    uses : tuple of str
        The parameters it takes (others are ignored).
    params : callable
        ``params(degree=, gamma=, sigma=, coef0=, X=None)`` → validated parameter dict;
        given the training data ``X``, RBF with neither γ nor σ uses γ = 1 / (d · X.var()).
    rows : {"raw", "centred", "unit"}
        How samples enter the dot products: as they are, minus a common mean (RBF: the
        distances do not change, the rounding error of ‖a‖² − 2a·b + ‖b‖² shrinks), or
        scaled to unit length (cosine).
    finish : callable
        ``finish(G, params, na, nb, xp, zero=None, symmetric=False)``: kernel values
        from the dot products G = A Bᵀ in place (``na``, ``nb``: squared row norms, RBF
        only; ``zero``: index of pairs of identical points; ``symmetric``: G is an
        exactly symmetric tile and must stay so).
    bound : callable
        ``bound(params, r2)``: largest |k(a, b)| when ‖a‖², ‖b‖² ≤ r2 (Cauchy–Schwarz),
        to refuse a storage precision the values would overflow.
    """

    name: str
    numpy: Callable
    uses: tuple
    params: Callable
    rows: str
    finish: Callable
    bound: Callable

    def __call__(self, X, Z=None, **params):
        return self.numpy(X, Z, **params)


_POLY = Kernel("poly", polynomial, ("degree", "gamma", "coef0"), _params_poly, "raw", _finish_poly,
               lambda p, r2: (p["gamma"] * r2 + p["coef0"]) ** p["degree"])

KERNELS = {
    "linear": Kernel("linear", linear, (), _params_linear, "raw", _finish_linear, lambda p, r2: r2),
    "poly": _POLY,
    "polynomial": _POLY,
    "rbf": Kernel("rbf", rbf, ("sigma", "gamma"), _params_rbf, "centred", _finish_rbf, lambda p, r2: 1.0),
    "cosine": Kernel("cosine", cosine, (), _params_linear, "unit", _finish_linear, lambda p, r2: 1.0),
}
"""The kernel table: name → :class:`Kernel` (``KERNELS["rbf"](X, Z, sigma=1.0)`` is :func:`rbf`)."""

KERNEL_NAMES = tuple(KERNELS)


def get_kernel(name):
    """The :class:`Kernel` row of ``name``; a ``ValueError`` listing the names otherwise."""
    if not isinstance(name, str) or name not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNEL_NAMES}, got {name!r}.")
    return KERNELS[name]
