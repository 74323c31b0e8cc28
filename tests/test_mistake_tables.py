"""The hints of the named mistakes are data: one TOML table per exercise (``kpcourse/checks/data``).

Each lesson's tables name exactly its exercises, every hint there is the one its exercise
uses, and no key is written twice (an exercise that takes a course-wide group of mistakes never
redefines one of its keys). Lesson 07's hints for combinations of flaws are made by code
(``lesson07._FLAWED``).
"""

import importlib
import re
import tomllib
from pathlib import Path

import pytest

from kpcourse.checks import LESSONS
from kpcourse.checks._core import load_mistakes
from kpcourse.checks.exercise import RBF_FORMULA, SIGN_AT_ZERO

DATA = Path(__file__).resolve().parents[1] / "kpcourse" / "checks" / "data"
GROUPS = (SIGN_AT_ZERO, RBF_FORMULA)


def _module(name):
    return importlib.import_module(f"kpcourse.checks.{name}")


def _lesson(name):
    return _module(name).LESSON


def _groups_of(exercise):
    """The course-wide groups an exercise takes, whole or in part (lesson 05's bound takes the slips of the
    kernel's formula that leave K c = y solvable): each shared key with the group's hint, the part that is taken."""
    taken = []
    for group in GROUPS:
        shared = {k: h for k, h in group.items() if exercise.mistakes.get(k) == h}
        if shared:
            taken.append(shared)
    return taken


@pytest.mark.parametrize("name", LESSONS)
def test_each_exercise_has_one_table_and_uses_it(name):
    tables, exercises = load_mistakes(name), {}
    for e in _lesson(name).exercises:  # two exercises may call one function (the capstone's predict)
        exercises.setdefault(e.function, []).append(e)
    assert set(tables) <= set(exercises), f"{name}: tables for no exercise: {set(tables) - set(exercises)}"
    for function, table in tables.items():
        used = {k: h for e in exercises[function] for k, h in e.mistakes.items()}
        groups = [g for e in exercises[function] for g in _groups_of(e)]
        for key, hint in table.items():
            assert re.fullmatch(r"[a-z0-9_]+", key), f"{name} [{function}] key {key!r}"
            assert hint.strip() and used.get(key) == hint, f"{name} [{function}] {key}: not the hint in use"
            assert not any(key in g for g in groups), f"{name} [{function}] redefines the course-wide key {key!r}"


@pytest.mark.parametrize("name", LESSONS)
def test_every_hint_in_use_is_written_in_a_table(name):
    tables, made = load_mistakes(name), getattr(_module(name), "_FLAWED", {})
    for exercise in _lesson(name).exercises:
        written = [tables.get(exercise.function, {}), *_groups_of(exercise)]
        for key, hint in exercise.mistakes.items():
            assert any(t.get(key) == hint for t in written) or made.get(key) == hint, \
                f"{name}: {exercise.function}'s mistake {key!r} has a hint of no table"


def test_keys_that_share_a_hint_are_written_once():
    """``"a b" = "..."``: two keys of one table share one line; no hint is written twice in a table."""
    for path in sorted(DATA.glob("*.mistakes.toml")):
        for function, table in tomllib.loads(path.read_text()).items():
            hints = list(table.values())
            assert len(hints) == len(set(hints)), f"{path.name} [{function}]: a hint written twice"
