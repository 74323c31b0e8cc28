"""The student edition: the folder a course hands to its students (``make student-edition``).

A clone of this repository holds the instructor's side too: ``source/`` (every solution, every
grader file with its hidden tests), the tests and the CI. The student edition is what students get
instead: the start page, the lectures and their appendices (``notebooks/``), the released
assignments (``release/``), the package (``kpcourse/``, which the notebooks import), the benchmark
results the lectures link to (``benchmarks/RESULTS.md``), what installs it (``pyproject.toml``,
``environment.yml``, ``constraints.txt``) and a README written for students. Only files git tracks
are copied, so nothing generated or private (a gradebook, submissions, caches) travels.

Command line: ``python -m kpcourse.grading.course.edition OUT`` (``OUT`` must not exist yet).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

__all__ = ["INCLUDED", "STUDENT_README", "files", "write", "main"]

#: What the edition holds: folders (every tracked file below them) and single files.
INCLUDED = ("notebooks/", "release/", "kpcourse/", "benchmarks/RESULTS.md", "pyproject.toml", "environment.yml",
            "constraints.txt")

STUDENT_README = """# kpcourse — kernel perceptrons (student edition)

Eight lessons, each a lecture and an assignment, from a perceptron worked by hand on four points to
a kernel perceptron on MNIST, then a capstone that puts them together on two tables no lesson used.

- `notebooks/00-start-here.ipynb`: start here (the course map, prerequisites, notation, grading).
- `notebooks/`: the lectures (`NN-slug.ipynb`) and their optional appendices.
- `release/NN-slug/NN-slug.ipynb`: the assignments you fill in and hand in.
- `kpcourse/`: the small package the notebooks import.

## Install and open

With Python 3.11 or newer:

```bash
python -m venv .venv
.venv/bin/pip install -e ".[course]" -c constraints.txt   # on Windows: .venv\\Scripts\\pip
.venv/bin/jupyter lab notebooks/00-start-here.ipynb
```

The lectures download their data sets (MNIST, the banknotes, two novels) on first use, check them
and keep them in a cache folder (the capstone's two tables are copied from the scikit-learn installed
with the course); set `KPCOURSE_DATA` to a folder of your choice to put them there.
Your course tells you how to hand in an assignment (the nbgrader *Assignments* tab on a JupyterHub,
or a file upload) and when it is due.
"""


def _tracked(root):
    out = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True).stdout
    return [p for p in out.decode().split("\0") if p]


def files(root):
    """The repository files (relative paths) the edition copies."""
    picked = []
    for path in _tracked(root):
        if any(path == item or (item.endswith("/") and path.startswith(item)) for item in INCLUDED):
            if (Path(root) / path).is_file():
                picked.append(path)
    return sorted(picked)


def write(root, out):
    """Write the student edition of the course at ``root`` into the new folder ``out``; return its files.

    Raises
    ------
    FileExistsError
        When ``out`` exists (the edition is written whole, never over an older one).
    """
    root, out = Path(root).resolve(), Path(out).resolve()
    if out.exists():
        raise FileExistsError(f"{out} exists: remove it, or choose another folder")
    if out == root or root in out.parents:
        raise ValueError(f"write the edition outside the course folder, not into {out}")
    copied = files(root)
    for rel in copied:
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / rel, target)
    (out / "README.md").write_text(STUDENT_README, encoding="utf-8")
    return [*copied, "README.md"]


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m kpcourse.grading.course.edition",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("out", help="the folder to create")
    parser.add_argument("--root", default=".", help="the course folder (default: here)")
    args = parser.parse_args(argv)
    try:
        written = write(args.root, args.out)
    except (FileExistsError, ValueError) as exc:
        print(f"student-edition: {exc}", file=sys.stderr)
        return 2
    print(f"student edition: {len(written)} files written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
