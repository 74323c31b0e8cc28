"""The declared exercises, iterated: each exercise × each named mistake × visible and hidden.

For every lesson whose checks module declares a ``LESSON``
(:mod:`kpcourse.checks.exercise`) and whose grader holds its ``REFERENCES``:

- the reference passes every cell, visible and hidden, for several hidden seeds;
- each named mistake, produced by the reference with ``mistake=<key>`` (or, for a
  ``pure`` check, by a reference that changes its argument in place), fails every check
  that names it, with its hint, and the mistaken output differs there from the right one;
- every mistake key is named by some check; hints and hidden messages never show the
  expected output or the hidden inputs;
- hidden probes are drawn from the seed: two seeds give different inputs.
"""

import json
from pathlib import Path

import numpy as np
import pytest

from kpcourse.checks import LESSONS, exercise
from kpcourse.checks._core import fmt
from kpcourse.grading.course import folder as course
from kpcourse.grading.judge import declared
from kpcourse.grading.judge.trusted import GRADER_FILE, load_grader

ROOT = Path(__file__).resolve().parents[1]


def _declared():
    out = []
    for name in course.assignments(ROOT):
        lesson = f"lesson{name[:2]}"
        if lesson not in LESSONS:
            continue
        module = __import__(f"kpcourse.checks.{lesson}", fromlist=["LESSON"])
        if hasattr(module, "LESSON"):
            out.append((name, module.LESSON, load_grader(ROOT / "source" / name / GRADER_FILE)))
    return out


DECLARED = _declared()
IDS = [d[0] for d in DECLARED]


def _mistaken(reference, key, pure=False):
    def wrong(*args, **kwargs):
        out = reference(*args, mistake=None if pure else key, **kwargs)
        if pure:  # changes the first array it was given, in place
            first = next(a for a in args if isinstance(a, np.ndarray))
            first += 1.0
        return out
    return wrong


def _functions(grader, lesson):
    """The references by name, and the functions the probes pass by name (``Exercise.helpers``)."""
    helpers = {h: grader.REFERENCES[h] for e in lesson.exercises for h in e.helpers}
    return {**helpers, **{e.function: (lambda f: lambda *a, **k: f(*a, **k))(grader.REFERENCES[e.function])
                          for e in lesson.exercises}}


def _message(cell, functions):
    try:
        cell.judge_here(functions)
    except AssertionError as exc:
        return str(exc)
    return None


def _cases():
    for name, lesson, grader in DECLARED:
        for ex in lesson.exercises:
            for key in ex.mistakes:
                yield pytest.param(name, lesson, grader, ex, key, id=f"{name}-{ex.function}-{key}")


@pytest.mark.parametrize("name,lesson,grader", DECLARED, ids=IDS)
@pytest.mark.parametrize("seed", [None, 1, 2])
def test_reference_passes_every_cell(name, lesson, grader, seed):
    for gid, cell in grader.cells(seed=seed).items():
        assert _message(cell, _functions(grader, lesson)) is None, gid


@pytest.mark.parametrize("name,lesson,grader,ex,key", list(_cases()))
def test_each_mistake_fails_the_checks_that_name_it_with_its_hint(name, lesson, grader, ex, key):
    named = [c for c in ex.checks if key in c.mistakes or c.pure == key or any(p.mistake == key for p in c.probes)]
    assert named, f"{name}: mistake {key!r} of {ex.function} is named by no check"
    functions = _functions(grader, lesson)
    for seed in (None, 1):
        cells = grader.cells(seed=seed)
        for check in named:
            functions[ex.function] = _mistaken(grader.REFERENCES[ex.function], key, pure=check.pure == key)
            message = _message(cells[check.cell], functions)
            assert message is not None, f"{check.cell} passes {ex.function} with mistake {key!r}"
            assert ex.mistakes[key] in message, f"{check.cell}, mistake {key!r}: {message}"


@pytest.mark.parametrize("name,lesson,grader", DECLARED, ids=IDS)
def test_visible_messages_never_show_the_expected_output(name, lesson, grader):
    data = declared.visible_data(lesson, grader.REFERENCES)
    for gid, (ex, check) in lesson.cells.items():
        for key in check.mistakes:
            functions = _functions(grader, lesson)
            functions[ex.function] = _mistaken(grader.REFERENCES[ex.function], key)
            tests = lesson.tests(gid)
            try:
                for t in tests:
                    t.judge(t.answers(functions))
            except AssertionError as exc:
                message = str(exc)
            else:
                continue
            inputs = {fmt(a) for p in check.probes for a in p.args}  # an output may equal an input
            for expected in data[gid]["expected"]:
                for part in (expected if isinstance(expected, tuple) else (expected,)):
                    if part is not None and np.size(part) > 1 and fmt(part) not in inputs:
                        assert fmt(part) not in message, f"{gid}/{key} shows the expected output: {message}"


