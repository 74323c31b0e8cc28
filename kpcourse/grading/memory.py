"""Memory measured where the student's code cannot forge it: a call run under the kernel's own limit.

A memory test (``Probe(measured=True)``, lesson 06's tiled Gram matrix) asks whether a
function stays within a budget. Measured inside the student's kernel (``tracemalloc``,
:func:`kpcourse.checks._core.call`) the answer is the student's process's word: it can
replace ``tracemalloc``, or allocate where it does not look. So for the hidden measured
calls of a cell, the grader asks the operating system instead: :func:`measure` runs each
call in a sandbox of its own (:func:`kpcourse.grading.sandbox.run_python`), where
``python -m kpcourse.grading.memory`` (this module's :func:`main`)

1. becomes the sandbox's user and applies the grading limits (:func:`.inside.enter`);
2. runs the instructor's cells (the locked ones before the test cell), warms NumPy's BLAS
   up, reads the process's data size (``VmData``, what ``RLIMIT_DATA`` counts) and
   lowers its hard ``RLIMIT_DATA`` to that size plus the
   call's allowance (``Call.memory_limit``: the result and the budget) and :data:`SLACK`,
   and its ``RLIMIT_NPROC`` so that it cannot start a process with a fresh allowance;
3. only then runs the student's cells before the test cell and the call, and saves the
   result (``out/value.npy``) and what happened (``out/status.json``).

No unprivileged process can raise a hard limit again: whatever this sandbox writes was
computed within the allowance, by code that saw only these inputs (a fresh sandbox, no
file of the notebook's own run). The grader then judges the saved result against the
reference (every value, not a few rows) as the answer of that call, marked
``Answer.limited``: its comparison needs no word of the student's process about memory.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

__all__ = ["measure", "measured_calls", "SLACK"]

#: Bytes the measured run may allocate besides the call's allowance: the interpreter's own
#: small objects while the student's cells run and the call is made (about 0.1 MiB measured).
SLACK = 4 * 2**20


# ------------------------------------------------------------------ the grader's side
def measured_calls(cells):
    """``[(grade_id, test index, call index, Call)]``: the hidden calls to measure by the OS limit.

    Visible measured calls stay measured in the kernel: a cell passes only when its hidden
    test passes too, so a forged visible measurement earns nothing.
    """
    return [(gid, t, j, c) for gid, cell in cells.items() for t, test in enumerate(cell.tests)
            if getattr(test, "hidden", False) for j, c in enumerate(test.calls)
            if c.measure_memory and c.memory_limit is not None]


def measure(nb, cells, locked, source_dir, timeout, limits=None, allowed=None, test=None):
    """Run each of ``cells``' :func:`measured_calls` of submission ``nb`` under its memory limit.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        The submission as graded (nbgrader has put back its locked cells).
    cells : dict
        ``{grade_id: Cell}`` of the grader file.
    locked : set of str
        grade_ids of the source notebook's locked cells.
    source_dir : path
        ``source/<assignment>``: the files released with it (the working folder).
    timeout : int
        Per-cell limit (s); the call has its test's own ``time_limit``.
    limits, allowed
        The grading limits and what the sandbox holds (:func:`.sandbox.run_python`).
    test : int, optional
        Only the calls of the cells' test number ``test`` (none to run: ``{}``, at no cost).

    Returns
    -------
    dict
        ``{(grade_id, test index, call index): Answer}``, each with ``limited=True``.
    """
    from kpcourse.grading.sandbox import run_python
    from kpcourse.grading.spec import is_test_cell, released_files

    out = {}
    for gid, t, j, call_ in measured_calls(cells):
        if test is not None and t != test:
            continue
        setup, student = _cells_before(nb, gid, locked, is_test_cell)
        spec = {"setup": setup, "cells": student, "call": call_.to_data(), "time_limit": cells[gid].tests[t].time_limit}
        work = Path(tempfile.mkdtemp(prefix="kpcourse-memory-"))
        try:
            for sub in ("in", "run", "answers", "out"):
                (work / sub).mkdir()
            (work / "in" / "memory.json").write_text(json.dumps(spec, allow_nan=True))
            for f in released_files(source_dir):
                shutil.copy2(f, work / "run" / f.name)
            budget = timeout * (len(setup) + len(student) + 2) + spec["time_limit"] + 30
            ran = run_python("kpcourse.grading.memory",
                             lambda root: [f"{root}/in/memory.json", f"{root}/out", "--timeout", str(timeout)],
                             work, budget, limits, allowed)
            out[(gid, t, j)] = _answer(call_, work, ran)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return out


def _cells_before(nb, gid, locked, is_test_cell):
    """The instructor's (locked) code cells before test cell ``gid``, and the student's.

    The instructor's run first, before any of the student's (so none of them can run
    student code: ballast allocated before the limit is set and freed during the call);
    one that needs a student's function fails there, harmlessly.
    """
    setup, student = [], []
    for cell in nb.cells:
        md = cell.metadata.get("nbgrader", {})
        if md.get("grade_id") == gid:
            break
        if cell.cell_type == "code" and not is_test_cell(cell):
            (setup if md.get("grade_id") in locked else student).append(cell.source)
    return setup, student


def _answer(call_, work, ran):
    """The measured run's result as an :class:`~kpcourse.checks._core.Answer` (data only, size-capped)."""
    import io

    import numpy as np

    from kpcourse.checks._core import Answer
    from kpcourse.grading.sandbox import read_untrusted

    allowance = "the result and what max_memory allows besides"  # no size: it would tell the hidden shapes
    raw = read_untrusted(work, ("out", "status.json"), 64 * 1024)
    try:
        status = json.loads(raw) if raw is not None else None
    except ValueError:
        status = None
    if not isinstance(status, dict):
        why = "it ran past its time" if ran.get("killed") else "it stopped"
        return Answer(call_, error="NoAnswer", message=f"the grader's measured run of it gave no answer ({why})",
                      limited=True)
    if status.get("error") == "MemoryError":
        return Answer(call_, error="MemoryError", limited=True,
                      message=f"it needed more memory than the grader allows this call ({allowance}): "
                              "keep every temporary within max_memory")
    if status.get("error"):
        return Answer(call_, error=str(status["error"])[:100], message=str(status.get("message", ""))[:300],
                      limited=True)
    data = read_untrusted(work, ("out", "value.npy"), int(call_.memory_limit) + 4096)
    try:
        value = np.load(io.BytesIO(data), allow_pickle=False) if data is not None else None
    except (ValueError, OSError, EOFError):
        value = None
    if value is None:
        return Answer(call_, error="NoAnswer", limited=True,
                      message=f"the grader's measured run of it returned no array of numbers within {allowance}")
    return Answer(call_, value, limited=True)


