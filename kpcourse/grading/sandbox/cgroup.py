"""A control group of its own for each sandbox: all of its memory counted, its processes capped.

Per-process limits (``RLIMIT_DATA``) and a watch over resident memory miss shared memory: files
of ``memfd_create``, of a tmpfs (``/tmp``, ``/dev/shm``) and their mappings (``np.memmap``). The
kernel charges a cgroup for all of those pages. :meth:`Group.create` makes one per sandbox,
below the grader's own group, in cgroup v2 (a subtree with the ``memory`` and ``pids``
controllers) or v1 (the ``memory`` and ``pids`` hierarchies), and sets

- its memory limit, without swap (``memory.max`` / ``memory.limit_in_bytes``): past it the kernel
  kills a process of the sandbox, and the grader then stops the whole sandbox;
- its process limit (``pids.max``): processes and threads of this sandbox only, whatever user
  it runs as.

:meth:`Group.wrap` puts a command in the group before it starts (the group is inherited by
everything it starts); :meth:`Group.close` kills whatever is left in it and removes it. Where
no group can be made (not root, no delegated subtree), :meth:`Group.create` says why and the
sandbox keeps per-process limits and the resident-memory watch. This module imports only the
standard library.
"""

from __future__ import annotations

import itertools
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Group"]

_COUNTER = itertools.count()
#: Joins the groups whose ``cgroup.procs`` files are given, then becomes the command.
_ENTER = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 121; shift; n=$((n-1)); done; exec "$@"'


def _lines(path):
    """The lines of a file of ``/proc`` (none where it cannot be read)."""
    try:
        return Path(path).read_text().splitlines()
    except OSError:
        return []


def _mounts():
    """``{(fstype, controller or "") : mount point}`` of the cgroup file systems."""
    found = {}
    for line in _lines("/proc/self/mounts"):
        fields = line.split()
        if len(fields) < 4:
            continue
        point, fstype, options = fields[1], fields[2], fields[3].split(",")
        if fstype == "cgroup2":
            found.setdefault(("cgroup2", ""), point)
        elif fstype == "cgroup":
            for controller in ("memory", "pids"):
                if controller in options:
                    found.setdefault(("cgroup", controller), point)
    return found


def _own():
    """``{controller or "": path}`` of this process's groups (``""``: the v2 one)."""
    own = {}
    for line in _lines("/proc/self/cgroup"):
        _, controllers, path = line.split(":", 2)
        for c in controllers.split(",") if controllers else [""]:
            own[c] = path
    return own


def _write(path, value):
    Path(path).write_text(str(value))


@dataclass
class Group:
    """One sandbox's control group: ``version`` (1 or 2) and its folders (v1: memory, pids)."""

    version: int
    folders: tuple

    @classmethod
    def create(cls, memory_bytes, processes):
        """``(Group, "")``, or ``(None, why)`` where no group can be made here."""
        mounts, own = _mounts(), _own()
        name = f"kpcourse-{os.getpid()}-{next(_COUNTER)}"
        why = []
        if ("cgroup2", "") in mounts:
            base = Path(mounts[("cgroup2", "")]) / own.get("", "/").lstrip("/")
            try:
                available = (base / "cgroup.controllers").read_text().split()
                if {"memory", "pids"} <= set(available):
                    enabled = (base / "cgroup.subtree_control").read_text().split()
                    if not {"memory", "pids"} <= set(enabled):
                        _write(base / "cgroup.subtree_control", "+memory +pids")
                    folder = base / name
                    folder.mkdir()
                    group = cls(2, (folder,))
                    try:
                        _write(folder / "memory.max", memory_bytes)
                        if (folder / "memory.swap.max").exists():
                            _write(folder / "memory.swap.max", 0)
                        _write(folder / "pids.max", processes)
                    except OSError:
                        group.close()
                        raise
                    return group, ""
                why.append(f"cgroup v2 at {base} lacks the memory or pids controller")
            except OSError as exc:
                why.append(f"cgroup v2 at {base}: {exc.strerror or exc}")
        if ("cgroup", "memory") in mounts and ("cgroup", "pids") in mounts:
            made = []
            try:
                for controller in ("memory", "pids"):
                    folder = Path(mounts[("cgroup", controller)]) / own.get(controller, "/").lstrip("/") / name
                    folder.mkdir()
                    made.append(folder)
                group = cls(1, tuple(made))
                memory, pids = made
                _write(memory / "memory.limit_in_bytes", memory_bytes)
                try:  # no swap either (only where swap is accounted)
                    _write(memory / "memory.memsw.limit_in_bytes", memory_bytes)
                except OSError:
                    pass
                _write(pids / "pids.max", processes)
                return group, ""
            except OSError as exc:
                for folder in reversed(made):
                    try:
                        folder.rmdir()
                    except OSError:
                        pass
                why.append(f"cgroup v1: {exc.strerror or exc}")
        if not why:
            why.append("no cgroup file system with the memory and pids controllers is mounted")
        return None, "; ".join(why)

    def wrap(self, argv):
        """``argv`` started inside this group (through ``/bin/sh``, which joins it, then execs)."""
        procs = [str(f / "cgroup.procs") for f in self.folders]
        return ["/bin/sh", "-c", _ENTER, "sh", str(len(procs)), *procs, *argv]

    def oom_kills(self):
        """How many processes the kernel killed for passing the memory limit (the ``oom_kill``
        line of ``memory.events``, v2, or ``memory.oom_control``, v1; 0 when unknown)."""
        name = "memory.events" if self.version == 2 else "memory.oom_control"
        counts = dict(line.partition(" ")[::2] for line in _lines(self.folders[0] / name))
        return int(counts.get("oom_kill", "0").strip() or 0)

    def close(self, wait=5.0):
        """Kill every process still in the group, then remove it."""
        deadline = time.monotonic() + wait
        for folder in self.folders:
            while True:
                try:
                    pids = [int(p) for p in (folder / "cgroup.procs").read_text().split()]
                except (OSError, ValueError):
                    pids = []
                for pid in pids:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except (ProcessLookupError, PermissionError):
                        pass
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        break
                    time.sleep(0.05)
