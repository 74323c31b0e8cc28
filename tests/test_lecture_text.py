"""A lecture's text is short enough to read in one sitting, and speaks to the student only.

For every ``notebooks/*.ipynb`` (the start page, the lectures and their appendices):

* **Word limit** (not for ``*-appendix.ipynb``, which hold a lesson's optional depth): the
  markdown cells hold at most ``MAX_WORDS`` words. A word is counted like this: from each
  markdown cell's source remove fenced code blocks, inline code spans, LaTeX (``$...$`` and
  ``$$...$$``) and HTML tags (so the hidden number tags in ``<span title="...">`` do not count,
  the text between the tags does), unescape HTML entities, split on white space, and count the
  tokens that hold at least one letter or digit (a lone ``—`` or ``|`` is no word). At about
  150 words a minute, the limit is under half an hour of reading.
* **No maintainer talk**: none of ``MAINTAINER_WORDS`` appears in what a student reads of the
  start page, the lectures, their appendices and the released assignments (``release/``): the
  markdown, but for the title attribute of a ``<span title="...">`` tag (where ``results:`` and
  ``fact:`` tags name their sources) and a link's target (a link to the course's benchmark
  results is what a student should get); and the code cells, comments included. Fenced and
  inline code count: a student reads them too.

The test is parametrized by notebook, so each lesson fails on its own; the counting and the
search are unit-tested below on synthetic text.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
#: What a student reads: the start page, lectures and appendices, and the released assignments.
STUDENT_NOTEBOOKS = [*NOTEBOOKS, *sorted((ROOT / "release").glob("*/*.ipynb"))]
MAX_WORDS = 4000
MAINTAINER_WORDS = {
    "nbval": re.compile(r"nbval", re.I),
    "RESULTS.md": re.compile(r"RESULTS\.md", re.I),
    "pytest": re.compile(r"pytest", re.I),
    "tests/": re.compile(r"(?<![\w-])tests/", re.I),
    ".ci": re.compile(r"(?<![\w])\.ci\b", re.I),
    "CI": re.compile(r"\bCI\b"),
    "make test": re.compile(r"make\s+test", re.I),
    "this project": re.compile(r"this\s+project", re.I),
    "benchmark notes": re.compile(r"benchmark\s+notes", re.I),
    "shared/": re.compile(r"(?<![\w-])shared/", re.I),
    "results:": re.compile(r"\bresults:", re.I),
}

FENCED = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.S | re.M)
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
DISPLAY_MATH = re.compile(r"\$\$.+?\$\$", re.S)
INLINE_MATH = re.compile(r"(?<!\\)\$(?:\\.|[^$\\])+?\$", re.S)
HTML_TAG = re.compile(r"<[^>]*>")
SPAN_TITLE = re.compile(r'(<span\s+title=)"[^"]*"', re.I)
LINK_TARGET = re.compile(r"(\]\()[^)\s]*(\))")


def _text(source):
    return "".join(source) if isinstance(source, list) else source


def _markdown(nb):
    """(cell index, source) of every markdown cell."""
    return [(i, _text(c["source"])) for i, c in enumerate(nb["cells"]) if c["cell_type"] == "markdown"]


def count_words(markdown):
    """Words of one markdown text, counted as the module docstring says."""
    text = FENCED.sub(" ", markdown)
    text = INLINE_CODE.sub(" ", text)
    text = DISPLAY_MATH.sub(" ", text)
    text = INLINE_MATH.sub(" ", text)
    text = html.unescape(HTML_TAG.sub(" ", text))
    return sum(1 for token in text.split() if re.search(r"\w", token))


def maintainer_words(text, markdown=True):
    """The maintainer words found in a text: in markdown, outside span title attributes and link targets;
    a title that names a folder of the course's maintainers (``shared/``) is reported too (a student hovers)."""
    visible = LINK_TARGET.sub(r"\1\2", SPAN_TITLE.sub(r'\1""', text)) if markdown else text
    found = [word for word, pattern in MAINTAINER_WORDS.items() if pattern.search(visible)]
    titles = " ".join(m.group(0) for m in SPAN_TITLE.finditer(text)) if markdown else ""
    return found + (["shared/ in a title"] if MAINTAINER_WORDS["shared/"].search(titles) else [])


def _load(path):
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if not p.stem.endswith("-appendix")],
                         ids=lambda p: p.stem)
def test_lecture_text_is_at_most_the_word_limit(path):
    words = sum(count_words(source) for _, source in _markdown(_load(path)))
    assert words <= MAX_WORDS, (f"{path.name}: {words} words of markdown, more than {MAX_WORDS}; "
                                f"move optional depth into notebooks/{path.stem}-appendix.ipynb")


