"""The instructor's commands: release, autograde (in parallel, sandboxed), validate.

- :func:`release`: regenerate ``release/`` from ``source/`` (grader files never go there);
- :func:`autograde`: one nbgrader process per small batch of submissions of one
  assignment (:data:`BATCH`), each in a private course directory, ``jobs`` at a time;
  each submission runs :class:`kpcourse.grading.trusted.TrustedExecute` (its code in a
  sandbox and kernel of its own, points decided in the grader); only the parent
  writes the course gradebook, one submission after another; ``grades.csv`` gets an
  ``isolated`` column and a run that was not isolated is reported loudly; a
  :class:`Progress` line on stderr counts the submissions done, the rate and the ETA;
  ``students`` re-grades only those students;
- :func:`kpcourse.grading.report.write_report`: the class report (``report``);
- :func:`validate`: exits non-zero when a notebook fails its visible tests.

Run ``python -m kpcourse.grading --help``.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from kpcourse.grading.paths import course_path
from kpcourse.grading.plugins import ANSI as _ANSI
from kpcourse.grading.spec import SUMMARY
from kpcourse.grading.summary import Summary

__all__ = ["release", "autograde", "validate", "main", "assignments", "Progress", "format_progress"]


# ------------------------------------------------------------------ commands
def _nbgrader(args, root, env=None, check=True):
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
    root = Path(root)
    for a in names or assignments(root):
        _nbgrader(["generate_assignment", a, "--force"], root)
        for nb in course_path(root, "release", assignment=a).glob("*.ipynb"):
            _normalise(nb)
    return names or assignments(root)


def _normalise(path):
    """Write a notebook in one stable form (sorted keys, one-space indent, final newline)."""
    nb = json.loads(Path(path).read_text())
    Path(path).write_text(json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n")


def _submissions(root, students=None):
    """``(student, assignment)`` pairs under ``submitted/``; only ``students`` when given."""
    sub = course_path(root, "submitted")
    if not sub.is_dir():
        return []
    return sorted((s.name, a.name) for s in sub.iterdir() if s.is_dir() and (not students or s.name in students)
                  for a in s.iterdir() if a.is_dir() and any(a.glob("*.ipynb")))


# ------------------------------------------------------------------ progress
def _clock(seconds):
    """``M:SS`` or ``H:MM:SS``."""
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"


def format_progress(done, total, elapsed, width=24):
    """One progress line: ``[#####-------]  12/200   6%  3.4/min  ETA 55:17``.

    Parameters
    ----------
    done, total : int
        Submissions graded so far, and in all.
    elapsed : float
        Seconds since grading started.
    width : int, default=24
        Characters of the bar; 0 leaves the bar out.

    Returns
    -------
    str
        The rate is ``done / elapsed`` in submissions per minute; the ETA is the
        submissions left at that rate (``?`` before the first one is done).
    """
    share = done / total if total else 1.0
    bar = f"[{'#' * int(width * share):-<{width}}] " if width else ""
    rate = 60 * done / elapsed if done and elapsed > 0 else 0.0
    eta = _clock((total - done) * 60 / rate) if rate else "?"
    return (f"{bar}{done:>{len(str(total))}}/{total} {100 * share:3.0f}%  "
            f"{rate:.1f}/min  ETA {eta}")


class Progress:
    """Submissions done / total, rate and ETA, written to ``stream`` (default stderr).

    On a terminal the line is redrawn in place; anywhere else (a log file, CI) one
    line is written per submission. :meth:`clear` removes the terminal line so that
    another message can be printed above it.
    """

    def __init__(self, total, stream=None, clock=time.monotonic, tty=None):
        self.total, self.done, self.clock = total, 0, clock
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.start = clock()

    def step(self, label=""):
        """One more submission done; show the new state."""
        self.done += 1
        sys.stdout.flush()  # the messages printed before this line come first in a shared log
        line = format_progress(self.done, self.total, self.clock() - self.start, width=24 if self.tty else 0)
        if self.tty:
            self.stream.write(f"\r\x1b[K{line}" + ("\n" if self.done == self.total else ""))
        else:
            self.stream.write(f"progress {line}  ({label})\n" if label else f"progress {line}\n")
        self.stream.flush()

    def clear(self):
        """Erase the terminal line (nothing to do elsewhere)."""
        if self.tty and self.done < self.total:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


#: At most this many submissions share one nbgrader process (each keeps its own sandbox and kernel).
BATCH = 4


def _batches(subs, jobs, timeouts=None):
    """Split ``(student, assignment)`` pairs into batches of one assignment for one nbgrader process each.

    Starting nbgrader costs seconds per process; a batch shares that cost. Batches stay
    small (at most :data:`BATCH`, and about four per worker) so that the progress line
    moves and the workers finish together. Students with a cell limit of their own
    (``timeouts``) share a batch only with students who have the same limit.
    """
    size = max(1, min(BATCH, math.ceil(len(subs) / (4 * max(1, jobs)))))
    timeouts = timeouts or {}
    by_assignment = {}
    for s, a in subs:
        by_assignment.setdefault((a, timeouts.get(s)), []).append((s, a))
    return [group[i:i + size] for group in by_assignment.values() for i in range(0, len(group), size)]


def _batch_env(env, pairs, timeouts):
    """The environment of a batch's nbgrader process: its students' own cell limit, if they have one."""
    limit = (timeouts or {}).get(pairs[0][0])
    return env if limit is None else dict(env, KPCOURSE_CELL_TIMEOUT=str(int(limit)))


def _grade_batch(root, pairs, workdir, env):
    """Autograde submissions of one assignment in a private course directory (its own gradebook).

    Each submission still runs in its own sandbox and kernel; only the nbgrader process is
    shared. Returns one result per submission: ``ok`` when its autograded folder and its
    grading summary exist (nbgrader removes the folder of a submission it could not grade,
    and goes on with the others); ``seconds`` is that submission's grading time plus its
    share of the process's start-up.
    """
    root, t = Path(root), Path(workdir)
    assignment = pairs[0][1]
    shutil.copy2(root / "nbgrader_config.py", t / "nbgrader_config.py")
    shutil.copytree(course_path(root, "source", assignment=assignment), course_path(t, "source", assignment=assignment))
    for student, _ in pairs:
        shutil.copytree(course_path(root, "submitted", student, assignment),
                        course_path(t, "submitted", student, assignment))
    shutil.copy2(root / "gradebook.db", t / "gradebook.db")
    start = time.monotonic()
    # the private course holds these submissions only: nbgrader grades every one of them
    proc = _nbgrader(["autograde", assignment, "--force"], t, env=env, check=False)
    wall = time.monotonic() - start
    summaries = {}
    for student, _ in pairs:
        path = course_path(t, "autograded", student, assignment) / SUMMARY
        summaries[student] = Summary.read(path)
    inside = sum(s.seconds or 0 for s in summaries.values() if s)
    share = max(0.0, wall - inside) / len(pairs)
    results = []
    for student, _ in pairs:
        summary = summaries[student]
        results.append({"student": student, "assignment": assignment, "ok": summary is not None,
                        "seconds": ((summary.seconds or 0) + share) if summary else wall,
                        "log": (proc.stdout + proc.stderr)[-4000:], "dir": t,
                        "isolated": bool(summary and summary.isolated),
                        "why_not_isolated": summary.why_not_isolated if summary else "no grading summary"})
    return results


def _merge(src_db, dst_db, assignment, student):
    """Copy one submission's grades and comments from a private gradebook into the course one."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(f"sqlite:///{src_db}") as src, Gradebook(f"sqlite:///{dst_db}") as dst:
        sub = src.find_submission(assignment, student)
        st = sub.student
        dst.update_or_create_student(student, first_name=st.first_name, last_name=st.last_name,
                                     email=st.email, lms_user_id=st.lms_user_id)
        try:
            dst.remove_submission(assignment, student)
        except MissingEntry:
            pass
        dst.add_submission(assignment, student, timestamp=sub.timestamp)
        for nb in sub.notebooks:
            for g in nb.grades:
                d = dst.find_grade(g.name, nb.name, assignment, student)
                d.auto_score, d.manual_score, d.extra_credit = g.auto_score, g.manual_score, g.extra_credit
                d.needs_manual_grade = g.needs_manual_grade
            for c in nb.comments:
                d = dst.find_comment(c.name, nb.name, assignment, student)
                d.auto_comment, d.manual_comment = c.auto_comment, c.manual_comment
            dnb = dst.find_submission_notebook(nb.name, assignment, student)
            dnb.flagged, dnb.late_submission_penalty = nb.flagged, nb.late_submission_penalty
        dst.db.commit()


def _ensure_in_gradebook(root, names):
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


def autograde(root, jobs=None, *, students=None, feedback=True, export="grades.csv", log=print,
              progress=True, timeouts=None):
    """Autograde everything in ``submitted/``, then generate feedback and export grades.

    ``students`` (ids): grade only their submissions, leaving every other grade as it
    is. ``timeouts`` (``{student: seconds}``): a per-cell limit of their own for these
    students' submissions (given to their nbgrader processes as ``KPCOURSE_CELL_TIMEOUT``,
    which ``nbgrader_config.py`` reads), the course's for everyone else.
    ``progress``: show a :class:`Progress` line on stderr. Returns the list of
    per-submission results (dicts with ``student``, ``assignment``, ``ok``,
    ``seconds``, ``isolated``), in ``(student, assignment)`` order.
    """
    root = Path(root).resolve()
    subs = _submissions(root, students)
    if not subs:
        who = f" of {', '.join(students)}" if students else ""
        raise SystemExit(f"nothing to grade: {root / 'submitted'} holds no <student>/<assignment>/*.ipynb{who}")
    missing = sorted(set(students or ()) - {s for s, _ in subs})
    if missing:
        raise SystemExit(f"no submission of {', '.join(missing)} in {root / 'submitted'}")
    jobs = jobs or os.cpu_count() or 1
    _ensure_in_gradebook(root, sorted({a for _, a in subs}))
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    results = []
    start = time.monotonic()
    bar = Progress(len(subs)) if progress else None
    batches = _batches(subs, jobs, timeouts)
    with tempfile.TemporaryDirectory(prefix="kpcourse-grade-") as tmp:
        dirs = []
        for i, _ in enumerate(batches):
            dirs.append(Path(tmp) / f"job{i}")
            dirs[-1].mkdir()
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(_grade_batch, root, pairs, d, _batch_env(env, pairs, timeouts))
                       for pairs, d in zip(batches, dirs, strict=True)]
            for fut in as_completed(futures):  # the parent alone writes the course gradebook
                batch = fut.result()
                for r in batch:
                    if r["ok"]:
                        _merge(r["dir"] / "gradebook.db", root / "gradebook.db", r["assignment"], r["student"])
                        dest = course_path(root, "autograded", r["student"], r["assignment"])
                        if dest.exists():
                            shutil.rmtree(dest)
                        shutil.copytree(course_path(r["dir"], "autograded", r["student"], r["assignment"]), dest)
                        _record_wall(dest / SUMMARY, r["seconds"])
                    if bar:
                        bar.clear()
                    log(f"{'graded' if r['ok'] else 'FAILED'} {r['student']}/{r['assignment']} "
                        f"in {r['seconds']:.1f} s" + ("" if r["isolated"] else "  ** NOT ISOLATED **"))
                    if not r["ok"]:
                        log(r["log"])
                    if bar:
                        bar.step(f"{r['student']}/{r['assignment']}")
                    results.append({k: r[k] for k in ("student", "assignment", "ok", "seconds", "isolated")})
                shutil.rmtree(batch[0]["dir"], ignore_errors=True)
    results.sort(key=lambda r: (r["student"], r["assignment"]))
    wall = time.monotonic() - start
    log(f"autograded {len(subs)} submission(s) with {jobs} job(s) in {wall:.1f} s ({_clock(wall)}), "
        f"{60 * len(subs) / wall:.1f} submissions per minute")
    if feedback:  # one nbgrader process per assignment (or per re-graded student), jobs at a time
        commands = []
        for a in sorted({a for _, a in subs}):
            if students:  # only theirs: every other feedback file stays as it is
                commands += [["generate_feedback", a, "--student", s, "--force"]
                             for s in sorted({s for s, b in subs if b == a})]
            else:
                commands.append(["generate_feedback", a, "--force"])
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            list(pool.map(lambda args: _nbgrader(args, root), commands))
    exposed = [r for r in results if r["ok"] and not r["isolated"]]
    if exposed:
        log("*" * 78 + f"\nWARNING: {len(exposed)} submission(s) were graded WITHOUT isolation: their code "
            "could read the course folder\n(solutions, gradebook, other submissions). Install bubblewrap "
            "(apt-get install bubblewrap)\nand grade again before trusting these grades.\n" + "*" * 78)
    if export:
        _nbgrader(["export", "--to", str(root / export)], root)
        _mark_isolation(root / export, root)
        log(f"grades written to {root / export}")
    return results


