"""The hidden tests' calls, made by the grader in a run where no student statement has run.

The student's kernel (:mod:`kpcourse.grading.sandbox.inside`) never sees a hidden input. Every call of every
hidden test is made here instead, in a sandbox of its own
(:func:`kpcourse.grading.sandbox.bwrap.run_python`), where ``python -m kpcourse.grading.judge.rerun``
(this module's :func:`main`) becomes the sandbox's user, applies the grading limits
(:func:`kpcourse.grading.sandbox.inside.enter`), runs the instructor's (locked) cells, then the student's
**definitions only** (:func:`kpcourse.grading.judge.definitions.definitions`: imports, ``def``,
``class``, constants; never a statement that could run the student's code), and then, for
each call, forks a child that makes that one call and sends back what it returned through a
pipe. So what decides a point is computed where

* no top-level statement of the student's ran (nothing patched, hooked or started
  beforehand: the "forge" classes of the pipeline's golden cases);
* each call is alone: a child cannot start a process (``RLIMIT_NPROC`` 0), and it ends before
  the next child starts, so no call sees or changes another's inputs or answer; the parent,
  which writes the answers, ran no student code, and no child can reach into it (it is not
  dumpable, so no ``ptrace`` or ``/proc/<pid>/mem``);
* **a test that must not change its inputs** (``Check.pure``): every array argument is a
  read-only memory map of a file that the grader wrote into the sandbox's read-only ``in/``
  folder. NumPy refuses to write to it or to make it writable, its pages cannot be written
  (a write by address stops the child), and the file cannot be opened for writing;
* **a measured call** (``Probe(measured=True)``): the child lowers its hard ``RLIMIT_AS``
  (address space: private, shared and file-backed memory alike, ``np.memmap`` and ``memfd``
  included) and ``RLIMIT_DATA`` to what it holds plus the call's allowance
  (``Call.memory_limit``: the result and the budget) and the slack (:data:`SLACK`,
  :data:`SLACK_AS`); no unprivileged process can raise a hard limit again.

What the run wrote is read as data only (:func:`kpcourse.grading.sandbox.bwrap.read_untrusted`, size-capped, never
unpickled): the grader judges those answers against its references
(:func:`kpcourse.grading.judge.trusted.verdict`).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["rerun", "planned", "Job", "SLACK", "SLACK_AS", "spec_of", "answer_of", "replace_arrays", "result_file",
           "status_of"]

#: Bytes a measured call may allocate besides the call's allowance: the interpreter's own
#: small objects while the call is made (about 0.1 MiB measured).
SLACK = 4 * 2**20
#: Address space a measured call may map besides its allowance (the interpreter's small objects,
#: as for :data:`SLACK`): a file mapped into memory counts in full.
SLACK_AS = 4 * 2**20

#: What NumPy says when code writes to a read-only array or tries to make it writable.
_READ_ONLY = ("read-only", "WRITEABLE")
#: Seconds a child may take beyond its call's time limit (loading its inputs, sending its answer).
_GRACE = 10


@dataclass(frozen=True)
class Job:
    """One call the grader makes itself: test cell ``gid``, test ``test``, call ``call``;
    measured under ``memory_limit``, or on read-only inputs (``read_only``)."""

    gid: str
    test: int
    call: int
    memory_limit: int | None = None
    read_only: bool = False


# ------------------------------------------------------------------ the grader's side
def planned(cells):
    """Every call of every hidden test of ``cells`` (``{grade_id: Cell}``), as :class:`Job` s."""
    jobs = []
    for gid, cell in cells.items():
        for t, test in enumerate(cell.tests):
            if not getattr(test, "hidden", False):
                continue
            for j, c in enumerate(test.calls):
                limit = c.memory_limit if c.measure_memory else None
                jobs.append(Job(gid, t, j, limit, bool(getattr(test, "read_only", False)) and limit is None))
    return jobs


def spec_of(nb, cells, locked, skip=()):
    """What the grader's run needs: ``(spec, jobs, kept)``.

    ``spec`` (plain JSON) holds the instructor's cells (``setup``), the student's definitions
    (``code``) and each job's call; ``kept`` is the :class:`~kpcourse.grading.judge.definitions.Kept` (for messages).
    """
    from kpcourse.grading.judge.definitions import definitions
    from kpcourse.grading.judge.spec import is_test_cell

    setup, student = [], []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and not is_test_cell(cell) and i not in skip:
            (setup if cell.metadata.get("nbgrader", {}).get("grade_id") in locked else student).append(cell.source)
    kept = definitions(student, setup)
    jobs = planned(cells)
    calls = []
    for job in jobs:
        test = cells[job.gid].tests[job.test]
        calls.append({"call": test.calls[job.call].to_data(), "time_limit": test.time_limit,
                      "memory_limit": job.memory_limit, "read_only": job.read_only,
                      "cap": cells[job.gid].answer_bytes})
    return {"setup": setup, "code": kept.code, "calls": calls}, jobs, kept


def rerun(nb, cells, locked, source_dir, timeout, limits=None, allowed=None, answer_bytes=2**20, skip=()):
    """Make every hidden call of ``cells`` for submission ``nb`` in the grader's own run.

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
        Per-cell limit (s) for the cells that run first; each call has its test's ``time_limit``.
    limits, allowed
        The grading limits and what the sandbox holds (:func:`kpcourse.grading.sandbox.bwrap.run_python`).
    answer_bytes : int, optional
        Largest answer of one call (a cell's ``answer_bytes`` wins).
    skip : collection of int
        Indices of the cells the notebook's own run stopped (past their time, or their kernel
        died): left out here as there.

    Returns
    -------
    dict
        ``{(grade_id, test index, call index): Answer}`` for every :func:`planned` job.
    """
    import numpy as np

    from kpcourse.grading.judge.spec import released_files
    from kpcourse.grading.sandbox.bwrap import run_python

    spec, jobs, kept = spec_of(nb, cells, locked, skip)
    if not jobs:
        return {}
    for item in spec["calls"]:
        item["cap"] = item["cap"] or answer_bytes
    calls = [cells[j.gid].tests[j.test].calls[j.call] for j in jobs]
    work = Path(tempfile.mkdtemp(prefix="kpcourse-rerun-"))
    try:
        for sub in ("in", "run", "answers", "out"):
            (work / sub).mkdir()
        (work / "in" / "rerun.json").write_text(json.dumps(spec, allow_nan=True))
        for k, (job, c) in enumerate(zip(jobs, calls, strict=True)):
            if job.memory_limit is None:  # the inputs, each as a file the sandbox maps read-only
                for key, value in _arrays(c):
                    np.save(work / "in" / f"arg-{k}-{key}.npy", value, allow_pickle=False)
        for f in released_files(source_dir):
            shutil.copy2(f, work / "run" / f.name)
        budget = timeout * (len(spec["setup"]) + len(spec["code"]) + 2) + \
            sum(item["time_limit"] + _GRACE for item in spec["calls"]) + 30
        ran = run_python("kpcourse.grading.judge.rerun",
                         lambda root: [f"{root}/in/rerun.json", f"{root}/out", "--timeout", str(timeout)],
                         work, budget, limits, allowed)
        return {(job.gid, job.test, job.call): answer_of(c, k, job, work, ran, kept, spec["calls"][k]["cap"])
                for k, (job, c) in enumerate(zip(jobs, calls, strict=True))}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _arrays(call_):
    """``(position or keyword, array)`` of ``call_``'s arguments that are arrays of numbers."""
    import numpy as np

    pairs = [*enumerate(call_.args), *call_.kwargs.items()]
    return [(key, v) for key, v in pairs if isinstance(v, np.ndarray) and v.dtype.kind in "biufc"]


