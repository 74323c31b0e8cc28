"""What one submission may use while it is graded, and the small steps that enforce it.

:class:`Limits` holds the numbers (each one a setting of ``TrustedExecute`` in
``nbgrader_config.py``). They are enforced in three places:

* inside the sandbox, before any student code (:func:`apply_rlimits`, called by
  :mod:`kpcourse.grading.sandbox.inside`): the kernel's per-process memory (``RLIMIT_DATA``), processes and
  threads (``RLIMIT_NPROC``, counted per sandbox: each runs as its own user), the
  largest file (``RLIMIT_FSIZE``); and the output each cell keeps (:func:`cap_outputs`);
* around the sandbox, by the grader (:mod:`kpcourse.grading.sandbox.bwrap`): the memory of all the sandbox's
  processes together and their number, in a control group of its own (:mod:`kpcourse.grading.sandbox.cgroup`: every
  page counted, shared memory included; where none can be made, resident memory), the bytes
  written to its work folder, the size of its ``/tmp``;
* in the grader, on what comes back (:mod:`kpcourse.grading.judge.trusted`): the executed notebook and the
  answers are read with size caps, outputs capped again.

A limit that is hit costs the cells that did not finish; :func:`limits_hit` names it
for the feedback and the class report. This module imports only the standard library.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass

__all__ = ["Limits", "apply_rlimits", "cap_outputs", "cap_kernel_output", "limits_hit", "describe"]

MiB = 2**20
GiB = 2**30


@dataclass(frozen=True)
class Limits:
    """Resource limits of one submission while it is graded.

    Parameters
    ----------
    memory_bytes : int, default=2 GiB
        Memory of the submission: of each of its processes (``RLIMIT_DATA``: an
        allocation past it raises ``MemoryError``) and of all of them together (its
        control group: memfd, tmpfs and mapped files included; past it the sandbox is
        stopped).
    processes : int, default=256
        Processes and threads the submission may run at once (its control group's
        ``pids.max``, and ``RLIMIT_NPROC`` of its user).
    tmp_bytes : int, default=512 MiB
        Size of the sandbox's ``/tmp`` (where ``HOME`` also lives).
    work_bytes : int, default=256 MiB
        Bytes the submission may write into its work folder (answers, executed notebook).
    file_bytes : int, default=128 MiB
        Largest file it may write.
    output_bytes : int, default=1 MiB
        Output each cell keeps (text and images); the rest is cut, with a note.
    answer_bytes : int, default=1 MiB
        Largest answers file of one test cell the grader reads.
    """

    memory_bytes: int = 2 * GiB
    processes: int = 256
    tmp_bytes: int = 512 * MiB
    work_bytes: int = 256 * MiB
    file_bytes: int = 128 * MiB
    output_bytes: int = 1 * MiB
    answer_bytes: int = 1 * MiB

    def __post_init__(self):
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"Limits.{f.name} must be a positive whole number, got {value!r} "
                                 "(set it in nbgrader_config.py, e.g. c.TrustedExecute.memory_bytes = 2 * 2**30)")
        if self.processes < 16:
            raise ValueError(f"Limits.processes must be at least 16 (a kernel alone runs about 8 threads), "
                             f"got {self.processes}")

    def to_json(self):
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text):
        return cls(**json.loads(text))


def apply_rlimits(limits):
    """Set the kernel-enforced limits of this process and of every process it starts."""
    import resource

    for name, value in (("RLIMIT_DATA", limits.memory_bytes), ("RLIMIT_NPROC", limits.processes),
                        ("RLIMIT_FSIZE", limits.file_bytes), ("RLIMIT_CORE", 0)):
        which = getattr(resource, name, None)
        if which is None:
            continue
        _, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)  # a limit can be lowered, never raised
        resource.setrlimit(which, (value, value))


_CUT = ("[output cut: this cell printed more than {limit} while it was graded; "
        "the rest of its output is not kept]\n")


def output_size(output):
    """Bytes an output (or an output message's content) takes: its text, data, error and traceback."""
    size = len(str(output.get("text", "")))
    for value in (output.get("data") or {}).values():
        size += len(value) if isinstance(value, str) else len(json.dumps(value, default=str))
    size += sum(len(str(line)) for line in output.get("traceback") or [])
    return size + len(str(output.get("evalue", "")))


def cap_kernel_output(limit):
    """In a grading kernel, before any student code: what one cell prints past ``limit``
    characters is dropped (a note says so). The student's code may undo this; the executor's
    own caps (per cell, per message) still hold then."""
    import sys

    from IPython import get_ipython

    state = {"used": 0, "cut": False}

    def reset(*args, **kwargs):
        state.update(used=0, cut=False)

    get_ipython().events.register("pre_run_cell", reset)
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)

        def capped(text, _write=stream.write):
            if state["cut"]:
                return len(text)
            room = limit - state["used"]
            if len(text) > room:
                state["cut"] = True
                _write(text[: max(room, 0)])
                sys.__stderr__.flush()
                _write("\n" + cut_note(limit)["text"])
                return len(text)
            state["used"] += len(text)
            return _write(text)

        stream.write = capped


def cut_note(limit):
    """The stream output that stands where a cell's output was cut."""
    return {"output_type": "stream", "name": "stderr", "text": _CUT.format(limit=describe(limit))}


def cap_outputs(outputs, limit):
    """The outputs of one cell, cut once they pass ``limit`` bytes (a note marks the cut).

    An error output is kept (shortened) after the cut: it says why the cell failed.
    Returns ``(outputs, cut)``.
    """
    kept, used, cut = [], 0, False
    for out in outputs:
        size = output_size(out)
        if used + size <= limit:
            kept.append(out)
            used += size
            continue
        if not cut:
            kept.append(cut_note(limit))
            cut = True
        if out.get("output_type") == "error":
            short = dict(out)
            short["evalue"] = str(out.get("evalue", ""))[:500]
            short["traceback"] = [str(line)[:500] for line in (out.get("traceback") or [])[-5:]]
            kept.append(short)
    return kept, cut


def limits_hit(outputs):
    """Which limits a cell's outputs show were hit: ``"memory"``, ``"processes"``, ``"file size"``,
    ``"disk"``, ``"output"`` (each error class the kernel raises at a limit)."""
    hit = []
    for out in outputs:
        text = str(out.get("text", "")) if out.get("output_type") == "stream" else ""
        if text.startswith("[output cut:"):
            hit.append("output")
        if out.get("output_type") != "error":
            continue
        ename, evalue = str(out.get("ename", "")), str(out.get("evalue", ""))
        if ename == "MemoryError" or "Cannot allocate memory" in evalue:
            hit.append("memory")
        elif "Errno 11" in evalue and ename in ("BlockingIOError", "OSError", "RuntimeError"):
            hit.append("processes")
        elif "Errno 27" in evalue or "File too large" in evalue:
            hit.append("file size")
        elif "Errno 28" in evalue or "No space left" in evalue:
            hit.append("disk")
    return list(dict.fromkeys(hit))


def describe(nbytes):
    """``2 GiB``, ``512 MiB``, ``1 MiB``: a size for messages."""
    for unit, size in (("GiB", GiB), ("MiB", MiB), ("KiB", 1024)):
        if nbytes >= size:
            value = nbytes / size
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{nbytes} bytes"
