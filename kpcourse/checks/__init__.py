"""Student-facing checks for the graded exercises: they say what is wrong, never what is right.

One table per lesson (``lesson01`` … ``lesson09``: each exercise declared once, see
:mod:`kpcourse.checks.exercise`), the shared plumbing in :mod:`kpcourse.checks._core`.
Each visible test in an assignment is one call, e.g. ``checks.lesson02.test(
"ex1-predict-tests", predict)``; the public names of every lesson's module (such as
lesson 06's ``nystrom_limit``) are available here directly (``from kpcourse import
checks`` in a notebook) and are loaded on first use.

These modules hold **data, not algorithms**: fixed probes, the outputs a correct
function gives on them and the outputs of common mistakes (to name them). No
reference solution lives in the package students import; the hidden tests and the
references they use are grader-only files beside each source notebook
(``source/<assignment>/grader.py``), run by :mod:`kpcourse.grading` outside the
student's reach.
"""

from __future__ import annotations

import importlib

LESSONS = ("lesson01", "lesson02", "lesson03", "lesson04", "lesson05", "lesson06", "lesson07", "lesson08",
           "lesson09")

_index = None


def _lesson_of(name):
    global _index
    if _index is None:
        modules = [importlib.import_module(f"{__name__}.{lesson}") for lesson in LESSONS]
        _index = {public: m for m in reversed(modules) for public in getattr(m, "__all__", ())}
    return _index.get(name)


def __getattr__(name):
    if name in LESSONS:
        return importlib.import_module(f"{__name__}.{name}")
    if name.startswith("__"):
        raise AttributeError(name)
    module = _lesson_of(name)
    if module is not None:
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    _lesson_of("")
    return sorted([*LESSONS, *_index])
