"""What a grader file declares: one :class:`Cell` per autograded test cell.

A grader file sits beside its source notebook (``source/<assignment>/grader.py``), is
never released and is never visible to the student's code. It defines

* ``cells()`` → ``{grade_id: Cell}`` for every autograded test cell of the notebook;
* optionally ``FORBIDDEN`` (dotted prefixes no graded function may reach; default
  :data:`DEFAULT_FORBIDDEN`).

Each :class:`Cell` lists the tests whose answers decide its points: usually the
visible tests of the lesson's checks module (``kpcourse.checks.lessonNN``), then
hidden ones built here from the grader's own references. A visible test's calls are made in
the student's kernel, a hidden test's in the grader's own run (:mod:`kpcourse.grading.judge.rerun`);
every judge runs in the grader. See README, "Adding an exercise".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Cell", "DEFAULT_FORBIDDEN", "GRADER_FILE", "SUMMARY", "is_test_cell", "released_files", "split_hidden",
           "HIDDEN_BEGIN", "HIDDEN_END"]

#: The grader file beside each source notebook (never released, never mounted in the sandbox).
GRADER_FILE = "grader.py"
#: The grading summary written beside each autograded notebook (verdicts, isolation, timings).
SUMMARY = "kpcourse-grading.json"

#: The markers of the hidden-test region of a test cell (nbgrader's ``ClearHiddenTests``).
HIDDEN_BEGIN, HIDDEN_END = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"

#: Packages whose code a graded function may not reach (any module or name below them).
DEFAULT_FORBIDDEN = ("kpcourse", "sklearn", "scipy")


def is_test_cell(cell):
    """An autograded test cell: code, graded, not a solution."""
    md = cell.metadata.get("nbgrader", {})
    return cell.cell_type == "code" and md.get("grade") and not md.get("solution")


def released_files(source_dir):
    """The files of ``source_dir`` released with its notebook, the kernel's working folder while
    grading: never the grader file, a notebook or a summary."""
    return [f for f in sorted(Path(source_dir).iterdir())
            if f.is_file() and f.suffix not in (".ipynb", ".pyc") and f.name not in (GRADER_FILE, SUMMARY)]


def split_hidden(source):
    """The one parser of hidden-test markers: ``(visible source, numbers of the hidden lines)``.

    The hidden region runs from a line holding :data:`HIDDEN_BEGIN` to one holding
    :data:`HIDDEN_END`, both included; line numbers count from 1.
    """
    hidden, visible, inside = set(), [], False
    for number, line in enumerate(source.splitlines(), start=1):
        if HIDDEN_BEGIN in line:
            inside = True
        if inside:
            hidden.add(number)
        else:
            visible.append(line)
        if HIDDEN_END in line:
            inside = False
    return "\n".join(visible), hidden


@dataclass
class Cell:
    """How the grader decides the points of one autograded test cell.

    Parameters
    ----------
    exercise : str
        grade_id of the solution cell this test cell grades (for messages).
    what : str
        What the exercise asks the student to write ("the training loop"), for the
        message when a graded function reaches a forbidden reference.
    tests : list of kpcourse.checks._core.Test
        Visible tests first, then hidden ones; the cell passes when every judge passes.
    forbidden : tuple of str, optional
        Dotted prefixes (``"kpcourse"``, ``"sklearn.linear_model.Perceptron"``); default:
        the grader file's ``FORBIDDEN``.
    allow : tuple of str, default=()
        Dotted prefixes allowed although a forbidden prefix covers them
        (``"kpcourse.datasets"``).
    loop_free : tuple of str, default=()
        Names of the student's functions that must not contain a Python loop
        (``for``/``while``/comprehension), themselves or through their own helpers.
    answer_bytes : int, optional
        Largest answers file of this cell, where its tests ask for large results (a Gram
        matrix of thousands of points); default: the course's ``TrustedExecute.answer_bytes``.
    max_literals : tuple of (int, int), optional
        ``(count, characters)``: the most literals (numbers, strings, bytes), and the longest
        one, that the graded functions (with their helpers and the top-level names they read)
        may hold in their source, so that no data (a table of labels) is embedded in them
        (:meth:`kpcourse.grading.judge.policy.Program.literals`).
    """

    exercise: str
    what: str
    tests: list
    forbidden: tuple | None = None
    allow: tuple = ()
    loop_free: tuple = ()
    functions: tuple = field(default=())
    answer_bytes: int | None = None
    max_literals: tuple | None = None

    def called(self):
        """Names of the student's functions the tests call or pass as arguments."""
        from kpcourse.checks._core import names_of

        names = list(self.functions)
        for test in self.tests:
            for c in test.calls:
                names += [c.function, *sorted(names_of(c) - {c.function})]
        return tuple(dict.fromkeys(names))

    def judge_here(self, functions):
        """Run every test of this cell on ``functions`` in this process and judge it.

        The calls and the answers go through the same JSON encoding as to and from the
        sandbox in grading (never a pickle), so a judge sees exactly what it would see
        there. For lesson authors and the tests of a grader file; raises
        ``AssertionError`` on the first failing test, with the message the student
        would read.
        """
        __tracebackhide__ = True
        import json

        from kpcourse.checks._core import Answer, Call, call

        def roundtrip(data):
            return json.loads(json.dumps(data, allow_nan=True))

        for test in self.tests:
            sent = [Call.from_data(roundtrip(c.to_data())) for c in test.calls]
            answers = [call(functions.get(c.function), c, functions, time_limit=test.time_limit) for c in sent]
            test.judge([Answer.from_data(c, roundtrip(a.to_data()))
                        for c, a in zip(test.calls, answers, strict=True)])
