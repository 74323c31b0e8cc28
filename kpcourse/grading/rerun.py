"""Calls the grader runs again itself, where the student's code cannot forge what is measured.

Two things a kernel reports about a call are the student's process's word: the memory it
allocated (``tracemalloc``, which the student's code can replace) and whether it left its
inputs as they were (a comparison after the call, whose helper can be replaced too). For
the hidden tests that ask either, :func:`rerun` runs the calls again in a sandbox of their
own (:func:`kpcourse.grading.sandbox.run_python`), where ``python -m
kpcourse.grading.rerun`` (this module's :func:`main`) becomes the sandbox's user, applies
the grading limits (:func:`.inside.enter`) and runs the instructor's cells (the locked ones
before the test cell), then

* **a measured call** (``Probe(measured=True)``, lesson 06's tiled Gram matrix; one run
  each): warms NumPy's BLAS up, reads the process's data size (``VmData``, what
  ``RLIMIT_DATA`` counts), lowers its hard ``RLIMIT_DATA`` to that size plus the call's
  allowance (``Call.memory_limit``: the result and the budget) and :data:`SLACK`, and its
  ``RLIMIT_NPROC`` to 0 so that it cannot start a process with a fresh allowance; no
  unprivileged process can raise a hard limit again, so whatever comes back was computed
  within the allowance. The result is saved as ``out/value.npy``.
* **the calls of a test that must not change its inputs** (``Check.pure``; one run for the
  test): every array argument is a read-only memory map of a file that the grader wrote
  into the sandbox's read-only ``in/`` folder. NumPy refuses to write to it or to make it
  writable, its pages cannot be written, and the file cannot be opened for writing: a
  function that changes its inputs fails there, whatever the kernel said. The answers are
  saved as ``out/answers.json``. (What this cannot see: a function written to copy inputs it
  cannot write and to write to those it can, with the kernel's comparison forged too. That
  takes knowing exactly what changing an input means; it earns one cell's "inputs unchanged".)

Only then do the student's cells before the test cell run (each under the per-cell time
limit), and the calls. The sandbox is fresh (no file of the notebook's own run), and what
it wrote is read as data only (:func:`.sandbox.read_untrusted`, size-capped, never
unpickled): the grader judges those answers against its references in place of the
kernel's, once the test has passed on the kernel's answers (:func:`.trusted.verdict`).
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["rerun", "planned", "Run", "SLACK"]

#: Bytes a measured run may allocate besides the call's allowance: the interpreter's own
#: small objects while the student's cells run and the call is made (about 0.1 MiB measured).
SLACK = 4 * 2**20

#: What NumPy says when code writes to a read-only array or tries to make it writable.
_READ_ONLY = ("read-only", "WRITEABLE")


@dataclass(frozen=True)
class Run:
    """One run of the grader's own: test cell ``gid``, its test number ``test``, the calls
    ``calls`` (indices) -- one measured call under ``memory_limit``, or the test's calls with
    read-only inputs."""

    gid: str
    test: int
    calls: tuple
    memory_limit: int | None = None


# ------------------------------------------------------------------ the grader's side
def planned(cells):
    """The :class:`Run` s the grader makes for ``cells`` (``{grade_id: Cell}``): hidden tests only.

    Visible tests stay judged on the kernel's answers: a cell passes only when its hidden
    test passes too, so a forged visible measurement earns nothing.
    """
    runs = []
    for gid, cell in cells.items():
        for t, test in enumerate(cell.tests):
            if not getattr(test, "hidden", False):
                continue
            measured = [j for j, c in enumerate(test.calls) if c.measure_memory and c.memory_limit is not None]
            runs += [Run(gid, t, (j,), test.calls[j].memory_limit) for j in measured]
            rest = tuple(j for j in range(len(test.calls)) if j not in measured)
            if getattr(test, "read_only", False) and rest:
                runs.append(Run(gid, t, rest))
    return runs


def rerun(nb, cells, locked, source_dir, timeout, limits=None, allowed=None, test=None, answer_bytes=2**20,
          skip=()):
    """Make each of ``cells``' :func:`planned` runs of submission ``nb``.

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
        Per-cell limit (s); each call has its test's own ``time_limit``.
    limits, allowed
        The grading limits and what the sandbox holds (:func:`.sandbox.run_python`).
    test : int, optional
        Only the runs of the cells' test number ``test`` (none to make: ``{}``, at no cost).
    answer_bytes : int, optional
        Largest answers file read from a run with read-only inputs.
    skip : collection of int, optional
        Indices of the cells the notebook's own run stopped (past their time, or their
        kernel died): left out here as there (a loop that swallows the interrupt would
        otherwise hold the run until its budget).

    Returns
    -------
    dict
        ``{(grade_id, test index, call index): Answer}``.
    """
    import numpy as np

    from kpcourse.grading.sandbox import run_python
    from kpcourse.grading.spec import released_files

    out = {}
    for run in planned(cells):
        if test is not None and run.test != test:
            continue
        calls = [cells[run.gid].tests[run.test].calls[j] for j in run.calls]
        setup, student = _cells_before(nb, run.gid, locked, skip)
        spec = {"setup": setup, "cells": student, "calls": [c.to_data() for c in calls],
                "time_limit": cells[run.gid].tests[run.test].time_limit, "memory_limit": run.memory_limit}
        work = Path(tempfile.mkdtemp(prefix="kpcourse-rerun-"))
        try:
            for sub in ("in", "run", "answers", "out"):
                (work / sub).mkdir()
            (work / "in" / "rerun.json").write_text(json.dumps(spec, allow_nan=True))
            if run.memory_limit is None:  # the inputs, each as a file the sandbox maps read-only
                for k, c in enumerate(calls):
                    for key, value in _arrays(c):
                        np.save(work / "in" / f"arg-{k}-{key}.npy", value, allow_pickle=False)
            for f in released_files(source_dir):
                shutil.copy2(f, work / "run" / f.name)
            budget = timeout * (len(setup) + len(student) + 2) + spec["time_limit"] * len(calls) + 30
            ran = run_python("kpcourse.grading.rerun",
                             lambda root: [f"{root}/in/rerun.json", f"{root}/out", "--timeout", str(timeout)],
                             work, budget, limits, allowed)
            if run.memory_limit is None:
                answers = _answers(calls, work, ran, answer_bytes)
            else:
                answers = [_measured_answer(calls[0], work, ran)]
            out.update({(run.gid, run.test, j): a for j, a in zip(run.calls, answers, strict=True)})
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return out


def _arrays(call_):
    """``(position or keyword, array)`` of ``call_``'s arguments that are arrays of numbers."""
    import numpy as np

    pairs = [*enumerate(call_.args), *call_.kwargs.items()]
    return [(key, v) for key, v in pairs if isinstance(v, np.ndarray) and v.dtype.kind in "biufc"]


