"""Grades out of the nbgrader gradebook into a file an LMS imports (``make export-grades``).

Three layouts, one row per student (``plain csv`` excepted: one row per student and assignment):

``canvas``
    Canvas's gradebook CSV (the layout of its own gradebook export, which its import reads):
    ``Student, ID, SIS User ID, SIS Login ID, Section``, then one column per assignment named
    ``<assignment> (<Canvas assignment id>)``, or only ``<assignment>`` when no id is given (Canvas
    then offers to create it as a new assignment). The second row, ``Points Possible``, holds
    each assignment's maximum score. ``Student`` is ``Last, First`` (or the id), ``ID`` is the
    student's ``lms_user_id`` in the gradebook (Canvas's numeric user id; empty when unknown),
    ``SIS Login ID`` is the nbgrader student id (the login name on the hub); Canvas matches
    a row on any of ``ID``, ``SIS User ID`` and ``SIS Login ID`` that is filled in.
``moodle``
    Moodle's CSV grade import (Grades > Import > CSV file): ``First name, Last name, ID number,
    Email address``, then one column per assignment (the grade item). On import choose
    *Map from* ``ID number`` (or ``Email address``) and *Map to* the user's ``idnumber`` (or
    ``email``), and map each assignment column to its grade item.
``csv``
    ``student_id, first_name, last_name, email, assignment, duedate, timestamp, raw_score,
    late_penalty, score, max_score``: nbgrader's own export, plus nothing hidden.

Scores are after the late penalty, to two decimals. The penalty is taken off the *final* score
(after manual grading), by the policy in the course's ``nbgrader_config.py``
(:meth:`kpcourse.grading.course.late.PerDayPenalty.share`: the course's or the assignment's own),
for the time between the due date plus the student's extension and the submission; without a
course file, the penalty nbgrader stored at autograde (on the automatic score) is kept.
**The LMS's roster** (:mod:`kpcourse.grading.course.roster`, ``make import-roster``): when the course
holds one for the LMS of the export, each row's identity columns are the roster's, as the LMS wrote
them, and a student of the gradebook whom the roster does not hold stops the export before anything is
written, with the students named (Moodle aborts a whole import on one unknown user).

**Non-submitters** (``missing``): ``blank`` (the default) leaves the cell empty in ``canvas`` and
``moodle``, which Moodle reads as "no grade" and Canvas as a change; ``zero`` writes 0; ``leave``
writes no row for a student without a submission of the exported assignments, so the LMS keeps what
it has (export one assignment at a time, ``--assignment``, for that to hold for each grade). In
``csv`` a missing submission has an empty timestamp and score 0.

Command line: ``python -m kpcourse.grading.course.export FORMAT [--db sqlite:///gradebook.db]
[--out FILE] [--course DIR] [--canvas-id ASSIGNMENT=ID ...] [--assignment NAME] [--missing blank|zero|leave]``.
"""

from __future__ import annotations

import argparse
import csv
import sys
from dataclasses import dataclass, field
from pathlib import Path

from kpcourse.grading.course import roster as lms_roster
from kpcourse.grading.course.late import course_policy

__all__ = ["FORMATS", "MISSING", "Gradesheet", "read_gradebook", "rows", "write", "main"]

FORMATS = ("canvas", "moodle", "csv")
MISSING = ("blank", "zero", "leave")
CANVAS_IDENTITY = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
MOODLE_IDENTITY = ["First name", "Last name", "ID number", "Email address"]
CSV_COLUMNS = ["student_id", "first_name", "last_name", "email", "assignment", "duedate", "timestamp",
               "raw_score", "late_penalty", "score", "max_score"]


@dataclass
class Gradesheet:
    """What an export needs from the gradebook, read once.

    Attributes
    ----------
    students : list of dict
        ``id, first_name, last_name, email, lms_user_id`` (empty strings for what is unknown), by id.
    assignments : list of dict
        ``name, duedate, max_score``, in the gradebook's order (by due date, then name).
    submissions : dict
        ``{(student_id, assignment): {"timestamp", "raw_score", "late_penalty", "score"}}``;
        missing when the student did not submit.
    """

    students: list = field(default_factory=list)
    assignments: list = field(default_factory=list)
    submissions: dict = field(default_factory=dict)


def _s(value):
    return "" if value is None else str(value)


def _num(value):
    """A score as the LMS reads it: ``7``, ``6.5``, ``6.33``."""
    value = round(float(value), 2)
    return str(int(value)) if value == int(value) else f"{value:g}"


