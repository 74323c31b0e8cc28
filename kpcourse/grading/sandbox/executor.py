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

from kpcourse.grading.sandbox.limits import cut_note, output_size

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
    output_limit : int, optional
        Bytes of output each cell keeps; past it the rest is dropped as it arrives (a
        note marks the cut), so a flood of output never fills the executor's memory.
    """

    def __init__(self, nb, timeout, cwd, output_limit=None, **kwargs):
        kwargs.setdefault("kernel_manager_class", AsyncKernelManager)
        super().__init__(nb, timeout=timeout, interrupt_on_timeout=True, allow_errors=True,
                         raise_on_iopub_timeout=True, error_on_timeout=dict(_ERROR_ON_TIMEOUT),
                         resources={"metadata": {"path": str(cwd)}}, **kwargs)
        self.on_cell_executed = _record_error_reply
        self._skip = set()
        self.output_limit = output_limit
        self._used = {}  # cell index -> [bytes kept, cut?]
        if output_limit is not None:  # the kernel cuts what cells print (before any student code runs)
            self.extra_arguments = [*self.extra_arguments, "--IPKernelApp.exec_lines="
                                    "import kpcourse.grading.sandbox.limits as _l; "
                                    f"_l.cap_kernel_output({int(output_limit)}); del _l"]

    def create_kernel_manager(self):
        km = super().create_kernel_manager()
        if self.output_limit is not None:
            # a message larger than this is refused by ZeroMQ (the connection is re-made), never
            # read into memory: a kernel that prints hundreds of MB cannot sink the executor
            import zmq

            km.context.setsockopt(zmq.MAXMSGSIZE, max(16 * 2**20, 4 * int(self.output_limit)))
        return km

    def output(self, outs, msg, display_id, cell_index):
        if self.output_limit is None:
            return super().output(outs, msg, display_id, cell_index)
        used = self._used.setdefault(cell_index, [0, False])
        content = msg.get("content") or {}
        error = msg.get("msg_type") == "error"
        if error:  # kept after a cut: it says why the cell failed
            content["evalue"] = str(content.get("evalue", ""))[:2000]
            content["traceback"] = [str(t)[:2000] for t in (content.get("traceback") or [])[-20:]]
        size = output_size(content)
        if used[0] + size > self.output_limit and not error:
            if not used[1]:
                outs.append(NotebookNode(cut_note(self.output_limit)))
                used[1] = True
            return None
        used[0] += size
        return super().output(outs, msg, display_id, cell_index)

    async def async_execute_cell(self, cell, cell_index, execution_count=None, store_history=True):
        self._used.pop(cell_index, None)
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
        except Exception as exc:  # noqa: BLE001 - e.g. a message the kernel garbled ("Invalid Signature")
            self.log.error("Cell %d: the kernel's messages could not be read (%r): restarting it", cell_index, exc)
            self._skip.add(cell_index)
            await self._restart_and_replay(cell_index)
            why = ("the kernel sent output that could not be read while running this cell (did it start too "
                   "many processes?); it was restarted and the cells above it were run again")
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
            except Exception:  # noqa: BLE001 - timed out, killed its kernel or garbled its messages
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