def _cells_before(nb, gid, locked, skip=()):
    """The instructor's (locked) code cells before test cell ``gid``, and the student's.

    The instructor's run first, before any of the student's (so none of them can run
    student code: ballast allocated before the limit is set and freed during the call);
    one that needs a student's function fails there, harmlessly.
    """
    from kpcourse.grading.spec import is_test_cell

    setup, student = [], []
    for i, cell in enumerate(nb.cells):
        md = cell.metadata.get("nbgrader", {})
        if md.get("grade_id") == gid:
            break
        if cell.cell_type == "code" and not is_test_cell(cell) and i not in skip:
            (setup if md.get("grade_id") in locked else student).append(cell.source)
    return setup, student


def _status(work, ran):
    """``out/status.json`` of the run as a dict, or the :class:`Answer` error fields of a run that gave none."""
    from kpcourse.grading.sandbox import read_untrusted

    raw = read_untrusted(work, ("out", "status.json"), 64 * 1024)
    try:
        status = json.loads(raw) if raw is not None else None
    except ValueError:
        status = None
    if isinstance(status, dict):
        return status
    why = "it ran past its time" if ran.get("killed") else "it stopped"
    return {"error": "NoAnswer", "message": f"the grader's own run of it gave no answer ({why})"}


def _error(call_, status, limited=False):
    """The :class:`Answer` of a run whose ``status`` names an error (the student's, or none came back)."""
    from kpcourse.checks._core import Answer

    return Answer(call_, error=str(status["error"])[:100], message=str(status.get("message", ""))[:300],
                  limited=limited)


