"""Autograde every submission: small batches of one assignment, one nbgrader process each, in parallel.

:func:`autograde` runs one nbgrader process per batch of at most :data:`BATCH`
submissions of one assignment, each batch in a private course directory (its own
gradebook), ``jobs`` at a time; each submission runs
:class:`kpcourse.grading.judge.trusted.TrustedExecute` (its code in a sandbox and kernel of its
own, its points decided in the grader). Only the parent writes the course gradebook
(:func:`merge`, one submission after another); feedback and ``grades.csv`` (with an
``isolated`` column) follow; a run that was not isolated is reported loudly; a
:class:`~kpcourse.grading.course.progress.Progress` line on stderr counts the submissions done.
Before nbgrader reads a submission, its nbgrader metadata is reset to the released
notebook's (:func:`clean_submission`), and a batch nbgrader stops short is graded again one
submission at a time: one notebook stops no classmate.
"""

from __future__ import annotations

import copy
import csv
import math
import os
import re
import shutil
import stat
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

import nbformat

from kpcourse.grading.course import deadlines
from kpcourse.grading.course import export as grades
from kpcourse.grading.course.folder import ensure_in_gradebook, nbgrader, submissions
from kpcourse.grading.course.late import course_policy
from kpcourse.grading.course.progress import Progress, clock
from kpcourse.grading.judge.spec import SUMMARY
from kpcourse.grading.judge.summary import Summary
from kpcourse.grading.paths import copy_source, course_path

__all__ = ["autograde", "BATCH", "batches", "merge", "course_metadata", "clean_submission"]


#: At most this many submissions share one nbgrader process (each keeps its own sandbox and kernel).
BATCH = 8


def batches(subs, jobs, timeouts=None):
    """Split ``(student, assignment)`` pairs into batches of one assignment for one nbgrader process each.

    Starting nbgrader costs seconds per process; a batch shares that cost. Batches stay
    small (at most :data:`BATCH`, and about four per worker) so that the progress line
    moves and the workers finish together. Students with a cell limit of their own
    (``timeouts``) share a batch only with students who have the same limit, and their
    batches come first: such a limit is given to submissions known to wait it out (a loop
    stopped at the limit), the longest batches, which should not be the run's last.
    """
    size = max(1, min(BATCH, math.ceil(len(subs) / (4 * max(1, jobs)))))
    timeouts = timeouts or {}
    by_assignment = {}
    for s, a in subs:
        by_assignment.setdefault((a, timeouts.get(s)), []).append((s, a))
    out = [group[i:i + size] for group in by_assignment.values() for i in range(0, len(group), size)]
    return sorted(out, key=lambda batch: timeouts.get(batch[0][0]) is None)  # stable: own limits first


def batch_env(env, pairs, timeouts):
    """The environment of a batch's nbgrader process: its students' own cell limit, if they have one."""
    limit = (timeouts or {}).get(pairs[0][0])
    return env if limit is None else dict(env, KPCOURSE_CELL_TIMEOUT=str(int(limit)))


