"""tests/giveaway.py, the measurement of what the course gives away (issue 21): its mechanics.

A function the course holds is submitted in the student's place through the grader's own
judging; the measurement must say "passes" exactly where the judging lets it through.
"""

import os

import nbformat
import numpy as np
import pytest
from giveaway import (
    ROOT,
    Candidate,
    accepts,
    lecture_candidates,
    measure,
    nbg,
    package_candidates,
    source_notebook,
    without_markers,
)

from kpcourse import kernels
from kpcourse.grading.course import folder as course


def test_a_candidate_passes_only_the_cells_its_answers_pass():
    """The grader's own k-gram similarity answers assignment 01's exercise 1; its subsequence kernel,
    another string kernel with the same signature, does not; a one-argument function is never tried."""
    from kpcourse.grading.judge.trusted import load_grader

    grader = load_grader(ROOT / "source" / "01-similarity" / "grader.py")
    candidates = [Candidate("grader.kgram_similarity", "package", grader.kgram_similarity),
                  Candidate("grader.subsequence_kernel", "package", grader.subsequence_kernel),
                  Candidate("len", "package", len)]  # takes one argument: never tried on a four-argument call
    results = {r.grade_id: r for r in measure("01-similarity", candidates, log=lambda msg: None)}
    assert all(r.solution_passes for r in results.values()), {g: r.solution_why for g, r in results.items()}
    values = results["ex1-kgrams-tests-values"]
    assert values.passing == ["grader.kgram_similarity"] and values.tried == 2, values
    assert not any("len" in r.passing for r in results.values())
    assert results["ex2-knn-tests-values"].passing == []


def test_a_candidate_is_tried_only_where_its_signature_takes_the_call():
    from kpcourse.checks._core import Call

    assert accepts(kernels.cosine, Call("f", [[1.0]], [[1.0]]))
    assert not accepts(len, Call("f", [[1.0]], [[1.0]]))


# --------------------------------------------------------------------------- #
# Issues 39-42, item 6: no function or method the course holds passes an exercise
# --------------------------------------------------------------------------- #

#: ``(assignment/grade_id, candidate)`` pairs that still pass today, each an exercise that issues 39-42
#: have not redesigned yet. This list only shrinks: a pair that appears and is not here fails the
#: test (a new give-away), and a pair here that no longer passes fails it too (delete its line).
STILL_GIVEN_AWAY = set()


@pytest.fixture(scope="module")
def measured(shared_data):
    """Every autograded cell of every assignment against every lecture and package function."""
    import matplotlib

    matplotlib.use("Agg")
    os.environ.setdefault("KPCOURSE_DATA", str(shared_data))  # lectures 06 and 07 read MNIST
    collected = lecture_candidates(sorted((ROOT / "notebooks").glob("*.ipynb")), log=lambda msg: None)
    package, errors = package_candidates(log=lambda msg: None)
    assert not errors, errors
    candidates = [*collected.candidates, *package]
    results = [r for name in course.assignments(ROOT) for r in measure(name, candidates, log=lambda msg: None)]
    return collected, candidates, results


def test_the_lectures_run_and_every_cell_passes_its_own_solution(measured):
    """The control: the harness is only believed when the source's solution passes every cell through it."""
    collected, candidates, results = measured
    assert not [e for e in collected.events if e.error], collected.events
    assert len(candidates) > 150 and len(results) > 60, (len(candidates), len(results))
    failing = {f"{r.assignment}/{r.grade_id}": r.solution_why for r in results if r.solution_passes is not True}
    assert not failing, failing


def test_no_lecture_or_package_function_passes_an_exercise(measured):
    *_, results = measured
    passing = {(f"{r.assignment}/{r.grade_id}", p) for r in results for p in r.passing}
    new = sorted(passing - STILL_GIVEN_AWAY)
    assert not new, ("a lecture or package function, submitted in the student's place, passes these cells: "
                     f"redesign the exercise (issues 39-42) so that copying it earns nothing: {new}")
    gone = sorted(STILL_GIVEN_AWAY - passing)
    assert not gone, f"these no longer pass: delete them from STILL_GIVEN_AWAY: {gone}"


def test_a_lecture_that_holds_a_solution_is_caught(tmp_path):
    """Break it on purpose: a lecture cell that defines assignment 02's ``cycle_of`` makes its cells fail the test."""
    own = next(without_markers(c.source) for c in source_notebook("02-perceptron-by-hand").cells
               if nbg(c).get("grade_id") == "ex3-cycle")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import numpy as np"),
                                         nbformat.v4.new_code_cell(own)])
    path = tmp_path / "99-a-lecture-with-a-solution.ipynb"
    nbformat.write(nb, path)
    collected = lecture_candidates([path], log=lambda msg: None)
    results = measure("02-perceptron-by-hand", collected.candidates, log=lambda msg: None)
    caught = {r.grade_id for r in results if r.passing}
    assert caught == {"ex3-cycle-tests-values", "ex3-cycle-tests-limit"}, caught


def test_methods_of_classes_and_of_fitted_estimators_are_candidates():
    """Item 6 of issue 39: functions *and methods* of the package, bound methods of fitted estimators included."""
    found, errors = package_candidates(log=lambda msg: None)
    assert not errors, errors
    by_name = {c.name: c.function for c in found}
    assert "kpcourse.perceptron._primal.Perceptron.predict" in by_name
    fitted = by_name["kpcourse.perceptron._kernel.KernelPerceptron(fitted).decision_function"]
    assert fitted(np.array([[1.0, 2.0], [3.0, 2.0]])).shape == (2,)  # fitted: it answers
    assert any(n.endswith("KERNELS['rbf'].bound") for n in by_name)  # a function a table's object holds
    assert len(by_name) == len(found), "a candidate is listed twice"
