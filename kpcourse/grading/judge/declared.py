"""Grader side of the declared exercises: references, hidden probes drawn from a seed, cells.

A grader file of a declared lesson holds three things beside its checks module's
:class:`~kpcourse.checks.exercise.Lesson`:

* ``REFERENCES``: function name -> ``reference(*args, mistake=None, **kwargs)``, the
  correct function, and with ``mistake="<key>"`` the output of that named mistake;
* ``HIDDEN``: test cell -> ``probes(rng)``, the hidden probes drawn from a
  :class:`numpy.random.Generator` (fresh for each grading run when the seed is);
* optionally ``OPTIONS``: test cell -> extra :class:`~kpcourse.grading.judge.spec.Cell`
  settings (``loop_free``, ``answer_bytes``, ``allow``).

:func:`cells` turns them into the grader's ``cells()``, :func:`visible_data` into the
data the visible checks hold (``make checks-data``).

Every grader file is grader-only: never released and never mounted in the student's
sandbox, so its references and hidden probes stay out of the student's reach.
``python -m kpcourse.grading checks-data NN-slug`` writes ``kpcourse/checks/data/lessonNN.json``
from its ``visible_data()``; ``tests/test_graders.py`` keeps the two equal.
"""

from __future__ import annotations

import copy
import importlib.util
import sys
import zlib
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from kpcourse.checks._core import Ref, Test, Via
from kpcourse.checks.exercise import judge
from kpcourse.grading.judge.spec import Cell

__all__ = ["argument", "outputs", "visible_data", "hidden_probes", "cells", "grader", "sign_labels", "shared",
           "DEFAULT_SEED"]

#: Seed of the hidden probes when the grading run gives none (tests, `judge_here`).
DEFAULT_SEED = 20260

_NOTHING = object()


def _reference(references, exercise):
    try:
        return references[exercise.function]
    except KeyError:
        raise KeyError(f"the grader has no reference for {exercise.function!r}: add it to REFERENCES") from None


def argument(a, references):
    """A probe's argument as ``references`` (name -> function) make it: a copy of plain data, the function
    itself for a :class:`~kpcourse.checks._core.Ref`, what it returns for a :class:`~kpcourse.checks._core.Via`."""
    if isinstance(a, Ref):
        return references[a.name]
    if isinstance(a, Via):  # the function on the same arguments
        return references[a.function](*[argument(v, references) for v in a.args],
                                      **{k: argument(v, references) for k, v in a.kwargs.items()})
    return copy.deepcopy(a)


def outputs(reference, check, probes, references=None, lazy=False):
    """Expected outputs of ``probes`` and, for each, the output of each of ``check``'s mistakes.

    A :class:`~kpcourse.checks._core.Ref` argument (another of the student's functions)
    is given to the reference as ``references[name]``, the grader's own; a
    :class:`~kpcourse.checks._core.Via` argument as what ``references[name]`` returns. With ``lazy``,
    a probe's mistaken outputs are computed only when the judge first asks for them
    (a wrong answer): a right submission costs the grader one reference run per probe.
    """
    references = references or {}

    def arguments(probe):
        return ([argument(a, references) for a in probe.args],
                {k: argument(v, references) for k, v in probe.kwargs.items()})

    def mistakes_of(probe):
        wrong = {}
        for key in (*check.mistakes, *check.accept):  # accepted outputs too (Check.accept)
            args, kwargs = arguments(probe)
            try:
                out = reference(*args, mistake=key, **kwargs)
            except Exception as exc:  # noqa: BLE001 - a mistake that raises is named by its exception
                out = {"__raised__": type(exc).__name__}
            if out is not None:
                wrong[key] = out
        return wrong

    expected, mistaken = [], []
    for probe in probes:
        if probe.raises or probe.like is not None:
            expected.append(None)
            mistaken.append({})
            continue
        args, kwargs = arguments(probe)
        try:  # (a probe that calls another of the student's functions: the grader's own of that name)
            expected.append((references[probe.function] if getattr(probe, "function", None) else reference)(
                *args, **kwargs))
        except Exception as exc:  # noqa: BLE001 - the reference raises here: so must the answer (the judge reads it)
            expected.append({"__raised__": type(exc).__name__})
        mistaken.append(_Lazy(lambda probe=probe: mistakes_of(probe)) if lazy else mistakes_of(probe))
    return expected, mistaken


