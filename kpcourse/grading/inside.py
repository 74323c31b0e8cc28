"""Run one submission's notebook; started by the grader inside the sandbox.

``python -m kpcourse.grading.inside NOTEBOOK OUT --timeout SECONDS``: executes every
cell (a cell that ignores the interrupt gets its kernel restarted, see
:class:`kpcourse.grading.executor.RestartingExecute`) and writes the executed notebook
to OUT. The grader's test cells have been replaced by calls to
:func:`kpcourse.checks._core.produce`, which leave the answers beside the probes file.
Nothing here decides a point: the grader reads OUT and the answers as plain data.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m kpcourse.grading.inside")
    parser.add_argument("notebook")
    parser.add_argument("out")
    parser.add_argument("--timeout", type=int, default=120)
    args = parser.parse_args(argv)

    import nbformat

    from kpcourse.grading.executor import RestartingExecute

    nb = nbformat.read(args.notebook, as_version=4)
    try:
        RestartingExecute(nb, timeout=args.timeout, cwd=Path.cwd()).execute()
    finally:
        nbformat.write(nb, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
