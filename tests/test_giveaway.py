"""tests/giveaway.py, the measurement of what the course gives away (issue 21): its mechanics.

A function the course holds is submitted in the student's place through the grader's own
judging; the measurement must say "passes" exactly where the judging lets it through.
"""

from giveaway import Candidate, accepts, measure

from kpcourse import kernels


def test_a_candidate_passes_only_the_cells_its_answers_pass():
    """The package's cosine answers assignment 01's cosine exercise; the linear kernel does not."""
    candidates = [Candidate("kpcourse.kernels.cosine", "package", kernels.cosine),
                  Candidate("kpcourse.kernels.linear", "package", kernels.linear),
                  Candidate("len", "package", len)]  # takes one argument: never tried on a two-argument call
    results = {r.grade_id: r for r in measure("01-similarity", candidates, log=lambda msg: None)}
    assert all(r.solution_passes for r in results.values()), {g: r.solution_why for g, r in results.items()}
    values = results["ex1-cosine-tests-values"]
    assert values.passing == ["kpcourse.kernels.cosine"] and values.tried == 2, values
    assert not any("len" in r.passing for r in results.values())
    assert results["ex4-nn-tests-values"].passing == []


def test_a_candidate_is_tried_only_where_its_signature_takes_the_call():
    from kpcourse.checks._core import Call

    assert accepts(kernels.cosine, Call("f", [[1.0]], [[1.0]]))
    assert not accepts(len, Call("f", [[1.0]], [[1.0]]))