class _Lazy(Mapping):
    """A mapping computed on first use."""

    def __init__(self, compute):
        self._compute, self._data = compute, None

    def _get(self):
        if self._data is None:
            self._data = self._compute()
        return self._data

    def __getitem__(self, key):
        return self._get()[key]

    def __iter__(self):
        return iter(self._get())

    def __len__(self):
        return len(self._get())


def visible_data(lesson, references):
    """For each test cell: the expected and mistaken outputs of its visible probes."""
    data = {}
    for cell, (exercise, check) in lesson.cells.items():
        expected, mistaken = outputs(_reference(references, exercise), check, check.probes, references)
        data[cell] = {"expected": expected, "mistaken": mistaken}
    return data


def hidden_probes(cell, draw, seed):
    """The hidden probes of test cell ``cell`` for ``seed``: ``draw(rng)``, one generator per cell."""
    return list(draw(np.random.default_rng([int(seed), zlib.crc32(cell.encode())])))


def hidden_test(lesson, cell, reference, draw, seed, references=None):
    """The hidden test of ``cell``: probes drawn by ``draw(rng)``, judged like the visible ones."""
    exercise, check = lesson.check(cell)
    probes = hidden_probes(cell, draw, seed)
    expected, mistaken = outputs(reference, check, probes, references, lazy=True)

    def judge_hidden(answers):
        __tracebackhide__ = True
        judge(exercise, check, answers, expected, mistaken, hidden=True, probes=probes)
    test = Test([p.call(exercise.function) for p in probes], judge_hidden, time_limit=exercise.time_limit)
    # read_only: the grader runs these calls again on inputs that cannot be written (Check.pure)
    test.hidden, test.probes, test.read_only = True, probes, bool(check.pure)
    return test


def cells(lesson, references, hidden, options=None, seed=None):
    """``{grade_id: Cell}`` for every check of ``lesson``: its visible test, then its hidden one."""
    seed = DEFAULT_SEED if seed is None else int(seed)
    options = options or {}
    missing = sorted(set(lesson.cells) - set(hidden))
    if missing:
        raise KeyError(f"the grader draws no hidden probes for {missing}: add them to HIDDEN")
    out = {}
    for cell, (exercise, check) in lesson.cells.items():
        tests = [*lesson.tests(cell),
                 hidden_test(lesson, cell, _reference(references, exercise), hidden[cell], seed, references)]
        settings = {"loop_free": (exercise.function,) if check.loop_free else (), **options.get(cell, {})}
        out[cell] = Cell(exercise.solution, exercise.what, tests, **settings)
    return out


def grader(lesson, references, hidden, options=None):
    """A grader file's ``visible_data()`` and ``cells(seed=None)``, in one line.

    ``visible_data, cells = declared.grader(visible.LESSON, REFERENCES, HIDDEN)``.
    """
    def visible_data_():
        """Expected outputs and common-mistake outputs of the visible probes."""
        return visible_data(lesson, references)

    def cells_(seed=None):
        """The tests that decide each autograded cell (hidden probes drawn from ``seed``)."""
        return cells(lesson, references, hidden, options=options, seed=seed)
    return visible_data_, cells_


def sign_labels(scores, mistake=None):
    """Labels of ``scores`` (+1 where positive, else -1), or those of a :data:`SIGN_AT_ZERO` mistake.

    The one label rule of the references: ``mistake="np_sign"`` gives ``np.sign`` (0 at a score
    of exactly 0), ``"zero_plus"`` gives +1 there; a scalar score gives an int.
    """
    s = np.asarray(scores, dtype=float)
    labels = np.sign(s) if mistake == "np_sign" else np.where(s >= 0 if mistake == "zero_plus" else s > 0, 1, -1)
    return int(labels) if labels.ndim == 0 else labels


def shared(grader_file):
    """``source/references.py``, the references several grader files share, loaded once (grader side only).

    ``_shared = declared.shared(__file__)`` in ``source/<assignment>/grader.py``; like the
    grader files it is never installed with the package nor mounted in a sandbox.
    """
    path = Path(grader_file).resolve().parent.parent / "references.py"
    name = f"kpcourse_grader_references_{zlib.crc32(str(path).encode())}"
    if name not in sys.modules:
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing: the grader files share it (a copy of a course needs it "
                                    "beside the assignments' folders: kpcourse.grading.paths.copy_source)")
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[name] = module
    return sys.modules[name]
