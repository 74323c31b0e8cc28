"""One declaration per exercise: its function, its probes, how answers compare, its named mistakes.

A lesson's checks module declares a :class:`Lesson`: for each exercise an
:class:`Exercise` (the student's function, the names of a tuple result, the named
mistakes) and, for each autograded test cell, a :class:`Check` (the probes, the
comparison, which mistakes it names). That table is all the visible tests and the
grader need; one generic judge (:func:`judge`) reads it:

* visible tests, in the student's kernel: ``checks.lesson02.test("ex1-predict-tests",
  predict)`` calls the function on the visible probes and compares with the expected
  outputs stored as data (``data/lessonNN.json``, written from the grader's reference);
* hidden tests, in the grader: the same checks on probes the grader draws from a seed,
  the expected outputs computed there by its reference (:mod:`kpcourse.grading.judge.declared`).

A mistake has one key (``"sign0"``) used everywhere: its hint in the lesson's table of text
(``data/lessonNN.mistakes.toml``, read by :func:`~._core.load_mistakes`), the reference's
``mistake=`` option in the grader that produces the mistaken output, the golden
submissions and the tests. No algorithm lives here: only probes, data and messages.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from kpcourse.checks._core import (
    Call,
    Test,
    _type_name,
    check_close,
    check_labels,
    check_loop_free,
    check_shape,
    expect_raises,
    fail,
    fmt,
    load_data,
    load_mistakes,
    one_number,
    problem,
    run,
    same,
    unpack,
)

__all__ = ["Probe", "Check", "Exercise", "Lesson", "COMPARISONS", "SIGN_AT_ZERO", "RBF_FORMULA", "comparison", "judge",
           "same"]


@dataclass
class Probe:
    """One call's arguments, and how a message names them.

    Parameters
    ----------
    args : tuple
        Positional arguments (data, or :class:`~kpcourse.checks._core.Ref` to another of
        the student's functions).
    kwargs : dict
        Keyword arguments.
    label : str
        How messages name this input ("X with 5 rows"). Hidden probes are only ever named
        by their label, never shown.
    raises : str, optional
        The exception the call must raise ("ValueError"); ``why`` says when, for messages.
    like : int, optional
        The answer must equal the student's own answer to probe number ``like`` of the
        same check (the same images as floats, the arguments swapped), not a stored one.
    compare : str, optional
        This probe's comparison, in place of the check's.
    mistake : str, optional
        The mistake named whenever this probe fails (a property such as "a row of zeros
        gives 0", where the output of the mistake is not one fixed value).
    measured : bool
        Record the call's peak memory (``Answer.peak_bytes``) for a comparison to read.
    memory_limit : int, optional
        Bytes a measured call may allocate, its result included: where set on a hidden
        probe, the grader runs the call itself under that limit (``Answer.limited``).
    held : optional
        Data a comparison reads beside the answer that never reaches the student's code
        (the true labels of the rows a model predicts): not part of :meth:`call`.
    function : str, optional
        Another of the student's functions, called by this probe in place of the exercise's,
        whose answer is compared with the exercise's (``like``): a table entry of ``select``
        recomputed with the student's own ``fit`` and ``predict``.
    """

    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    label: str = ""
    raises: str | None = None
    why: str = ""
    like: int | None = None
    compare: str | None = None
    mistake: str | None = None
    measured: bool = False
    memory_limit: int | None = None
    held: object = None
    function: str | None = None

    def call(self, function):
        c = (Call.measured if self.measured else Call)(self.function or function, *self.args, **self.kwargs)
        c.memory_limit = self.memory_limit
        return c


@dataclass
class Check:
    """What one autograded test cell checks of an exercise.

    Parameters
    ----------
    cell : str
        grade_id of the test cell ("ex1-predict-tests").
    probes : list of Probe
        The visible probes (their expected outputs are data).
    compare : str, default="close"
        A name in :data:`COMPARISONS` ("close", "labels", "exact", or one a lesson
        registers with :func:`comparison`).
    part : int or tuple of int, optional
        Which entries of a tuple result are compared (default: the whole result).
    mistakes : tuple of str
        Keys of the exercise's mistakes this check names, most specific first.
    accept : tuple of str
        Keys of mistakes whose outputs are right too (several accepted outputs, e.g. either
        order of updates): their outputs are data like the named mistakes', never named.
    pure : str, optional
        Mistake key to report when the function changes an array argument in place.
    rtol, atol : float
        Tolerances of the comparison.
    options : dict
        Extra settings a lesson's own comparison reads.
    types : tuple of type, optional
        The types the result (or the compared part) must have (``(int, np.integer)``).
    hint : str
        Added to the message of a wrong output that no mistake names.
    loop_free : bool
        The function may not use a Python loop (checked on its source, never by timing).
    hidden_label : str
        How the hidden twin's inputs are named in messages.
    whole : bool
        A mistake is named only when every answer (of the probes that do not raise or
        compare with another answer) is that mistake's output, a raised exception
        included: the whole list of outcomes, for a check where one matching probe
        would name a wrong mistake.
    """

    cell: str
    probes: list
    compare: str = "close"
    part: int | tuple | None = None
    mistakes: tuple = ()
    accept: tuple = ()
    pure: str | None = None
    rtol: float = 1e-7
    atol: float = 1e-9
    options: dict = field(default_factory=dict)
    types: tuple | None = None
    hint: str = ""
    loop_free: bool = False
    hidden_label: str = "hidden inputs"
    whole: bool = False


@dataclass
class Exercise:
    """One graded function and everything its checks share.

    Parameters
    ----------
    function : str
        The name the student's function must have.
    solution : str
        grade_id of its solution cell.
    what : str
        What the exercise asks for ("the training loop"), for messages.
    returns : tuple of str
        Names of the entries of a tuple result (``("w", "b")``); empty for one value.
    mistakes : dict
        Key -> hint, the exercise's named mistakes (the hint never holds the answer).
    checks : list of Check
    time_limit : float
        Seconds for each call.
    helpers : tuple of str
        Other functions of the student passed by name (``Ref``).
    """

    function: str
    solution: str
    what: str
    checks: list
    returns: tuple = ()
    mistakes: dict = field(default_factory=dict)
    time_limit: float = 10.0
    helpers: tuple = ()


_COURSE = load_mistakes("course")
#: Mistakes several lessons name (a label rule at a score of exactly 0): one hint each, course-wide.
#: A lesson's Exercise takes them with ``mistakes={**SIGN_AT_ZERO, ...}``.
SIGN_AT_ZERO = _COURSE["sign_at_zero"]
#: The slips of the Gaussian kernel's formula (the graders' ``references.RBF_SLIPS`` has the same keys).
RBF_FORMULA = _COURSE["rbf_formula"]


# ---------------------------------------------------------------- comparisons
#: name -> ``compare(value, expected, name, check, probe, answer)``: raises ``AssertionError`` or returns.
#: ``answer`` is the :class:`~kpcourse.checks._core.Answer` (its ``peak_bytes``, ``mutated``).
COMPARISONS = {}


def comparison(name):
    """Register a comparison under ``name`` (a lesson's own, e.g. a trace compared row by row)."""
    def register(func):
        known = COMPARISONS.get(name)
        if known is not None and known.__module__ != func.__module__:
            raise ValueError(f"comparison {name!r} is already registered by {known.__module__}: give this one "
                             "another name (e.g. prefixed with its lesson)")
        COMPARISONS[name] = func
        return func
    return register


@comparison("close")
def _close(value, expected, name, check, probe, answer):
    check_close(value, expected, name, rtol=check.rtol, atol=check.atol)


@comparison("labels")
def _labels(value, expected, name, check, probe, answer):
    exp = np.asarray(expected)
    check_labels(value, len(exp), name)
    arr = np.asarray(value)
    if not np.array_equal(arr, exp):
        raise AssertionError(f"{name} gave {int((arr != exp).sum())} wrong label(s) of {len(exp)}")


@comparison("none")
def _none(value, expected, name, check, probe, answer):
    """A companion probe: its answer is only compared with another's (``Probe.like``)."""


@comparison("shape")
def _shape(value, expected, name, check, probe, answer):
    if not isinstance(value, np.ndarray) or value.shape != np.shape(expected):
        raise AssertionError(f"{name} should return an ndarray of shape {np.shape(expected)}, got "
                             f"{_type_name(value)} of shape {_shape_of(value)}")


def _shape_of(value):
    try:
        return np.shape(value)
    except ValueError:
        return "?"


@comparison("number")
def _number(value, expected, name, check, probe, answer):
    """One number (not an array, a bool or a string), close to the expected one."""
    check_close(one_number(value, name), expected, name, rtol=check.rtol, atol=check.atol)


@comparison("at_zero")
def _at_zero(value, expected, name, check, probe, answer):
    """Labels, of which only entry ``check.options["zero_at"]`` (a score of exactly 0) is judged here."""
    check_shape(value, np.shape(expected), name)
    z = float(np.asarray(value, dtype=float)[check.options["zero_at"]])
    if z == 0:
        raise AssertionError(SIGN_AT_ZERO["np_sign"])
    if z == 1:
        raise AssertionError(SIGN_AT_ZERO["zero_plus"])


@comparison("exact")
def _exact(value, expected, name, check, probe, answer):
    exp = np.asarray(expected)
    check_shape(value, exp.shape, name)
    if not np.array_equal(np.asarray(value), exp):
        raise AssertionError(f"{name} is not correct: you returned {fmt(value)}")


# --------------------------------------------------------------------- judging
def judge(exercise, check, answers, expected, mistaken, *, hidden=False, probes=None):
    """The one judge: compare each answer with its expected output, name the mistake.

    Parameters
    ----------
    exercise : Exercise
    check : Check
    answers : list of Answer
        One per probe, in order.
    expected : list
        Expected output of each probe (``None`` for a probe that must raise or is
        compared with another answer; ``{"__raised__": name}`` where the reference
        raised: the answer must raise it too, with a message saying why, ``probe.why``).
    mistaken : list of dict
        For each probe, mistake key -> the output that mistake gives on it
        (``{"__raised__": name}`` for a mistake that raises).
    hidden : bool
        Hidden probes are named by ``check.hidden_label`` only.

    Raises
    ------
    AssertionError
        With the hint of the first named mistake found, or a message that says what is
        wrong without showing the expected output.
    """
    __tracebackhide__ = True
    probes = probes or check.probes
    fname, problems = exercise.function, []
    for i, (answer, exp, _) in enumerate(zip(answers, expected, mistaken, strict=True)):  # lengths checked
        probe = probes[i]
        label = check.hidden_label if hidden else (probe.label or probe.call(fname).text())
        if probe.raises:
            problems.append(problem(expect_raises, answer, probe.raises, probe.why))
            continue
        if _raised(exp):  # the reference raised here: so must the answer
            message = problem(expect_raises, answer, _raised(exp), probe.why)
            if message:
                named = _named(check, probes, answers, mistaken, i)
                message = exercise.mistakes[named] if named else message
            elif not answer.message.strip():
                message = f"raise the {answer.error} with a message that says why {probe.why}"
            else:
                continue
            problems.append(f"on {label}: {message}")
            break
        raised = _named(check, probes, answers, mistaken, i) if answer.error else None
        if raised:
            problems.append(f"on {label}: {exercise.mistakes[raised]}")
            break
        if check.pure and answer.mutated:  # (an answer with an error has nothing mutated)
            problems.append(exercise.mistakes[check.pure])
            break
        value = answer.get(f"{fname} on {label}" if hidden else None)  # not written / raised: say that first
        if exercise.returns and not probe.function:  # (another function's answer is not the exercise's tuple)
            value = unpack(value, fname, exercise.returns)
        if probe.like is not None:
            if answers[probe.like].error is not None:
                continue  # that answer's error is reported where it is judged
            exp = answers[probe.like].value  # None too: nothing to match is no match
            if exp is None:
                problems.append(f"{fname} on {label}: nothing came back to compare with (None)")
                break
            if exercise.returns:
                exp = tuple(exp) if isinstance(exp, (tuple, list)) else exp
        message = _compare(exercise, check, value, exp, f"{fname} on {label}", probe, answer)
        if message is None or any(k in mistaken[i] and _matches(check, answer, mistaken[i][k]) for k in check.accept):
            continue
        named = probe.mistake or _named(check, probes, answers, mistaken, i)
        hint = f"; {check.hint}" if check.hint and not named else ""
        problems.append(f"on {label}: {exercise.mistakes[named]}" if named else message + hint)
        break  # one wrong output is enough to say; the first is the most telling
    fail(fname, problems)


def _compare(exercise, check, value, expected, name, probe, answer):
    """The comparison's message (``None`` when right), part by part when ``check.part`` says."""
    compare = COMPARISONS[probe.compare or check.compare]
    try:
        if check.part is None:
            return _typed(check, value, name) or problem(compare, value, expected, name, check, probe, answer)
        parts = (check.part,) if isinstance(check.part, int) else check.part
        for p in parts:
            part = f"the {exercise.returns[p]} returned by {name}" if exercise.returns else name
            message = (_typed(check, value[p], part)
                       or problem(compare, value[p], expected[p], part, check, probe, answer))
            if message:
                return message
    except Exception as exc:  # noqa: BLE001 - something odd came back: say what, never crash
        return f"{name} returned something that cannot be compared ({type(exc).__name__}: {fmt(value)})"
    return None


def _named(check, probes, answers, mistaken, i):
    """The first of the check's mistakes whose output answer ``i`` is (every answer with ``check.whole``)."""
    among = [j for j, p in enumerate(probes) if not p.raises and p.like is None] if check.whole else [i]
    return next((k for k in check.mistakes
                 if among and all(k in mistaken[j] and _matches(check, answers[j], mistaken[j][k]) for j in among)),
                None)


def _matches(check, answer, output):
    """Whether ``answer`` is a mistake's ``output``: the same exception, or the same compared part."""
    if answer.error or _raised(output):
        return answer.error == _raised(output)
    if isinstance(output, tuple) and not (isinstance(answer.value, (tuple, list)) and len(answer.value) == len(output)):
        return False
    return same(_project(check, answer.value), _project(check, output))


def _raised(output):
    """The exception name a mistake's output stands for (``{"__raised__": name}``), else None."""
    return output.get("__raised__") if isinstance(output, dict) else None


def _typed(check, value, name):
    if check.types and not isinstance(value, check.types) or isinstance(value, (bool, np.bool_)) and \
            check.types and bool not in check.types:
        wanted = " or ".join(t.__name__ for t in check.types)
        return f"{name} should be a {wanted}, got {_type_name(value)}: {fmt(value)}"
    return None


def _project(check, value):
    """The part of a result a check compares (all of it by default)."""
    if check.part is None or not isinstance(value, (tuple, list)):
        return value
    if isinstance(check.part, int):
        return value[check.part]
    return tuple(value[p] for p in check.part)


# ---------------------------------------------------------------------- lesson
class Lesson:
    """The exercises of one assignment, and the visible tests built from them.

    Parameters
    ----------
    name : str
        The checks module's name ("lesson02"): its data file is ``data/<name>.json``.
    exercises : list of Exercise
    """

    def __init__(self, name, exercises):
        self.name, self.exercises = name, list(exercises)
        self.cells = {c.cell: (e, c) for e in self.exercises for c in e.checks}

    def __repr__(self):
        return f"Lesson({self.name!r}, {[e.function for e in self.exercises]})"

    @functools.cached_property
    def data(self):
        """Expected and mistaken outputs of the visible probes (``data/<name>.json``)."""
        return load_data(self.name)

    def check(self, cell):
        """``(exercise, check)`` of test cell ``cell``, or a ``KeyError`` that lists them."""
        try:
            return self.cells[cell]
        except KeyError:
            raise KeyError(f"{self.name} has no check {cell!r}; its checks are {sorted(self.cells)}") from None

    def tests(self, cell):
        """The visible tests of test cell ``cell`` as :class:`~kpcourse.checks._core.Test` objects."""
        exercise, check = self.check(cell)
        stored = self.data[cell]
        calls = [p.call(exercise.function) for p in check.probes]

        def judge_visible(answers):
            __tracebackhide__ = True
            judge(exercise, check, answers, stored["expected"], stored["mistaken"])
        return [Test(calls, judge_visible, time_limit=exercise.time_limit)]

    def test(self, cell, *functions, **helpers):
        """Run the visible test of ``cell`` on the student's function(s); raise what is wrong.

        ``lesson.test("ex1-predict-tests", predict)``; helpers passed by name
        (``phi=phi``) are the student's other functions the probes refer to.
        """
        __tracebackhide__ = True
        exercise, check = self.check(cell)
        if len(functions) != 1:
            raise TypeError(f"test({cell!r}, ...) takes your {exercise.function} function")
        run(self.tests(cell), **{exercise.function: functions[0], **helpers})
        if check.loop_free:
            check_loop_free(functions[0], exercise.function)