# ------------------------------------------------------------------ inside the sandbox
def _data_bytes():
    """This process's data size (``VmData``: the mappings ``RLIMIT_DATA`` counts), in bytes."""
    with open("/proc/self/status", "rb") as f:
        for line in f:
            if line.startswith(b"VmData:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmData in /proc/self/status")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m kpcourse.grading.memory")
    parser.add_argument("spec")
    parser.add_argument("out")
    parser.add_argument("--timeout", type=int, default=120, help="per-cell limit (s)")
    parser.add_argument("--limits", default=None)
    parser.add_argument("--user", type=int, default=None)
    args = parser.parse_args(argv)
    from kpcourse.grading.inside import enter

    enter(args.user, args.limits)

    import os
    import resource
    import signal

    import numpy as np
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output
    from traitlets.config import Config

    from kpcourse.checks._core import Call, Ref

    out = Path(args.out)
    spec = json.loads(Path(args.spec).read_text())
    call_ = Call.from_data(spec["call"])
    config = Config()
    config.HistoryManager.enabled = False  # no history thread, nothing kept per cell
    shell = InteractiveShell.instance(config=config)
    shell.register_magic_function(lambda line: None, "line", "matplotlib")
    with capture_output():
        for source in spec["setup"]:  # the instructor's cells: imports, before any student code
            shell.run_cell(source, store_history=False)
    np.exp(np.ones((256, 256)) @ np.ones((256, 256)))  # BLAS allocates its buffers on its first (large) product
    limit = _data_bytes() + call_.memory_limit + SLACK
    resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))  # no process of its own with a fresh allowance
    write_status = (out / "status.json").write_text  # bound now, for what follows the student's code
    signal.signal(signal.SIGALRM, signal.default_int_handler)  # a cell past its time: KeyboardInterrupt
    with capture_output():
        for source in spec["cells"]:  # the student's cells (whatever they do stays within the limit)
            signal.alarm(args.timeout)
            shell.run_cell(source, store_history=False)
            signal.alarm(0)
    ns = shell.user_ns
    args_ = [ns.get(a.name) if isinstance(a, Ref) else a for a in call_.args]
    kwargs = {k: ns.get(v.name) if isinstance(v, Ref) else v for k, v in call_.kwargs.items()}
    status = {}
    signal.alarm(max(1, int(spec["time_limit"])))
    try:
        with capture_output():
            value = ns[call_.function](*args_, **kwargs)
        signal.alarm(0)
        if not (isinstance(value, np.ndarray) and value.dtype.kind in "fiu"):
            status = {"error": "TypeError", "message": "the measured call must return a NumPy array of numbers"}
        else:  # written as it is, in chunks when not contiguous: no copy of it under the limit
            np.save(out / "value.npy", value, allow_pickle=False)
    except MemoryError:
        status = {"error": "MemoryError"}
    except KeyboardInterrupt:
        status = {"error": "TimeUp", "message": f"{spec['time_limit']:g}"}
    except KeyError:
        status = {"error": "NameError", "message": "missing"}
    except Exception as exc:  # noqa: BLE001 - the student's error is the answer
        status = {"error": type(exc).__name__, "message": str(exc)[:300]}
    finally:
        signal.alarm(0)
    write_status(json.dumps(status))
    sys.stdout.flush()
    os._exit(0)  # no interpreter shutdown under the limit


if __name__ == "__main__":
    sys.exit(main())
