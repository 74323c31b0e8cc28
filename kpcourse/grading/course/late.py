"""The course's late-submission policy: a share of the score per day late, with a cap.

nbgrader calls the plug-in named by ``c.AssignLatePenalties.plugin_class`` (in
``nbgrader_config.py``) once per notebook of a late submission, during autograde, with
the notebook's score and how many seconds after the due date it was submitted. The
penalty it returns is stored in the gradebook (``late_submission_penalty``) and taken
off the score in every export (``make export-grades``).

Policy (the defaults; ``nbgrader_config.py`` sets them): every day late, or part of a day,
after a grace period, costs ``per_day`` of the score obtained, up to ``cap``::

    days    = ceil((seconds_late - grace_seconds) / 86400), at least 0
    penalty = score * min(cap, per_day * days)

With ``per_day = 0.1``, ``cap = 0.5`` and a 15-minute grace: 10 minutes late costs nothing,
1 hour late 10 %, 2 days and 1 hour late 30 %, 8 days late 50 %.

**On the final score.** nbgrader applies the plug-in at autograde, to the automatic score. The
exports (``make export-grades``, ``grades.csv``: :mod:`kpcourse.grading.course.export`) take the
penalty off the *final* score instead (after manual grading), with :meth:`PerDayPenalty.share`:
the same policy, or an assignment's own (``c.PerDayPenalty.per_assignment``), applied to the
seconds between the due date (plus the student's extension) and the submission's time.
"""

from __future__ import annotations

import math

from nbgrader.plugins import LateSubmissionPlugin
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Dict, Float

__all__ = ["PerDayPenalty", "StateLateRule", "late_fraction", "late_note", "course_policy", "DAY"]

DAY = 86400.0


def late_fraction(seconds_late, per_day, cap, grace_seconds=0.0):
    """Share of the score taken off a submission ``seconds_late`` after the due date.

    Parameters
    ----------
    seconds_late : float
        Seconds between the due date and the submission (0 or less: on time).
    per_day : float
        Share of the score taken off per started day late, in [0, 1].
    cap : float
        Largest share taken off, in [0, 1].
    grace_seconds : float, optional
        Lateness forgiven before the first day starts counting.

    Returns
    -------
    float
        ``min(cap, per_day * days)`` with ``days`` the started days after the grace period.

    Raises
    ------
    ValueError
        When ``per_day`` or ``cap`` is outside [0, 1] or ``grace_seconds`` is negative.
    """
    if not (0.0 <= per_day <= 1.0 and 0.0 <= cap <= 1.0):
        raise ValueError(f"late policy: per_day ({per_day}) and cap ({cap}) must be between 0 and 1")
    if grace_seconds < 0:
        raise ValueError(f"late policy: grace_seconds ({grace_seconds}) must not be negative")
    late = float(seconds_late) - float(grace_seconds)
    if late <= 0:
        return 0.0
    days = math.ceil(late / DAY)
    return min(cap, per_day * days)


class PerDayPenalty(LateSubmissionPlugin):
    """nbgrader late-submission plug-in: ``per_day`` of the score per started day late, at most ``cap``.

    Configure in ``nbgrader_config.py``::

        c.AssignLatePenalties.plugin_class = PerDayPenalty
        c.PerDayPenalty.per_day = 0.1
        c.PerDayPenalty.cap = 0.5
        c.PerDayPenalty.grace_seconds = 15 * 60
    """

    per_day = Float(0.1, help="Share of the score taken off per started day late (0 to 1).").tag(config=True)
    cap = Float(0.5, help="Largest share of the score taken off (0 to 1).").tag(config=True)
    grace_seconds = Float(0.0, help="Lateness forgiven before the first day counts, in seconds.").tag(config=True)
    per_assignment = Dict(help="An assignment's own policy: {name: {'per_day': ..., 'cap': ..., "
                               "'grace_seconds': ...}} (what is not given is the course's).").tag(config=True)

    def policy(self, assignment):
        """The late policy of ``assignment``, ``{"per_day", "cap", "grace_seconds"}``: its own entries of
        ``per_assignment`` where it has them, the course's otherwise.

        Raises ``ValueError`` for a ``per_assignment`` entry with an unknown key.
        """
        own = self.per_assignment.get(assignment, {})
        unknown = sorted(set(own) - {"per_day", "cap", "grace_seconds"})
        if unknown:
            raise ValueError(f"nbgrader_config.py, c.PerDayPenalty.per_assignment[{assignment!r}] has "
                             f"{', '.join(unknown)}: only per_day, cap and grace_seconds")
        return {"per_day": self.per_day, "cap": self.cap, "grace_seconds": self.grace_seconds, **own}

    def share(self, assignment, seconds_late):
        """Share of the final score taken off ``assignment`` submitted ``seconds_late`` after its due date.

        Raises ``ValueError`` for a ``per_assignment`` entry with an unknown key or a value out of range.
        """
        return late_fraction(seconds_late, **self.policy(assignment))

    def late_submission_penalty(self, student_id, score, total_seconds_late):
        """Points taken off one late notebook: ``score * late_fraction(...)``, rounded to 0.01.

        Parameters
        ----------
        student_id : str
            The student (only logged).
        score : float
            The notebook's score before the penalty.
        total_seconds_late : float
            Seconds after the due date.

        Returns
        -------
        float
            The penalty in points (0.0 on time or within the grace period).
        """
        share = late_fraction(total_seconds_late, self.per_day, self.cap, self.grace_seconds)
        penalty = round(float(score or 0.0) * share, 2)
        self.log.info("late policy: %s is %.0f s late, %.0f %% off: %s point(s)",
                      student_id, total_seconds_late, 100 * share, penalty)
        return penalty


