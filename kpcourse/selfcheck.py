"""Ungraded self-checks at the end of each lecture: a few questions, immediate feedback.

A question is data: a prompt, and either a list of options with the index of the right one
(``kind="choice"``) or a number with a tolerance (``kind="number"``: right when
``|response - answer| <= tol``). Each carries ``why``, the explanation shown once the student has
answered right or has missed twice, and ``hint``, shown after a first miss. Nothing is recorded
and nothing is graded.

``self_check(lesson)`` shows the lesson's questions: with ipywidgets, one radio list or number
box per question and the feedback under it as soon as an answer is given; without ipywidgets
(or with ``widgets=False``) a plain-text list, answered by calling ``quiz.answer(number,
response)`` or ``check_answer(lesson, number, response)``. Either way the cell's text form lists
the questions and never their answers. The lessons' questions live in
``kpcourse._selfcheck_questions``.

Import this module explicitly (``from kpcourse.selfcheck import self_check``);
``import kpcourse`` does not load it. Lessons 01–08 end with it.
"""

from __future__ import annotations

import html
import math
import random
import textwrap
import zlib
from dataclasses import dataclass, field

__all__ = ["Question", "Feedback", "SelfCheck", "questions", "self_check", "check_answer"]


@dataclass(frozen=True)
class Feedback:
    """The verdict on one response: ``correct`` (True, False, or None for an unreadable one)
    and ``text``, the sentence shown to the student."""

    correct: bool | None
    text: str


@dataclass(frozen=True)
class Question:
    """One self-check question.

    Parameters
    ----------
    prompt : str
        The question as the student reads it.
    why : str
        Why the right answer is right; shown after a right answer or a second miss.
    options : tuple of str, default=()
        The choices of a multiple-choice question (at least two); empty for a number question.
    answer : int or float
        The index (from 0) of the right option, or the right number.
    tol : float, default=0.0
        Tolerance of a number question: right when ``abs(response - answer) <= tol``.
    hint : str, default=""
        A nudge shown after a first miss (a generic one when empty).
    """

    prompt: str
    why: str
    answer: float
    options: tuple = ()
    tol: float = 0.0
    hint: str = ""

    def __post_init__(self):
        if not self.prompt.strip() or not self.why.strip():
            raise ValueError("a question needs a non-empty prompt and why.")
        object.__setattr__(self, "options", tuple(self.options))
        if self.options:
            if len(self.options) < 2:
                raise ValueError(f"options must hold at least 2 choices, got {len(self.options)}.")
            if not isinstance(self.answer, int) or not 0 <= self.answer < len(self.options):
                raise ValueError(f"answer must be an option index in [0, {len(self.options) - 1}], "
                                 f"got {self.answer!r}.")
        elif not (isinstance(self.answer, (int, float)) and math.isfinite(self.answer)):
            raise TypeError(f"answer must be a finite number, got {self.answer!r}.")
        if not (math.isfinite(self.tol) and self.tol >= 0):
            raise ValueError(f"tol must be a finite number >= 0, got {self.tol!r}.")

    @property
    def kind(self):
        """``"choice"`` or ``"number"``."""
        return "choice" if self.options else "number"

    def right_answer(self):
        """The right answer as text: the option, or the number (with its tolerance)."""
        if self.options:
            return f"{'abcdefghij'[self.answer]}) {self.options[self.answer]}"
        return f"{self.answer:g}" + (f" (± {self.tol:g})" if self.tol else "")

    def judge(self, response):
        """True / False for a response, or None when it cannot be read.

        A choice is an option index (int), a letter ``"a"``, ``"b"``, … or the option's text;
        a number is anything ``float`` reads.
        """
        if self.options:
            index = _option_index(response, self.options)
            return None if index is None else index == self.answer
        try:
            value = float(response)
        except (TypeError, ValueError):
            return None
        return math.isfinite(value) and abs(value - self.answer) <= self.tol + 1e-12

    def text(self, number=None):
        """The question as plain text: number, prompt and lettered options (no answer)."""
        head = f"{number}. " if number is not None else ""
        lines = textwrap.wrap(head + self.prompt, 96, subsequent_indent="   ")
        lines += [f"   {'abcdefghij'[i]}) {option}" for i, option in enumerate(self.options)]
        if not self.options:
            lines.append("   (answer with a number)")
        return "\n".join(lines)


def _option_index(response, options):
    if isinstance(response, bool):
        return None
    if isinstance(response, int):
        return response if 0 <= response < len(options) else None
    if isinstance(response, str):
        key = response.strip().rstrip(")").lower()
        if len(key) == 1 and key in "abcdefghij"[:len(options)]:
            return "abcdefghij".index(key)
        folded = [o.strip().lower() for o in options]
        return folded.index(key) if key in folded else None
    return None


