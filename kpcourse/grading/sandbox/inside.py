"""Run one submission's notebook; started by the grader inside the sandbox.

``python -m kpcourse.grading.sandbox.inside NOTEBOOK OUT --timeout SECONDS --limits JSON``: sets the
resource limits (:func:`kpcourse.grading.sandbox.limits.apply_rlimits`), then executes every
cell (a cell that ignores the interrupt gets its kernel restarted, see
:class:`kpcourse.grading.sandbox.executor.RestartingExecute`) and writes the executed notebook
to OUT. The grader's test cells have been replaced by calls to
:func:`kpcourse.checks._core.produce`, which leave the answers beside the probes file.
Nothing here decides a point: the grader reads OUT and the answers as plain data.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

#: The file :func:`enter` makes in the sandbox's ``out`` folder, as the submission's user: its owner
#: is the user the sandbox ran as (:func:`kpcourse.grading.sandbox.bwrap.measured_uid`).
MARK = "sandbox-user"


def enter(user=None, limits=None, out=None):
    """First thing in the sandbox: become ``user`` (never run student code as root), then apply
    ``limits`` (a :class:`~kpcourse.grading.sandbox.limits.Limits` as JSON), which everything started
    from here inherits, and make :data:`MARK` in the folder ``out``, before any of the submission's
    code runs (so it is there even when the submission stops this process). Returns the
    :class:`~kpcourse.grading.sandbox.limits.Limits` or ``None``."""
    if user is not None:
        import os

        os.setgroups([])
        os.setgid(user)
        os.setuid(user)
        if os.getuid() == 0 or os.geteuid() == 0:
            raise SystemExit("could not leave the root user")

    from kpcourse.grading.sandbox.limits import Limits, apply_rlimits

    limits = Limits.from_json(limits) if limits else None
    if limits is not None:  # before the kernel starts: it and everything it starts inherit them
        apply_rlimits(limits)
    if out is not None:
        (Path(out) / MARK).touch()
    return limits


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m kpcourse.grading.sandbox.inside")
    parser.add_argument("notebook")
    parser.add_argument("out")
    parser.add_argument("--timeout", type=int, default=120)
    parser.add_argument("--limits", default=None, help="kpcourse.grading.sandbox.limits.Limits as JSON")
    parser.add_argument("--user", type=int, default=None, help="become this unprivileged user first")
    args = parser.parse_args(argv)
    limits = enter(args.user, args.limits, out=Path(args.out).parent)

    import nbformat

    from kpcourse.grading.sandbox.executor import RestartingExecute

    nb = nbformat.read(args.notebook, as_version=4)
    try:
        RestartingExecute(nb, timeout=args.timeout, cwd=Path.cwd(),
                          output_limit=limits.output_bytes if limits else None).execute()
    finally:
        nbformat.write(nb, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
