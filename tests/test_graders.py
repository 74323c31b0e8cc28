"""Every assignment's grader file covers its notebook, and the checks' data is what it computes.

- every autograded test cell of ``source/<a>/<a>.ipynb`` has a ``Cell`` in ``grader.py``;
- every ``Cell`` has at least one hidden test (a judge written in the grader, not only the
  visible checks, whose expected outputs students can read);
- no source notebook keeps hidden tests inline (they would run in the student's kernel);
- ``kpcourse/checks/data/lessonNN.json`` equals the grader's ``visible_data()``.
"""

import json
from pathlib import Path

import nbformat
import pytest

from kpcourse.checks import _core
from kpcourse.grading import commands
from kpcourse.grading.trusted import GRADER_FILE, is_test_cell, load_grader

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = commands.assignments(ROOT)


@pytest.fixture(scope="module", params=ASSIGNMENTS)
def assignment(request):
    name = request.param
    grader = load_grader(ROOT / "source" / name / GRADER_FILE)
    nb = nbformat.read(ROOT / "source" / name / f"{name}.ipynb", as_version=4)
    return name, grader, nb, grader.cells()


def test_every_test_cell_has_a_grader_cell(assignment):
    name, _, nb, cells = assignment
    ids = {c.metadata["nbgrader"]["grade_id"] for c in nb.cells if is_test_cell(c)}
    assert ids, f"{name} has no autograded test cell"
    assert ids == set(cells), f"{name}: test cells {sorted(ids ^ set(cells))} and grader cells differ"


def test_every_cell_has_a_hidden_test(assignment):
    name, grader, _, cells = assignment
    for gid, cell in cells.items():
        modules = {getattr(t.judge, "__module__", "") for t in cell.tests}
        assert grader.__name__ in modules, f"{name}/{gid} is judged by the visible checks only"


def test_no_hidden_tests_inline(assignment):
    name, _, nb, _ = assignment
    for c in nb.cells:
        assert "BEGIN HIDDEN TESTS" not in c.source, f"{name}: hidden tests belong in {GRADER_FILE}"


def test_checks_data_is_what_the_grader_computes(assignment):
    name, grader, _, _ = assignment
    if not hasattr(grader, "visible_data"):
        pytest.skip(f"{name}'s checks hold no computed data")
    fresh = json.loads(json.dumps(_core.encode(grader.visible_data(), readable=True), allow_nan=True))
    committed = json.loads(commands.data_file(name).read_text())
    assert committed == fresh, f"run `make checks-data` (python -m kpcourse.grading checks-data {name})"
