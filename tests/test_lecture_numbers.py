"""Every number a lecture's prose quotes is backed by a cell, by RESULTS.md or by a source.

The convention (``notes/COMMON.md``): in a markdown cell of ``notebooks/*.ipynb`` a quoted
figure is wrapped in a span whose title says where it comes from.

``<span title="out:TAG">TEXT</span>``
    a code cell of the same notebook whose metadata ``tags`` list contains ``TAG`` must exist,
    and ``TEXT`` must appear in one of its text outputs (a ``stream`` output, or the
    ``text/plain`` of an ``execute_result`` / ``display_data``);
``<span title="results:SECTION">TEXT</span>``
    ``benchmarks/RESULTS.md`` must have a heading containing ``SECTION``, and ``TEXT`` must
    appear in that section (the lines up to the next heading of the same or a higher level);
``<span title="fact:SOURCE">TEXT</span>``
    a fixed fact: ``SOURCE`` (where it comes from) must not be empty.

TEXT is compared after HTML unescaping, with runs of white space collapsed to one space on both
sides. Besides the tagged spans, a *measurement-like* number outside any such span fails: a
number followed by ``%`` or ``×`` (optionally after one space; a ``×`` followed by a digit or
``(`` is a size such as ``28×28`` and does not count), or by `` s``, ``ms``, ``GB``, ``MB``,
``GiB``, ``MiB``. Fenced code, inline code and LaTeX (``$...$``, ``$$...$$``) are ignored;
text inside ``<details>`` answers counts like any other prose.

The test is parametrized by notebook, so each lesson fails on its own; the checker itself is
unit-tested below on synthetic notebooks (a planted mismatch must be reported).
"""

from __future__ import annotations

import copy
import html
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
RESULTS = ROOT / "benchmarks" / "RESULTS.md"

SPAN = re.compile(r'<span\s+title="(out|results|fact):([^"]*)"\s*>(.*?)</span>', re.S)
FENCED = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.S | re.M)
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
DISPLAY_MATH = re.compile(r"\$\$.+?\$\$", re.S)
INLINE_MATH = re.compile(r"(?<!\\)\$(?:\\.|[^$\\])+?\$", re.S)
HTML_TAG = re.compile(r"<[^>]*>")
NUMBER = r"(?<![\w.,])\d+(?:[.,]\d+)*"
MEASUREMENT = re.compile(
    NUMBER + r"(?:\s?%|\s?×(?!\s?[\d(])|\s?(?:ms|GB|MB|GiB|MiB)\b|\ss\b)"
)
HEADING = re.compile(r"^(#+)\s")


def _text(source):
    return "".join(source) if isinstance(source, list) else source


def _norm(text):
    return re.sub(r"\s+", " ", html.unescape(text)).strip()


def _text_outputs(cell):
    """The text a code cell printed or returned: stream text and ``text/plain`` data."""
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            yield _text(out.get("text", ""))
        elif "data" in out and "text/plain" in out["data"]:
            yield _text(out["data"]["text/plain"])


def _results_section(results_text, section):
    """The lines under the first heading that contains ``section``, or None."""
    lines = results_text.splitlines()
    for i, line in enumerate(lines):
        m = HEADING.match(line)
        if m and section in line:
            body = []
            for nxt in lines[i + 1:]:
                h = HEADING.match(nxt)
                if h and len(h.group(1)) <= len(m.group(1)):
                    break
                body.append(nxt)
            return "\n".join(body)
    return None


def _untagged(markdown):
    """Measurement-like numbers of a markdown text outside tags, code and LaTeX."""
    text = FENCED.sub(" ", markdown)
    text = INLINE_CODE.sub(" ", text)
    text = SPAN.sub(" ", text)
    text = DISPLAY_MATH.sub(" ", text)
    text = INLINE_MATH.sub(" ", text)
    text = HTML_TAG.sub(" ", text)
    return [m.group(0) for m in MEASUREMENT.finditer(html.unescape(text))]


