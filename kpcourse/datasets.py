"""Data sets of the course: small worked examples, toy generators and real data.

Three kinds of data live here:

* hand-sized examples printed in the lessons (:func:`worked_example`,
  :func:`msdn_example`), the perceptron quiz's 20 points :func:`quiz_points` (shipped
  inside the package, ``kpcourse/data/quiz_perceptron.csv``) and its rescaling
  :func:`quiz_transform`;
* random toy sets with an exactly known boundary (:func:`circles`, :func:`unit_disc`);
* real data read from files (:func:`load_banknote`, :func:`load_mnist`,
  :func:`load_text`) and the text helpers :func:`sentences`, :func:`words`,
  :func:`chapters`.

Each file is looked up, in this order, in the folder named by the environment
variable ``KPCOURSE_DATA`` (same layout as the course's ``shared/data``:
``mnist/train-images-idx3-ubyte.gz``, ``banknote/data_banknote_authentication.txt``,
``texts/moby_dick.txt``, ...), then in the cache ``$XDG_CACHE_HOME/kpcourse``
(default ``~/.cache/kpcourse``), and is otherwise downloaded from its canonical
source into that cache. Every file is checked after every download *and* every
time it is read, so a corrupt or truncated copy is reported, never silently used.

Importing this module opens no file, touches no network and imports neither NLTK
nor torch; all of that happens inside the functions.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import http.client
import importlib.resources
import io
import numbers
import os
import re
import struct
import sys
import tempfile
import urllib.request
import warnings
import zlib
from pathlib import Path

import numpy as np

from ._validation import check_array, check_int, check_positive

__all__ = [
    "DataNotFoundError",
    "DataIntegrityError",
    "NLTKDataWarning",
    "worked_example",
    "quiz_points",
    "quiz_transform",
    "msdn_example",
    "circles",
    "unit_disc",
    "data_path",
    "load_banknote",
    "load_mnist",
    "deskew",
    "load_text",
    "sentences",
    "words",
    "chapters",
]


class DataNotFoundError(FileNotFoundError):
    """A data file is neither in ``KPCOURSE_DATA`` nor in the cache, and cannot be downloaded."""


class DataIntegrityError(ValueError):
    """A data file (read or downloaded) does not have the expected content."""


class NLTKDataWarning(UserWarning):
    """NLTK's ``punkt_tab`` model is missing; a simpler sentence splitter is used."""


# --------------------------------------------------------------------------- #
# Small examples printed in the lessons
# --------------------------------------------------------------------------- #

def worked_example():
    """Four labelled points in the plane: the perceptron's worked example.

    ``X = (1, 2), (1, 1), (2, 4), (3, 2)`` with labels ``y = +1, -1, +1, -1``,
    small enough to follow every perceptron update by hand.

    Returns
    -------
    X : ndarray of shape (4, 2), dtype float64
    y : ndarray of shape (4,), dtype int64
        Labels in {-1, +1}.

    Examples
    --------
    >>> X, y = worked_example()
    >>> X[2], int(y[2])
    (array([2., 4.]), 1)

    Lesson 02 (the perceptron by hand) and 03 (dual form).
    """
    X = np.array([[1.0, 2.0], [1.0, 1.0], [2.0, 4.0], [3.0, 2.0]])
    y = np.array([1, -1, 1, -1], dtype=np.int64)
    return X, y


# The quiz's 20 points are package data (kpcourse/data/README.md gives their provenance:
# the public nbgrader notebook Quiz6/Quiz_Perceptron.ipynb of katowice/introAI_Quizzes).
_QUIZ_FILE = "quiz_perceptron.csv"


def quiz_points():
    """The 20 raw points and labels of the perceptron quiz.

    Read from the package's own copy, ``kpcourse/data/quiz_perceptron.csv`` (columns
    ``x1, x2, label`` with labels 0/1), the locked data cell of the public nbgrader quiz
    notebook ``Quiz6/Quiz_Perceptron.ipynb`` (repository ``katowice/introAI_Quizzes``).
    Labels are mapped 1 -> +1, 0 -> -1. The quiz trains on ``quiz_transform(X)`` with
    learning rate 1 from ``w = 0``, visiting the points in file order, and expects
    ``w = (-1.26035052, -1.21318978, 2.0)``.

    Returns
    -------
    X : ndarray of shape (20, 2), dtype float64
        The raw points, in file order (before :func:`quiz_transform`).
    y : ndarray of shape (20,), dtype int64
        Labels in {-1, +1}.

    Raises
    ------
    DataIntegrityError
        If the packaged file does not hold 20 rows of two numbers and a 0/1 label.

    Examples
    --------
    >>> X, y = quiz_points()
    >>> X.shape, int((y == 1).sum())
    ((20, 2), 10)

    Lessons 02 (the perceptron by hand) and 03 (dual form).
    """
    text = (importlib.resources.files("kpcourse") / "data" / _QUIZ_FILE).read_text("utf-8")
    data = np.loadtxt(io.StringIO(text), delimiter=",", skiprows=1, ndmin=2)
    if data.shape != (20, 3) or not np.isin(data[:, 2], (0, 1)).all():
        raise DataIntegrityError(
            f"kpcourse/data/{_QUIZ_FILE} must hold 20 rows of x1, x2 and a 0/1 label, "
            f"got an array of shape {data.shape}; reinstall kpcourse."
        )
    return data[:, :2].copy(), np.where(data[:, 2] == 1, 1, -1).astype(np.int64)


