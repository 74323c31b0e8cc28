"""Instructor tooling on top of nbgrader: release, autograde in a sandbox, feedback, report, validate.

Used by ``make release``, ``make autograde``, ``make report`` and ``make validate`` and by
``nbgrader_config.py``; importing :mod:`kpcourse` does not import this package, and
this package loads nbgrader only for the parts that need it. Its parts, each a sub-package:

- :mod:`.course`: the course folder and the term -- nbgrader's command line and ``release``,
  ``autograde`` (parallel, one gradebook), the exchange's collect, deadlines, the late policy,
  grade exports, the student edition;
- :mod:`.sandbox`: where a submission runs -- bubblewrap, control groups, limits, the trimmed
  package, and what runs first inside;
- :mod:`.judge`: how points are decided -- what a grader file declares, the source policy, the
  student's definitions, the grader's own run of the hidden calls, ``TrustedExecute``;
- :mod:`.views`: what a graded notebook shows (inert outputs, hidden tests scrubbed), the
  grading summary and the class report;
- :mod:`.paths`: where nbgrader keeps things (a leaf every part uses);
- :mod:`.commands`: the command line ``python -m kpcourse.grading``.

Imports flow one way: ``commands`` -> ``course`` and ``views`` -> ``judge`` -> ``sandbox``;
nothing in ``sandbox`` imports the others (it is what the sandbox holds).
"""

from __future__ import annotations

import importlib

_WHERE = {
    "release": "course.folder", "assignments": "course.folder", "autograde": "course.autograding",
    "validate": "commands", "main": "commands", "write_report": "views.report", "ANSI": "views.plugins",
    "_ANSI": "views.plugins", "RestartingExecute": "sandbox.executor", "ScrubHiddenTests": "views.plugins",
    "MakeInert": "views.plugins", "TrustedExecute": "judge.trusted", "load_grader": "judge.trusted",
    "Cell": "judge.spec", "DEFAULT_FORBIDDEN": "judge.spec",
}
__all__ = sorted(k for k in _WHERE if not k.startswith("_"))


def __getattr__(name):
    if name in _WHERE:
        return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