@pytest.mark.parametrize("path", STUDENT_NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_maintainer_words_in_what_a_student_reads(path):
    cells = _load(path)["cells"]
    found = [f"cell {i}: {word!r}" for i, c in enumerate(cells) if c["cell_type"] in ("markdown", "code")
             for word in maintainer_words(_text(c["source"]), markdown=c["cell_type"] == "markdown")]
    assert not found, f"{path.relative_to(ROOT)} speaks to maintainers:\n" + "\n".join(found)


NBVAL_COMMENT = re.compile(r"^\s*#\s*NBVAL_", re.I | re.M)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_test_directives_are_cell_tags_not_comments(path):
    """A student reads the code cells too: nbval's directives go in the cell's tags
    (``nbval-ignore-output``), never in a ``# NBVAL_...`` comment."""
    cells = _load(path)["cells"]
    found = [i for i, c in enumerate(cells) if c["cell_type"] == "code" and NBVAL_COMMENT.search(_text(c["source"]))]
    assert not found, f"{path.name}: cells {found} hold an nbval comment; tag them nbval-ignore-output instead"
    tagged = [i for i, c in enumerate(cells) if "nbval-ignore-output" in c.get("metadata", {}).get("tags", [])]
    assert all(cells[i]["cell_type"] == "code" for i in tagged)


#: The parts every lecture has, in the words a student sees (markdown) or runs (code).
SKELETON = {
    "objectives": ("markdown", re.compile(r"objective|you will|learning goals", re.I)),
    "a widget": ("code", re.compile(r"widgets|interact")),
    "figures": ("code", re.compile(r"plt\.|plotting\.")),
    "questions with collapsed answers": ("markdown", re.compile(r"<details")),
    "optional extensions": ("markdown", re.compile(r"extension", re.I)),
    "further reading": ("markdown", re.compile(r"further reading", re.I)),
    "a summary": ("markdown", re.compile(r"^#{1,3} Summary", re.M)),
    "a self-check": ("code", re.compile(r"self_check\(")),
}


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if p.stem[:2] != "00" and not p.stem.endswith("-appendix")],
                         ids=lambda p: p.stem)
def test_every_lecture_has_the_same_skeleton(path):
    nb = _load(path)
    text = {kind: "\n".join(_text(c["source"]) for c in nb["cells"] if c["cell_type"] == kind)
            for kind in ("markdown", "code")}
    missing = [part for part, (kind, pattern) in SKELETON.items() if not pattern.search(text[kind])]
    assert not missing, f"{path.name} lacks {', '.join(missing)} (README, lesson table: the lecture skeleton)"


def test_there_are_notebooks_to_check():
    assert any(p.stem.startswith("00-") for p in NOTEBOOKS), "no start page notebooks/00-*.ipynb"
    assert len(NOTEBOOKS) >= 9


# --------------------------------------------------------------------------- #
# The counting and the search, on synthetic text
# --------------------------------------------------------------------------- #

def test_count_words_leaves_out_code_latex_tags_and_punctuation():
    md = ("## A title — here\n\nThe kernel $k(x, z) = x \\cdot z$ is `kernels.linear`; it took "
          '<span title="out:timing">3.37 s</span> &amp; more.\n\n$$K_{ij} = k(x_i, x_j)$$\n\n'
          "```python\nprint('many words in a fenced block')\n```\n| a | b |\n")
    # "A title here" / "The kernel is it took" / "3.37 s" / "more." / "a b"
    assert count_words(md) == 3 + 5 + 2 + 1 + 2


def test_maintainer_words_are_found_outside_span_titles_only():
    assert maintainer_words('<span title="results:3. Against SVC">45×</span> faster') == []
    assert maintainer_words('<span title="fact:pytest tests/ nbval">1 %</span>') == []
    assert maintainer_words('<span title="fact:an article (shared/sources/01)">1 %</span>') == ["shared/ in a title"]
    md = ("Run `pytest tests/test_gram.py` (or make test), compare with RESULTS.md, nbval, "
          "see .ci/run and the CI log; this project's benchmark notes (../shared/sources, results:1).")
    assert maintainer_words(md) == list(MAINTAINER_WORDS)
    assert maintainer_words("the [benchmark results](../benchmarks/RESULTS.md), section 4") == []
    assert maintainer_words("# see RESULTS.md, section 4", markdown=False) == ["RESULTS.md"]
    assert maintainer_words("a specific CIFAR run, the Cinema, ci") == []
    assert maintainer_words("the visible and hidden tests, e.g. citation, make tests") == \
        ["make test"]