def grade_batch(root, pairs, workdir, env):
    """Autograde submissions of one assignment in a private course directory (its own gradebook).

    Each submission still runs in its own sandbox and kernel; only the nbgrader process is
    shared. Before nbgrader reads them, the submissions' nbgrader metadata is reset to the
    released notebook's (:func:`clean_submission`): a value a student wrote there could
    stop the whole process. Returns one result per submission: ``ok`` when its autograded
    folder and its grading summary exist (nbgrader removes the folder of a submission it
    could not grade); ``seconds`` is that submission's grading time plus its share of the
    process's start-up; ``metadata_reset``: what was reset. Where nbgrader still stopped
    short, each submission it left is graded again on its own, so that one failure is its
    own and no classmate's.
    """
    root, t = Path(root), Path(workdir)
    assignment = pairs[0][1]
    shutil.copy2(root / "nbgrader_config.py", t / "nbgrader_config.py")
    copy_source(root, t, assignment)
    cleaned = {}
    for student, _ in pairs:
        folder = course_path(t, "submitted", student, assignment)
        shutil.copytree(course_path(root, "submitted", student, assignment), folder)
        cleaned[student] = clean_submission(folder, course_path(root, "release", assignment=assignment))
    shutil.copy2(root / "gradebook.db", t / "gradebook.db")
    start = time.monotonic()
    # the private course holds these submissions only: nbgrader grades every one of them
    proc = nbgrader(["autograde", assignment, "--force"], t, env=env, check=False)
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
                        "why_not_isolated": summary.why_not_isolated if summary else "no grading summary",
                        "metadata_reset": cleaned[student]})
    if len(pairs) > 1 and not all(r["ok"] for r in results):
        # some errors make nbgrader stop the whole batch: grade each submission it left on its own,
        # so that a submission's failure is its own
        for i, r in enumerate(results):
            if not r["ok"]:
                alone = t / f"alone-{i}"
                alone.mkdir()
                results[i] = grade_batch(root, [pairs[i]], alone, env)[0]
    return results


# ------------------------------------------------------------ what nbgrader may read
# nbgrader reads every cell's ``nbgrader`` metadata before it grades, and some values stop the
# whole process, not only that notebook: a ``schema_version`` newer than its own (or older) ends
# the batch and leaves the classmates after it ungraded. A student can write anything there, so
# the metadata is reset from the released notebook, the one the course wrote.
_ID = re.compile(r"^[a-zA-Z0-9-_]{1,64}$")


def course_metadata(submitted, released):
    """Reset the nbgrader metadata of ``submitted``'s cells from ``released`` (both notebooks, in place).

    Returns what was changed, one line each (empty for an honest submission).
    """
    known = {}
    for cell in released.cells:
        meta = cell.metadata.get("nbgrader")
        if isinstance(meta, dict) and isinstance(meta.get("grade_id"), str):
            known.setdefault(meta["grade_id"], meta)
    changed, seen = [], set()
    for i, cell in enumerate(submitted.cells):
        meta = cell.metadata.get("nbgrader")
        gid = meta.get("grade_id") if isinstance(meta, dict) else None
        if isinstance(gid, str) and gid in known and gid not in seen:
            seen.add(gid)
            if meta != known[gid]:
                cell.metadata["nbgrader"] = copy.deepcopy(known[gid])
                changed.append(f"cell {i} ({gid}): nbgrader metadata reset to the released one")
        elif "nbgrader" in cell.metadata:
            del cell.metadata["nbgrader"]
            changed.append(f"cell {i}: nbgrader metadata the course did not write removed")
    ids = [cell.get("id") for cell in submitted.cells]
    if (submitted.nbformat, submitted.nbformat_minor) >= (4, 5) and (
            any(not isinstance(i, str) or not _ID.match(i) for i in ids) or len(set(ids)) != len(ids)):
        for i, cell in enumerate(submitted.cells):
            cell["id"] = f"submitted-{i}"
        changed.append("cell ids made valid and unique")
    return changed


def clean_submission(folder, release_folder):
    """Apply :func:`course_metadata` to every notebook of a submission folder that the release has.

    A notebook that cannot be read is left as it is (nbgrader reports it, for that submission
    alone). Returns ``{notebook name: changes}`` for the notebooks that changed.
    """
    out = {}
    for path in sorted(Path(folder).glob("*.ipynb")):
        released = Path(release_folder) / path.name
        if not released.is_file():
            continue
        try:
            nb = nbformat.read(path, as_version=4)
        except Exception:  # noqa: BLE001 - unreadable: nbgrader fails this submission, and only it
            continue
        changes = course_metadata(nb, nbformat.read(released, as_version=4))
        if changes:
            nbformat.write(nb, path)
            out[path.name] = changes
    return out