def _record_wall(summary_path, seconds):
    """Add the whole nbgrader process's time (``wall_seconds``) to a grading summary."""
    summary = Summary.read(summary_path)
    if summary is not None:
        summary.wall_seconds = round(seconds, 2)
        mode = summary_path.stat().st_mode
        summary_path.chmod(mode | stat.S_IWUSR)  # nbgrader leaves autograded files read-only (not as root)
        summary.write(summary_path.parent)
        summary_path.chmod(mode)


def _mark_isolation(csv_path, root):
    """Add an ``isolated`` column to the grades export (yes / NO / empty when not graded)."""
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return
    for row in rows:
        summary = Summary.read(course_path(root, "autograded", row["student_id"], row["assignment"]) / SUMMARY)
        row["isolated"] = "" if summary is None else "yes" if summary.isolated else "NO"
    with open(csv_path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def checks_data(root, names=None):
    """Write each grader's ``visible_data()`` to ``kpcourse/checks/data/lessonNN.json``.

    The visible checks hold data, not algorithms: the expected outputs of their fixed
    probes (and of common mistakes) are computed here, by the grader files' references.
    """
    from kpcourse.checks import _core
    from kpcourse.grading.trusted import GRADER_FILE, load_grader

    written = []
    for a in names or assignments(root):
        grader = load_grader(course_path(root, "source", assignment=a) / GRADER_FILE)
        if not hasattr(grader, "visible_data"):
            continue
        target = data_file(a)
        target.write_text(json.dumps(_core.encode(grader.visible_data(), readable=True), indent=1,
                                     sort_keys=True, allow_nan=True) + "\n")
        written.append(str(target))
    return written


def data_file(assignment):
    """``kpcourse/checks/data/lessonNN.json`` for assignment ``NN-slug``."""
    import kpcourse.checks

    return Path(kpcourse.checks.__file__).parent / "data" / f"lesson{assignment[:2]}.json"


def validate(paths, root=None):
    """Run each notebook's tests; return ``{path: [failures]}`` for those that fail."""
    from nbgrader.validator import Validator
    from traitlets.config import Config

    config = Config()
    cfg = Path(root or Path.cwd()) / "nbgrader_config.py"
    if cfg.exists():
        from traitlets.config.loader import PyFileConfigLoader

        config.merge(PyFileConfigLoader(cfg.name, str(cfg.parent)).load_config())
    failures = {}
    for p in paths:
        result = Validator(config=config).validate(str(p))
        bad = result.get("failed") or result.get("changed") or result.get("type_changed")
        if bad:
            failures[str(p)] = bad
    return failures


def main(argv=None):
    """Command line: ``python -m kpcourse.grading {release,autograde,report,checks-data,validate}``."""
    parser = argparse.ArgumentParser(prog="python -m kpcourse.grading", description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=".", help="course root (default: current directory)")
    sub = parser.add_subparsers(dest="command", required=True)
    rel = sub.add_parser("release", help="regenerate release/ from source/")
    rel.add_argument("assignments", nargs="*", help="default: every assignment in source/")
    ag = sub.add_parser("autograde", help="autograde submitted/, generate feedback, export grades")
    ag.add_argument("--jobs", type=int, default=None, help="parallel submissions (default: CPU cores)")
    ag.add_argument("--no-feedback", action="store_true")
    ag.add_argument("--student", action="append", metavar="ID",
                    help="re-grade only this student's submissions (repeat for several)")
    ag.add_argument("--no-progress", action="store_true", help="no progress line on stderr")
    rp = sub.add_parser("report", help="class report: reports/<assignment>.html and its figures")
    rp.add_argument("assignments", nargs="*", help="default: every assignment with submissions in the gradebook")
    rp.add_argument("--out", default="reports", help="folder of the reports, relative to the root (default: reports)")
    cd = sub.add_parser("checks-data", help="write the visible checks' data from the grader files")
    cd.add_argument("assignments", nargs="*", help="default: every assignment in source/")
    va = sub.add_parser("validate", help="exit non-zero when a notebook fails its tests")
    va.add_argument("notebooks", nargs="*", help="default: every source notebook")
    args = parser.parse_args(argv)
    root = Path(args.root).resolve()
    if args.command == "release":
        for a in release(root, args.assignments or None):
            print(f"released {a}")
        return 0
    if args.command == "checks-data":
        for f in checks_data(root, args.assignments or None):
            print(f"wrote {f}")
        return 0
    if args.command == "autograde":
        results = autograde(root, args.jobs, students=args.student, feedback=not args.no_feedback,
                            progress=not args.no_progress)
        return 0 if all(r["ok"] for r in results) else 1
    if args.command == "report":
        from kpcourse.grading.report import graded_assignments, write_report

        names = args.assignments or graded_assignments(root)
        if not names:
            print(f"nothing to report: {root / 'gradebook.db'} holds no submission (run `make autograde` first)")
            return 1
        for a in names:
            print(f"wrote {write_report(root, a, root / args.out)}")
        return 0
    paths = args.notebooks or sorted(str(p) for p in (root / "source").glob("*/*.ipynb"))
    failures = validate(paths, root)
    for p in paths:
        print(f"{'FAILED' if p in failures else 'passed'}  {p}")
        for f in failures.get(p, []):
            error = _ANSI.sub("", str(f.get("raw_error") or f.get("source", f))).strip().splitlines()
            print("    " + "\n    ".join(error[-6:]))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
