"""The class report (``make report``), the autograde progress line and ``--student``.

- unit tests: :func:`format_progress` and :class:`Progress`, the student filter of
  ``autograde`` (grading replaced by a stub), the report's small rules (bands, hints, flags);
- a gradebook written with nbgrader's API (no grading): the report's numbers;
- a small course graded for real (five golden submissions of assignment 02, built as
  ``tests/test_pipeline.py`` builds them): the report exists and its numbers match the
  gradebook and ``grades.csv``; the grader's flags are there; ``students=`` re-grades one.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import sys
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
from judging import pipeline_cases

from kpcourse.grading import commands
from kpcourse.grading.course import autograding
from kpcourse.grading.course import folder as course
from kpcourse.grading.course.progress import Progress, format_progress
from kpcourse.grading.paths import copy_source
from kpcourse.grading.views import report

ROOT = Path(__file__).resolve().parents[1]
A = "02-perceptron-by-hand"
CASES = ("solution", "release", "repeats-strict", "loop", "edited-tests")
TIMEOUT = 5  # per-cell limit while grading (s): keeps the loop case short


# ------------------------------------------------------------------ progress
def test_format_progress_counts_rate_and_eta():
    assert format_progress(0, 10, 0.0, width=10) == "[----------]  0/10   0%  0.0/min  ETA ?"
    # 5 done in 60 s: 5 per minute, 5 left → one more minute
    assert format_progress(5, 10, 60.0, width=10) == "[#####-----]  5/10  50%  5.0/min  ETA 1:00"
    assert format_progress(10, 10, 120.0, width=0) == "10/10 100%  5.0/min  ETA 0:00"
    # 1 of 600 after 12 s: 5 per minute, 599 left → 1 h 59 min 48 s
    assert format_progress(1, 600, 12.0, width=0).endswith("5.0/min  ETA 1:59:48")


def _fake_clock(step):
    t = [0.0]

    def clock():
        t[0] += step
        return t[0]
    return clock


def test_progress_without_a_terminal_writes_one_line_per_submission():
    out = io.StringIO()  # not a TTY, as in CI or a log file
    bar = Progress(3, stream=out, clock=_fake_clock(10.0))
    for s in ("a", "b", "c"):
        bar.clear()
        bar.step(f"{s}/{A}")
    lines = out.getvalue().splitlines()
    assert len(lines) == 3 and "\r" not in out.getvalue() and "\x1b" not in out.getvalue()
    assert lines[0] == f"progress 1/3  33%  6.0/min  ETA 0:20  (a/{A})"
    assert lines[-1].startswith("progress 3/3 100%")


def test_progress_on_a_terminal_redraws_one_line():
    out = io.StringIO()
    bar = Progress(2, stream=out, clock=_fake_clock(30.0), tty=True)
    bar.step()
    bar.clear()
    bar.step()
    text = out.getvalue()
    assert text.count("\n") == 1 and text.endswith("\n")  # a newline only at the end
    assert text.count("\r\x1b[K") == 3 and "2/2 100%" in text


# ------------------------------------------------------------------ --student
def _submitted(root, students, assignment=A):
    for s in students:
        folder = root / "submitted" / s / assignment
        folder.mkdir(parents=True)
        (folder / f"{assignment}.ipynb").write_text("{}")


def test_student_filter_grades_only_that_student(tmp_path, monkeypatch):
    _submitted(tmp_path, ["ann", "bob", "cy"])
    (tmp_path / "gradebook.db").write_text("")
    assert course.submissions(tmp_path) == [("ann", A), ("bob", A), ("cy", A)]
    assert course.submissions(tmp_path, ["bob"]) == [("bob", A)]
    graded, nbgrader = [], []

    def grade_batch(root, pairs, workdir, env):
        graded.extend(student for student, _ in pairs)
        return [{"student": student, "assignment": assignment, "ok": False, "seconds": 0.1, "log": "",
                 "dir": Path(workdir), "isolated": True, "metadata_reset": {}} for student, assignment in pairs]

    monkeypatch.setattr(autograding, "grade_batch", grade_batch)
    monkeypatch.setattr(autograding, "ensure_in_gradebook", lambda root, names: None)
    monkeypatch.setattr(autograding, "nbgrader", lambda args, root, **kw: nbgrader.append(args))
    results = autograding.autograde(tmp_path, jobs=2, students=["bob"], export=None, log=lambda *a: None,
                                 progress=False)
    assert graded == ["bob"] and [r["student"] for r in results] == ["bob"]
    assert nbgrader == [["generate_feedback", A, "--student", "bob", "--force"]]  # theirs only
    with pytest.raises(SystemExit, match="no submission of zoe"):
        autograding.autograde(tmp_path, students=["bob", "zoe"], log=lambda *a: None, progress=False)


def test_batches_keep_one_assignment_and_every_submission():
    subs = [(f"s{i:02d}", a) for a in ("01-a", "02-b") for i in range(15)]
    batches = autograding.batches(subs, jobs=2)
    assert sorted(p for b in batches for p in b) == sorted(subs)  # each once
    assert all(len({a for _, a in b}) == 1 for b in batches)  # one assignment per nbgrader process
    assert max(map(len, batches)) == 4 <= autograding.BATCH and len(batches) == 8  # about four per worker
    assert [len(b) for b in autograding.batches(subs[:3], jobs=2)] == [1, 1, 1]  # a few: one each
    assert autograding.batches([("bob", "01-a")], jobs=4) == [[("bob", "01-a")]]


def test_students_with_a_cell_limit_of_their_own_are_batched_apart():
    subs = [(f"s{i:02d}", a) for a in ("01-a", "02-b") for i in range(15)]
    timeouts = {"s03": 8, "s07": 8, "s11": 30}
    batches = autograding.batches(subs, jobs=2, timeouts=timeouts)
    assert sorted(p for b in batches for p in b) == sorted(subs)
    assert all(len({(a, timeouts.get(s)) for s, a in b}) == 1 for b in batches)  # one limit per process
    own = [timeouts.get(b[0][0]) is not None for b in batches]
    assert own == sorted(own, reverse=True) and sum(own) == 4  # the batches that wait out a limit first
    env = {"KPCOURSE_CELL_TIMEOUT": "15", "X": "1"}
    for b in batches:
        got = autograding.batch_env(env, b, timeouts)
        assert got["KPCOURSE_CELL_TIMEOUT"] == str(timeouts.get(b[0][0], 15)) and got["X"] == "1"
    assert env["KPCOURSE_CELL_TIMEOUT"] == "15"  # the course's own environment is left as it is


def test_cli_passes_student_to_autograde(monkeypatch):
    seen = {}
    monkeypatch.setattr(commands, "autograde", lambda root, jobs, **kw: seen.update(kw, jobs=jobs) or [])
    assert commands.main(["autograde", "--student", "bob", "--jobs", "1", "--no-progress"]) == 0
    assert seen["students"] == ["bob"] and seen["jobs"] == 1 and seen["progress"] is False


# ------------------------------------------------------------------ report rules
def test_band_hints_and_flags():
    assert [report.band(s, 2) for s in (2, 1, 0)] == ["full", "partial", "zero"]
    assert report.hints(None) == [] and report.hints("not written  yet") == ["not written yet"]
    assert report.hints("predict: 2 problems found\n  - a is wrong\n  - b is wrong") == ["a is wrong", "b is wrong"]
    ok = {"isolated": True, "killed": False, "timed_out_cells": [], "kernel_restarted": False, "locked_restored": [],
          "uid": 61000}
    assert report.flags(ok) == []
    bad = dict(ok, isolated=False, why_not_isolated="no bwrap", timed_out_cells=[3], timed_out_ids=["ex1-predict"],
               kernel_restarted=True, locked_restored=["ex1-tests"], killed=True)
    assert report.flags(bad) == ["not isolated (no bwrap)", "killed: ran past its time budget",
                                 "timed out: ex1-predict", "kernel restarted", "locked cells restored: ex1-tests"]
    assert report.flags(None) and "no grading summary" in report.flags(None)[0]
    assert report.flags(dict(ok, uid=61000, limits_hit=["memory", "output"])) == ["limit reached: memory, output"]
    assert report.flags(dict(ok, uid=0)) == ["ran as root"]
    assert report.flags(dict(ok, uid=None)) == ["its user not measured (it removed the sandbox's mark)"]


# ------------------------------------------------------------------ a gradebook without grading
def _html_rows(page):
    """``{(attribute, value): [cell texts]}`` of the rows that carry a data-* attribute."""
    class Rows(HTMLParser):
        def __init__(self):
            super().__init__()
            self.rows, self.key, self.cell = {}, None, None

        def handle_starttag(self, tag, attrs):
            if tag == "tr":
                data = [(k, v) for k, v in attrs if k.startswith("data-")]
                self.key = data[0] if data else None
                if self.key:
                    self.rows[self.key] = []
            elif tag == "td" and self.key:
                self.cell = ""

        def handle_data(self, data):
            if self.cell is not None:
                self.cell += data

        def handle_endtag(self, tag):
            if tag == "td" and self.key and self.cell is not None:
                self.rows[self.key].append(self.cell)
                self.cell = None

    parser = Rows()
    parser.feed(Path(page).read_text())
    return parser.rows


def test_report_of_a_written_gradebook(tmp_path, monkeypatch):
    from nbgrader.api import Gradebook

    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")  # alembic
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("## Exercise 1 (3 points)")])
    for gid, points in (("t1", 2), ("t2", 1)):
        nb.cells.append(nbformat.v4.new_code_cell("pass", metadata={"nbgrader": {
            "grade": True, "solution": False, "locked": True, "grade_id": gid, "points": points}}))
    (tmp_path / "source" / "hw").mkdir(parents=True)
    nbformat.write(nb, tmp_path / "source" / "hw" / "hw.ipynb")
    scores = {"ann": (2, 1), "bob": (0, 1), "cy": (0, 0), "dee": (2, 0)}
    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}") as gb:
        gb.add_assignment("hw")
        gb.add_notebook("hw", "hw")
        for gid, points in (("t1", 2), ("t2", 1)):
            gb.add_grade_cell(gid, "hw", "hw", max_score=points, cell_type="code")
        for student, (s1, s2) in scores.items():
            gb.add_student(student)
            gb.add_submission("hw", student)
            for gid, s in (("t1", s1), ("t2", s2)):
                g = gb.find_grade(gid, "hw", "hw", student)
                g.auto_score, g.needs_manual_grade = s, False
        gb.db.commit()
    for student, (s1, s2) in scores.items():
        folder = tmp_path / "autograded" / student / "hw"
        folder.mkdir(parents=True)
        verdicts = {"t1": None if s1 else "f: 1 problem found\n  - f(0) gave 3, expected a label",
                    "t2": None if s2 else "f is not written yet"}
        summary = {"isolated": True, "killed": False, "seconds": 1.5, "verdicts": verdicts, "timed_out_cells": [],
                   "kernel_restarted": student == "cy", "locked_restored": [], "wall_seconds": 3.0, "uid": 61000}
        (folder / report.SUMMARY).write_text(json.dumps(summary))
    _submitted(tmp_path, ["eve"], "hw")  # handed in, never graded

    assert report.graded_assignments(tmp_path) == ["hw"]
    page = report.write_report(tmp_path, "hw")
    assert page == tmp_path / "reports" / "hw.html"
    data = json.loads((tmp_path / "reports" / "hw.json").read_text())
    assert data["submissions"] == 4 and data["max_total"] == 3
    assert [e["name"] for e in data["exercises"]] == ["Exercise 1 (3 points)"]
    t1 = next(c for c in data["cells"] if c["grade_id"] == "t1")["stats"]
    assert (t1["mean"], t1["full"], t1["partial"], t1["zero"]) == (1.0, 2, 0, 2)
    totals = data["totals"]  # 3, 1, 0, 2 out of 3
    assert (totals["mean"], totals["median"], totals["full"], totals["partial"], totals["zero"]) == (1.5, 1.5, 1, 2, 1)
    hints = next(c for c in data["cells"] if c["grade_id"] == "t1")["hints"]
    assert hints == [["f(0) gave 3, expected a label", 2]]
    assert [h[1] for h in data["hints"]] == [2, 2]  # bob, cy / cy, dee
    rows = _html_rows(page)
    assert rows[("data-cell", "t1")] == ["t1", "2", "1", "1", "50%", "0%", "50%", "0"]
    assert rows[("data-exercise", "Exercise 1 (3 points)")][:3] == ["Exercise 1 (3 points)", "3", "1.5"]
    assert rows[("data-student", "ann")][:3] == ["ann", "3", "3"]
    assert rows[("data-flagged", "cy")] == ["cy", "kernel restarted"]
    assert "autograde failed" in rows[("data-flagged", "eve")][1]
    for src in ("hw-totals.png", "hw-ex1.png", "hw-times.png"):
        assert (tmp_path / "reports" / src).stat().st_size > 1000 and src in page.read_text()


# ------------------------------------------------------------------ a course graded for real
@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Five golden submissions of assignment 02, autograded (no feedback), then reported."""
    pipe = pipeline_cases()
    root = tmp_path_factory.mktemp("course")
    copy_source(ROOT, root, A)
    shutil.copytree(ROOT / "release" / A, root / "release" / A)
    shutil.copy2(ROOT / "nbgrader_config.py", root / "nbgrader_config.py")
    a = pipe.Assignment(A, root)
    cases = pipe.generic_cases(a)
    golden = pipe.golden_cases(A)["repeats-strict"]
    cases["repeats-strict"] = (a.submission(replace=golden["replace"]), golden["expect"])
    for case in CASES:
        folder = root / "submitted" / case / A
        folder.mkdir(parents=True)
        nbformat.write(cases[case][0], folder / f"{A}.ipynb")
    os.environ["KPCOURSE_CELL_TIMEOUT"] = str(TIMEOUT)
    path = os.environ["PATH"]
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{path}"  # alembic, for our own Gradebook
    try:
        course.release(root, [A])
        results = autograding.autograde(root, jobs=2, feedback=False, log=lambda *a: None, progress=False)
        page = report.write_report(root, A)
    finally:
        os.environ.pop("KPCOURSE_CELL_TIMEOUT", None)
        os.environ["PATH"] = path
    return {"root": root, "results": results, "page": page, "golden": golden,
            "data": json.loads((root / "reports" / f"{A}.json").read_text())}