_QUIZ_SHIFT = 0.94
_QUIZ_SCALE = 1.3


def quiz_transform(X):
    """Rescale the perceptron quiz's points and append a constant-1 column.

    Each feature becomes ``(x + 0.94) / 1.3`` and a last column of ones is added,
    so that a perceptron without intercept (``fit_intercept=False``) learns the
    bias as its last weight: ``[x_1, ..., x_d] -> [(x_1 + 0.94)/1.3, ..., 1]``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Raw points, as printed in the quiz.

    Returns
    -------
    Xt : ndarray of shape (n_samples, n_features + 1), dtype float64

    Examples
    --------
    >>> quiz_transform([[-0.94, 0.36]])
    array([[0., 1., 1.]])

    Lesson 02 (the perceptron quiz).
    """
    X = check_array(X, "X")
    return np.hstack([(X + _QUIZ_SHIFT) / _QUIZ_SCALE, np.ones((X.shape[0], 1))])


def msdn_example():
    """The RBF kernel perceptron example of J. McCaffrey's MSDN article (April 2017).

    Four training items with mistake counts ``alpha`` and one query point; the
    kernel perceptron scores the query as
    ``f(q) = sum_i alpha_i y_i exp(-||x_i - q||^2 / (2 sigma^2))``.
    Source: "Test Run - Kernel Perceptrons using C#", MSDN Magazine 32(4), April 2017,
    https://docs.microsoft.com/en-us/archive/msdn-magazine/2017/april/test-run-kernel-perceptrons-using-csharp

    Returns
    -------
    example : dict
        ``"X"``: ndarray of shape (4, 2), the items (2, 3), (3, 2), (3, 5), (4, 3);
        ``"y"``: ndarray of shape (4,), int64, labels (-1, +1, +1, -1);
        ``"alpha"``: ndarray of shape (4,), int64, mistake counts (1, 2, 3, 4);
        ``"query"``: ndarray of shape (2,), the point (3, 6) to classify;
        ``"sigma"``: float, the RBF width 1.5.

    Examples
    --------
    >>> ex = msdn_example()
    >>> d2 = ((ex["X"] - ex["query"]) ** 2).sum(axis=1)
    >>> k = np.exp(-d2 / (2 * ex["sigma"] ** 2))
    >>> round(float(np.sum(ex["alpha"] * ex["y"] * k)), 4)
    1.9175

    Used in the Gaussian-kernel lesson.
    """
    return {
        "X": np.array([[2.0, 3.0], [3.0, 2.0], [3.0, 5.0], [4.0, 3.0]]),
        "y": np.array([-1, 1, 1, -1], dtype=np.int64),
        "alpha": np.array([1, 2, 3, 4], dtype=np.int64),
        "query": np.array([3.0, 6.0]),
        "sigma": 1.5,
    }


# --------------------------------------------------------------------------- #
# Random toy sets
# --------------------------------------------------------------------------- #

def _check_random_state(random_state):
    """Return a ``np.random.Generator`` for None, an int, a SeedSequence or a Generator."""
    if random_state is None or isinstance(random_state, np.random.SeedSequence):
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be a non-negative integer, got {random_state}.")
        return np.random.default_rng(int(random_state))
    raise TypeError(
        "random_state must be None, a non-negative int or a numpy.random.Generator, "
        f"got {type(random_state).__name__}: {random_state!r}."
    )


def circles(n, *, noise=0.1, factor=0.5, random_state=None):
    """A ring inside a ring: two classes no straight line separates.

    Outer circle of radius 1 (label +1) and inner circle of radius ``factor``
    (label -1), each point at an evenly spaced angle, then moved by Gaussian noise
    of standard deviation ``noise`` and shuffled:
    ``x = r (cos t, sin t) + noise * N(0, I)``.

    Parameters
    ----------
    n : int
        Number of points, >= 2; ``n // 2`` lie on the outer ring, the rest inside.
    noise : float, default=0.1
        Standard deviation of the Gaussian noise added to each coordinate, >= 0.
    factor : float, default=0.5
        Radius of the inner ring relative to the outer one, 0 < factor < 1.
    random_state : None, int or numpy.random.Generator, default=None
        Seed or generator; ``None`` draws fresh entropy. The global RNG is never used.

    Returns
    -------
    X : ndarray of shape (n, 2), dtype float64
    y : ndarray of shape (n,), dtype int64
        +1 on the outer ring, -1 on the inner ring.

    Examples
    --------
    >>> X, y = circles(100, random_state=0)
    >>> X.shape, int((y == 1).sum()), int((y == -1).sum())
    ((100, 2), 50, 50)

    Lesson 04 (the kernel trick).
    """
    n = check_int(n, "n", minimum=2)
    noise = check_positive(noise, "noise", strict=False)
    factor = check_positive(factor, "factor")
    if factor >= 1:
        raise ValueError(f"factor must be between 0 and 1 (exclusive), got {factor!r}.")
    rng = _check_random_state(random_state)
    n_out = n // 2
    n_in = n - n_out
    t_out = np.linspace(0.0, 2 * np.pi, n_out, endpoint=False)
    t_in = np.linspace(0.0, 2 * np.pi, n_in, endpoint=False)
    X = np.vstack([
        np.column_stack([np.cos(t_out), np.sin(t_out)]),
        factor * np.column_stack([np.cos(t_in), np.sin(t_in)]),
    ])
    y = np.concatenate([np.ones(n_out, dtype=np.int64), -np.ones(n_in, dtype=np.int64)])
    if noise > 0:
        X = X + rng.normal(scale=noise, size=X.shape)
    order = rng.permutation(n)
    return X[order], y[order]