def check_notebook(nb, results_text, name="notebook"):
    """All problems of one notebook (a dict in nbformat 4) as readable strings; [] if none."""
    problems = []
    tagged = {}
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            for tag in cell.get("metadata", {}).get("tags", []):
                tagged.setdefault(tag, []).append(cell)
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        source = _text(cell["source"])
        where = f"{name}, cell {index}"
        for kind, key, raw in SPAN.findall(FENCED.sub(" ", source)):
            text, key = _norm(raw), key.strip()
            span = f'<span title="{kind}:{key}">{raw}</span>'
            if not text:
                problems.append(f"{where}: empty span {span}")
            elif not key:
                problems.append(f"{where}: {span} names no {'source' if kind == 'fact' else kind}")
            elif kind == "out":
                cells = tagged.get(key)
                if not cells:
                    problems.append(f"{where}: {span}: no code cell has the tag {key!r}")
                elif not any(text in _norm(o) for c in cells for o in _text_outputs(c)):
                    printed = " | ".join(_norm(o)[:200] for c in cells for o in _text_outputs(c))
                    problems.append(f"{where}: {span}: {text!r} is not in the outputs of the cell "
                                    f"tagged {key!r} (they read: {printed or 'nothing'})")
            elif kind == "results":
                body = _results_section(results_text, key)
                if body is None:
                    problems.append(f"{where}: {span}: benchmarks/RESULTS.md has no heading "
                                    f"containing {key!r}")
                elif text not in _norm(body):
                    problems.append(f"{where}: {span}: {text!r} is not in the RESULTS.md section {key!r}")
        for number in _untagged(source):
            problems.append(f"{where}: untagged measurement {number!r}: wrap it in "
                            '<span title="out:TAG|results:SECTION|fact:SOURCE">…</span>')
    return problems


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_lecture_numbers_match_their_sources(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    results = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else ""
    problems = check_notebook(nb, results, name=path.name)
    assert not problems, f"{len(problems)} number(s) in {path.name}:\n" + "\n".join(problems)


# --------------------------------------------------------------------------- #
# The checker itself, on synthetic input
# --------------------------------------------------------------------------- #

def _nb(markdown, printed="time: 3.37 s, speed-up 109×\n", tags=("timing",)):
    return {"cells": [
        {"cell_type": "code", "metadata": {"tags": list(tags)}, "source": "print(...)",
         "outputs": [{"output_type": "stream", "name": "stdout", "text": printed}]},
        {"cell_type": "markdown", "metadata": {}, "source": markdown},
    ]}


RESULTS_SAMPLE = """# results

## 2. Gram matrix, CPU

| kernel | time |
|---|---|
| RBF | 0.87 s |

## 3. Against SVC

45× faster
"""


def test_checker_accepts_numbers_that_match_their_sources():
    md = ('It took <span title="out:timing">3.37 s</span>, '
          '<span title="out:timing">109×</span> faster; the Gram matrix took '
          '<span title="results:2. Gram matrix">0.87 s</span>, and 1-NN errs on '
          '<span title="fact:LeCun et al. 1998">3.09 %</span>. Sizes such as 28×28 or a '
          '`12 s` code span, $0.5 s$ in LaTeX and a fenced block are ignored:\n'
          "```\n57 s\n```\n")
    assert check_notebook(_nb(md), RESULTS_SAMPLE) == []


def test_checker_reports_a_planted_mismatch():
    problems = check_notebook(_nb('It took <span title="out:timing">3.38 s</span>.'), RESULTS_SAMPLE)
    assert len(problems) == 1 and "'3.38 s' is not in the outputs" in problems[0]


def test_checker_reports_a_missing_tag_results_section_and_source():
    md = ('<span title="out:nosuch">3.37</span> <span title="results:9. GPU">1 s</span> '
          '<span title="results:3. Against SVC">46×</span> <span title="fact: ">3 %</span>')
    problems = check_notebook(_nb(md), RESULTS_SAMPLE)
    assert len(problems) == 4, problems
    assert "no code cell has the tag 'nosuch'" in problems[0]
    assert "no heading containing '9. GPU'" in problems[1]
    assert "'46×' is not in the RESULTS.md section" in problems[2]
    assert "names no source" in problems[3]


def test_checker_reports_untagged_measurements_answers_included():
    md = ("The fit took 57 s against 2.7 s, 20× faster, 15–35 ms per fit, 8 GB, error 1.45 %.\n"
          "<details><summary>Answer</summary>about 50% of the points</details>")
    found = [p.split("untagged measurement ")[1].split(":")[0] for p in check_notebook(_nb(md), "")]
    assert found == ["'57 s'", "'2.7 s'", "'20×'", "'35 ms'", "'8 GB'", "'1.45 %'", "'50%'"]


def test_checker_leaves_plain_counts_and_words_alone():
    md = "20 points, 3 epochs, 4 samples, the 2 sides, x2 and 1962 (Novikoff)."
    assert check_notebook(_nb(md), "") == []


def test_checker_reports_a_planted_mismatch_in_a_copy_of_a_real_lecture(tmp_path):
    """Copy lesson 02 into a temp dir, change one tagged number there, and expect a failure."""
    path = ROOT / "notebooks" / "02-perceptron-by-hand.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        source = _text(cell["source"])
        m = SPAN.search(source) if cell["cell_type"] == "markdown" else None
        if m and m.group(1) == "out":
            break
    else:
        pytest.skip("lesson 02 has no out: span to plant a mismatch in")
    planted = copy.deepcopy(nb)
    cell = planted["cells"][nb["cells"].index(cell)]
    cell["source"] = source.replace(m.group(0), m.group(0).replace(f">{m.group(3)}<", ">-987.654<"), 1)
    copy_path = tmp_path / path.name
    copy_path.write_text(json.dumps(planted), encoding="utf-8")
    problems = check_notebook(json.loads(copy_path.read_text(encoding="utf-8")), "", name=copy_path.name)
    assert any("'-987.654' is not in the outputs" in p for p in problems), problems
