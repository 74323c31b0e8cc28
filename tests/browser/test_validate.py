"""nbgrader's Validate button in JupyterLab, on a student's copy of a release notebook.

The copy is written into the server's folder before it is opened: once with every
solution cell filled from ``source/`` (the ``### BEGIN/END SOLUTION`` lines
removed), once untouched. Validate runs nbgrader's validator on the server (with
the course's ``nbgrader_config.py``, found in the server's working directory);
the filled copy must get "Success!", the untouched one a failure report naming
``NotImplementedError``. A screenshot of each dialog lands in
``tests/browser/screenshots/``.
"""

import json

import pytest
from labpage import REPO

# the first assignment and the capstone (the others run their tests in test_notebooks.py)
ASSIGNMENTS = ("02-perceptron-by-hand", "08-margins-and-svm")
MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")


def _grade_ids(nb, solution_only=False):
    cells = {}
    for cell in nb["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if "grade_id" in meta and (meta.get("solution") or not solution_only):
            cells[meta["grade_id"]] = cell
    return cells


def _text(source):
    return "".join(source) if isinstance(source, list) else source


def fill_solutions(release_nb, source_nb, name=""):
    """``release_nb`` with each solution cell's source taken from ``source_nb`` (markers removed)."""
    solutions = _grade_ids(source_nb, solution_only=True)
    filled = 0
    for grade_id, cell in _grade_ids(release_nb, solution_only=True).items():
        lines = _text(solutions[grade_id]["source"]).splitlines(keepends=True)
        cell["source"] = "".join(line for line in lines if line.strip() not in MARKERS)
        filled += 1
    assert filled, f"release/{name} has no solution cells to fill"
    return release_nb


@pytest.mark.parametrize("state", ["filled", "untouched"])
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_validate_button(lab, course_root, assignment, state):
    release = course_root / "release" / assignment / f"{assignment}.ipynb"
    if not release.exists():
        pytest.fail(f"{release.relative_to(course_root)} is missing: neither committed nor generated",
                    pytrace=False)
    nb = json.loads(release.read_text())
    if state == "filled":
        source = json.loads((REPO / "source" / assignment / f"{assignment}.ipynb").read_text())
        nb = fill_solutions(nb, source, assignment)
        assert not any("NotImplementedError" in _text(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"), \
            "a solution cell is still unfilled"
    student = course_root / "student" / state / assignment / f"{assignment}.ipynb"
    student.parent.mkdir(parents=True, exist_ok=True)
    student.write_text(json.dumps(nb, indent=1))

    lab.open(student.relative_to(course_root).as_posix(), name=f"validate__{assignment}__{state}")
    try:
        title, result, text = lab.validate()
        lab.note(f"Validate: {title!r} {result!r}: {text[:200]!r}")
    finally:
        lab.screenshot("", full=False)
    if state == "filled":
        assert "validation-success" in result.split(), f"{title}: {text[-3000:]}"
        assert "Success! Your notebook passes all the tests." in text
    else:
        assert "validation-failed" in result.split(), f"{title}: {text[-3000:]}"
        assert "NotImplementedError" in text
    lab.close_dialog()
