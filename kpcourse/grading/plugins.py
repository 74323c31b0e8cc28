"""nbgrader plug-ins: restart stuck kernels, scrub hidden tests from feedback.

:class:`RestartingExecute` runs inside the grading sandbox (see :mod:`.inside`);
:class:`ScrubHiddenTests` cleans feedback. The plug-in that decides points,
:class:`kpcourse.grading.trusted.TrustedExecute`, lives in :mod:`.trusted`.
"""

from __future__ import annotations

import re

from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbclient.util import ensure_async, run_sync
from nbformat import NotebookNode
from nbgrader.preprocessors import Execute, NbGraderPreprocessor

__all__ = ["RestartingExecute", "ScrubHiddenTests", "HIDDEN_BEGIN", "HIDDEN_END", "ANSI"]

HIDDEN_BEGIN, HIDDEN_END = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_ANSI = ANSI


# ------------------------------------------------------------ nbgrader plug-ins
class RestartingExecute(Execute):
    """nbgrader's Execute, but a cell that cannot be interrupted does not sink the notebook.

    On a timeout nbgrader interrupts the kernel. A loop that swallows
    ``KeyboardInterrupt`` keeps the kernel busy, nbgrader then fails the whole
    submission and deletes its autograded copy. Here the kernel is restarted
    instead, the code cells above are re-run to rebuild the state (skipping
    cells that timed out), the stuck cell gets a ``CellTimeoutError`` output and
    grading goes on with the next cell.
    """

    def preprocess(self, nb, resources=None, km=None):
        self._skip = set()
        return super().preprocess(nb, resources, km=km)

    async def async_execute_cell(self, cell, cell_index, execution_count=None, store_history=True):
        try:
            cell = await super().async_execute_cell(cell, cell_index, execution_count, store_history)
        except CellTimeoutError:
            self.log.error("Cell %d ignored the interrupt: restarting the kernel", cell_index)
            self._skip.add(cell_index)
            await self._restart_and_replay(cell_index)
            cell.outputs = [_timeout_output(self.timeout, restarted=True)]
            return cell
        except DeadKernelError:
            self.log.error("Cell %d killed the kernel: restarting it", cell_index)
            self._skip.add(cell_index)
            await self._restart_and_replay(cell_index)
            why = "the kernel died while running this cell; it was restarted and the cells above it were run again"
            cell.outputs = [NotebookNode(output_type="error", ename="DeadKernelError", evalue=why,
                                         traceback=[f"DeadKernelError: {why}"])]
            return cell
        if any(o.get("ename") == "CellTimeoutError" for o in cell.get("outputs", [])):
            self._skip.add(cell_index)  # interrupted in time; never run it again
        return cell

    async def _restart_and_replay(self, upto):
        await ensure_async(self.km.restart_kernel(now=True))
        await ensure_async(self.kc.wait_for_ready(timeout=self.startup_timeout))
        for idx, other in enumerate(self.nb.cells[:upto]):
            if other.cell_type != "code" or idx in self._skip:
                continue
            kept = other.outputs
            try:
                await super().async_execute_cell(other, idx, store_history=False)
            except (CellTimeoutError, DeadKernelError):
                self._skip.add(idx)
            other.outputs = kept

    # nbconvert calls the synchronous wrapper, bound to the base class's coroutine.
    execute_cell = run_sync(async_execute_cell)


def _timeout_output(timeout, restarted):
    why = (f"this cell ran longer than {timeout} s and ignored the interrupt; the kernel was "
           "restarted and the cells above it were run again") if restarted else \
        f"this cell ran longer than {timeout} s and was interrupted"
    return NotebookNode(output_type="error", ename="CellTimeoutError", evalue=why,
                        traceback=[f"CellTimeoutError: {why}"])


class ScrubHiddenTests(NbGraderPreprocessor):
    """Remove hidden tests from a graded notebook, and their lines from tracebacks.

    nbgrader's ClearHiddenTests only edits cell sources; a failing hidden assert
    still prints its own line (and its neighbours) in the traceback. Errors raised
    inside a hidden region are reported as "a hidden test failed" with no detail.
    """

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code" or HIDDEN_BEGIN not in cell.source:
            return cell, resources
        hidden, visible, inside = set(), [], False
        for number, line in enumerate(cell.source.splitlines(), start=1):
            if line.strip() == HIDDEN_BEGIN:
                inside = True
            if inside:
                hidden.add(number)
            else:
                visible.append(line)
            if line.strip() == HIDDEN_END:
                inside = False
        texts = {ln.strip() for i, ln in enumerate(cell.source.splitlines(), 1) if i in hidden and ln.strip()}
        cell.source = "\n".join(visible)
        for out in cell.get("outputs", []):
            if out.output_type == "error":
                _scrub_error(out, hidden, texts)
        return cell, resources


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
