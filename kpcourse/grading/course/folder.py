"""The course folder and nbgrader's command line: assignments, submissions, release.

- :func:`nbgrader`: one nbgrader command, with the venv's ``bin/`` first on ``PATH``;
- :func:`assignments`, :func:`submissions`: what ``source/`` and ``submitted/`` hold;
- :func:`release`: regenerate ``release/`` from ``source/`` (grader files never go there),
  each notebook in one stable form; :func:`ensure_in_gradebook` releases what the
  gradebook lacks.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from kpcourse.grading.paths import course_path

__all__ = ["nbgrader", "assignments", "submissions", "release", "ensure_in_gradebook"]


def nbgrader(args, root, env=None, check=True):
    """Run one nbgrader command with the venv's bin/ first on PATH (for alembic)."""
    bindir = str(Path(sys.executable).parent)
    e = dict(os.environ if env is None else env)
    e["PATH"] = bindir + os.pathsep + e.get("PATH", "")
    cmd = [sys.executable, "-m", "nbgrader", *args]
    proc = subprocess.run(cmd, cwd=root, env=e, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise RuntimeError(f"`nbgrader {' '.join(args)}` failed ({proc.returncode}):\n"
                           f"{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}")
    return proc


def assignments(root):
    """Assignment names under ``source/``, in lesson order."""
    return sorted(p.name for p in (Path(root) / "source").iterdir()
                  if p.is_dir() and any(p.glob("*.ipynb")))


def release(root, names=None):
    """Regenerate ``release/<a>/`` from ``source/<a>/`` for every assignment."""
    from kpcourse.grading.course import deadlines

    root = Path(root)
    for a in names or assignments(root):
        nbgrader(["generate_assignment", a, "--force"], root)
        for nb in course_path(root, "release", assignment=a).glob("*.ipynb"):
            _normalise(nb)
    deadlines.apply(root, names or assignments(root))  # the due dates of nbgrader_config.py, in the gradebook
    return names or assignments(root)


def _normalise(path):
    """Write a notebook in one stable form (sorted keys, one-space indent, final newline)."""
    nb = json.loads(Path(path).read_text())
    Path(path).write_text(json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n")


def submissions(root, students=None):
    """``(student, assignment)`` pairs under ``submitted/``; only ``students`` when given."""
    sub = course_path(root, "submitted")
    if not sub.is_dir():
        return []
    return sorted((s.name, a.name) for s in sub.iterdir() if s.is_dir() and (not students or s.name in students)
                  for a in s.iterdir() if a.is_dir() and any(a.glob("*.ipynb")))


def ensure_in_gradebook(root, names):
    """Make sure each assignment and its cells are in the course gradebook."""
    from nbgrader.api import Gradebook, MissingEntry

    missing = []
    with Gradebook(f"sqlite:///{Path(root) / 'gradebook.db'}") as gb:
        for a in names:
            try:
                if not gb.find_assignment(a).notebooks:
                    missing.append(a)
            except MissingEntry:
                missing.append(a)
    if missing:
        release(root, missing)