def read_gradebook(db_url, policy=None):
    """Read students, assignments and submissions from an nbgrader gradebook.

    Parameters
    ----------
    db_url : str
        SQLAlchemy URL of the gradebook, e.g. ``sqlite:////course/gradebook.db``.
    policy : kpcourse.grading.course.late.PerDayPenalty, optional
        The late policy, applied to each submission's final score (see the module's doc);
        ``None``: the penalties stored in the gradebook.

    Returns
    -------
    Gradesheet

    Raises
    ------
    FileNotFoundError
        When a ``sqlite:///`` URL names a file that does not exist (nbgrader would create an
        empty gradebook there instead).
    """
    from nbgrader.api import Gradebook, MissingEntry

    if db_url.startswith("sqlite:///"):
        path = Path(db_url[len("sqlite:///"):])
        if not path.is_file():
            raise FileNotFoundError(f"no gradebook at {path}: run `make autograde` first (or pass --db)")
    sheet = Gradesheet()
    with Gradebook(db_url) as gb:
        for st in sorted(gb.students, key=lambda s: s.id):
            sheet.students.append({"id": st.id, "first_name": _s(st.first_name), "last_name": _s(st.last_name),
                                   "email": _s(st.email), "lms_user_id": _s(st.lms_user_id)})
        assignments = sorted(gb.assignments, key=lambda a: (a.duedate is None, a.duedate or 0, a.name))
        for a in assignments:
            sheet.assignments.append({"name": a.name, "duedate": _s(a.duedate), "max_score": float(a.max_score)})
            for st in sheet.students:
                try:
                    sub = gb.find_submission(a.name, st["id"])
                except MissingEntry:
                    continue
                raw = float(sub.score)
                if policy is None:
                    penalty = float(sub.late_submission_penalty or 0.0)
                else:  # on the final score, manual grades included
                    penalty = round(raw * policy.share(a.name, sub.total_seconds_late), 2)
                sheet.submissions[(st["id"], a.name)] = {
                    "timestamp": _s(sub.timestamp), "raw_score": raw, "late_penalty": penalty,
                    "score": max(0.0, raw - penalty)}
    return sheet


def _who(sheet, fmt, roster, missing):
    """The students whose rows are written, each with the roster's identity columns (or ``None``)."""
    held = roster["students"] if roster and roster["lms"] == fmt else None
    if held is not None:
        unknown = [st["id"] for st in sheet.students if st["id"] not in held]
        if unknown:
            raise ValueError(f"the {fmt} roster (lms-roster.json) does not hold {', '.join(unknown)}: import the LMS's "
                             "current roster (make import-roster) or remove them from the gradebook; nothing written")
    names = [a["name"] for a in sheet.assignments]
    return [(st, held[st["id"]]["identity"] if held is not None else None) for st in sheet.students
            if missing != "leave" or any((st["id"], a) in sheet.submissions for a in names)]


def _scores(sheet, st, missing="blank"):
    return [_num(sub["score"]) if (sub := sheet.submissions.get((st["id"], a["name"])))
            else ("0" if missing == "zero" else "") for a in sheet.assignments]


def _canvas_rows(sheet, canvas_ids, roster=None, missing="blank"):
    unknown = sorted(set(canvas_ids) - {a["name"] for a in sheet.assignments})
    if unknown:
        raise ValueError(f"--canvas-id names assignments that are not in the gradebook: {', '.join(unknown)}")
    header = CANVAS_IDENTITY + [f"{a['name']} ({canvas_ids[a['name']]})" if a["name"] in canvas_ids else a["name"]
                                for a in sheet.assignments]
    rows = [header, ["Points Possible", "", "", "", ""] + [_num(a["max_score"]) for a in sheet.assignments]]
    for st, identity in _who(sheet, "canvas", roster, missing):
        if identity is None:
            name = f"{st['last_name']}, {st['first_name']}" if st["last_name"] and st["first_name"] else st["id"]
            identity = {"Student": name, "ID": st["lms_user_id"], "SIS User ID": "", "SIS Login ID": st["id"],
                        "Section": ""}
        rows.append([identity[c] for c in CANVAS_IDENTITY] + _scores(sheet, st, missing))
    return rows


def _moodle_rows(sheet, roster=None, missing="blank"):
    rows = [MOODLE_IDENTITY + [a["name"] for a in sheet.assignments]]
    for st, identity in _who(sheet, "moodle", roster, missing):
        identity = identity or {"First name": st["first_name"], "Last name": st["last_name"], "ID number": st["id"],
                                "Email address": st["email"]}
        rows.append([identity[c] for c in MOODLE_IDENTITY] + _scores(sheet, st, missing))
    return rows