def course_policy(root):
    """The :class:`PerDayPenalty` that the course at ``root`` configures (its ``nbgrader_config.py``), or
    ``None`` when it has none (the exports then keep the penalties stored in the gradebook)."""
    from kpcourse.grading.paths import course_config

    config = course_config(root)
    return PerDayPenalty(config=config) if config is not None else None


def _span(seconds):
    days, rest = divmod(int(round(seconds)), 86400)
    hours, rest = divmod(rest, 3600)
    return ", ".join(f"{n} {unit}{'s' if n != 1 else ''}" for n, unit in
                     ((days, "day"), (hours, "hour"), (rest // 60, "minute")) if n) or "less than a minute"


def late_note(policy, due, extension, submitted, seconds_late):
    """What a student's feedback says about lateness: the rule, and what it did to this submission.

    Parameters
    ----------
    policy : dict
        ``{"per_day", "cap", "grace_seconds"}`` (:meth:`PerDayPenalty.policy`).
    due : datetime.datetime or None
        The due date that applies, the student's extension included (UTC); ``None``: none set.
    extension : datetime.timedelta or None
        The student's extension.
    submitted : datetime.datetime
        When the submission counts as made (UTC): when its files reached the course.
    seconds_late : float
        Seconds after ``due``.

    Returns
    -------
    str
        Markdown text: plain words, no HTML.
    """
    rule = (f"each day late, or part of a day, after {policy['grace_seconds'] / 60:g} minutes of grace, costs "
            f"{policy['per_day']:.0%} of the assignment's final score (after manual grading), at most "
            f"{policy['cap']:.0%}")
    if due is None:
        return (f"**Late work.** No due date is set for this assignment, so no late penalty applies. The course's "
                f"rule: {rule}.")
    given = f", with your extension of {_span(extension.total_seconds())}," if extension else ""
    lines = [f"**Late work.** The course's rule: {rule}.", "",
             f"- Due{given} {due:%Y-%m-%d %H:%M} UTC.",
             f"- This submission counts as made at {submitted:%Y-%m-%d %H:%M} UTC, when its files reached the "
             "course; the time your own submission recorded does not count."]
    share = late_fraction(seconds_late, **policy)
    if seconds_late <= 0:
        lines.append("- It was on time: no penalty.")
    else:
        lines.append(f"- It was {_span(seconds_late)} late: {share:.0%} comes off this assignment's final score.")
    return "\n".join(lines)


class StateLateRule(NbGraderPreprocessor):
    """nbgrader plug-in (feedback): put the late rule, and what it did to this submission, first in the feedback.

    It reads the submission's due date, extension and time from the gradebook, and the policy from the
    course's configuration (:class:`PerDayPenalty`); a notebook without a submission in the gradebook is
    left as it is.
    """

    def preprocess(self, nb, resources):
        from nbformat.v4 import new_markdown_cell
        from nbgrader.api import Gradebook, MissingEntry

        info = resources["nbgrader"]
        with Gradebook(info["db_url"]) as gb:
            try:
                sub = gb.find_submission(info["assignment"], info["student"])
            except MissingEntry:
                return nb, resources
            policy = PerDayPenalty(config=self.config).policy(info["assignment"])
            text = late_note(policy, sub.duedate, sub.extension, sub.timestamp, sub.total_seconds_late)
        nb.cells.insert(0, new_markdown_cell(text))
        return nb, resources
