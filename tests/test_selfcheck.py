"""Tests of kpcourse.selfcheck: questions as data, judged right or wrong, shown with or without
ipywidgets, and each lecture's bank of questions well formed and never showing its answers."""

import builtins
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kpcourse import selfcheck
from kpcourse._selfcheck_questions import QUESTIONS
from kpcourse.selfcheck import Question, SelfCheck, check_answer, questions, self_check

ROOT = Path(__file__).resolve().parents[1]
LECTURES = {p.stem[:2]: p for p in sorted((ROOT / "notebooks").glob("0[1-8]-*.ipynb"))
            if not p.stem.endswith("-appendix")}

CHOICE = Question(prompt="Which?", options=("no", "yes", "maybe"), answer=1,
                  hint="think", why="because")
NUMBER = Question(prompt="How much?", answer=0.5, tol=0.01, why="half")


def test_choice_accepts_an_index_a_letter_or_the_option_text():
    for response in (1, "b", "B)", " yes "):
        assert CHOICE.judge(response) is True, response
    for response in (0, "a", "c", "no"):
        assert CHOICE.judge(response) is False, response
    for response in (7, "z", "perhaps", None, True, 1.0):
        assert CHOICE.judge(response) is None, response


def test_number_uses_its_tolerance():
    assert NUMBER.judge(0.5) and NUMBER.judge("0.509") and NUMBER.judge(0.49)
    assert NUMBER.judge(0.52) is False and NUMBER.judge(float("nan")) is False
    assert NUMBER.judge("half") is None and NUMBER.judge(None) is None
    assert Question(prompt="n?", answer=3, why="w").judge(3.0) is True


@pytest.mark.parametrize("fields, error", [
    (dict(prompt="q", why="w", options=("one",), answer=0), ValueError),
    (dict(prompt="q", why="w", options=("a", "b"), answer=2), ValueError),
    (dict(prompt="q", why="w", options=("a", "b"), answer=0.0), ValueError),
    (dict(prompt="q", why="w", answer="1"), TypeError),
    (dict(prompt="q", why="w", answer=1, tol=-1), ValueError),
    (dict(prompt=" ", why="w", answer=1), ValueError),
])
def test_malformed_questions_are_refused(fields, error):
    with pytest.raises(error):
        Question(**fields)


def test_feedback_hint_first_then_the_answer_and_why(capsys):
    quiz = SelfCheck("99", [CHOICE, NUMBER])
    first = quiz.answer(1, "a")
    assert first.correct is False and "Hint: think" in first.text and "yes" not in first.text
    second = quiz.answer(1, "c")
    assert second.correct is False and "b) yes" in second.text and "because" in second.text
    right = quiz.answer(2, 0.5)
    assert right.correct is True and "right" in right.text and "half" in right.text
    unread = quiz.answer(2, "x")
    assert unread.correct is None and "a number" in unread.text
    assert capsys.readouterr().out.count("Question") == 4
    with pytest.raises(ValueError, match="from 1 to 2"):
        quiz.answer(3, "a")


def test_plain_text_lists_questions_without_answers():
    quiz = SelfCheck("99", [CHOICE, NUMBER])
    text = repr(quiz)
    assert "1. Which?" in text and "c) maybe" in text and "2. How much?" in text
    assert "because" not in text and "half" not in text and "0.5" not in text.split("e.g.")[0]


def test_check_answer_is_the_plain_function_form(capsys):
    feedback = check_answer("02", 4, questions("02")[3].answer)
    assert feedback.correct is True and "right" in capsys.readouterr().out
    with pytest.raises(ValueError, match="lesson must be one of"):
        questions("42")


def test_without_ipywidgets_the_text_form_is_returned(monkeypatch):
    real_import = builtins.__import__

    def no_widgets(name, *args, **kwargs):
        if name == "ipywidgets":
            raise ImportError("no ipywidgets here")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_widgets)
    assert isinstance(self_check("03"), SelfCheck)
    with pytest.raises(ImportError):
        self_check("03", widgets=True)
    assert isinstance(self_check(3, widgets=False), SelfCheck)


def test_the_widget_gives_feedback_when_answered():
    box = self_check("04", widgets=True)
    assert repr(box) == box.quiz.text()
    kinds = [q.kind for q in box.quiz.questions]
    choice = kinds.index("choice")
    number = kinds.index("number")
    assert all(f.value == "" for f in box.feedback)
    box.controls[choice].value = box.quiz.questions[choice].answer
    assert "right" in box.feedback[choice].value
    box.controls[number].value = "not a number"
    assert "could not read" in box.feedback[number].value
    box.controls[number].value = str(box.quiz.questions[number].answer)
    assert "right" in box.feedback[number].value


def test_importing_kpcourse_does_not_load_the_self_check():
    code = "import sys, kpcourse; print('kpcourse.selfcheck' in sys.modules, 'ipywidgets' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


# --------------------------------------------------------------------------- #
# The lessons' banks and the lectures that show them
# --------------------------------------------------------------------------- #

@pytest.mark.parametrize("lesson", [f"{n:02d}" for n in range(1, 9)])
def test_each_lesson_has_three_to_five_well_formed_questions(lesson):
    qs = questions(lesson)
    assert 3 <= len(qs) <= 5
    assert len({q.prompt for q in qs}) == len(qs)
    for q in qs:
        assert q.judge(q.answer) is True
        if q.options:
            assert len(set(q.options)) == len(q.options)
            assert any(q.judge(i) is False for i in range(len(q.options)))


def test_the_right_option_moves_between_questions():
    bank = [q for n in range(1, 9) for q in questions(n) if q.options]
    assert len({q.answer for q in bank}) >= 3
    assert questions("05")[2].options == questions("05")[2].options  # the same order every time
    raw = QUESTIONS["05"][2]
    assert questions("05")[2].options[questions("05")[2].answer] == raw["options"][raw["answer"]]


def test_the_banks_are_plain_data():
    assert sorted(QUESTIONS) == [f"{n:02d}" for n in range(1, 9)]
    fields = set(Question.__dataclass_fields__)
    assert all(set(q) <= fields for bank in QUESTIONS.values() for q in bank)


@pytest.mark.parametrize("lesson", sorted(LECTURES))
def test_each_lecture_ends_with_its_self_check(lesson):
    nb = json.loads(LECTURES[lesson].read_text(encoding="utf-8"))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    last = "".join(code[-1]["source"])
    assert re.search(rf"self_check\(\s*['\"]{lesson}['\"]", last), \
        f"{LECTURES[lesson].name}: the last code cell does not show self_check({lesson!r})"
    shown = "".join("".join(o.get("data", {}).get("text/plain", "")) + "".join(o.get("text", ""))
                    for o in code[-1].get("outputs", []))
    assert f"Self-check, lesson {lesson}" in shown, "the self-check cell was not executed"
    for q in questions(lesson):
        assert q.why not in json.dumps(nb, ensure_ascii=False), "an answer is visible in the lecture"


def test_module_docstring_names_the_lessons():
    assert "01–08" in selfcheck.__doc__
