"""Every source a notebook leans on is cited in it, where a student can read and look it up.

A lecture, appendix or the start page that quotes a figure from a source (a ``fact:`` hover, see
``test_lecture_numbers.py``) or talks about it ("the slides", "the banknote article", "the lecture
notes") cites it in its own text: authors, title, year, and where to find it. Hover text does not
count; a student never sees it unless they point at a number. ``SOURCES`` is the course's list of
the sources it was designed from, with what a citation must name; a ``fact:`` from a source not in it
fails, so that a new source is added here with its citation.
"""

from __future__ import annotations

import json
import re

import pytest
from test_lecture_numbers import NOTEBOOKS, SPAN  # the notebooks, and the grammar of a number's hover

#: name -> (how a notebook mentions it, or names it in a fact hover; what its citation must contain)
SOURCES = {
    "CS 461 slides": (r"CS 461|\b(?:the|lecture's|lecture) slides\b|\bslides'|\bThe slides\b",
                      ["B. Firner", "The Kernel Trick", "CS 461", "2025"]),
    "banknote article": (r"banknote article", ["P. Shankar", "prashanthshankar.com/Posts/03_kernel_perceptron.html"]),
    "lecture notes on kernel functions": (r"lecture notes on kernel functions|[Tt]he lecture notes\b",
                                          ["Kernel functions", "12 May 2020"]),
    "MSDN article": (r"MSDN", ["J. McCaffrey", "Kernel Perceptrons using C#", "April 2017"]),
    "UCI banknote data": (r"UCI banknote|Lohweg", ["V. Lohweg", "H. Dörksen", "doi:10.24432/C55P57"]),
    "MNIST": (r"MNIST page|LeCun et al\. 1998", ["LeCun", "Gradient-based learning applied to document recognition"]),
    "MNIST page": (r"MNIST page", ["The MNIST database of handwritten digits", "yann.lecun.com/exdb/mnist"]),
    "quiz": (r"Quiz_Perceptron|introAI_Quizzes", ["katowice/introAI_Quizzes", "Quiz_Perceptron.ipynb"]),
    "NVIDIA data sheets": (r"NVIDIA A100 and H100", ["NVIDIA", "A100 Tensor Core GPU", "H100 Tensor Core GPU"]),
}
#: fact hovers that name no outside source: another part of this course
OWN = re.compile(r"^assignment \d\d\b")


def _markdown(path):
    nb = json.loads(path.read_text())
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_source_a_notebook_uses_is_cited_in_it(path):
    text = re.sub(r"\s+", " ", _markdown(path))  # a citation may break across lines
    visible = SPAN.sub(r"\3", text)  # what a student reads without pointing at a number
    facts = [source for kind, source, _ in SPAN.findall(text) if kind == "fact"]
    unknown = [f for f in facts if not OWN.match(f) and not any(re.search(m, f) for m, _ in SOURCES.values())]
    assert not unknown, f"{path.name}: facts from sources not in SOURCES (add each, with its citation): {unknown}"
    missing = {}
    for name, (mention, citation) in SOURCES.items():
        if re.search(mention, visible) or any(re.search(mention, f) for f in facts):
            lacking = [part for part in citation if part not in visible]
            if lacking:
                missing[name] = lacking
    assert not missing, f"{path.name} uses these sources without citing them (the citation lacks): {missing}"


def test_the_check_finds_an_uncited_source(tmp_path):
    """The test above fails on a notebook that talks about the slides and cites nothing."""
    nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": "As the slides show, 2 + 2 = 4."}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "x.ipynb").write_text(json.dumps(nb))
    with pytest.raises(AssertionError, match="CS 461 slides"):
        test_every_source_a_notebook_uses_is_cited_in_it(tmp_path / "x.ipynb")