@dataclass
class SelfCheck:
    """A lesson's questions, with the number of misses so far of each (nothing is stored)."""

    lesson: str
    questions: list
    misses: dict = field(default_factory=dict)

    def answer(self, number, response, show=True):
        """Judge the response to question ``number`` (from 1); print and return the Feedback.

        A first miss gets the hint; a right answer or a second miss gets the explanation.
        """
        if not isinstance(number, int) or not 1 <= number <= len(self.questions):
            raise ValueError(f"number must be a question number from 1 to {len(self.questions)}, "
                             f"got {number!r}.")
        question = self.questions[number - 1]
        verdict = question.judge(response)
        if verdict is None:
            what = ("an option letter (a, b, …)" if question.options else "a number")
            feedback = Feedback(None, f"Question {number}: could not read {response!r}; "
                                      f"answer with {what}.")
        elif verdict:
            feedback = Feedback(True, f"Question {number}: right. {question.why}")
        else:
            self.misses[number] = self.misses.get(number, 0) + 1
            if self.misses[number] == 1:
                hint = question.hint or "Re-read the section this question is about and try again."
                feedback = Feedback(False, f"Question {number}: not right. Hint: {hint}")
            else:
                answer = question.right_answer().rstrip(".")
                feedback = Feedback(False, f"Question {number}: not right. The answer is "
                                           f"{answer}. {question.why}")
        if show:
            print(feedback.text)
        return feedback

    def text(self):
        """All questions as plain text, with how to answer them (no answer in it)."""
        body = "\n\n".join(q.text(i) for i, q in enumerate(self.questions, 1))
        return (f"Self-check, lesson {self.lesson} ({len(self.questions)} questions, not graded)\n\n"
                f"{body}\n\nAnswer with quiz.answer(number, response), e.g. "
                f"quiz.answer(1, \"b\") or quiz.answer(2, 0.5).")

    def __repr__(self):
        return self.text()


def questions(lesson):
    """The list of Questions of a lesson (``"01"`` … ``"08"``, or an int).

    The bank lists the right option first; the options are shown in an order fixed by each
    prompt (the same on every run), so the right letter varies from question to question.
    """
    from ._selfcheck_questions import QUESTIONS

    key = f"{int(lesson):02d}" if isinstance(lesson, int) or str(lesson).isdigit() else str(lesson)
    if key not in QUESTIONS:
        raise ValueError(f"lesson must be one of {sorted(QUESTIONS)}, got {lesson!r}.")
    return [Question(**_shuffled(q)) for q in QUESTIONS[key]]


def _shuffled(fields):
    """The question's options in an order seeded by its prompt, the answer index moved with them."""
    options = fields.get("options", ())
    if not options:
        return fields
    order = list(range(len(options)))
    random.Random(zlib.crc32(fields["prompt"].encode("utf-8"))).shuffle(order)
    return {**fields, "options": tuple(options[i] for i in order), "answer": order.index(fields["answer"])}


_QUIZZES = {}


def check_answer(lesson, number, response):
    """The plain-text way to answer: judge ``response`` to question ``number`` of ``lesson``."""
    quiz = _QUIZZES.setdefault(str(lesson), SelfCheck(str(lesson), questions(lesson)))
    return quiz.answer(number, response)


def self_check(lesson, widgets=None):
    """The self-check of a lesson, to display as the last line of a cell.

    Parameters
    ----------
    lesson : str or int
        ``"01"`` … ``"08"``.
    widgets : bool or None, default=None
        True: ipywidgets (an ImportError if missing); False: plain text; None: ipywidgets when
        they can be imported, else plain text.

    Returns
    -------
    SelfCheck or ipywidgets.VBox
        Its text form lists the questions; both answer ``.answer(number, response)``.
    """
    quiz = SelfCheck(f"{int(lesson):02d}" if str(lesson).isdigit() else str(lesson),
                     questions(lesson))
    if widgets is False:
        return quiz
    try:
        import ipywidgets
    except ImportError:
        if widgets:
            raise
        return quiz
    return _widget(quiz, ipywidgets)


def _widget(quiz, ipywidgets):
    """One block per question: the prompt, a radio list or a number box, the feedback line."""

    class _Box(ipywidgets.VBox):
        def __repr__(self):
            return quiz.text()

        def answer(self, number, response, show=True):
            return quiz.answer(number, response, show=show)

    rows, controls, labels = [], [], []
    for number, question in enumerate(quiz.questions, 1):
        prompt = ipywidgets.HTML(f"<b>{number}.</b> {html.escape(question.prompt)}")
        feedback = ipywidgets.HTML("")
        if question.options:
            control = ipywidgets.RadioButtons(options=[(o, i) for i, o in enumerate(question.options)],
                                              value=None, layout={"width": "auto"})
            control.observe(_on_change(quiz, number, feedback), names="value")
            row = [prompt, control, feedback]
        else:
            control = ipywidgets.Text(placeholder="a number", continuous_update=False,
                                      layout={"width": "12em"})
            button = ipywidgets.Button(description="Check")
            judge = _on_change(quiz, number, feedback)
            control.observe(judge, names="value")  # on Enter or when the box loses focus
            button.on_click(lambda _, c=control, j=judge: j({"new": c.value}))
            row = [prompt, ipywidgets.HBox([control, button]), feedback]
        rows.append(ipywidgets.VBox(row, layout={"margin": "0 0 0.8em 0"}))
        controls.append(control)
        labels.append(feedback)
    title = ipywidgets.HTML(f"<b>Self-check, lesson {quiz.lesson}</b> "
                            f"({len(quiz.questions)} questions, not graded)")
    box = _Box([title, *rows])
    box.quiz, box.controls, box.feedback = quiz, controls, labels
    return box


def _on_change(quiz, number, label):
    def handler(change):
        if change["new"] is None or change["new"] == "":
            return
        feedback = quiz.answer(number, change["new"], show=False)
        colour = {True: "#1a7f37", False: "#b35806", None: "#555555"}[feedback.correct]
        label.value = f'<span style="color:{colour}">{html.escape(feedback.text)}</span>'
    return handler