def _gradebook(root):
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        return {sub.student.id: {g.name: (g.score, g.max_score) for nb in sub.notebooks for g in nb.grades}
                for sub in gb.assignment_submissions(A)}


def test_report_numbers_match_the_gradebook(graded):
    assert all(r["ok"] for r in graded["results"]), graded["results"]
    root, data = graded["root"], graded["data"]
    gb = _gradebook(root)
    assert data["submissions"] == len(CASES) == len(gb)
    n = len(gb)
    for cell in data["cells"]:
        g = cell["grade_id"]
        scores = [gb[s][g][0] for s in gb]
        top = next(iter(gb.values()))[g][1]
        st = cell["stats"]
        assert st["mean"] == pytest.approx(sum(scores) / n), g
        assert st["full"] == sum(s >= top for s in scores) and st["zero"] == sum(s == 0 for s in scores), g
        assert cell["max"] == top
    rows = _html_rows(graded["page"])
    with open(root / "grades.csv", newline="") as f:
        exported = {r["student_id"]: float(r["raw_score"]) for r in csv.DictReader(f) if r["assignment"] == A}
    for r in data["per_submission"]:
        total = sum(v[0] for v in gb[r["student"]].values())
        assert r["total"] == pytest.approx(total) == pytest.approx(exported[r["student"]])
        assert rows[("data-student", r["student"])][1] == report._num(total)
        assert r["wall_seconds"] > r["seconds"] > 0
    assert data["totals"]["mean"] == pytest.approx(sum(exported.values()) / n)
    for ex in data["exercises"]:
        assert ex["max"] == sum(c["max"] for c in data["cells"] if c["exercise"] == ex["name"])
    # the expected scores of the golden cases, seen through the report
    by = {r["student"]: r for r in data["per_submission"]}
    assert by["release"]["total"] == 0
    assert by["solution"]["total"] == data["max_total"] - 3  # the written answer awaits a human grader
    assert by["repeats-strict"]["cells"]["ex1-repeats-tests-values"] == 0
    for src in [f"{A}-totals.png", f"{A}-ex1.png", f"{A}-ex3.png", f"{A}-times.png"]:
        assert (root / "reports" / src).is_file() and src in graded["page"].read_text()