@pytest.mark.parametrize("name,lesson,grader", DECLARED, ids=IDS)
def test_hidden_probes_are_fresh_per_seed_and_never_shown(name, lesson, grader):
    one, two = grader.cells(seed=1), grader.cells(seed=2)
    for gid in lesson.cells:
        hidden_one = [t for t in one[gid].tests if getattr(t, "hidden", False)]
        hidden_two = [t for t in two[gid].tests if getattr(t, "hidden", False)]
        assert hidden_one and hidden_two, f"{gid} has no hidden test"
        calls = [json.dumps(c.to_data()) for t in hidden_one for c in t.calls]
        assert calls != [json.dumps(c.to_data()) for t in hidden_two for c in t.calls] or \
            "fixed" in gid, f"{gid}: the hidden probes do not depend on the seed"
        # a function that returns nonsense: the hidden message names the inputs by label only
        ex, _ = lesson.check(gid)
        functions = _functions(grader, lesson)
        def boom(*a, **k):
            raise RuntimeError("boom")

        for wrong in (lambda *a, **k: "nonsense", boom):
            functions[ex.function] = wrong
            for t in hidden_one:
                try:
                    t.judge(t.answers(functions))
                except AssertionError as exc:
                    for c in t.calls:
                        assert c.text() not in str(exc), f"{gid}: a hidden input shows in {exc}"


def test_the_judge_says_what_came_back_when_it_cannot_compare():
    check = exercise.Check("c", [exercise.Probe((1,), label="one")], part=(0, 1))
    ex = exercise.Exercise("f", "s", "it", [check], returns=("a", "b"))
    from kpcourse.checks._core import Answer, Call

    with pytest.raises(AssertionError, match="cannot be compared|should"):
        exercise.judge(ex, check, [Answer(Call("f", 1), (object(), None))], [(1.0, 2.0)], [{}])


def test_a_probe_compared_with_another_answer_fails_when_that_answer_is_none():
    from kpcourse.checks._core import Answer, Call

    check = exercise.Check("c", [exercise.Probe((1,), compare="none"), exercise.Probe((2,), like=0, label="two")])
    ex = exercise.Exercise("f", "s", "it", [check])
    answers = [Answer(Call("f", 1), None), Answer(Call("f", 2), None)]
    with pytest.raises(AssertionError, match="nothing came back"):
        exercise.judge(ex, check, answers, [None, None], [{}, {}])
    exercise.judge(ex, check, [Answer(Call("f", 1), 3.0), Answer(Call("f", 2), 3.0)], [None, None], [{}, {}])


def test_a_whole_check_names_a_mistake_only_when_every_answer_is_its_output():
    from kpcourse.checks._core import Answer, Call

    probes = [exercise.Probe((x,), label=f"x={x}") for x in (1, 2, 3)]
    ex = exercise.Exercise("f", "s", "it", [], mistakes={"double": "you doubled it"})
    expected, mistaken = [1.0, 2.0, 3.0], [{"double": 2.0}, {"double": 4.0}, {"double": 6.0}]
    for whole, values, named in ((False, (2.0, 2.0, 3.0), True), (True, (2.0, 2.0, 3.0), False),
                                 (True, (2.0, 4.0, 6.0), True)):
        check = exercise.Check("c", probes, mistakes=("double",), whole=whole)
        answers = [Answer(Call("f", x), v) for x, v in zip((1, 2, 3), values, strict=True)]
        with pytest.raises(AssertionError) as info:
            exercise.judge(ex, check, answers, expected, mistaken)
        assert ("you doubled it" in str(info.value)) == named, (whole, values, str(info.value))


def test_where_the_reference_raises_the_answer_must_raise_with_a_message():
    from kpcourse.checks._core import Answer, Call

    def reference(x, mistake=None):
        if x == 0 and mistake is None:
            raise ValueError("x is 0")
        return float(x)

    probe = exercise.Probe((0,), label="zero", why="x is 0")
    check = exercise.Check("c", [probe], mistakes=("never",), whole=True)
    ex = exercise.Exercise("f", "s", "it", [check], mistakes={"never": "0 must be refused"})
    expected, mistaken = declared.outputs(reference, check, [probe])
    assert expected == [{"__raised__": "ValueError"}] and mistaken == [{"never": 0.0}]

    def judge(answer):
        exercise.judge(ex, check, [answer], expected, mistaken)

    judge(Answer(Call("f", 0), error="ValueError", message="x is 0"))
    with pytest.raises(AssertionError, match="with a message that says why x is 0"):
        judge(Answer(Call("f", 0), error="ValueError", message=""))
    with pytest.raises(AssertionError, match="should raise ValueError when x is 0"):
        judge(Answer(Call("f", 0), 1.0))
    with pytest.raises(AssertionError, match="0 must be refused"):
        judge(Answer(Call("f", 0), 0.0))


def test_an_accepted_output_passes_and_is_never_named():
    from kpcourse.checks._core import Answer, Call

    check = exercise.Check("c", [exercise.Probe((1,), label="one")], mistakes=("off",), accept=("other",))
    ex = exercise.Exercise("f", "s", "it", [check], mistakes={"off": "one off"})
    wrong = [{"off": 2.0, "other": 3.0}]
    exercise.judge(ex, check, [Answer(Call("f", 1), 1.0)], [1.0], wrong)
    exercise.judge(ex, check, [Answer(Call("f", 1), 3.0)], [1.0], wrong)  # the other accepted output
    with pytest.raises(AssertionError, match="one off"):
        exercise.judge(ex, check, [Answer(Call("f", 1), 2.0)], [1.0], wrong)
    assert declared.outputs(lambda x, mistake=None: {**wrong[0]}.get(mistake, 1.0), check, check.probes) == \
        ([1.0], wrong)  # the accepted outputs are data too
