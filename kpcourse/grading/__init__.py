"""Instructor tooling on top of nbgrader: release, autograde in a sandbox, feedback, report, validate.

Used by ``make release``, ``make autograde``, ``make report`` and ``make validate`` and by
``nbgrader_config.py``; importing :mod:`kpcourse` does not import this package, and
this package loads nbgrader only for the parts that need it.

- :mod:`.commands`: the command line ``python -m kpcourse.grading``, ``validate``, ``checks-data``;
- :mod:`.course`: nbgrader's command line, the assignments and submissions, ``release``;
- :mod:`.autograding`: ``autograde`` (one nbgrader process per small batch of submissions,
  in parallel, each submission's metadata reset to the release's first); :mod:`.progress`: its
  progress line;
- :mod:`.report`: the class report (score distributions, frequent hints, flags);
- :mod:`.trusted`: :class:`TrustedExecute`, the autograde step that runs a submission
  in the sandbox and decides its points in the grader's own process;
- :mod:`.sandbox`: the bubblewrap boundary; :mod:`.inside`: what runs inside it;
- :mod:`.policy`: "wrote it or called it?", from the student's source, parsed, never run;
- :mod:`.spec`: :class:`Cell`, what a grader file declares;
- :mod:`.executor`: :class:`RestartingExecute` (runs inside the sandbox);
- :mod:`.plugins`: :class:`ScrubHiddenTests`, :class:`MakeInert`; :mod:`.inert`: what a graded
  notebook shows made text (outputs, Markdown, raw cells);
- :mod:`.local`: judge trusted notebooks (golden submissions) in one shell, for tests.
"""

from __future__ import annotations

import importlib

_WHERE = {
    "release": "course", "assignments": "course", "autograde": "autograding", "validate": "commands",
    "main": "commands", "write_report": "report", "ANSI": "plugins", "_ANSI": "plugins",
    "RestartingExecute": "executor", "ScrubHiddenTests": "plugins", "MakeInert": "plugins", "TrustedExecute": "trusted",
    "load_grader": "trusted", "Cell": "spec", "DEFAULT_FORBIDDEN": "spec",
}
__all__ = sorted(k for k in _WHERE if not k.startswith("_"))


def __getattr__(name):
    if name in _WHERE:
        return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