def _answers(calls, work, ran, answer_bytes):
    """The answers of a run with read-only inputs; a write to an input is named as a change of it."""
    from kpcourse.checks._core import Answer
    from kpcourse.grading.sandbox import read_untrusted

    status = _status(work, ran)
    if status.get("error"):
        return [_error(c, status) for c in calls]
    data = read_untrusted(work, ("out", "answers.json"), answer_bytes)
    try:
        raw = json.loads(data) if data is not None else None
    except (ValueError, RecursionError):
        raw = None
    raw = raw if isinstance(raw, list) and len(raw) == len(calls) else [None] * len(calls)
    answers = []
    for c, item in zip(calls, raw, strict=True):
        a = Answer.from_data(c, item)
        if a.error == "ValueError" and any(s in a.message for s in _READ_ONLY):
            a = Answer(c, mutated=[key for key, _ in _arrays(c)] or [0])  # it wrote to an input
        answers.append(a)
    return answers


def _measured_answer(call_, work, ran):
    """The measured run's result as an :class:`~kpcourse.checks._core.Answer` (data only, size-capped)."""
    import numpy as np

    from kpcourse.checks._core import Answer
    from kpcourse.grading.sandbox import read_untrusted

    allowance = "the result and what max_memory allows besides"  # no size: it would tell the hidden shapes
    status = _status(work, ran)
    if status.get("error") == "MemoryError":
        return Answer(call_, error="MemoryError", limited=True,
                      message=f"it needed more memory than the grader allows this call ({allowance}): "
                              "keep every temporary within max_memory")
    if status.get("error"):
        return _error(call_, status, limited=True)
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
    parser = argparse.ArgumentParser(prog="python -m kpcourse.grading.rerun")
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

    from kpcourse.checks._core import Call, call

    out, spec_path = Path(args.out), Path(args.spec)
    spec = json.loads(spec_path.read_text())
    calls = [Call.from_data(c) for c in spec["calls"]]
    measured = spec.get("memory_limit") is not None
    if not measured:  # each array argument: a read-only map of the file the grader wrote (read-only mount)
        for k, c in enumerate(calls):
            for key, _ in _arrays(c):
                view = np.asarray(np.load(spec_path.parent / f"arg-{k}-{key}.npy", mmap_mode="r"))
                if isinstance(key, int):
                    c.args = (*c.args[:key], view, *c.args[key + 1:])
                else:
                    c.kwargs[key] = view
    config = Config()
    config.HistoryManager.enabled = False  # no history thread, nothing kept per cell
    shell = InteractiveShell.instance(config=config)
    shell.register_magic_function(lambda line: None, "line", "matplotlib")
    with capture_output():
        for source in spec["setup"]:  # the instructor's cells: imports, before any student code
            shell.run_cell(source, store_history=False)
    if measured:
        np.exp(np.ones((256, 256)) @ np.ones((256, 256)))  # BLAS allocates its buffers on its first (large) product
        limit = _data_bytes() + calls[0].memory_limit + SLACK
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
        resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))  # no process of its own with a fresh allowance
    write_status = (out / "status.json").write_text  # bound now, for what follows the student's code
    write_answers, dumps = (out / "answers.json").write_text, json.dumps
    signal.signal(signal.SIGALRM, signal.default_int_handler)  # a cell past its time: KeyboardInterrupt
    with capture_output():
        for source in spec["cells"]:  # the student's cells (whatever they do stays within the limits)
            signal.alarm(args.timeout)
            shell.run_cell(source, store_history=False)
            signal.alarm(0)
    ns = shell.user_ns
    for c in calls:  # measured here by the limit, never by tracemalloc (its own memory would count)
        c.measure_memory = False
    with capture_output():  # the one way to call a student's function, on these very arguments
        answers = [call(ns.get(c.function), c, ns, time_limit=spec["time_limit"], private=False) for c in calls]
    if not measured:
        write_answers(dumps([a.to_data() for a in answers], allow_nan=True))
        write_status("{}")
    else:
        answer, status = answers[0], {}
        if answer.error is not None:
            status = {"error": answer.error, "message": answer.message}
        elif not (isinstance(answer.value, np.ndarray) and answer.value.dtype.kind in "fiu"):
            status = {"error": "TypeError", "message": "the measured call must return a NumPy array of numbers"}
        else:
            try:  # written as it is, in chunks when not contiguous: no copy of it under the limit
                np.save(out / "value.npy", answer.value, allow_pickle=False)
            except MemoryError:
                status = {"error": "MemoryError"}
        write_status(dumps(status))
    sys.stdout.flush()
    os._exit(0)  # no interpreter shutdown (under the limit, or after the student's code)


if __name__ == "__main__":
    sys.exit(main())
