"""One bad notebook stops no one (issue 44, item 6).

- unit tests: :func:`kpcourse.grading.course.autograding.course_metadata` resets what a student wrote
  into a notebook's nbgrader metadata (a future ``schema_version``, changed points, a copied
  grade cell, broken cell ids) from the released notebook;
- a real batch of three submissions of assignment 02 in one nbgrader process, the middle one
  with ``schema_version: 99`` in a cell of its own: all three are graded, the honest ones in
  full; and, with the metadata left as handed in, nbgrader stops the batch, and each
  submission it left is graded alone, so that only the tampered one fails.
"""

from __future__ import annotations

import copy
import os
import shutil
from pathlib import Path

import nbformat
import pytest
from judging import pipeline_cases

from kpcourse.grading.course import autograding
from kpcourse.grading.course import folder as course
from kpcourse.grading.paths import copy_source, course_path

ROOT = Path(__file__).resolve().parents[1]
A = "02-perceptron-by-hand"
RELEASED = nbformat.read(ROOT / "release" / A / f"{A}.ipynb", as_version=4)
#: The automatic points of the assignment: its test cells (the written answer is graded by hand).
FULL = sum(c.metadata["nbgrader"].get("points", 0) for c in RELEASED.cells
           if c.metadata.get("nbgrader", {}).get("grade") and not c.metadata["nbgrader"].get("solution"))


def _nbg(cell):
    return cell.metadata.get("nbgrader", {})


def _tampered(nb):
    """``nb`` with a schema from the future on a test cell: nbgrader stops its whole batch there."""
    nb = copy.deepcopy(nb)
    first_test = next(c for c in nb.cells if _nbg(c).get("grade") and c.cell_type == "code")
    first_test.metadata["nbgrader"]["schema_version"] = 99
    return nb


def test_an_honest_notebook_is_left_as_it_is():
    nb = copy.deepcopy(RELEASED)
    assert autograding.course_metadata(nb, RELEASED) == [] and nb == RELEASED


def test_metadata_the_course_did_not_write_is_removed_or_reset():
    nb = _tampered(RELEASED)
    test_cell = next(c for c in nb.cells if _nbg(c).get("grade") and c.cell_type == "code")
    test_cell.metadata["nbgrader"]["points"] = 50          # more points for a test cell
    nb.cells.insert(2, nbformat.v4.new_code_cell("x = 1", metadata={"nbgrader": {"schema_version": 99}}))
    nb.cells.append(copy.deepcopy(test_cell))              # a copy of a graded cell (its id too)
    nb.cells.append(nbformat.v4.new_markdown_cell("mine", metadata={"nbgrader": {
        "grade": True, "grade_id": "mine", "points": 100, "schema_version": 3, "solution": True, "locked": False}}))
    changes = autograding.course_metadata(nb, RELEASED)
    assert len(changes) == 5 and changes[-1] == "cell ids made valid and unique", changes
    assert all("nbgrader" not in c.metadata for c in (nb.cells[2], nb.cells[-2], nb.cells[-1]))
    released = {_nbg(c)["grade_id"]: _nbg(c) for c in RELEASED.cells if "nbgrader" in c.metadata}
    assert _nbg(test_cell) == released[_nbg(test_cell)["grade_id"]]
    assert [_nbg(c) for c in nb.cells if "nbgrader" in c.metadata] == list(released.values())


def test_broken_cell_ids_are_made_valid_and_unique():
    nb = copy.deepcopy(RELEASED)
    nb.cells[1]["id"] = nb.cells[0]["id"]
    nb.cells[2]["id"] = "not valid!"
    assert autograding.course_metadata(nb, RELEASED) == ["cell ids made valid and unique"]
    ids = [c["id"] for c in nb.cells]
    assert len(set(ids)) == len(ids)
    nbformat.validate(nb)


def test_clean_submission_rewrites_only_what_changed(tmp_path):
    nbformat.write(_tampered(RELEASED), tmp_path / f"{A}.ipynb")
    (tmp_path / "notes.ipynb").write_text("not a notebook")   # not in the release: left alone
    done = autograding.clean_submission(tmp_path, ROOT / "release" / A)
    assert list(done) == [f"{A}.ipynb"]
    assert autograding.clean_submission(tmp_path, ROOT / "release" / A) == {}
    assert (tmp_path / "notes.ipynb").read_text() == "not a notebook"


# ------------------------------------------------------- a real batch of three
STUDENTS = ("alice", "mallory", "zoe")  # nbgrader grades them in this order: the tampered one in the middle


@pytest.fixture(scope="module")
def class_of_three(tmp_path_factory):
    root = tmp_path_factory.mktemp("course")
    copy_source(ROOT, root, A)
    shutil.copytree(ROOT / "release" / A, root / "release" / A)
    shutil.copy2(ROOT / "nbgrader_config.py", root / "nbgrader_config.py")
    solution = pipeline_cases().Assignment(A, root).submission()
    for student in STUDENTS:
        folder = course_path(root, "submitted", student, A)
        folder.mkdir(parents=True)
        nbformat.write(_tampered(solution) if student == "mallory" else solution, folder / f"{A}.ipynb")
    course.ensure_in_gradebook(root, [A])
    return root


def _batch(root, workdir):
    env = dict(os.environ, KPCOURSE_CELL_TIMEOUT="10")
    return {r["student"]: r for r in autograding.grade_batch(root, [(s, A) for s in STUDENTS], workdir, env)}


def _score(result):
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{result['dir'] / 'gradebook.db'}") as gb:
        return gb.find_submission(A, result["student"]).code_score


def test_a_tampered_notebook_is_graded_and_stops_no_classmate(class_of_three, tmp_path):
    results = _batch(class_of_three, tmp_path)
    assert all(r["ok"] for r in results.values()), {s: r["log"][-800:] for s, r in results.items()}
    assert {s: _score(r) for s, r in results.items()} == {"alice": FULL, "mallory": FULL, "zoe": FULL}


def test_without_the_reset_a_batch_that_nbgrader_stops_is_graded_one_by_one(class_of_three, tmp_path, monkeypatch):
    """The second line of defence: nbgrader stops the batch at mallory; zoe, after her, is graded alone."""
    monkeypatch.setattr(autograding, "clean_submission", lambda folder, release: {})
    results = _batch(class_of_three, tmp_path)
    assert {s: r["ok"] for s, r in results.items()} == {"alice": True, "mallory": False, "zoe": True}
    assert results["alice"]["dir"] == tmp_path and results["zoe"]["dir"].name.startswith("alone-")
    assert _score(results["alice"]) == FULL and _score(results["zoe"]) == FULL
