"""Autograde throughput, before and after a change, in one run.

``python -m benchmarks.autograde_throughput --copies 20 --jobs 2 --before 76e0cac``

Builds two temporary courses holding ``--copies`` submissions of assignment 02's solution:
one graded by the ``kpcourse`` of the ``--before`` commit (checked out with ``git worktree``
and put first on ``PYTHONPATH``), one by this checkout. Each is graded with
``python -m kpcourse.grading autograde --jobs N --no-feedback`` (what ``make autograde`` runs,
feedback and export left out); the wall time and the time per submission per worker are
printed side by side, with the machine's load.
"""

from __future__ import annotations

import argparse
import copy
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENT = "02-perceptron-by-hand"


def _solution_notebook(root):
    """The release of assignment 02 with every solution cell filled in from the source."""
    source = nbformat.read(root / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    release = nbformat.read(root / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    solutions = {}
    for c in source.cells:
        md = c.metadata.get("nbgrader", {})
        if md.get("solution") and c.cell_type == "code":
            solutions[md["grade_id"]] = "\n".join(
                ln for ln in c.source.splitlines() if "BEGIN SOLUTION" not in ln and "END SOLUTION" not in ln)
    nb = copy.deepcopy(release)
    for c in nb.cells:
        gid = c.metadata.get("nbgrader", {}).get("grade_id")
        if gid in solutions:
            c.source = solutions[gid]
    return nb


def _course(code_root, work, copies):
    course = work / "course"
    for sub in ("source", "release"):
        shutil.copytree(code_root / sub / ASSIGNMENT, course / sub / ASSIGNMENT)
    shutil.copy2(code_root / "nbgrader_config.py", course / "nbgrader_config.py")
    nb = _solution_notebook(code_root)
    for i in range(copies):
        folder = course / "submitted" / f"student{i:03d}" / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / f"{ASSIGNMENT}.ipynb")
    return course


def _grade(course, jobs, pythonpath=None):
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    env.pop("PYTHONPATH", None)
    if pythonpath:
        env["PYTHONPATH"] = str(pythonpath)
    # the release must be in the course gradebook first (generate_assignment)
    subprocess.run([sys.executable, "-m", "kpcourse.grading", "--root", str(course), "release", ASSIGNMENT],
                   env=env, check=True, capture_output=True)
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "kpcourse.grading", "--root", str(course), "autograde",
                           "--jobs", str(jobs), "--no-feedback"], env=env, capture_output=True, text=True)
    wall = time.monotonic() - start
    graded = sum(line.startswith("graded ") for line in proc.stdout.splitlines())
    if proc.returncode != 0:
        print(proc.stdout[-3000:], proc.stderr[-3000:], file=sys.stderr)
    return wall, graded, proc.returncode


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--before", default="76e0cac", help="git commit of the design to compare with")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="kpcourse-throughput-") as tmp:
        tmp = Path(tmp)
        before = tmp / "before-code"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(before), args.before],
                       check=True, capture_output=True)
        try:
            for label, code_root, pythonpath in ((f"before ({args.before})", before, before),
                                                 ("after (this checkout)", ROOT, None)):
                course = _course(code_root, tmp / label.split()[0], args.copies)
                load = os.getloadavg()[0]
                wall, graded, rc = _grade(course, args.jobs, pythonpath)
                rows.append((label, wall, graded, rc, load))
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before)],
                           capture_output=True)
    print(f"{args.copies} copies of assignment {ASSIGNMENT}'s solution, --jobs {args.jobs}, "
          f"{os.cpu_count()} CPUs\n")
    print("| design | wall (s) | graded | s per submission per worker | submissions/min | load before |")
    print("|---|---|---|---|---|---|")
    for label, wall, graded, rc, load in rows:
        per = wall * args.jobs / max(args.copies, 1)
        print(f"| {label} | {wall:.1f} | {graded}/{args.copies}{'' if rc == 0 else ' (exit ' + str(rc) + ')'} "
              f"| {per:.2f} | {60 * args.copies / wall:.1f} | {load:.1f} |")
    if len(rows) == 2:
        print(f"\nratio after/before: {rows[1][1] / rows[0][1]:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
