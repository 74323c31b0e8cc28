"""What a graded notebook shows is inert: kpcourse.grading.views.inert and the MakeInert step.

The hostile submission (``hostile.py``) is rendered the way feedback and the formgrader render it
(nbconvert's classic HTML template, which nbgrader's templates extend): before the step its
payloads sit in tags and scripts, after it only in text. The pipeline proves the same on a real
autograde of every assignment (``test_pipeline.py``), the exchange's browser test in Chromium.
"""

from __future__ import annotations

import base64
import copy
from pathlib import Path

import hostile
import nbformat
import pytest
from nbconvert import HTMLExporter

from kpcourse.grading.views.inert import SAFE_OUTPUTS, as_text, inert_outputs, make_inert, markdown_hazards
from kpcourse.grading.views.plugins import MakeInert

ROOT = Path(__file__).resolve().parents[1]
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(40))).decode()


def _bundle():
    namespace = {}
    exec(hostile.CODE.rsplit("\n", 1)[0], namespace)  # the class, without showing it
    return namespace["Shown"]()._repr_mimebundle_()


def hostile_notebook():
    """The hostile cells as IPython would leave them: the code cell's output filled in."""
    nb = hostile.add_to(nbformat.v4.new_notebook())
    nb.cells.insert(0, nbformat.v4.new_markdown_cell(hostile.WRITTEN))
    code = next(c for c in nb.cells if c.cell_type == "code")
    data = dict(_bundle(), **{"text/plain": "<__main__.Shown at 0x7f>"})
    code.outputs = [nbformat.v4.new_output("execute_result", data=data, execution_count=1),
                    nbformat.v4.new_output("display_data", data={k: v for k, v in data.items() if k != "text/plain"})]
    return nb


def render(nb):
    return HTMLExporter(template_name="classic").from_notebook_node(copy.deepcopy(nb))[0]


def test_the_hostile_notebook_runs_its_payloads_when_rendered_as_it_is():
    live = hostile.live_payloads(render(hostile_notebook()))
    assert len(live) >= 4, live  # so the test below can fail


def test_made_inert_nothing_of_it_sits_in_a_tag_or_a_script():
    nb = hostile_notebook()
    changes = make_inert(nb)
    nbformat.validate(nb)
    page = render(nb)
    assert hostile.live_payloads(page) == []
    assert hostile.MARKER in page  # still shown to the instructor, as text
    assert len(changes) == 4, changes
    assert [c.cell_type for c in nb.cells] == ["markdown", "code", "markdown", "markdown"]
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert all(set(o.get("data", {})) <= set(SAFE_OUTPUTS) for o in cell.outputs)
            assert all(o.get("metadata") == {} for o in cell.outputs)
        else:
            assert cell.source.startswith("*This cell held"), cell.source[:80]
    again = copy.deepcopy(nb)
    assert make_inert(again) == [] and again == nb  # a second pass (feedback) changes nothing


def test_the_nbgrader_step_makes_the_notebook_inert():
    nb, _ = MakeInert().preprocess(hostile_notebook(), {"unique_key": "x"})
    assert hostile.live_payloads(render(nb)) == []


def test_an_output_with_only_html_is_shown_as_text():
    outs = [nbformat.v4.new_output("display_data", data={"text/html": "<table><tr><td>1</td></tr></table>"})]
    assert inert_outputs(outs) == ["text/html"]
    assert outs[0]["data"] == {"text/plain": "[text/html output, shown as text]\n<table><tr><td>1</td></tr></table>"}


def test_images_are_kept_only_when_their_data_is_base64():
    outs = [nbformat.v4.new_output("display_data", data={"image/png": PNG, "text/plain": "<Figure>"},
                                   metadata={"image/png": {"width": '1" onload="x'}}),
            nbformat.v4.new_output("display_data", data={"image/jpeg": "AAAA\" onerror=\"x"})]
    assert inert_outputs(outs) == ["image/jpeg"]
    assert outs[0]["data"] == {"image/png": PNG, "text/plain": "<Figure>"} and outs[0]["metadata"] == {}
    assert list(outs[1]["data"]) == ["text/plain"]


def test_streams_and_errors_are_left_to_the_renderer_which_escapes_them():
    outs = [nbformat.v4.new_output("stream", name="stdout", text="<script>x</script>"),
            nbformat.v4.new_output("error", ename="E", evalue="<b>", traceback=["<img onerror=x>"])]
    before = copy.deepcopy(outs)
    assert inert_outputs(outs) == [] and outs == before
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1)")])
    nb.cells[0].outputs = outs
    page = render(nb)
    assert "<script>x</script>" not in page and "<img onerror=x>" not in page


@pytest.mark.parametrize("text", [
    "The margin is $y(w \\cdot x + b) > 0$ and $$\\|w\\| < 1.$$",
    "# A heading\n\n- one\n- [x] two\n\n> quoted\n\n| a | b |\n|---|---|\n| 1 | 2 |",
    "See [the docs](https://scikit-learn.org/stable/) or [below](#ex1), `x < 1`, ~~no~~ **yes** *ok*",
    "```python\nprint('<b>')\n```\n\n    indented <i>code</i>\n\n***\n\nterm\n: its definition",
    "\\begin{align} a &= b \\\\ c &< d \\end{align}",
    "YOUR ANSWER HERE",
])
def test_honest_markdown_stays_markdown(text):
    assert markdown_hazards(text) == []


@pytest.mark.parametrize("text, hazard", [
    ("a <b>bold</b> word", "raw HTML"),
    ("<div>\nblock\n</div>", "raw HTML"),
    ("[x](javascript:alert(1))", "a link to javascript:"),
    ("[x](JaVaScRiPt:alert(1))", "a link to JaVaScRiPt:"),
    ("[x][r]\n\n[r]: data:text/html;base64,PHNjcmlwdD4=", "a link to data:"),
    ("![x](attachment:a.svg)", "an attachment that is not a PNG or JPEG image"),
    ("```mermaid\ngraph TD\n```", "a Mermaid diagram (rendered as raw HTML)"),
    ("$\\href{javascript:x}{y}$", "a TeX command MathJax runs (\\href)"),
])
def test_markdown_that_could_run_is_named(text, hazard):
    assert hazard in markdown_hazards(text)


def test_png_attachments_are_allowed_and_others_are_not():
    ok = {"a.png": {"image/png": PNG}}
    assert markdown_hazards("![plot](attachment:a.png)", ok) == []
    bad = {"a.png": {"image/png": PNG, "text/html": base64.b64encode(b"<script>").decode()}}
    assert markdown_hazards("![plot](attachment:a.png)", bad) != []
    assert markdown_hazards("![plot](attachment:missing.png)", ok) != []


def test_text_shown_as_text_cannot_close_its_fence():
    source = "````\n<script>x</script>\n```\n`````"
    text = as_text(source, "raw HTML")
    assert markdown_hazards(text) == []
    assert "<script>x</script>" in text


def test_the_course_text_of_every_assignment_is_left_as_it_is():
    found = {}
    for path in sorted((ROOT / "source").glob("*/*.ipynb")) + sorted((ROOT / "release").glob("*/*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for i, cell in enumerate(nb.cells):
            if cell.cell_type == "markdown":
                hazards = markdown_hazards(cell.source, cell.get("attachments"))
                if hazards:
                    found[f"{path.relative_to(ROOT)} cell {i}"] = hazards
            assert cell.cell_type != "raw", f"{path.relative_to(ROOT)} cell {i}: a raw cell"
    assert not found, f"course text that feedback would show as text (use Markdown, not HTML): {found}"
