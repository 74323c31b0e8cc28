"""Due dates, extensions and submission times a student cannot change.

**The course's rules, and one private setting.** The due date of each assignment is set in the course's
rules, ``kpcourse/data/course.toml`` (``[due]``, which the start page shows and ``nbgrader_config.py`` reads
into ``c.Deadlines.due``); each student's extension in ``nbgrader_config.py``, which students do not see::

    c.Deadlines.due = {"02-perceptron-by-hand": "2027-02-15 23:59:00 UTC"}   # from course.toml
    c.Deadlines.extensions = {"02-perceptron-by-hand": {"alice": 2}}   # days

:func:`apply` writes them into the gradebook: the due dates at ``make release`` and before
every ``make autograde``, the extensions before every autograde (for the students who have a
submission), so that nbgrader's late policy (:mod:`kpcourse.grading.course.late`) sees them; the autograde's merge
step keeps them (:func:`kpcourse.grading.course.autograding.merge`).

**The time that counts** is :func:`trusted_time`: the latest status-change time (``ctime``) of
the submission folder in the exchange's ``inbound/`` and of everything in it. The kernel sets
a ``ctime`` to the current time on every change of a file or folder (writing, renaming,
deleting an entry, ``touch``, ``chmod``), and no unprivileged user can set it back. So a
student who edits or deletes the ``timestamp.txt`` that nbgrader's submit wrote, renames the
folder or backdates a file's times only makes their submission later, never earlier. The
collect (:class:`kpcourse.grading.course.exchange.OwnerCheckedCollect`) writes that time as the
collected submission's ``timestamp.txt``, which the student cannot reach, and logs a warning
where the student's own claim differs from it by more than a minute.
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

from traitlets import Dict
from traitlets.config import Configurable

__all__ = ["Deadlines", "load", "apply", "trusted_time", "STAMP_FORMAT"]

#: How nbgrader writes ``timestamp.txt`` (``Exchange.timestamp_format``, in UTC).
STAMP_FORMAT = "%Y-%m-%d %H:%M:%S.%f %Z"


class Deadlines(Configurable):
    """``nbgrader_config.py``'s due dates and extensions (see the module's doc)."""

    due = Dict(help="Due date of each assignment: {name: 'YYYY-MM-DD HH:MM[:SS] UTC'} (any zone nbgrader "
                    "parses; none: UTC).").tag(config=True)
    extensions = Dict(help="Extra days per student: {assignment: {student id: days}}.").tag(config=True)


def load(root):
    """The :class:`Deadlines` of the course at ``root`` (its ``nbgrader_config.py``)."""
    from kpcourse.grading.paths import course_config

    config = course_config(root)
    return Deadlines(config=config) if config is not None else Deadlines()


def _due(name, text):
    from nbgrader.utils import parse_utc

    try:
        return parse_utc(str(text))
    except (ValueError, OverflowError, TypeError) as exc:
        raise ValueError(f"the due date of {name!r}, {text!r} (kpcourse/data/course.toml, [due], or "
                         "c.Deadlines.due in nbgrader_config.py), is not a date: write it as "
                         "'2027-02-15 23:59:00 UTC'") from exc


def apply(root, names, submitted=(), log=print):
    """Write the due dates of assignments ``names`` and the extensions of ``submitted``
    (``(student, assignment)`` pairs) into the course gradebook; returns the due dates set.

    Raises ``ValueError`` (naming the entry) for a date nbgrader cannot read, an assignment
    the course does not have, or an extension that is not a number of days >= 0.
    """
    from nbgrader.api import Gradebook, MissingEntry

    deadlines = load(root)
    names = list(names)
    unknown = sorted(set(deadlines.due) | set(deadlines.extensions))
    unknown = [a for a in unknown if not (Path(root) / "source" / a).is_dir()]
    if unknown:
        raise ValueError(f"nbgrader_config.py, c.Deadlines names {', '.join(unknown)}, which source/ does not have")
    set_dates = {}
    with Gradebook(f"sqlite:///{Path(root) / 'gradebook.db'}") as gb:
        for name in names:
            if name in deadlines.due:
                set_dates[name] = _due(name, deadlines.due[name])
                gb.update_or_create_assignment(name, duedate=set_dates[name])
            else:
                try:
                    undated = gb.find_assignment(name).duedate is None
                except MissingEntry:  # not released into this gradebook: nothing of it to grade late
                    undated = True
                if undated:
                    log(f"{name}: no due date (kpcourse/data/course.toml, [due]): no late penalty applies")
        for student, name in submitted:
            days = deadlines.extensions.get(name, {}).get(student)
            if days is None:
                continue
            if isinstance(days, bool) or not isinstance(days, (int, float)) or days < 0:
                raise ValueError(f"nbgrader_config.py, c.Deadlines.extensions[{name!r}][{student!r}] = {days!r}: "
                                 "write a number of days, 0 or more")
            gb.update_or_create_student(student)
            gb.update_or_create_submission(name, student, extension=dt.timedelta(days=float(days)))
    return set_dates


def trusted_time(path):
    """The latest ``ctime`` of ``path`` and of everything below it (links not followed), in UTC."""
    latest = os.lstat(path).st_ctime
    for folder, dirs, files in os.walk(path):
        for entry in (*dirs, *files):
            latest = max(latest, os.lstat(os.path.join(folder, entry)).st_ctime)
    return dt.datetime.fromtimestamp(latest, dt.UTC).replace(tzinfo=None)


def stamp(when):
    """``when`` (naive UTC) as nbgrader writes ``timestamp.txt``."""
    return when.replace(tzinfo=dt.UTC).strftime(STAMP_FORMAT)
