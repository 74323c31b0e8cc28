"""nbgrader configuration of the kpcourse course (course root = this folder).

Instructors use the make targets (README, "Instructor workflow"); they call
nbgrader with this file. The plug-ins come from ``kpcourse.grading``: during
autograde a submission runs in a sandbox and only produces answers; its points are
decided by ``source/<assignment>/grader.py`` in the grader's own process.
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

from kpcourse.grading.course.exchange import OwnerCheckedCollect, SealedRelease, SealedSubmit
from kpcourse.grading.course.late import PerDayPenalty, StateLateRule
from kpcourse.grading.judge.trusted import TrustedExecute
from kpcourse.grading.views.plugins import MakeInert, ScrubHiddenTests
from kpcourse.syllabus import load_syllabus

c = get_config()  # noqa: F821 (provided by traitlets when it loads this file)

c.CourseDirectory.course_id = "kpcourse"
c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))

# Per-cell limit while grading. The heaviest cell of any assignment takes about
# 20 s on 2 CPU cores; 120 s leaves room for slow student code and busy machines.
# Tests lower it with KPCOURSE_CELL_TIMEOUT to keep infinite-loop cases short.
c.Execute.timeout = int(os.environ.get("KPCOURSE_CELL_TIMEOUT", "120"))
c.Execute.interrupt_on_timeout = True
c.TrustedExecute.timeout = c.Execute.timeout
# What one submission may use while it is graded (kpcourse.grading.sandbox.limits; these are the defaults).
# A limit that is hit costs the cells that did not finish and is named in the feedback and report.
c.TrustedExecute.memory_bytes = 2 * 2**30   # each process (MemoryError) and all together, shared memory too (stopped)
c.TrustedExecute.processes = 256            # processes and threads at once
c.TrustedExecute.tmp_bytes = 512 * 2**20    # the sandbox's /tmp (and HOME)
c.TrustedExecute.work_bytes = 256 * 2**20   # written to its work folder (answers, executed notebook)
c.TrustedExecute.file_bytes = 128 * 2**20   # largest file
c.TrustedExecute.output_bytes = 2**20       # output kept per cell; the rest is cut with a note
c.TrustedExecute.answer_bytes = 2**20       # largest answers file of one test cell (a Cell may allow more)
c.TrustedExecute.hidden_seed = -1          # hidden probes of declared exercises: a fresh secret seed per notebook

# Grader files (hidden tests and their references) stay beside the source notebooks:
# never copied into release/ or into a student's autograded folder.
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", "grader.py",
                            "kpcourse-grading.json"]

# What a student sees in place of a solution.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
c.ClearSolutions.begin_solution_delimeter = "BEGIN SOLUTION"
c.ClearSolutions.end_solution_delimeter = "END SOLUTION"
c.ClearHiddenTests.begin_test_delimeter = "BEGIN HIDDEN TESTS"
c.ClearHiddenTests.end_test_delimeter = "END HIDDEN TESTS"

# Autograde: the submission runs in a bubblewrap sandbox (a kernel stuck in an
# uninterruptible loop is restarted there); its test cells are judged by the grader
# file in this process. Locked cells a student deleted are put back.
c.Autograde.autograde_preprocessors = [
    TrustedExecute,
    IgnorePattern,
    ClearMetadataPreprocessor,
    LimitOutput,
    SaveAutoGrades,
    AssignLatePenalties,
    CheckCellMetadata,
    MakeInert,
]
c.OverwriteCells.add_missing_cells = True

# Due dates and the late policy come from the course's rules (kpcourse/data/course.toml, kpcourse.syllabus),
# which the start page shows to students: edit them there. Due dates are written into the gradebook by
# `make release` and before every `make autograde` (kpcourse.grading.course.deadlines); the late policy counts
# from them, plus a student's extension (below: students do not see it). Times in UTC. The time a submission
# counts as made is when its files in the exchange last changed, never the timestamp a student's submit wrote
# (kpcourse.grading.course.exchange).
SYLLABUS = load_syllabus()
c.Deadlines.due = dict(SYLLABUS.due)
c.Deadlines.extensions = {}  # {"01-similarity": {"alice": 2}, ...}: extra days per student

# Late submissions (kpcourse.grading.course.late): each day late or part of a day, after the grace minutes,
# costs per_day of the final score, at most cap (course.toml: 10 %, 50 %, 15 minutes). Stored in the gradebook
# by autograde; `make export-grades` takes it off the final score.
c.AssignLatePenalties.plugin_class = PerDayPenalty
c.PerDayPenalty.per_day = SYLLABUS.per_day
c.PerDayPenalty.cap = SYLLABUS.cap
c.PerDayPenalty.grace_seconds = SYLLABUS.grace_minutes * 60

# The exchange on a shared machine (README, "Deploying on a JupyterHub"): collect leaves in the
# inbound folder a submission whose Unix owner is not the student it names (nbgrader only warns), and
# refuses a course where every student's server runs as one Unix user; the release puts the sticky bit
# on inbound/ (no student renames or removes a classmate's submission). The students' submit
# (SealedSubmit: the submission readable by its student and the grader only) is set where their servers
# read it, /etc/jupyter/nbgrader_config.py; here it serves an instructor trying out a submission.
c.ExchangeFactory.collect = OwnerCheckedCollect
c.ExchangeFactory.release_assignment = SealedRelease
c.ExchangeFactory.submit = SealedSubmit

# Feedback: nbgrader keeps hidden tests in feedback by default; remove them,
# including the lines that tracebacks quote. What a student's notebook shows is text or a
# checked image, never a script (kpcourse.grading.views.inert): in the autograded notebook the
# formgrader renders (MakeInert, last step of the autograde) and again in feedback. The feedback begins with the
# late rule and what it did to this submission (StateLateRule: its due date, extension and time).
c.GenerateFeedback.preprocessors = [GetGrades, StateLateRule, ScrubHiddenTests, MakeInert,
                                    CSSHTMLHeaderPreprocessor]