def replace_arrays(call_, make):
    """Put ``make(key, array)`` in place of each of ``call_``'s arrays of numbers (:func:`_arrays`)."""
    for key, value in _arrays(call_):
        if isinstance(key, int):
            call_.args = (*call_.args[:key], make(key, value), *call_.args[key + 1:])
        else:
            call_.kwargs[key] = make(key, value)


def result_file(k, kind):
    """Name of call ``k``'s result in ``out/``: its ``status`` and ``answer`` (JSON), or a measured
    call's ``value`` (``.npy``)."""
    return f"{kind}-{k}.npy" if kind == "value" else f"{kind}-{k}.json"


def status_of(answer):
    """How a call ended, as the status file holds it: ``{}``, or its error and message."""
    return {"error": answer.error, "message": answer.message} if answer.error is not None else {}



def answer_of(call_, k, job, work, ran, kept=None, cap=2**20):
    """The :class:`~kpcourse.checks._core.Answer` of job ``k`` as the run wrote it (data only).

    ``out/status-k.json`` says how the call ended; ``out/answer-k.json`` holds its answer, or
    ``out/value-k.npy`` a measured call's array. A write to a read-only input is named as a
    change of it; a missing name that a left-out top-level statement binds says so (``kept``).
    """
    import numpy as np

    from kpcourse.checks._core import Answer
    from kpcourse.grading.sandbox.bwrap import read_untrusted

    measured = job.memory_limit is not None
    raw = read_untrusted(work, ("out", result_file(k, "status")), 64 * 1024)
    try:
        status = json.loads(raw) if raw is not None else None
    except ValueError:
        status = None
    if not isinstance(status, dict):
        why = "it ran past its time" if ran.get("killed") else "it stopped"
        status = {"error": "NoAnswer", "message": f"the grader's own run of it gave no answer ({why})"}
    if status.get("error"):
        error, message = str(status["error"])[:100], str(status.get("message", ""))[:300]
        if job.read_only and error == "ValueError" and any(s in message for s in _READ_ONLY):
            return Answer(call_, mutated=[key for key, _ in _arrays(call_)] or [0])  # it wrote to an input
        if error == "NameError" and kept is not None:
            message += kept.why_missing(message, call_.function)
        if measured and (error == "MemoryError" or "Cannot allocate memory" in message):  # or a map refused
            error = "MemoryError"  # the message gives no size: it would tell the hidden shapes
            message = ("it needed more memory than the grader allows this call (the result and what max_memory "
                       "allows besides): keep every temporary within max_memory")
        return Answer(call_, error=error, message=message, limited=measured)
    if measured:
        data = read_untrusted(work, ("out", result_file(k, "value")), int(call_.memory_limit) + 4096)
        try:
            value = np.load(io.BytesIO(data), allow_pickle=False) if data is not None else None
        except (ValueError, OSError, EOFError):
            value = None
        if value is None:
            return Answer(call_, error="NoAnswer", limited=True,
                          message="the grader's measured run of it returned no array of numbers within the result "
                                  "and what max_memory allows besides")
        return Answer(call_, value, limited=True)
    data = read_untrusted(work, ("out", result_file(k, "answer")), cap)
    try:
        item = json.loads(data) if data is not None else None
    except (ValueError, RecursionError):
        item = None
    if item is None:
        return Answer(call_, error="NoAnswer", message="the grader's own run of it gave no answer it could read "
                                                       "(larger than the limit, or not plain data)")
    return Answer.from_data(call_, item)


