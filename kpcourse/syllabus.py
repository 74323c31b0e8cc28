"""The course's rules, read from one file: due dates, the late policy, weights, collaboration and AI use.

The file is ``kpcourse/data/course.toml`` (or ``path``). The start page shows what it says;
``nbgrader_config.py`` applies its due dates and late policy, so that what students read is what the
grader does (``kpcourse.grading.course.late`` computes the penalty from these numbers).

    >>> from kpcourse.syllabus import load_syllabus
    >>> syllabus = load_syllabus()
    >>> 0 <= syllabus.per_day <= 1 and 0 <= syllabus.cap <= 1
    True
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

__all__ = ["Syllabus", "load_syllabus", "RULES"]

#: The written rules every course file states, in the order the start page shows them.
RULES = ("weights", "collaboration", "ai_tools", "help")


@dataclass(frozen=True)
class Syllabus:
    """What ``course.toml`` says: ``due`` ({assignment: "YYYY-MM-DD HH:MM:SS UTC"}), the late policy
    (``per_day`` and ``cap``, shares of the final score; ``grace_minutes``) and ``rules`` (text by name)."""

    due: dict = field(default_factory=dict)
    per_day: float = 0.1
    cap: float = 0.5
    grace_minutes: float = 0.0
    rules: dict = field(default_factory=dict)


def _problem(path, text):
    return ValueError(f"{path}: {text}")


def load_syllabus(path=None):
    """The :class:`Syllabus` of ``path`` (default: the package's ``data/course.toml``).

    Raises ``ValueError`` naming the file and the entry for an unknown section or key, a share outside
    [0, 1], a negative grace, a due date that is not text, or a rule missing or empty.
    """
    if path is None:
        source = resources.files("kpcourse") / "data" / "course.toml"
        path, text = "kpcourse/data/course.toml", source.read_text(encoding="utf-8")
    else:
        text = Path(path).read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _problem(path, f"not valid TOML ({exc})") from None
    unknown = sorted(set(data) - {"due", "late", "rules"})
    if unknown:
        raise _problem(path, f"unknown section(s) {', '.join(unknown)}: only [due], [late] and [rules]")
    due = data.get("due", {})
    for assignment, when in due.items():
        if not isinstance(when, str):
            raise _problem(path, f"[due] {assignment} must be text such as \"2027-02-01 23:59:00 UTC\"")
    late = data.get("late", {})
    unknown = sorted(set(late) - {"per_day", "cap", "grace_minutes"})
    if unknown:
        raise _problem(path, f"[late] has {', '.join(unknown)}: only per_day, cap and grace_minutes")
    for key in ("per_day", "cap"):
        if key in late and not (isinstance(late[key], int | float) and 0 <= late[key] <= 1):
            raise _problem(path, f"[late] {key} must be a share between 0 and 1, not {late[key]!r}")
    grace = late.get("grace_minutes", 0)
    if not isinstance(grace, int | float) or grace < 0:
        raise _problem(path, f"[late] grace_minutes must be a number of minutes, 0 or more, not {grace!r}")
    rules = data.get("rules", {})
    unknown = sorted(set(rules) - set(RULES))
    if unknown:
        raise _problem(path, f"[rules] has {', '.join(unknown)}: only {', '.join(RULES)}")
    missing = [name for name in RULES if not str(rules.get(name, "")).strip()]
    if missing:
        raise _problem(path, f"[rules] needs {', '.join(missing)} (a sentence or more each)")
    return Syllabus(due=dict(due), per_day=float(late.get("per_day", 0.1)), cap=float(late.get("cap", 0.5)),
                    grace_minutes=float(grace), rules={name: " ".join(rules[name].split()) for name in RULES})
