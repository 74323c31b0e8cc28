"""The notebook executor that runs inside the grading sandbox: nbclient, restarting stuck kernels.

Only nbclient and nbformat are imported here (not nbgrader, not nbconvert: importing them
costs seconds in every sandbox). :class:`RestartingExecute` has the settings of nbgrader's
``Execute`` preprocessor (errors allowed, interrupt on timeout, the ``CellTimeoutError``
output, an asynchronous kernel manager) and one change: a cell that cannot be interrupted
does not sink the notebook.
"""

from __future__ import annotations

from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbclient.util import ensure_async
from nbformat import NotebookNode

__all__ = ["RestartingExecute", "timeout_output"]

#: What nbgrader's Execute writes for a cell that timed out (its ``error_on_timeout``).
_ERROR_ON_TIMEOUT = {"ename": "CellTimeoutError", "evalue": "",
                     "traceback": ["\x1b[0;31mCellTimeoutError\x1b[0m: No reply from kernel before timeout"]}


class RestartingExecute(NotebookClient):
    """Execute every cell; a cell that ignores the interrupt gets its kernel restarted.

    On a timeout the kernel is interrupted. A loop that swallows ``KeyboardInterrupt``
    keeps the kernel busy (nbgrader would then fail the whole submission and delete its
    autograded copy). Here the kernel is restarted instead, the code cells above are
    re-run to rebuild the state (skipping cells that timed out), the stuck cell gets a
    ``CellTimeoutError`` output and execution goes on with the next cell. A cell that
    kills its kernel is handled the same way (``DeadKernelError``).

    Parameters
    ----------
    nb : nbformat.NotebookNode
        The notebook, executed in place.
    timeout : int
        Per-cell limit (s).
    cwd : str
        The kernel's working folder.
    """

    def __init__(self, nb, timeout, cwd, **kwargs):
        kwargs.setdefault("kernel_manager_class", AsyncKernelManager)
        super().__init__(nb, timeout=timeout, interrupt_on_timeout=True, allow_errors=True,
                         raise_on_iopub_timeout=True, error_on_timeout=dict(_ERROR_ON_TIMEOUT),
                         resources={"metadata": {"path": str(cwd)}}, **kwargs)
        self.on_cell_executed = _record_error_reply
        self._skip = set()

    async def async_execute_cell(self, cell, cell_index, execution_count=None, store_history=True):
        try:
            cell = await super().async_execute_cell(cell, cell_index, execution_count, store_history)
        except CellTimeoutError:
            self.log.error("Cell %d ignored the interrupt: restarting the kernel", cell_index)
            self._skip.add(cell_index)
            await self._restart_and_replay(cell_index)
            cell.outputs = [timeout_output(self.timeout, restarted=True)]
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


def _record_error_reply(cell, execute_reply, **kwargs):
    """nbgrader's rule: an error reply with no matching error output (a timeout) is shown."""
    content = execute_reply["content"]
    if content["status"] != "error":
        return
    if any(o.output_type == "error" and o.ename == content["ename"] for o in cell.outputs):
        return
    cell.outputs.append(NotebookNode(output_type="error", ename=content["ename"], evalue=content["evalue"],
                                     traceback=content["traceback"] or
                                     ["ERROR: An error occurred while showtraceback was disabled"]))


def timeout_output(timeout, restarted):
    """The output a stuck cell gets (``restarted``: its kernel had to be restarted)."""
    why = (f"this cell ran longer than {timeout} s and ignored the interrupt; the kernel was "
           "restarted and the cells above it were run again") if restarted else \
        f"this cell ran longer than {timeout} s and was interrupted"
    return NotebookNode(output_type="error", ename="CellTimeoutError", evalue=why,
                        traceback=[f"CellTimeoutError: {why}"])