# ------------------------------------------------------------------ inside the sandbox
def _memory_bytes(field_name):
    """This process's ``VmData`` (what ``RLIMIT_DATA`` counts) or ``VmSize`` (``RLIMIT_AS``), in bytes."""
    with open("/proc/self/status", "rb") as f:
        for line in f:
            if line.startswith(field_name.encode() + b":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field_name} in /proc/self/status")


def _not_dumpable():
    """No process of this user may ``ptrace`` this one or read its memory (``PR_SET_DUMPABLE`` 0)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed")


def _child(item, k, spec_dir, ns, w):
    """In the forked child: make call ``k`` alone and send its status line and answer through ``w``."""
    import resource

    import numpy as np

    from kpcourse.checks._core import Call, call

    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))  # no process or thread of its own
    c = Call.from_data(item["call"])
    measured = item["memory_limit"] is not None
    if not measured:  # each array: the file the grader wrote; a read-only map for a test of purity
        replace_arrays(c, lambda key, _: np.asarray(np.load(spec_dir / f"arg-{k}-{key}.npy", mmap_mode="r"))
                       if item["read_only"] else np.load(spec_dir / f"arg-{k}-{key}.npy"))
    else:
        c.measure_memory = False  # measured here by the limits, never by tracemalloc
        allowance = int(item["memory_limit"])
        for kind, field_name, slack in ((resource.RLIMIT_AS, "VmSize", SLACK_AS),
                                        (resource.RLIMIT_DATA, "VmData", SLACK)):
            limit = _memory_bytes(field_name) + allowance + slack
            resource.setrlimit(kind, (limit, limit))
    def send(data):
        view = memoryview(data).cast("B")
        while len(view):
            view = view[os.write(w, view[:1 << 20]):]

    answer = call(ns.get(c.function), c, ns, time_limit=item["time_limit"], private=not item["read_only"] and
                  not measured)
    if answer.error is not None:
        send(json.dumps(status_of(answer)).encode() + b"\n")
    elif not measured:
        send(b"{}\n" + json.dumps(answer.to_data(), allow_nan=True).encode())
    elif not (isinstance(answer.value, np.ndarray) and answer.value.dtype.kind in "fiu"):
        send(b'{"error": "TypeError", "message": "the measured call must return a NumPy array of numbers"}\n')
    else:
        send(b"{}\n")
        _send_array(send, answer.value)
    os._exit(0)


def _send_array(send, value):
    """``value`` in the ``.npy`` format, without a copy of it (under the limit): a row at a time
    when it is neither C- nor Fortran-contiguous."""
    import numpy as np
    from numpy.lib import format as npy

    head = io.BytesIO()
    npy.write_array_header_1_0(head, npy.header_data_from_array_1_0(value))
    send(head.getvalue())
    if value.flags.c_contiguous or value.ndim == 0:
        send(np.ascontiguousarray(value))
    elif value.flags.f_contiguous:  # the header says Fortran order: its transpose is C-contiguous
        send(value.T)
    else:
        for row in value.reshape(-1, *value.shape[-1:]) if value.ndim <= 2 else value:
            send(np.ascontiguousarray(row))


def _collect(pid, r, deadline, cap):
    """Read the child's pipe until it closes, ``cap`` bytes or the ``deadline``; reap the child.

    Returns ``(status line bytes or None, payload bytes, why)``.
    """
    import select
    import signal
    import time

    chunks, size, why = [], 0, None
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            why = "time"
            break
        ready, _, _ = select.select([r], [], [], left)
        if not ready:
            continue
        chunk = os.read(r, 1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > cap:
            why = "size"
            break
    os.close(r)
    try:
        os.kill(pid, signal.SIGKILL)  # done or not: it has nothing more to say
    except ProcessLookupError:
        pass
    _, code = os.waitpid(pid, 0)
    data = b"".join(chunks)
    head, sep, payload = data.partition(b"\n")
    if why is None and not sep and os.WIFSIGNALED(code) and os.WTERMSIG(code) != signal.SIGKILL:
        why = f"signal {os.WTERMSIG(code)}"
    return (head if sep else None), payload, why


def _write(path, data):
    """Write ``data`` to ``path`` afresh: never through a file or a link a child left there."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m kpcourse.grading.judge.rerun")
    parser.add_argument("spec")
    parser.add_argument("out")
    parser.add_argument("--timeout", type=int, default=120, help="per-cell limit (s)")
    parser.add_argument("--limits", default=None)
    parser.add_argument("--user", type=int, default=None)
    args = parser.parse_args(argv)
    from kpcourse.grading.sandbox.inside import enter

    enter(args.user, args.limits, out=args.out)

    import signal
    import time

    import numpy as np
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output
    from traitlets.config import Config

    out, spec_path = Path(args.out), Path(args.spec)
    spec = json.loads(spec_path.read_text())
    config = Config()
    config.HistoryManager.enabled = False  # no history thread, nothing kept per cell
    shell = InteractiveShell.instance(config=config)
    shell.register_magic_function(lambda line: None, "line", "matplotlib")
    signal.signal(signal.SIGALRM, signal.default_int_handler)  # a cell past its time: KeyboardInterrupt
    with capture_output():
        for source in [*spec["setup"], *spec["code"]]:  # the instructor's cells, then the student's definitions
            signal.alarm(args.timeout)
            shell.run_cell(source, store_history=False)
            signal.alarm(0)
    _not_dumpable()
    if any(item["memory_limit"] is not None for item in spec["calls"]):
        np.exp(np.ones((256, 256)) @ np.ones((256, 256)))  # BLAS allocates its buffers on its first (large) product
    results = []
    for k, item in enumerate(spec["calls"]):
        cap = (int(item["memory_limit"]) + 4096) if item["memory_limit"] is not None else int(item["cap"])
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                _child(item, k, spec_path.parent, shell.user_ns, w)
            finally:
                os._exit(1)
        os.close(w)
        head, payload, why = _collect(pid, r, time.monotonic() + item["time_limit"] + _GRACE, cap + 1024)
        results.append((head, payload, why))
    for k, (head, payload, why) in enumerate(results):  # every child has ended: only this process writes
        if why == "time":
            status = {"error": "TimeUp", "message": f"{spec['calls'][k]['time_limit']:g}"}
        elif why == "size":
            status = {"error": "NoAnswer", "message": "its answer was larger than the limit while grading"}
        elif head is None:
            status = {"error": "NoAnswer", "message": f"the grader's own run of it stopped ({why or 'no answer'})"}
        else:
            try:
                status = json.loads(head)
            except ValueError:
                status = {"error": "NoAnswer", "message": "the grader's own run of it gave no answer it could read"}
        _write(out / result_file(k, "status"), json.dumps(status).encode())
        if not status.get("error"):
            _write(out / result_file(k, "value" if spec["calls"][k]["memory_limit"] is not None else "answer"),
                   payload)
    sys.stdout.flush()
    os._exit(0)  # no interpreter shutdown


if __name__ == "__main__":
    sys.exit(main())
