"""The two novels (Project Gutenberg) and the text helpers: sentences, words, chapters.
"""

from __future__ import annotations

import functools
import os
import re
import warnings

from .._validation import check_int
from ._files import _TEXTS, _fetch, _read_utf8, _strip_gutenberg


class NLTKDataWarning(UserWarning):
    """NLTK's ``punkt_tab`` model is missing; a simpler sentence splitter is used."""


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
