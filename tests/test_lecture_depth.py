"""Each depth item of the course has a worked section with a numeric check, and its lecture points to it.

A depth item lives in the appendix of its lesson (``notebooks/NN-slug-appendix.ipynb``, so the lecture
stays short), or in the lecture where it is short and central (Novikoff's proof in lesson 02). For
each one: the notebook has a code cell with the item's tag that was executed and printed something,
the printed check holds (``: True`` where the cell prints one; for the mistake bound, measured
mistakes at most the bound), a markdown cell quotes the output with an ``out:`` tag (which
``test_lecture_numbers`` then compares), and the lecture names the appendix file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "notebooks"

# item: (appendix, lecture, tags of its check cells, the tag a prose span quotes)
DEPTH = {
    "Novikoff's proof": ("02-perceptron-by-hand", "02-perceptron-by-hand", ["novikoff-proof"], "novikoff-proof"),
    "representer theorem": ("03-dual-form-appendix", "03-dual-form",
                            ["representer-linear", "representer-poly", "representer-perp"], "representer-perp"),
    "kernel mistake bound": ("04-kernel-trick-appendix", "04-kernel-trick",
                             ["bound-quiz", "bound-circles", "bound-scale"], "bound-quiz"),
    "multi-class perceptron": ("07-mnist-gpu-appendix", "07-mnist-gpu",
                               ["kesler-same", "multiclass-digits"], "multiclass-digits"),
    "SVM dual and KKT": ("08-margins-and-svm-appendix", "08-margins-and-svm",
                         ["dual-derivation", "kkt", "duality-gap", "svm-vs-perceptron"], "duality-gap"),
    "budget kernel perceptrons": ("08-margins-and-svm-appendix", "08-margins-and-svm", ["budget"], "budget"),
}


def _load(stem):
    return json.loads((ROOT / f"{stem}.ipynb").read_text(encoding="utf-8"))


def _text(source):
    return "".join(source) if isinstance(source, list) else source


def _printed(cell):
    return "".join(_text(o.get("text", "")) for o in cell.get("outputs", []) if o.get("output_type") == "stream")


def _tagged(nb, tag):
    return [c for c in nb["cells"] if c["cell_type"] == "code" and tag in c.get("metadata", {}).get("tags", [])]


@pytest.mark.parametrize("item", DEPTH)
def test_depth_item_has_an_executed_numeric_check(item):
    appendix, _, tags, _ = DEPTH[item]
    nb = _load(appendix)
    for tag in tags:
        cells = _tagged(nb, tag)
        assert len(cells) == 1, f"{appendix}: expected one code cell tagged {tag!r}, found {len(cells)}"
        printed = _printed(cells[0])
        assert printed.strip(), f"{appendix}: the cell tagged {tag!r} printed nothing (not executed?)"
        # every printed check reads "...: True"; a run that did not converge is a finding, not a check
        assert not re.search(r"(?<!converged): False", printed), f"{appendix}: a check of {tag!r} failed:\n{printed}"


@pytest.mark.parametrize("item", DEPTH)
def test_depth_item_is_quoted_in_prose_and_pointed_to_by_its_lecture(item):
    appendix, lecture, _, quoted = DEPTH[item]
    markdown = " ".join(_text(c["source"]) for c in _load(appendix)["cells"] if c["cell_type"] == "markdown")
    assert f'title="out:{quoted}"' in markdown, f"{appendix}: no prose number quotes the cell {quoted!r}"
    if appendix == lecture:  # worked in the lecture itself
        return
    lecture_md = " ".join(_text(c["source"]) for c in _load(lecture)["cells"] if c["cell_type"] == "markdown")
    assert f"{appendix}.ipynb" in lecture_md, f"{lecture}.ipynb does not point to {appendix}.ipynb"


def test_measured_mistakes_stay_below_the_kernel_bound():
    nb = _load("04-kernel-trick-appendix")
    quiz = _printed(_tagged(nb, "bound-quiz")[0])
    bound = float(re.search(r"bound R²/γ² = (\d+)", quiz).group(1))
    most = max(int(n) for n in re.search(r"orders: (\d+) to (\d+)", quiz).groups())
    assert most <= bound
    for tag in ("bound-circles", "bound-scale"):
        rows = [line.split() for line in _printed(_tagged(nb, tag)[0]).splitlines()[1:] if line.strip()]
        assert rows, tag
        for row in rows:
            assert int(row[-1]) <= float(row[-2]), f"{tag}: {' '.join(row)}: mistakes above the bound"
