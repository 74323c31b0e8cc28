"""Where each data file comes from and how it is checked: the folder ``KPCOURSE_DATA``,
then the cache, then a download from its canonical source; every file is checked after
every download and every time it is read.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import re
import sys
import tempfile
import urllib.request
from pathlib import Path

import numpy as np


class DataNotFoundError(FileNotFoundError):
    """A data file is neither in ``KPCOURSE_DATA`` nor in the cache, and cannot be downloaded."""


class DataIntegrityError(ValueError):
    """A data file (read or downloaded) does not have the expected content."""


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

#: Tables that scikit-learn installs (``sklearn/datasets/data``), used by no lecture: the capstone's.
#: name: (file, number of features, sha256 of the parsed values: features then labels, little-endian).
_TABLES = {
    "wine": ("tables/wine_data.csv", 13, "3a28849ef2366c4b9d4e382b3fa5624a66f693c04d7fdcf43c529bbb0bb338d7"),
    "breast_cancer": ("tables/breast_cancer.csv", 30,
                      "25e2eb7b7a8745b1bde5ba18bc4969983d2e2f403291ecd5bde4a29ef30c3859"),
}
_SKLEARN_DATA = "https://raw.githubusercontent.com/scikit-learn/scikit-learn/1.5.2/sklearn/datasets/data/"

#: Download sources, tried in order, for each file (relative to the data folder). A table is
#: first copied from the scikit-learn installed beside the course (:func:`_sources`), offline.
_URLS = {
    **{f"mnist/{f}": tuple(m + f for m in _MNIST_MIRRORS) for f in _MNIST_FILES},
    _BANKNOTE: ("https://archive.ics.uci.edu/ml/machine-learning-databases/00267/"
                "data_banknote_authentication.txt",),
    **{file: (f"https://www.gutenberg.org/cache/epub/{num}/pg{num}.txt",)
       for file, num, _, _ in _TEXTS.values()},
    **{file: (_SKLEARN_DATA + file.split("/")[1],) for file, _, _ in _TABLES.values()},
}


def _installed_copy(rel):
    """``file://`` address of scikit-learn's own copy of table ``rel`` (found without importing
    scikit-learn), or None."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("sklearn")
    except (ImportError, ValueError):
        return None
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / "datasets" / "data" / rel.split("/")[1]
        if path.is_file():
            return path.resolve().as_uri()
    return None


def _sources(rel):
    """Where ``rel`` can be fetched from, in order: for a table, the installed copy first."""
    local = _installed_copy(rel) if rel.startswith("tables/") else None
    return ((local,) if local else ()) + _URLS[rel]

_TIMEOUT_S = 60


def _cache_dir():
    """``$KPCOURSE_CACHE``, else ``$XDG_CACHE_HOME/kpcourse`` (default ``~/.cache/kpcourse``), read at each call."""
    if os.environ.get("KPCOURSE_CACHE"):  # a grading sandbox: the grader's cache, mounted read-only
        return Path(os.environ["KPCOURSE_CACHE"])
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


def parse_table(path):
    """``(X, y, names)`` of a table in scikit-learn's layout: a header ``n, d, name_0, name_1, ...``,
    then n rows of d numbers and a class number."""
    with open(path, encoding="utf-8", errors="strict") as f:
        lines = [line.strip() for line in f if line.strip()]
    try:
        head = lines[0].split(",")
        n, d, names = int(head[0]), int(head[1]), [h.strip() for h in head[2:]]
        rows = np.array([[float(v) for v in line.split(",")] for line in lines[1:]], dtype=np.float64)
    except (IndexError, ValueError) as exc:
        raise DataIntegrityError(f"not a header and rows of comma-separated numbers ({exc})") from None
    if rows.shape != (n, d + 1):
        raise DataIntegrityError(f"the header says {n} rows of {d} features and a class, the file holds "
                                 f"{rows.shape}")
    return rows[:, :d].copy(), rows[:, d].astype(np.int64), names


def _check_file(rel, path):
    """Return None if ``path`` holds the expected content for ``rel``, else (expected, got)."""
    for file, d, digest in _TABLES.values():
        if rel == file:
            try:
                X, y, _ = parse_table(path)
            except (DataIntegrityError, UnicodeDecodeError) as exc:
                return (f"a table of {d} features", str(exc))
            got = hashlib.sha256(X.astype("<f8").tobytes() + y.astype("<i8").tobytes()).hexdigest()
            return None if got == digest else (f"sha256 of the values {digest}", f"sha256 {got}")
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
    urls = _sources(rel)
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
        verb = "copying" if url.startswith("file:") else "downloading"
        print(f"kpcourse: {verb} {rel} from {url} into {folder}", file=sys.stderr)
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