def unit_disc(n, *, margin=0.0, random_state=None):
    """Points uniform in the square [-2, 2]², labelled by the unit circle.

    ``y = -1`` inside the unit circle (||x|| < 1) and ``+1`` outside. With
    ``margin > 0`` points with ``| ||x|| - 1 | < margin`` are rejected and redrawn,
    so the circle separates the classes with a gap of ``2 * margin``.

    Parameters
    ----------
    n : int
        Number of points, >= 1.
    margin : float, default=0.0
        Half-width of the empty band around the circle, 0 <= margin < 1.
    random_state : None, int or numpy.random.Generator, default=None
        Seed or generator; ``None`` draws fresh entropy. The global RNG is never used.

    Returns
    -------
    X : ndarray of shape (n, 2), dtype float64
    y : ndarray of shape (n,), dtype int64
        -1 inside the unit circle, +1 outside. About 20 % of the points
        (pi / 16 of the square) fall inside, so a very small ``n`` may hold one class.

    Examples
    --------
    >>> X, y = unit_disc(500, margin=0.1, random_state=0)
    >>> r = np.linalg.norm(X, axis=1)
    >>> bool(np.all(r[y == -1] < 0.9) and np.all(r[y == 1] > 1.1))
    True

    Lesson 04 (the kernel trick).
    """
    n = check_int(n, "n", minimum=1)
    margin = check_positive(margin, "margin", strict=False)
    if margin >= 1:
        raise ValueError(f"margin must be smaller than 1 (the circle's radius), got {margin!r}.")
    rng = _check_random_state(random_state)
    kept = []
    n_kept = 0
    while n_kept < n:
        batch = rng.uniform(-2.0, 2.0, size=(2 * (n - n_kept) + 16, 2))
        r = np.linalg.norm(batch, axis=1)
        batch = batch[np.abs(r - 1.0) >= margin] if margin > 0 else batch
        kept.append(batch)
        n_kept += len(batch)
    X = np.vstack(kept)[:n]
    y = np.where(np.linalg.norm(X, axis=1) < 1.0, -1, 1).astype(np.int64)
    return X, y


# --------------------------------------------------------------------------- #
# Files: where they come from, how they are checked
# --------------------------------------------------------------------------- #

_MNIST_MIRRORS = (
    "https://ossci-datasets.s3.amazonaws.com/mnist/",
    "http://yann.lecun.com/exdb/mnist/",
)
_MNIST_FILES = {
    "train-images-idx3-ubyte.gz": "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609",
    "train-labels-idx1-ubyte.gz": "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c",
    "t10k-images-idx3-ubyte.gz": "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6",
    "t10k-labels-idx1-ubyte.gz": "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6",
}
_BANKNOTE = "banknote/data_banknote_authentication.txt"
# sha256 of the parsed values, float64 little-endian row-major (independent of CRLF/LF,
# trailing spaces or a final newline).
_BANKNOTE_SHA256 = "87d26d560b7ebb9c7327612d1f66962b8e7d08e34c2ac91f85d507974cecae26"
_TEXTS = {
    # name: (file, Gutenberg eBook number, a phrase near the start, plausible length range)
    "moby_dick": ("texts/moby_dick.txt", 2701, "Call me Ishmael", (1_000_000, 1_500_000)),
    "pride_and_prejudice": ("texts/pride_and_prejudice.txt", 1342,
                            "It is a truth universally acknowledged", (600_000, 900_000)),
}

#: Download sources, tried in order, for each file (relative to the data folder).
_URLS = {
    **{f"mnist/{f}": tuple(m + f for m in _MNIST_MIRRORS) for f in _MNIST_FILES},
    _BANKNOTE: ("https://archive.ics.uci.edu/ml/machine-learning-databases/00267/"
                "data_banknote_authentication.txt",),
    **{file: (f"https://www.gutenberg.org/cache/epub/{num}/pg{num}.txt",)
       for file, num, _, _ in _TEXTS.values()},
}

_TIMEOUT_S = 60