def _csv_rows(sheet):
    rows = [CSV_COLUMNS]
    for a in sheet.assignments:
        for st in sheet.students:
            sub = sheet.submissions.get((st["id"], a["name"]))
            ident = [st["id"], st["first_name"], st["last_name"], st["email"], a["name"], a["duedate"]]
            if sub is None:
                rows.append(ident + ["", "0", "0", "0", _num(a["max_score"])])
            else:
                rows.append(ident + [sub["timestamp"], _num(sub["raw_score"]), _num(sub["late_penalty"]),
                                     _num(sub["score"]), _num(a["max_score"])])
    return rows


def rows(sheet, fmt, canvas_ids=None, roster=None, missing="blank"):
    """The rows of ``sheet`` in one of :data:`FORMATS`, its header first (see :func:`write`)."""
    if missing not in MISSING:
        raise ValueError(f"unknown treatment of non-submitters {missing!r}: choose one of {', '.join(MISSING)}")
    if fmt == "canvas":
        return _canvas_rows(sheet, dict(canvas_ids or {}), roster, missing)
    if fmt == "moodle":
        return _moodle_rows(sheet, roster, missing)
    if fmt == "csv":
        return _csv_rows(sheet)
    raise ValueError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")


def write(sheet, fmt, out, canvas_ids=None, roster=None, missing="blank"):
    """Write ``sheet`` to ``out`` in one of :data:`FORMATS`; return the number of student rows.

    Parameters
    ----------
    sheet : Gradesheet
    fmt : {"canvas", "moodle", "csv"}
    out : path-like
        The file written (UTF-8, CSV quoting; folders made as needed).
    canvas_ids : dict, optional
        ``{assignment name: Canvas assignment id}`` for the Canvas column names.
    roster : dict, optional
        The LMS's roster (:func:`kpcourse.grading.course.roster.load`): its identity columns are written,
        and a student it does not hold stops the export.
    missing : {"blank", "zero", "leave"}
        What a non-submitter's grade is (see the module's doc).

    Returns
    -------
    int

    Raises
    ------
    ValueError
        For an unknown format or treatment, Canvas ids of assignments not in the gradebook, or a student
        the roster does not hold; nothing is written then.
    """
    table = rows(sheet, fmt, canvas_ids, roster, missing)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(table)
    header_rows = {"canvas": 2, "moodle": 1}.get(fmt)  # (csv: one row per student and assignment)
    return len(table) - header_rows if header_rows else len(sheet.students)


def _canvas_id(text):
    name, sep, ident = text.partition("=")
    if not sep or not name or not ident.strip().isdigit():
        raise argparse.ArgumentTypeError(f"--canvas-id wants ASSIGNMENT=NUMBER, got {text!r}")
    return name, ident.strip()


def main(argv=None):
    """Command line of ``make export-grades``; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m kpcourse.grading.course.export",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("format", choices=FORMATS)
    parser.add_argument("--db", default="sqlite:///gradebook.db", help="gradebook URL (default: ./gradebook.db)")
    parser.add_argument("--out", help="file to write (default: grades-<format>.csv)")
    parser.add_argument("--course", default=".", help="course root whose nbgrader_config.py sets the late policy "
                                                       "(default: the current directory)")
    parser.add_argument("--canvas-id", type=_canvas_id, action="append", default=[], metavar="ASSIGNMENT=ID",
                        help="Canvas assignment id of an assignment (repeat for each)")
    parser.add_argument("--assignment", help="export this assignment only (default: every one)")
    parser.add_argument("--missing", choices=MISSING, default="blank",
                        help="a non-submitter's grade: blank cell, 0, or no row (leave the LMS's grade)")
    args = parser.parse_args(argv)
    out = args.out or f"grades-{args.format}.csv"
    try:
        sheet = read_gradebook(args.db, course_policy(args.course))
        if args.assignment:
            if args.assignment not in {a["name"] for a in sheet.assignments}:
                raise ValueError(f"no assignment {args.assignment!r} in the gradebook")
            sheet.assignments = [a for a in sheet.assignments if a["name"] == args.assignment]
        n = write(sheet, args.format, out, dict(args.canvas_id), lms_roster.load(args.course), args.missing)
    except (FileNotFoundError, ValueError) as exc:
        print(f"export-grades: {exc}", file=sys.stderr)
        return 2
    print(f"{args.format}: {n} student(s), {len(sheet.assignments)} assignment(s) written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