def merge(src_db, dst_db, assignment, student):
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
        dst.add_submission(assignment, student, timestamp=sub.timestamp, extension=sub.extension)
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
    subs = submissions(root, students)
    if not subs:
        who = f" of {', '.join(students)}" if students else ""
        raise SystemExit(f"nothing to grade: {root / 'submitted'} holds no <student>/<assignment>/*.ipynb{who}")
    missing = sorted(set(students or ()) - {s for s, _ in subs})
    if missing:
        raise SystemExit(f"no submission of {', '.join(missing)} in {root / 'submitted'}")
    jobs = jobs or os.cpu_count() or 1
    ensure_in_gradebook(root, sorted({a for _, a in subs}))
    deadlines.apply(root, sorted({a for _, a in subs}), subs, log=log)  # due dates, extensions: nbgrader_config.py
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    results = []
    start = time.monotonic()
    bar = Progress(len(subs)) if progress else None
    parts = batches(subs, jobs, timeouts)
    with tempfile.TemporaryDirectory(prefix="kpcourse-grade-") as tmp:
        dirs = []
        for i, _ in enumerate(parts):
            dirs.append(Path(tmp) / f"job{i}")
            dirs[-1].mkdir()
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(grade_batch, root, pairs, d, batch_env(env, pairs, timeouts))
                       for pairs, d in zip(parts, dirs, strict=True)]
            for fut in as_completed(futures):  # the parent alone writes the course gradebook
                batch = fut.result()
                for r in batch:
                    if r["ok"]:
                        merge(r["dir"] / "gradebook.db", root / "gradebook.db", r["assignment"], r["student"])
                        dest = course_path(root, "autograded", r["student"], r["assignment"])
                        if dest.exists():
                            shutil.rmtree(dest)
                        shutil.copytree(course_path(r["dir"], "autograded", r["student"], r["assignment"]), dest)
                        _record_wall(dest / SUMMARY, r["seconds"])
                    if bar:
                        bar.clear()
                    log(f"{'graded' if r['ok'] else 'FAILED'} {r['student']}/{r['assignment']} "
                        f"in {r['seconds']:.1f} s" + ("" if r["isolated"] else "  ** NOT ISOLATED **"))
                    for name, changes in r["metadata_reset"].items():  # what the student wrote there
                        log(f"  {name}: " + "; ".join(changes))
                    if not r["ok"]:
                        log(r["log"])
                    if bar:
                        bar.step(f"{r['student']}/{r['assignment']}")
                    results.append({k: r[k] for k in ("student", "assignment", "ok", "seconds", "isolated")})
                shutil.rmtree(batch[0]["dir"], ignore_errors=True)
    results.sort(key=lambda r: (r["student"], r["assignment"]))
    wall = time.monotonic() - start
    log(f"autograded {len(subs)} submission(s) with {jobs} job(s) in {wall:.1f} s ({clock(wall)}), "
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
            list(pool.map(lambda args: nbgrader(args, root), commands))
    exposed = [r for r in results if r["ok"] and not r["isolated"]]
    if exposed:
        log("*" * 78 + f"\nWARNING: {len(exposed)} submission(s) were graded WITHOUT isolation: their code "
            "could read the course folder\n(solutions, gradebook, other submissions). Install bubblewrap "
            "(apt-get install bubblewrap)\nand grade again before trusting these grades.\n" + "*" * 78)
    if export:
        _export_grades(root, root / export)
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


def _export_grades(root, path):
    """``grades.csv``: the course gradebook in :mod:`~kpcourse.grading.course.export`'s ``csv`` layout,
    quoted as CSV must be (nbgrader's
    own export leaves ``Stone, Jr.`` unquoted), plus an ``isolated`` column (yes / NO / empty when not graded)."""
    sheet = grades.read_gradebook(f"sqlite:///{Path(root).resolve() / 'gradebook.db'}", course_policy(root))
    table = grades.rows(sheet, "csv")
    header = table[0]
    who, what = header.index("student_id"), header.index("assignment")
    for row in table[1:]:
        summary = Summary.read(course_path(root, "autograded", row[who], row[what]) / SUMMARY)
        row.append("" if summary is None else "yes" if summary.isolated else "NO")
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([[*header, "isolated"], *table[1:]])
