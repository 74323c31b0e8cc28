"""nbgrader plug-ins: scrub hidden tests from feedback, make what a student's notebook shows inert.

:class:`ScrubHiddenTests` cleans feedback; :class:`MakeInert` (autograde and feedback) leaves
nothing in a graded notebook that a browser could run (:mod:`kpcourse.grading.views.inert`).
The plug-in that decides points,
:class:`kpcourse.grading.judge.trusted.TrustedExecute`, lives in :mod:`kpcourse.grading.judge.trusted`; the executor
that runs inside the sandbox, :class:`kpcourse.grading.sandbox.executor.RestartingExecute`, in
:mod:`kpcourse.grading.sandbox.executor` (it imports no nbgrader).
"""

from __future__ import annotations

import re

from nbgrader.preprocessors import NbGraderPreprocessor

from kpcourse.grading.judge.spec import HIDDEN_BEGIN, HIDDEN_END, split_hidden
from kpcourse.grading.views.inert import make_inert

__all__ = ["ScrubHiddenTests", "MakeInert", "split_hidden", "HIDDEN_BEGIN", "HIDDEN_END", "ANSI"]

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_ANSI = ANSI


# ------------------------------------------------------------ nbgrader plug-ins
class ScrubHiddenTests(NbGraderPreprocessor):
    """Remove hidden tests from a graded notebook, and their lines from tracebacks.

    nbgrader's ClearHiddenTests only edits cell sources; a failing hidden assert
    still prints its own line (and its neighbours) in the traceback. Errors raised
    inside a hidden region are reported as "a hidden test failed" with no detail.
    """

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code" or HIDDEN_BEGIN not in cell.source:
            return cell, resources
        visible, hidden = split_hidden(cell.source)
        texts = {ln.strip() for i, ln in enumerate(cell.source.splitlines(), 1) if i in hidden and ln.strip()}
        cell.source = visible
        for out in cell.get("outputs", []):
            if out.output_type == "error":
                _scrub_error(out, hidden, texts)
        return cell, resources


class MakeInert(NbGraderPreprocessor):
    """Make a graded notebook inert for a browser (:func:`kpcourse.grading.views.inert.make_inert`).

    Last step of the autograde, so the autograded notebook the formgrader renders is inert; again
    when feedback is generated. Each change is logged with the notebook it was made in.
    """

    def preprocess(self, nb, resources):
        for change in make_inert(nb):
            self.log.info("%s: %s", resources.get("unique_key", "notebook"), change)
        return nb, resources


def _scrub_error(out, hidden_lines, hidden_texts):
    lines = [_ANSI.sub("", ln) for entry in out.traceback for ln in entry.splitlines()]
    raised_at = None
    for ln in lines:  # the last "----> N" marker inside the cell's own frame
        m = re.match(r"^-+>\s*(\d+)", ln)
        if m:
            raised_at = int(m.group(1))
            break
    if raised_at in hidden_lines:
        out.evalue = "a hidden test failed (its details are not shown)"
        out.traceback = [f"{out.ename}: {out.evalue}"]
        return
    kept = []
    for ln in lines:
        code = re.sub(r"^\s*(-+>)?\s*\d+\s?", "", ln).strip()
        if code and (code in hidden_texts or "HIDDEN TESTS" in code):
            continue
        kept.append(ln)
    out.traceback = ["\n".join(kept)]
