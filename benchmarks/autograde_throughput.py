"""Autograde throughput: before and after a change, or at class size.

Before / after: ``python -m benchmarks.autograde_throughput --copies 20 --jobs 2 --before 76e0cac``

Builds two temporary courses holding ``--copies`` submissions of assignment 02's solution:
one graded by the ``kpcourse`` of the ``--before`` commit (checked out with ``git worktree``
in ``benchmarks/_scratch/``, not under ``/tmp``, which the sandbox replaces, and put first on
``PYTHONPATH``), one by this checkout. Each is graded with
``python -m kpcourse.grading autograde --jobs N --no-feedback`` (what ``make autograde`` runs,
feedback and export left out); the wall time, the test cells that passed (all of them: a run
whose kernels could not start would look fast) and the time per submission per worker are
printed side by side, with the machine's load.

Class size: ``python -m benchmarks.autograde_throughput --mixed 200 --jobs 1 2``

Builds one course holding N mixed submissions of assignment 02, made as
``tests/test_pipeline.py`` makes its golden ones (:data:`MIX`: solutions, the common
mistakes of ``tests/golden``, untouched / edited / deleted test cells, endless loops and the
adversarial cases), and grades a fresh copy of it with each ``--jobs`` value, running what
``make autograde`` runs (feedback and ``grades.csv`` included) with the course's cell time
limit (``--cell-timeout`` to change it). Prints a table (jobs, submissions, wall, per minute)
and the projection for a whole term (``--term 600 8 16``: students, assignments, cores).
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from kpcourse.grading.paths import copy_source

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENT = "02-perceptron-by-hand"
#: Weights of the kinds of submission in the class-size mix (out of 40): most students hand in a
#: solution or a common mistake; a few hand in nothing, break the test cells, loop, or attack.
MIX = {"solution": 17, "mistake": 10, "adversarial": 7, "structural": 4, "loop": 2}
_STRUCTURAL = ("release", "first-cell-raises", "edited-tests", "deleted-tests")
_LOOPS = ("loop", "swallow")


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
    copy_source(code_root, course, ASSIGNMENT)  # with the references the graders share
    shutil.copytree(code_root / "release" / ASSIGNMENT, course / "release" / ASSIGNMENT)
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
    return wall, graded, proc.returncode, _passed(course)


def _passed(course):
    """``(test cells passed, test cells graded)`` over the autograded submissions: a run that
    grades fast because nothing ran (a broken checkout) shows here, not as a speed-up."""
    verdicts = [v for f in Path(course, "autograded").glob(f"*/{ASSIGNMENT}/kpcourse-grading.json")
                for v in json.loads(f.read_text()).get("verdicts", {}).values()]
    if verdicts and all(v is not None for v in verdicts):
        print(f"{course}: no test cell passed, e.g. {str(verdicts[0])[:300]}", file=sys.stderr)
    return sum(v is None for v in verdicts), len(verdicts)


# ------------------------------------------------------------------ class size
def schedule(n, weights=None):
    """The kinds of ``n`` submissions: one of each kind first, then smooth weighted round robin.

    >>> schedule(7)
    ['solution', 'mistake', 'adversarial', 'structural', 'loop', 'solution', 'mistake']
    """
    weights = weights or MIX
    kinds = list(weights)[:n]
    current, total = dict.fromkeys(weights, 0), sum(weights.values())
    while len(kinds) < n:
        for k in current:
            current[k] += weights[k]
        best = max(current, key=current.get)
        current[best] -= total
        kinds.append(best)
    return kinds


def _pipeline():
    spec = importlib.util.spec_from_file_location("_pipeline_cases", ROOT / "tests" / "test_pipeline.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _mixed_course(work, n):
    """A course with ``n`` submissions of assignment 02 whose kinds follow :func:`schedule`."""
    pipe = _pipeline()
    course = work / "course"
    for sub in ("source", "release"):
        shutil.copytree(ROOT / sub / ASSIGNMENT, course / sub / ASSIGNMENT)
    shutil.copy2(ROOT / "nbgrader_config.py", course / "nbgrader_config.py")
    a = pipe.Assignment(ASSIGNMENT, course)
    generic = pipe.generic_cases(a)
    cases = {"solution": [("solution", generic["solution"][0])],
             "mistake": [(c, a.submission(replace=spec["replace"]))
                         for c, spec in pipe.golden_cases(ASSIGNMENT).items()],
             "structural": [(c, generic[c][0]) for c in _STRUCTURAL],
             "loop": [(c, generic[c][0]) for c in _LOOPS],
             "adversarial": [(c, nb) for c, (nb, *_) in pipe.adversarial_cases(a, [str(ROOT), str(course)]).items()]}
    seen, made = dict.fromkeys(cases, 0), []
    for i, kind in enumerate(schedule(n)):
        case, nb = cases[kind][seen[kind] % len(cases[kind])]
        seen[kind] += 1
        folder = course / "submitted" / f"s{i:03d}-{case}" / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / f"{ASSIGNMENT}.ipynb")
        made.append(kind)
    return course, {k: made.count(k) for k in MIX}


def _grade_class(course, jobs, cell_timeout=None, feedback=True):
    """Run ``autograde`` as ``make autograde`` does; ``(wall, grading-only wall, graded, failed, rc)``."""
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    env.pop("PYTHONPATH", None)
    if cell_timeout:
        env["KPCOURSE_CELL_TIMEOUT"] = str(cell_timeout)
    cmd = [sys.executable, "-m", "kpcourse.grading", "--root", str(course), "autograde", "--jobs", str(jobs)]
    start = time.monotonic()
    proc = subprocess.run(cmd + ([] if feedback else ["--no-feedback"]), env=env, capture_output=True, text=True)
    wall = time.monotonic() - start
    lines = proc.stdout.splitlines()
    m = re.search(r"autograded \d+ submission\(s\) with \d+ job\(s\) in ([\d.]+) s", proc.stdout)
    if proc.returncode != 0:
        print(proc.stdout[-3000:], proc.stderr[-3000:], file=sys.stderr)
    return (wall, float(m.group(1)) if m else float("nan"), sum(ln.startswith("graded ") for ln in lines),
            sum(ln.startswith("FAILED ") for ln in lines), proc.returncode)


def projection(rate1, rate2, students=600, assignments=8, cores=16):
    """Hours to grade a term, from the rates (submissions per minute) with 1 and 2 jobs.

    ``T = students * assignments / (cores * e * rate1) / 60`` with the parallel efficiency
    ``e = rate2 / (2 * rate1)`` measured at 2 jobs and assumed to hold up to ``cores`` jobs.
    """
    efficiency = rate2 / (2 * rate1)
    return students * assignments / (cores * efficiency * rate1) / 60, efficiency


def class_size(args):
    """The class-size mode (see the module docstring)."""
    from benchmarks import common

    rows = []
    with tempfile.TemporaryDirectory(prefix="kpcourse-class-") as tmp:
        tmp = Path(tmp)
        course, mix = _mixed_course(tmp / "template", args.mixed)
        env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
        subprocess.run([sys.executable, "-m", "kpcourse.grading", "--root", str(course), "release", ASSIGNMENT],
                       env=env, check=True, capture_output=True)
        for jobs in args.jobs:
            run = tmp / f"jobs{jobs}"
            shutil.copytree(course, run)
            load = os.getloadavg()[0]
            wall, grading, graded, failed, rc = _grade_class(run, jobs, args.cell_timeout, not args.no_feedback)
            rows.append((jobs, wall, grading, graded, failed, rc, load, os.getloadavg()[0]))
            shutil.rmtree(run, ignore_errors=True)
    limit = args.cell_timeout or os.environ.get("KPCOURSE_CELL_TIMEOUT")
    limit = f"{limit} s" if limit else "the course's (nbgrader_config.py)"
    print(f"{args.mixed} mixed submissions of {ASSIGNMENT} ({', '.join(f'{k} {v}' for k, v in mix.items())}); "
          f"cell time limit {limit}; {'grading only' if args.no_feedback else 'feedback and grades.csv included'}")
    print(f"{common.machine()}\ncommit {common.git_rev()}\n")
    print("| jobs | submissions | wall | per minute | grading alone | graded / failed | load before / after |")
    print("|---|---|---|---|---|---|---|")
    for jobs, wall, grading, graded, failed, rc, load, after in rows:
        print(f"| {jobs} | {args.mixed} | {wall:.0f} s ({wall / 60:.1f} min) | {60 * args.mixed / wall:.1f} "
              f"| {grading:.0f} s | {graded} / {failed}{'' if rc == 0 else f' (exit {rc})'} "
              f"| {load:.1f} / {after:.1f} |")
    rates = {jobs: 60 * args.mixed / wall for jobs, wall, *_ in rows}
    if 1 in rates and 2 in rates:
        students, assignments, cores = args.term
        hours, eff = projection(rates[1], rates[2], students, assignments, cores)
        print(f"\nprojection: {students} students x {assignments} assignments on {cores} cores = "
              f"{students * assignments} / ({cores} x {eff:.2f} x {rates[1]:.2f}/min) = {hours:.1f} h "
              f"(parallel efficiency at 2 jobs e = {eff:.2f}, assumed up to {cores} jobs)")
    return 0 if all(r[5] == 0 for r in rows) else 1


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, default=20, help="before/after mode: copies of the solution")
    parser.add_argument("--jobs", type=int, nargs="+", default=[2],
                        help="parallel submissions; class-size mode: one run per value (e.g. --jobs 1 2)")
    parser.add_argument("--before", default="76e0cac", help="git commit of the design to compare with")
    parser.add_argument("--mixed", type=int, metavar="N", help="class-size mode: N mixed submissions")
    parser.add_argument("--cell-timeout", type=int, help="class-size mode: per-cell limit (s), default the course's")
    parser.add_argument("--no-feedback", action="store_true", help="class-size mode: leave feedback and export out")
    parser.add_argument("--term", type=int, nargs=3, default=[600, 8, 16], metavar=("STUDENTS", "ASSIGNMENTS", "CORES"),
                        help="class-size mode: the term to project (default: 600 8 16)")
    args = parser.parse_args(argv)
    if args.mixed:
        return class_size(args)
    args.jobs = args.jobs[0]
    rows = []
    with tempfile.TemporaryDirectory(prefix="kpcourse-throughput-") as tmp:
        tmp = Path(tmp)
        # not under /tmp: the sandbox mounts a fresh /tmp, which would hide the before code's files
        scratch = ROOT / "benchmarks" / "_scratch"
        scratch.mkdir(exist_ok=True)
        before = Path(tempfile.mkdtemp(prefix="before-code-", dir=scratch))
        before.rmdir()
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(before), args.before],
                       check=True, capture_output=True)
        try:
            for label, code_root, pythonpath in ((f"before ({args.before})", before, before),
                                                 ("after (this checkout)", ROOT, None)):
                course = _course(code_root, tmp / label.split()[0], args.copies)
                load = os.getloadavg()[0]
                wall, graded, rc, passed = _grade(course, args.jobs, pythonpath)
                rows.append((label, wall, graded, rc, load, passed))
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before)],
                           capture_output=True)
    print(f"{args.copies} copies of assignment {ASSIGNMENT}'s solution, --jobs {args.jobs}, "
          f"{os.cpu_count()} CPUs\n")
    print("| design | wall (s) | graded | test cells passed | s per submission per worker | submissions/min "
          "| load before |")
    print("|---|---|---|---|---|---|---|")
    for label, wall, graded, rc, load, (passed, cells) in rows:
        per = wall * args.jobs / max(args.copies, 1)
        print(f"| {label} | {wall:.1f} | {graded}/{args.copies}{'' if rc == 0 else ' (exit ' + str(rc) + ')'} "
              f"| {passed}/{cells} | {per:.2f} | {60 * args.copies / wall:.1f} | {load:.1f} |")
    if len(rows) == 2:
        print(f"\nratio after/before: {rows[1][1] / rows[0][1]:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
