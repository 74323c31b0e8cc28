"""Helpers the lesson tests share: a cell's probes, whether a function passes a cell, the pipeline's cases.

``passes(grader, lesson, cell, function)`` runs a grader's cell (its visible test and its hidden
one, drawn from ``seed``) on a function in the student's place, in this process; ``failing`` says
which of the two a function fails.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from pathlib import Path

from kpcourse.checks._core import run
from kpcourse.grading.judge.declared import hidden_probes


def probes(grader, lesson, cell, seed=1):
    """The visible probes of test cell ``cell`` and its hidden ones for ``seed``."""
    _, check = lesson.check(cell)
    return [*check.probes, *hidden_probes(cell, grader.HIDDEN[cell], seed)]


def passes(grader, lesson, cell, function, seed=1):
    """Whether ``function`` passes test cell ``cell``, its hidden probes for ``seed`` included."""
    try:
        run(grader.cells(seed=seed)[cell].tests, **{lesson.check(cell)[0].function: function})
    except AssertionError:
        return False
    return True


def failing(grader, solution, cell, functions, seed=7):
    """Which of ``cell``'s tests (``"visible"``, ``"hidden"``) fail on ``functions``, the source's ``solution``
    standing in for the student's other functions: a copy of course code must fail both."""
    judged, out = grader.cells(seed=seed)[cell], []
    for kind, test in zip(("visible", "hidden"), judged.tests, strict=True):
        try:
            dataclasses.replace(judged, tests=[test]).judge_here({**solution, **functions})
        except AssertionError:
            out.append(kind)
    return out


def pipeline_cases():
    """``tests/test_pipeline.py`` as a module: its ``Assignment``, ``generic_cases`` and ``golden_cases``."""
    spec = importlib.util.spec_from_file_location("_pipeline_cases", Path(__file__).parent / "test_pipeline.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