def _cache_dir():
    """``$XDG_CACHE_HOME/kpcourse`` (default ``~/.cache/kpcourse``), read at each call."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "kpcourse"


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _parse_banknote(path):
    """Parse the banknote CSV (no header, 5 numeric fields) into a float64 array."""
    with open(path, encoding="utf-8", errors="strict") as f:
        lines = [line.strip() for line in f]
    rows = [line.split(",") for line in lines if line]
    if rows and rows[0] and not re.fullmatch(r"[-+0-9.eE]+", rows[0][0].strip()):
        rows = rows[1:]  # a header line added by some copies
    try:
        return np.array([[float(v) for v in row] for row in rows], dtype=np.float64)
    except ValueError as exc:
        raise DataIntegrityError(f"not 5 numeric comma-separated fields per line ({exc})") from None


def _check_file(rel, path):
    """Return None if ``path`` holds the expected content for ``rel``, else (expected, got)."""
    if rel.startswith("mnist/"):
        expected = _MNIST_FILES[rel.split("/", 1)[1]]
        got = _sha256(path)
        return None if got == expected else (f"sha256 {expected}", f"sha256 {got}")
    if rel == _BANKNOTE:
        try:
            arr = _parse_banknote(path)
        except (DataIntegrityError, UnicodeDecodeError) as exc:
            return ("1372 rows of 5 numbers", str(exc))
        if arr.ndim != 2 or arr.shape != (1372, 5):
            return ("1372 rows of 5 numbers", f"an array of shape {arr.shape}")
        got = hashlib.sha256(arr.astype("<f8").tobytes()).hexdigest()
        if got != _BANKNOTE_SHA256:
            return (f"sha256 of the values {_BANKNOTE_SHA256}", f"sha256 {got}")
        return None
    for file, _, phrase, (lo, hi) in _TEXTS.values():
        if rel == file:
            try:
                text = _strip_gutenberg(_read_utf8(path))
            except UnicodeDecodeError as exc:
                return ("UTF-8 text", f"undecodable bytes ({exc})")
            if phrase not in text[:200_000]:
                return (f"a text containing {phrase!r} near its start", "a text without it")
            if not lo <= len(text) <= hi:
                return (f"{lo:,} to {hi:,} characters", f"{len(text):,} characters")
            return None
    raise KeyError(f"no integrity check for {rel}")


def _integrity_error(rel, path, expected, got, *, advice):
    return DataIntegrityError(
        f"{rel}: integrity check failed for {path}: expected {expected}, got {got}. {advice}"
    )


def _download(rel, dest):
    """Download ``rel`` into ``dest`` atomically, trying each source URL in turn."""
    urls = _URLS[rel]
    folder = dest.parent
    failures = []
    corrupt = None
    for url in urls:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DataNotFoundError(
                f"{rel}: cannot create the cache folder {folder} ({exc}). Set XDG_CACHE_HOME "
                f"to a writable folder, or put the file into a folder named by KPCOURSE_DATA."
            ) from None
        print(f"kpcourse: downloading {rel} from {url} into {folder}", file=sys.stderr)
        fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part", dir=folder)
        try:
            with os.fdopen(fd, "wb") as out:
                req = urllib.request.Request(url, headers={"User-Agent": "kpcourse"})
                with urllib.request.urlopen(req, timeout=_TIMEOUT_S) as resp:
                    for block in iter(lambda: resp.read(1 << 20), b""):
                        out.write(block)
            problem = _check_file(rel, tmp)
            if problem is None:
                os.chmod(tmp, 0o644)
                os.replace(tmp, dest)
                return dest
            corrupt = (url, *problem)
        except (OSError, http.client.HTTPException, ValueError) as exc:  # URLError is an OSError
            failures.append(f"{url} ({getattr(exc, 'reason', exc)})")
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
    if corrupt is not None:
        url, expected, got = corrupt
        raise DataIntegrityError(
            f"{rel}: the download from {url} failed its integrity check: expected {expected}, "
            f"got {got}. Nothing was saved. Try again later, or download the file by hand "
            f"into {folder} (or into a folder named by KPCOURSE_DATA)."
        )
    raise DataNotFoundError(
        f"{rel} is not available offline and could not be downloaded from "
        f"{' or '.join(failures)}. Download it by hand from {urls[0]} and save it as "
        f"{dest} (or put it at <folder>/{rel} and set KPCOURSE_DATA=<folder>)."
    )


def _fetch(rel):
    """Path of a verified copy of ``rel``: KPCOURSE_DATA, then the cache, then a download."""
    env = os.environ.get("KPCOURSE_DATA")
    if env:
        path = Path(env).expanduser() / rel
        if path.is_file():
            problem = _check_file(rel, path)
            if problem is not None:
                raise _integrity_error(
                    rel, path, *problem,
                    advice=(f"Replace it with a good copy (from {_URLS[rel][0]}), or unset "
                            "KPCOURSE_DATA to use the download cache instead."))
            return path
    path = _cache_dir() / rel
    if path.is_file():
        problem = _check_file(rel, path)
        if problem is not None:
            raise _integrity_error(
                rel, path, *problem,
                advice=f"Delete it (rm '{path}') and call again to download a fresh copy.")
        return path
    return _download(rel, path)


def data_path(name):
    """Path of a verified local copy of one of the course's data files.

    The file is found the way every loader finds it (``KPCOURSE_DATA``, then the
    cache, then a download into the cache) and checked before its path is returned.
    For looking inside a raw file, e.g. the header of an MNIST IDX file.

    Parameters
    ----------
    name : str
        The file's place in the data layout, e.g. ``"mnist/train-images-idx3-ubyte.gz"``,
        ``"banknote/data_banknote_authentication.txt"`` or ``"texts/moby_dick.txt"``.

    Returns
    -------
    path : pathlib.Path

    Raises
    ------
    ValueError
        If ``name`` is not one of the course's data files.
    DataNotFoundError, DataIntegrityError
        As for the loaders.

    Examples
    --------
    >>> path = data_path("mnist/train-images-idx3-ubyte.gz")  # doctest: +SKIP
    >>> gzip.open(path).read(4)  # doctest: +SKIP
    b'\\x00\\x00\\x08\\x03'

    Lesson 01 (the IDX file format).
    """
    if not isinstance(name, str) or name not in _URLS:
        raise ValueError(f"name must be one of {sorted(_URLS)}, got {name!r}.")
    return _fetch(name)


# --------------------------------------------------------------------------- #
# Loaders
# --------------------------------------------------------------------------- #

def load_banknote():
    """The UCI banknote authentication data: 1372 banknotes, 4 wavelet features.

    Columns of ``X``: variance, skewness, curtosis and entropy of the
    wavelet-transformed image of a banknote; ``y`` is 1 for a forgery (610 notes)
    and 0 for a genuine note (762). Source: V. Lohweg and H. Dörksen, UCI Machine
    Learning Repository (2012), CC BY 4.0, doi:10.24432/C55P57.

    Returns
    -------
    X : ndarray of shape (1372, 4), dtype float64
    y : ndarray of shape (1372,), dtype int64
        Labels in {0, 1}; map to {-1, +1} with ``2 * y - 1``.

    Raises
    ------
    DataNotFoundError
        The file is not available and cannot be downloaded.
    DataIntegrityError
        The file found or downloaded does not hold the expected values.

    Examples
    --------
    >>> X, y = load_banknote()  # doctest: +SKIP
    >>> X.shape, np.bincount(y)  # doctest: +SKIP
    ((1372, 4), array([762, 610]))

    Lesson 05 (banknote authentication).
    """
    arr = _parse_banknote(_fetch(_BANKNOTE))
    return arr[:, :4].copy(), arr[:, 4].astype(np.int64)


_IDX_IMAGES = 2051
_IDX_LABELS = 2049


def _read_idx(path, magic, count=None):
    """Read an IDX file (gzip) of unsigned bytes: images (magic 2051) or labels (2049).

    Reads the first ``count`` items (all when None) and checks the magic number,
    the dimensions and the amount of data.
    """
    name = Path(path).name
    ndim = 3 if magic == _IDX_IMAGES else 1
    what = "images" if ndim == 3 else "labels"
    try:
        with gzip.open(path, "rb") as f:
            header = f.read(4 + 4 * ndim)
            if len(header) < 4 + 4 * ndim:
                raise DataIntegrityError(
                    f"{name}: truncated IDX header ({len(header)} bytes, "
                    f"expected {4 + 4 * ndim}). Delete the file and download it again.")
            got_magic, *dims = struct.unpack(f">{1 + ndim}I", header)
            if got_magic != magic:
                raise DataIntegrityError(
                    f"{name}: not an IDX {what} file: magic number {got_magic}, expected {magic}. "
                    "Delete the file and download it again.")
            if ndim == 3 and tuple(dims[1:]) != (28, 28):
                raise DataIntegrityError(
                    f"{name}: images of {dims[1]}x{dims[2]} pixels, expected 28x28.")
            n_items = dims[0] if count is None else count
            if n_items > dims[0]:
                raise ValueError(f"n must be <= {dims[0]} (the {what} in {name}), got {n_items}.")
            n_bytes = n_items * (784 if ndim == 3 else 1)
            data = f.read(n_bytes)
            if len(data) < n_bytes:
                raise DataIntegrityError(
                    f"{name}: truncated: {len(data)} bytes of {what} data, expected {n_bytes} "
                    f"({n_items} {what}). Delete the file and download it again.")
            if count is None and f.read(1):
                raise DataIntegrityError(
                    f"{name}: more data than the header's {dims[0]} {what}. "
                    "Delete the file and download it again.")
    except (OSError, EOFError, zlib.error) as exc:  # gzip.BadGzipFile is an OSError
        raise DataIntegrityError(
            f"{name}: corrupt gzip data ({exc}). Delete the file and download it again."
        ) from None
    arr = np.frombuffer(bytearray(data), dtype=np.uint8)
    if ndim == 3:
        return arr.reshape(n_items, 28, 28)
    if arr.size and arr.max() > 9:
        raise DataIntegrityError(f"{name}: label {int(arr.max())} outside 0..9.")
    return arr.astype(np.int64)


_MNIST_SPLITS = {"train": ("train", 60_000), "test": ("t10k", 10_000)}


def load_mnist(split, n=None):
    """MNIST handwritten digits: 28×28 grey-level images and their labels 0–9.

    The first ``n`` images of the training set (60 000 images) or the test set
    (10 000 images), in the original file order. Pixels are 0 (background) to
    255 (ink). Source: Y. LeCun, C. Cortes and C. Burges, CC BY-SA 3.0.

    Parameters
    ----------
    split : {"train", "test"}
        Which file pair to read.
    n : int, default=None
        Number of images to return, 1 <= n <= 60 000 (train) or 10 000 (test);
        ``None`` returns them all.

    Returns
    -------
    images : ndarray of shape (n, 28, 28), dtype uint8
    labels : ndarray of shape (n,), dtype int64

    Raises
    ------
    DataNotFoundError
        The files are not available and cannot be downloaded.
    DataIntegrityError
        A file does not match its published sha256, or is not a valid IDX file.

    Examples
    --------
    >>> images, labels = load_mnist("train", n=100)  # doctest: +SKIP
    >>> images.shape, images.dtype, int(labels[0])  # doctest: +SKIP
    ((100, 28, 28), dtype('uint8'), 5)

    Lesson 01 (matching detector), 06 and 07.
    """
    if not isinstance(split, str) or split not in _MNIST_SPLITS:
        raise ValueError(f"split must be 'train' or 'test', got {split!r}.")
    prefix, available = _MNIST_SPLITS[split]
    if n is not None:
        n = check_int(n, "n", minimum=1)
        if n > available:
            raise ValueError(f"n must be <= {available} for split={split!r}, got {n}.")
    images = _read_idx(_fetch(f"mnist/{prefix}-images-idx3-ubyte.gz"), _IDX_IMAGES, n)
    labels = _read_idx(_fetch(f"mnist/{prefix}-labels-idx1-ubyte.gz"), _IDX_LABELS, n)
    if len(images) != len(labels):
        raise DataIntegrityError(
            f"MNIST {split}: {len(images)} images but {len(labels)} labels.")
    return images, labels


def deskew(images):
    """Remove the slant of handwritten digits with a shear computed from image moments.

    With the ink's centre of mass (r̄, c̄) and second moments var(r) and cov(r, c) of
    each image (pixel values as weights), the slant is s = cov(r, c) / var(r) columns
    per row. The output pixel (r, c) reads the input at row r + r̄ − r_mid and column
    c + c̄ − c_mid + s (r − r_mid), with bilinear interpolation (zero outside the
    image): the ink gets no slant and its centre of mass moves to the middle
    (r_mid, c_mid) of the frame. An image without ink is returned unchanged.

    Parameters
    ----------
    images : array-like of shape (n, height, width) or (height, width)
        Grey levels, ink > 0 (e.g. MNIST's uint8 pixels).

    Returns
    -------
    ndarray of float64, same shape as ``images``

    Examples
    --------
    >>> img = np.zeros((9, 9)); img[range(1, 8), range(1, 8)] = 1.0  # a stroke at 45°
    >>> np.round(deskew(img)[:, 4], 2)  # upright: all its ink in the middle column
    array([0., 1., 1., 1., 1., 1., 1., 1., 0.])

    Lesson 07 (MNIST); the moment-based deskewing of LeCun et al. (1998).
    """
    X = np.asarray(images, dtype=np.float64)
    single = X.ndim == 2
    X = X[None] if single else X
    if X.ndim != 3 or 0 in X.shape:
        raise ValueError(f"images must have shape (n, height, width) or (height, width), got {np.shape(images)}.")
    if not np.all(np.isfinite(X)):
        raise ValueError("images contain NaN or infinite values.")
    _, H, W = X.shape
    r, c = np.arange(H, dtype=np.float64), np.arange(W, dtype=np.float64)
    total = X.sum((1, 2))
    ink = total > 0
    total = np.where(ink, total, 1.0)
    r0, c0 = X.sum(2) @ r / total, X.sum(1) @ c / total
    dr, dc = r[None, :, None] - r0[:, None, None], c[None, None, :] - c0[:, None, None]
    var_r, cov = (dr * dr * X).sum((1, 2)), (dr * dc * X).sum((1, 2))
    slant = np.where(var_r > 0, cov / np.where(var_r > 0, var_r, 1.0), 0.0)
    mid_r, mid_c = (H - 1) / 2, (W - 1) / 2
    rows = _shift_last(X.transpose(0, 2, 1), (r0 - mid_r)[:, None, None]).transpose(0, 2, 1)
    out = _shift_last(rows, (c0 - mid_c)[:, None, None] + slant[:, None, None] * (r - mid_r)[None, :, None])
    out[~ink] = X[~ink]
    return out[0] if single else out


def _shift_last(A, shift):
    """out[..., j] = A[..., j + shift] along the last axis, linear interpolation, 0 outside."""
    W = A.shape[-1]
    pos = np.arange(W) + shift
    lo = np.floor(pos)
    f = pos - lo
    lo = lo.astype(np.int64)
    P = np.pad(A, [(0, 0)] * (A.ndim - 1) + [(1, 1)])  # P[..., k + 1] = A[..., k]
    left = np.take_along_axis(P, np.clip(lo + 1, 0, W + 1), -1)
    right = np.take_along_axis(P, np.clip(lo + 2, 0, W + 1), -1)
    return (1.0 - f) * left + f * right


def _read_utf8(path):
    with open(path, encoding="utf-8-sig", newline=None) as f:
        return f.read()


_PG_START = re.compile(r"^\*{3}\s*START OF (?:THE|THIS) PROJECT GUTENBERG EBOOK[^\n]*$",
                       re.IGNORECASE | re.MULTILINE)
_PG_END = re.compile(r"^(?:\*{3}\s*END OF (?:THE|THIS) PROJECT GUTENBERG EBOOK[^\n]*"
                     r"|End of (?:the )?Project Gutenberg'?s? .*)$",
                     re.IGNORECASE | re.MULTILINE)


def _strip_gutenberg(text):
    """Text between Project Gutenberg's START and END markers (all of it when absent)."""
    start = _PG_START.search(text)
    if start:
        text = text[start.end():]
    end = _PG_END.search(text)
    if end:
        text = text[:end.start()]
    return text.strip()


def load_text(name):
    """A public-domain novel from Project Gutenberg, without PG's header and footer.

    ``"moby_dick"`` is Herman Melville's *Moby-Dick; or, The Whale* (eBook #2701),
    ``"pride_and_prejudice"`` Jane Austen's *Pride and Prejudice* (eBook #1342, the
    1894 George Allen illustrated edition). Everything outside the
    ``*** START/END OF THE PROJECT GUTENBERG EBOOK ***`` markers (licence included)
    is removed; line endings become ``\\n``.

    Parameters
    ----------
    name : {"moby_dick", "pride_and_prejudice"}

    Returns
    -------
    text : str
        The book from its title page to its last line.

    Raises
    ------
    DataNotFoundError
        The file is not available and cannot be downloaded.
    DataIntegrityError
        The file does not look like the expected book.

    Examples
    --------
    >>> text = load_text("moby_dick")  # doctest: +SKIP
    >>> "Call me Ishmael." in text  # doctest: +SKIP
    True

    Lesson 01 (string kernels).
    """
    if not isinstance(name, str) or name not in _TEXTS:
        raise ValueError(f"name must be one of {sorted(_TEXTS)}, got {name!r}.")
    return _strip_gutenberg(_read_utf8(_fetch(_TEXTS[name][0])))


# --------------------------------------------------------------------------- #
# Text helpers
# --------------------------------------------------------------------------- #

_ABBREVIATIONS = frozenset({
    "mr", "mrs", "ms", "dr", "st", "jr", "sr", "prof", "capt", "col", "gen", "lieut",
    "rev", "messrs", "mme", "mlle", "vs", "etc", "e.g", "i.e", "viz", "cf", "no",
    "vol", "ch", "p", "pp", "a.m", "p.m", "jan", "feb", "mar", "apr", "jun", "jul",
    "aug", "sep", "sept", "oct", "nov", "dec", "u.s", "d.c",
})


def _nltk_search_path():
    """Folders for NLTK data: ``NLTK_DATA`` read now, then NLTK's own list."""
    import nltk.data

    env = [p for p in os.environ.get("NLTK_DATA", "").split(os.pathsep) if p]
    return env + [p for p in nltk.data.path if p not in env]


_PUNKT_CACHE = {}


def _punkt_from(lang_dir):
    """Punkt tokenizer with the punkt_tab parameters in ``lang_dir`` (an NLTK PathPointer)."""
    key = repr(lang_dir)
    if key not in _PUNKT_CACHE:
        from nltk.tokenize.punkt import PunktSentenceTokenizer, load_punkt_params

        _PUNKT_CACHE[key] = PunktSentenceTokenizer(load_punkt_params(lang_dir))
    return _PUNKT_CACHE[key]


@functools.lru_cache(maxsize=1)
def _fallback_punkt():
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

    params = PunktParameters()
    params.abbrev_types = set(_ABBREVIATIONS)
    return PunktSentenceTokenizer(params)


_SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*\s+(?=[\"'“‘(\[]*[A-Z0-9])")


def _regex_sentences(text):
    """Split after . ! ? (and closing quotes) before a capital, except after an abbreviation."""
    pieces, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        last_word = text[start:m.start() + 1].split()[-1:] or [""]
        if last_word[0].lower().lstrip("\"'“‘([").rstrip(".") in _ABBREVIATIONS:
            continue
        pieces.append(text[start:m.end()])
        start = m.end()
    pieces.append(text[start:])
    return pieces


def _sentence_splitter():
    """(split function, None) with punkt_tab; (fallback, reason) without it."""
    try:
        import nltk.data
    except ImportError:
        return _regex_sentences, "NLTK is not installed"
    try:
        lang_dir = nltk.data.find("tokenizers/punkt_tab/english/", paths=_nltk_search_path())
    except LookupError:
        return _fallback_punkt().tokenize, "NLTK's punkt_tab model was not found"
    return _punkt_from(lang_dir).tokenize, None


def sentences(text):
    """Split a text into sentences with NLTK's Punkt model (``punkt_tab``, English).

    This is ``nltk.sent_tokenize(text)``, except that ``NLTK_DATA`` is read at each
    call (not only when NLTK is imported) and that runs of whitespace inside a
    sentence become one space. Without the ``punkt_tab`` data an
    :class:`NLTKDataWarning` says how to get it and an untrained Punkt splitter with
    a list of common abbreviations (Mr., Dr., St., ...) is used instead; it agrees
    with the model on ordinary prose.

    Parameters
    ----------
    text : str

    Returns
    -------
    sentences : list of str
        Non-empty sentences in order.

    Examples
    --------
    >>> sentences("Mr. Smith arrived.  He   sat down.")
    ['Mr. Smith arrived.', 'He sat down.']

    Lesson 01 (string kernels).
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}.")
    split, reason = _sentence_splitter()
    if reason is not None:
        warnings.warn(
            f"{reason}; sentences() falls back to a simpler splitter (results may differ "
            "slightly). To get punkt_tab, point NLTK_DATA at a folder holding "
            "tokenizers/punkt_tab (for the course: NLTK_DATA=../shared/data/nltk_data) "
            "or run `import nltk; nltk.download('punkt_tab')` once with internet access.",
            NLTKDataWarning, stacklevel=2)
    out = (" ".join(s.split()) for s in split(text))
    return [s for s in out if s]


_WORD = re.compile(r"[^\W\d_]+")


def words(sentence, min_length=1):
    """Lower-cased alphabetic words of a sentence: maximal runs of letters.

    Digits, punctuation and apostrophes separate words (``"whale's"`` gives
    ``"whale"`` and ``"s"``); letters with accents count as letters.

    Parameters
    ----------
    sentence : str
    min_length : int, default=1
        Keep only words of at least this many letters (the lessons use 5).

    Returns
    -------
    words : list of str

    Examples
    --------
    >>> words("Call me Ishmael. Some years ago--never mind how long")
    ['call', 'me', 'ishmael', 'some', 'years', 'ago', 'never', 'mind', 'how', 'long']
    >>> words("Call me Ishmael. Some years ago--never mind how long", min_length=5)
    ['ishmael', 'years', 'never']

    Lesson 01 (string kernels).
    """
    if not isinstance(sentence, str):
        raise TypeError(f"sentence must be a str, got {type(sentence).__name__}.")
    min_length = check_int(min_length, "min_length", minimum=1)
    return [w for w in _WORD.findall(sentence.lower()) if len(w) >= min_length]


_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
_HEADING = re.compile(
    r"^[ \t]*(?:(?:CHAPTER|Chapter)[ \t]+(?P<num>\d+|[IVXLCDM]+)\b[^\n]*|(?P<epi>Epilogue|EPILOGUE))"
    r"[ \t]*$",
    re.MULTILINE)
_ILLUSTRATION = re.compile(r"\[Illustration(?:[^\[\]]|\[[^\[\]]*\])*\]")


def _roman_to_int(s):
    total = 0
    for a, b in zip(s, s[1:] + " ", strict=True):
        v = _ROMAN[a]
        total += -v if b != " " and _ROMAN[b] > v else v
    return total


_IMPRINT = re.compile(r"^\s*CHISWICK PRESS:", re.M)


def chapters(text):
    """Split a novel into its chapters (and Moby-Dick's Epilogue).

    A chapter starts at a line ``CHAPTER 12. ...`` / ``Chapter XII.`` (arabic or
    roman number, any case of ``CHAPTER``/``Chapter``) or ``Epilogue`` and runs to
    the next one. When a heading appears twice (once in a table of contents), the
    later one counts. Front matter before the first chapter is dropped; the heading
    line itself and ``[Illustration: ...]`` captions are removed from each chapter.

    Parameters
    ----------
    text : str
        A book, e.g. from :func:`load_text` (PG's header and footer are removed
        here too if still present).

    Returns
    -------
    chapters : list of str
        One text per chapter, in order: 136 for Moby-Dick (chapters 1–135 and the
        Epilogue, last), 61 for Pride and Prejudice.

    Examples
    --------
    >>> book = "Title\\n\\nCHAPTER 1. Start.\\n\\nOne.\\n\\nCHAPTER 2. End.\\n\\nTwo."
    >>> chapters(book)
    ['One.', 'Two.']

    Lesson 01 (string kernels: train on the first chapters, test on the last).
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}.")
    text = _strip_gutenberg(text.replace("\r\n", "\n"))
    last = {}
    for m in _HEADING.finditer(text):
        num = m.group("num")
        key = "epilogue" if m.group("epi") else int(num) if num.isdigit() else _roman_to_int(num)
        last[key] = m
    heads = sorted(last.values(), key=lambda m: m.start())
    bounds = [m.end() for m in heads]
    ends = [m.start() for m in heads[1:]] + [len(text)]
    out = []
    for start, end in zip(bounds, ends, strict=True):
        body = _ILLUSTRATION.sub("", text[start:end])
        body = _IMPRINT.split(body)[0]  # the 1894 edition's printer's colophon is not the novel
        out.append(re.sub(r"\n{3,}", "\n\n", body).strip())
    return out
