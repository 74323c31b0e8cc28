"""The LMS's roster in the course (``make import-roster FILE=...``), so that exported grades name every
student the way the LMS does.

Two exports are read, told apart by their header:

``canvas``
    Canvas's gradebook export (*Grades → Export → CSV*): ``Student`` (``Last, First``), ``ID``
    (Canvas's user id), ``SIS User ID``, ``SIS Login ID``, possibly ``Integration ID``, ``Section``,
    then the assignments; the ``Points Possible`` row (and any row without a student) is skipped.
``moodle``
    Moodle's grade export (*Grades → Export → Plain text file*) or a participants' list:
    ``First name``, ``Last name``, ``ID number``, ``Email address``; other columns are ignored.

One column holds the nbgrader id of each student (their login on the hub): by default
``SIS Login ID`` for Canvas and ``ID number`` for Moodle (``--id-column`` names another). A row whose
id is empty, or an id that two rows share, is refused with the rows named, before anything is
written.

:func:`import_roster` writes each student into the gradebook (names, email, and as ``lms_user_id``
Canvas's ``ID`` or Moodle's ``ID number``) and keeps the roster as ``lms-roster.json`` in the course
root: the LMS, the id column and each student's identity columns exactly as the LMS wrote them.
``make export-grades`` (:mod:`kpcourse.grading.course.export`) writes those back, and refuses to
write a file that names a student the roster does not hold.

Command line: ``python -m kpcourse.grading.course.roster FILE [--id-column NAME] [--course DIR]
[--db URL]``.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

__all__ = ["IDENTITY", "ID_COLUMN", "ROSTER_FILE", "read", "import_roster", "load", "main"]

#: The identity columns of each LMS's files, in the order its grade import reads them.
IDENTITY = {"canvas": ("Student", "ID", "SIS User ID", "SIS Login ID", "Section"),
            "moodle": ("First name", "Last name", "ID number", "Email address")}
#: The column that holds the nbgrader id, by default.
ID_COLUMN = {"canvas": "SIS Login ID", "moodle": "ID number"}
#: Where the roster is kept, in the course root.
ROSTER_FILE = "lms-roster.json"


def _lms(header, path):
    names = {h.strip() for h in header}
    for lms, columns in IDENTITY.items():
        needed = set(columns) - ({"Section"} if lms == "canvas" else set())
        if needed <= names:
            return lms
    raise ValueError(f"{path}: neither a Canvas gradebook export (Student, ID, SIS User ID, SIS Login ID, "
                     f"Section) nor a Moodle export (First name, Last name, ID number, Email address); its "
                     f"columns are {', '.join(h.strip() for h in header[:8])}")


def _names(lms, row):
    """(first, last) name of a roster row."""
    if lms == "moodle":
        return row["First name"], row["Last name"]
    last, sep, first = row["Student"].rpartition(", ")  # Canvas writes "Last, First" ("Stone, Jr., Bob")
    return (first, last) if sep else ("", row["Student"])


def read(path, id_column=None):
    """Read a Canvas or Moodle roster export.

    Parameters
    ----------
    path : path-like
        The CSV file the LMS exported (UTF-8, a byte-order mark allowed).
    id_column : str, optional
        The column that holds the nbgrader id (default :data:`ID_COLUMN` of the LMS).

    Returns
    -------
    dict
        ``{"lms", "id_column", "students": {nbgrader id: {"first_name", "last_name", "email",
        "lms_user_id", "identity": {column: value}}}}``.

    Raises
    ------
    ValueError
        For a file of neither layout, an unknown id column, a row without an id, or an id two rows share.
    """
    with open(path, newline="", encoding="utf-8-sig") as fh:
        table = list(csv.reader(fh))
    if not table:
        raise ValueError(f"{path}: empty file")
    header = [h.strip() for h in table[0]]
    lms = _lms(header, path)
    id_column = id_column or ID_COLUMN[lms]
    if id_column not in header:
        raise ValueError(f"{path}: no column {id_column!r} to read the nbgrader ids from")
    students, problems = {}, []
    for number, cells in enumerate(table[1:], start=2):
        row = dict(zip(header, (c.strip() for c in cells), strict=False))
        if lms == "canvas" and (not row.get("Student") or row["Student"].strip() == "Points Possible"):
            continue
        if not any(row.values()):
            continue
        ident = row.get(id_column, "")
        first, last = _names(lms, row)
        if not ident:
            problems.append(f"row {number} ({first} {last}) has no {id_column}")
        elif ident in students:
            problems.append(f"row {number}: {id_column} {ident!r} is also on an earlier row")
        else:
            students[ident] = {"first_name": first, "last_name": last, "email": row.get("Email address", ""),
                               "lms_user_id": row.get("ID" if lms == "canvas" else "ID number", ""),
                               "identity": {c: row.get(c, "") for c in IDENTITY[lms]}}
    if problems:
        raise ValueError(f"{path}: " + "; ".join(problems))
    return {"lms": lms, "id_column": id_column, "students": students}


def import_roster(root, path, id_column=None, db_url=None):
    """Read the roster at ``path`` into the gradebook of the course at ``root`` and keep it there.

    Returns the roster (:func:`read`). Students already in the gradebook are updated (names, email,
    ``lms_user_id``); nobody is removed.
    """
    from nbgrader.api import Gradebook

    roster = read(path, id_column)
    root = Path(root)
    with Gradebook(db_url or f"sqlite:///{root / 'gradebook.db'}") as gb:
        for ident, st in roster["students"].items():
            gb.update_or_create_student(ident, first_name=st["first_name"] or None,
                                        last_name=st["last_name"] or None, email=st["email"] or None,
                                        lms_user_id=st["lms_user_id"] or None)
    (root / ROSTER_FILE).write_text(json.dumps(roster, indent=1, ensure_ascii=False), encoding="utf-8")
    return roster


def load(root):
    """The roster kept in the course at ``root`` (:func:`import_roster`), or ``None`` when there is none."""
    path = Path(root) / ROSTER_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def main(argv=None):
    """Command line of ``make import-roster``; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m kpcourse.grading.course.roster",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("file", help="the roster the LMS exported (CSV)")
    parser.add_argument("--id-column", help="the column that holds the nbgrader id (default: SIS Login ID for "
                                            "Canvas, ID number for Moodle)")
    parser.add_argument("--course", default=".", help="course root (default: the current directory)")
    parser.add_argument("--db", help="gradebook URL (default: the course's gradebook.db)")
    args = parser.parse_args(argv)
    try:
        roster = import_roster(args.course, args.file, args.id_column, args.db)
    except (OSError, ValueError) as exc:
        print(f"import-roster: {exc}", file=sys.stderr)
        return 2
    print(f"{roster['lms']}: {len(roster['students'])} student(s) by {roster['id_column']}, written to the "
          f"gradebook and {ROSTER_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