def test_report_counts_hints_and_flags(graded):
    data = graded["data"]
    zero = next(c for c in data["cells"] if c["grade_id"] == "ex1-repeats-tests-values")
    strict = [c for h, c in zero["hints"] if graded["golden"]["message"] in h]
    assert strict == [1]
    unwritten = [c for h, c in zero["hints"] if "not written yet" in h]
    assert unwritten == [2]  # release and edited-tests
    flagged = {r["student"]: [f for f in r["flags"] if not f.startswith("not isolated")]
               for r in data["per_submission"]}
    assert flagged["loop"] == ["timed out: ex1-repeats"]
    assert flagged["edited-tests"][0].startswith("locked cells restored: ex1-repeats-tests")
    assert not flagged["solution"] and not flagged["release"] and not flagged["repeats-strict"]


def test_autograde_one_student_leaves_the_others_alone(graded):
    root = graded["root"]
    summaries = {s: root / "autograded" / s / A / report.SUMMARY for s in CASES}
    before = {s: p.stat().st_mtime_ns for s, p in summaries.items()}
    os.environ["KPCOURSE_CELL_TIMEOUT"] = str(TIMEOUT)
    try:
        results = autograding.autograde(root, jobs=1, students=["repeats-strict"], feedback=False, export=None,
                                     log=lambda *a: None, progress=False)
    finally:
        os.environ.pop("KPCOURSE_CELL_TIMEOUT", None)
    assert [(r["student"], r["ok"]) for r in results] == [("repeats-strict", True)]
    after = {s: p.stat().st_mtime_ns for s, p in summaries.items()}
    assert [s for s in CASES if after[s] != before[s]] == ["repeats-strict"]
    assert _gradebook(root)["repeats-strict"]["ex1-repeats-tests-values"][0] == 0
