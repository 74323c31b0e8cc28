"""nbgrader configuration of the kpcourse course (course root = this folder).

Instructors use the make targets (README, "Instructor workflow"); they call
nbgrader with this file. The plug-ins come from ``kpcourse.grading``.
"""

import os

from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import (
    AssignLatePenalties,
    CheckCellMetadata,
    GetGrades,
    IgnorePattern,
    LimitOutput,
    SaveAutoGrades,
)

from kpcourse.grading import RestartingExecute, ScrubHiddenTests

c = get_config()  # noqa: F821 (provided by traitlets when it loads this file)

c.CourseDirectory.course_id = "kpcourse"
c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))

# Per-cell limit while grading. The heaviest cell of any assignment takes about
# 20 s on 2 CPU cores; 120 s leaves room for slow student code and busy machines.
# Tests lower it with KPCOURSE_CELL_TIMEOUT to keep infinite-loop cases short.
c.Execute.timeout = int(os.environ.get("KPCOURSE_CELL_TIMEOUT", "120"))
c.Execute.interrupt_on_timeout = True

# What a student sees in place of a solution.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
c.ClearSolutions.begin_solution_delimeter = "BEGIN SOLUTION"
c.ClearSolutions.end_solution_delimeter = "END SOLUTION"
c.ClearHiddenTests.begin_test_delimeter = "BEGIN HIDDEN TESTS"
c.ClearHiddenTests.end_test_delimeter = "END HIDDEN TESTS"

# Autograde: restart a kernel stuck in an uninterruptible loop instead of failing
# the notebook; put back locked cells a student deleted (their tests still run).
c.Autograde.autograde_preprocessors = [
    RestartingExecute,
    IgnorePattern,
    ClearMetadataPreprocessor,
    LimitOutput,
    SaveAutoGrades,
    AssignLatePenalties,
    CheckCellMetadata,
]
c.OverwriteCells.add_missing_cells = True

# Feedback: nbgrader keeps hidden tests in feedback by default; remove them,
# including the lines that tracebacks quote.
c.GenerateFeedback.preprocessors = [GetGrades, ScrubHiddenTests, CSSHTMLHeaderPreprocessor]
