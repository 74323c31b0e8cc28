"""``make export-grades`` (kpcourse.grading.course.export) and the late policy (kpcourse.grading.course.late).

A small gradebook is built in a temporary folder: two assignments, three students (one
submits late, one never submits the second assignment).
"""

from __future__ import annotations

import csv
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook
from nbgrader.preprocessors import AssignLatePenalties
from traitlets.config import Config

from kpcourse.grading.course import export
from kpcourse.grading.course.late import DAY, PerDayPenalty, late_fraction

REPO = Path(__file__).resolve().parents[1]
DUE1 = datetime(2026, 10, 1, 12, 0)
DUE2 = datetime(2026, 10, 8, 12, 0)


def _assignment(gb, name, due, points):
    gb.add_assignment(name, duedate=due)
    gb.add_notebook(name, name)
    for i, p in enumerate(points):
        gb.add_grade_cell(f"t{i}", name, name, max_score=p, cell_type="code")


def _submit(gb, name, student, when, scores, penalty=None):
    gb.add_submission(name, student, timestamp=when)
    for i, s in enumerate(scores):
        g = gb.find_grade(f"t{i}", name, name, student)
        g.auto_score = s
    if penalty is not None:
        gb.find_submission_notebook(name, name, student).late_submission_penalty = penalty
    gb.db.commit()


@pytest.fixture
def gradebook(tmp_path):
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with Gradebook(url) as gb:
        _assignment(gb, "01-similarity", DUE1, [3, 4])
        _assignment(gb, "02-perceptron-by-hand", DUE2, [5, 5])
        gb.add_student("alice", first_name="Alice", last_name="Liddell", email="alice@uni.example",
                       lms_user_id="1001")
        gb.add_student("bob", first_name="Bob", last_name="Stone, Jr.", email="bob@uni.example")
        gb.add_student("carol")
        _submit(gb, "01-similarity", "alice", DUE1 - timedelta(hours=1), [3, 4])
        _submit(gb, "02-perceptron-by-hand", "alice", DUE2, [5, 4.5])
        _submit(gb, "01-similarity", "bob", DUE1 + timedelta(days=1, hours=1), [3, 2], penalty=1.0)
        _submit(gb, "02-perceptron-by-hand", "bob", DUE2, [0, 0])
        _submit(gb, "01-similarity", "carol", DUE1, [1, 0])
    return url


def _read(path):
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.reader(fh))


# ------------------------------------------------------------------ the late policy
@pytest.mark.parametrize("seconds, expected", [
    (-5, 0.0), (0, 0.0), (600, 0.0),            # early, on time, inside the 15-minute grace
    (901, 0.1), (DAY + 900, 0.1),                # the first started day
    (DAY + 901, 0.2), (2 * DAY + 3600, 0.3),     # 2 days 1 hour late: 3 started days
    (5 * DAY + 900, 0.5), (30 * DAY, 0.5),       # the cap
])
def test_late_fraction(seconds, expected):
    assert late_fraction(seconds, per_day=0.1, cap=0.5, grace_seconds=900) == pytest.approx(expected)


def test_late_fraction_rejects_bad_policies():
    for kwargs in ({"per_day": 1.5, "cap": 0.5}, {"per_day": 0.1, "cap": -0.1},
                   {"per_day": 0.1, "cap": 0.5, "grace_seconds": -1}):
        with pytest.raises(ValueError, match="late policy"):
            late_fraction(3600, **kwargs)


def test_plugin_penalty_in_points():
    plugin = PerDayPenalty(per_day=0.25, cap=0.6)
    assert plugin.late_submission_penalty("s", 8.0, 0) == 0.0
    assert plugin.late_submission_penalty("s", 8.0, 1) == 2.0          # 1 second late: one day
    assert plugin.late_submission_penalty("s", 8.0, 2 * DAY) == 4.0
    assert plugin.late_submission_penalty("s", 7.0, 3 * DAY) == 4.2    # capped at 60 %
    assert plugin.late_submission_penalty("s", 0.0, 3 * DAY) == 0.0


def test_course_config_uses_the_plugin():
    """``nbgrader_config.py`` names the plug-in and applies the course's rules (kpcourse/data/course.toml, which
    the start page shows): the same due dates and late policy."""
    from traitlets.config.loader import PyFileConfigLoader

    from kpcourse.syllabus import load_syllabus

    cfg = PyFileConfigLoader("nbgrader_config.py", path=str(REPO)).load_config()
    syllabus = load_syllabus()
    assert cfg.AssignLatePenalties.plugin_class is PerDayPenalty
    assert (cfg.PerDayPenalty.per_day, cfg.PerDayPenalty.cap) == (syllabus.per_day, syllabus.cap)
    assert cfg.PerDayPenalty.grace_seconds == syllabus.grace_minutes * 60
    assert cfg.Deadlines.due == syllabus.due


@pytest.mark.parametrize("text,match", [
    ("[late]\nper_day = 1.5\n", "per_day must be a share"),
    ("[late]\ngrace_minutes = -1\n", "grace_minutes"),
    ("[late]\nfine = 2\n", "only per_day, cap and grace_minutes"),
    ("[due]\n\"01-similarity\" = 2027-02-01\n", "must be text"),
    ("[terms]\n", "unknown section"),
    ("[rules]\nweights = \"by points\"\n", "needs collaboration, ai_tools, help"),
    ("[rules\n", "not valid TOML"),
])
def test_the_course_rules_file_refuses_what_it_cannot_apply(tmp_path, text, match):
    from kpcourse.syllabus import load_syllabus

    path = tmp_path / "course.toml"
    path.write_text(text)
    with pytest.raises(ValueError, match=match):
        load_syllabus(path)


def test_nbgrader_stores_the_penalty(gradebook):
    """nbgrader's AssignLatePenalties, with the plug-in, writes the penalty into the gradebook."""
    c = Config()
    c.AssignLatePenalties.plugin_class = PerDayPenalty
    c.PerDayPenalty.per_day, c.PerDayPenalty.cap = 0.1, 0.5
    with Gradebook(gradebook) as gb:  # bob's 01 is 1 day 1 hour late, 5 of 7 points: 2 days, 20 %
        gb.find_submission_notebook("01-similarity", "01-similarity", "bob").late_submission_penalty = None
        gb.db.commit()
    resources = {"nbgrader": {"notebook": "01-similarity", "assignment": "01-similarity", "student": "bob",
                              "db_url": gradebook}}
    AssignLatePenalties(config=c).preprocess(nbformat.v4.new_notebook(), resources)
    with Gradebook(gradebook) as gb:
        sub = gb.find_submission("01-similarity", "bob")
        assert sub.late_submission_penalty == pytest.approx(1.0)
        assert gb.find_submission("01-similarity", "alice").late_submission_penalty == 0.0


def test_the_penalty_is_on_the_final_score(gradebook):
    """bob's 01 (1 day 1 hour late: 2 days, 20 %) is 5 of 7 automatically and 7 after a manual +2:
    the export takes 20 % of 7 (1.4), not nbgrader's 1.0 stored at autograde; an assignment's own policy wins."""
    with Gradebook(gradebook) as gb:
        gb.find_grade("t1", "01-similarity", "01-similarity", "bob").manual_score = 4
        gb.db.commit()
    assert export.read_gradebook(gradebook).submissions[("bob", "01-similarity")]["late_penalty"] == 1.0
    policy = PerDayPenalty(per_day=0.1, cap=0.5)
    bob = export.read_gradebook(gradebook, policy).submissions[("bob", "01-similarity")]
    assert (bob["raw_score"], bob["late_penalty"], bob["score"]) == (7.0, 1.4, 5.6)
    policy.per_assignment = {"01-similarity": {"per_day": 0.4}}  # 2 days: 80 %, capped at the course's 50 %
    assert export.read_gradebook(gradebook, policy).submissions[("bob", "01-similarity")]["late_penalty"] == 3.5
    assert export.read_gradebook(gradebook, policy).submissions[("alice", "01-similarity")]["late_penalty"] == 0.0
    policy.per_assignment = {"01-similarity": {"per_week": 0.4}}
    with pytest.raises(ValueError, match="per_week"):
        export.read_gradebook(gradebook, policy)


# ------------------------------------------------------------------------ exports
def test_canvas_layout(gradebook, tmp_path):
    out = tmp_path / "canvas.csv"
    sheet = export.read_gradebook(gradebook)
    assert export.write(sheet, "canvas", out, {"02-perceptron-by-hand": "4711"}) == 3
    rows = _read(out)
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section",
                       "01-similarity", "02-perceptron-by-hand (4711)"]
    assert rows[1] == ["Points Possible", "", "", "", "", "7", "10"]
    assert rows[2] == ["Liddell, Alice", "1001", "", "alice", "", "7", "9.5"]
    assert rows[3] == ["Stone, Jr., Bob", "", "", "bob", "", "4", "0"]   # 5 points less the 1-point penalty
    assert rows[4] == ["carol", "", "", "carol", "", "1", ""]            # 02 not submitted: left empty
    assert out.read_text(encoding="utf-8").splitlines()[3].startswith('"Stone, Jr., Bob"')


def test_moodle_layout(gradebook, tmp_path):
    out = tmp_path / "moodle.csv"
    export.write(export.read_gradebook(gradebook), "moodle", out)
    rows = _read(out)
    assert rows[0] == ["First name", "Last name", "ID number", "Email address", "01-similarity",
                       "02-perceptron-by-hand"]
    assert rows[1:] == [["Alice", "Liddell", "alice", "alice@uni.example", "7", "9.5"],
                        ["Bob", "Stone, Jr.", "bob", "bob@uni.example", "4", "0"],
                        ["", "", "carol", "", "1", ""]]


def test_plain_csv(gradebook, tmp_path):
    out = tmp_path / "plain.csv"
    export.write(export.read_gradebook(gradebook), "csv", out)
    rows = [dict(zip(_read(out)[0], r, strict=True)) for r in _read(out)[1:]]
    assert len(rows) == 6
    bob = next(r for r in rows if r["student_id"] == "bob" and r["assignment"] == "01-similarity")
    assert (bob["raw_score"], bob["late_penalty"], bob["score"], bob["max_score"]) == ("5", "1", "4", "7")
    carol = next(r for r in rows if r["student_id"] == "carol" and r["assignment"] == "02-perceptron-by-hand")
    assert (carol["timestamp"], carol["score"]) == ("", "0")


def test_autograde_exports_names_with_commas_and_any_letters(gradebook, tmp_path):
    """Issue 45: ``make autograde``'s ``grades.csv`` is quoted as CSV must be. nbgrader's own export wrote
    ``Stone, Jr.`` unquoted, and the next step (the isolation column) raised ``ValueError: dict contains fields
    not in fieldnames: None``. The course's exporter writes it, with the isolation column after."""
    from kpcourse.grading.course.autograding import _export_grades

    with Gradebook(gradebook) as gb:
        gb.add_student("zoe", first_name="Zoë", last_name="Ødegård-Łukasz, \"Z\"", email="zoe@uni.example")
    out = tmp_path / "grades.csv"
    _export_grades(tmp_path, out)  # the fixture's gradebook.db is in tmp_path, as in a course folder
    with open(out, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert all(None not in r for r in rows) and len(rows) == 4 * 2
    names = {(r["student_id"], r["first_name"], r["last_name"]) for r in rows}
    assert ("bob", "Bob", "Stone, Jr.") in names and ("zoe", "Zoë", 'Ødegård-Łukasz, "Z"') in names
    bob = next(r for r in rows if r["student_id"] == "bob" and r["assignment"] == "01-similarity")
    assert (bob["raw_score"], bob["score"], bob["isolated"]) == ("5", "4", "")  # no grading summary here


def test_errors(gradebook, tmp_path):
    sheet = export.read_gradebook(gradebook)
    with pytest.raises(ValueError, match="unknown format"):
        export.write(sheet, "blackboard", tmp_path / "x.csv")
    with pytest.raises(ValueError, match="not in the gradebook: 09-nope"):
        export.write(sheet, "canvas", tmp_path / "x.csv", {"09-nope": "1"})
    with pytest.raises(FileNotFoundError, match="make autograde"):
        export.read_gradebook(f"sqlite:///{tmp_path / 'missing.db'}")
    assert not (tmp_path / "missing.db").exists()


def test_command_line(gradebook, tmp_path):
    out = tmp_path / "c.csv"
    run = [sys.executable, "-m", "kpcourse.grading.course.export"]
    ok = subprocess.run(run + ["canvas", "--db", gradebook, "--out", str(out),
                               "--canvas-id", "01-similarity=12"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert "3 student(s), 2 assignment(s)" in ok.stdout
    assert _read(out)[0][5] == "01-similarity (12)"
    bad = subprocess.run(run + ["moodle", "--db", f"sqlite:///{tmp_path / 'none.db'}"], capture_output=True,
                         text=True, cwd=tmp_path)
    assert bad.returncode == 2 and "no gradebook at" in bad.stderr
    bad = subprocess.run(run + ["canvas", "--db", gradebook, "--canvas-id", "x"], capture_output=True, text=True)
    assert bad.returncode == 2 and "ASSIGNMENT=NUMBER" in bad.stderr


# ------------------------------------------------------------------ the LMS's roster
_CANVAS_ROSTER = '''\ufeffStudent,ID,SIS User ID,SIS Login ID,Integration ID,Section,01-similarity (4710)
    Points Possible,,,,,,7
"Liddell, Alice",1001,S-001,alice,,Sec 1,
"Stone, Jr., Bob",1002,S-002,bob,,Sec 1,
"Ødegård-Łukasz, ""Zoë""",1003,S-003,carol,,Sec 2,
"Newman, Dana",1004,S-004,dana,,Sec 2,
'''


def _roster_file(tmp_path, text, name="roster.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_canvas_roster_round_trips(tmp_path, gradebook):
    """Imported from Canvas's own export: the names (commas, quotes, any letter) and Canvas's ids land in the
    gradebook, and the grades file names every student by the LMS's identity columns, exactly; dana, on the
    roster without a submission, is left blank, 0 or out as asked."""
    from kpcourse.grading.course import roster

    course = tmp_path / "course"
    course.mkdir()
    kept = roster.import_roster(course, _roster_file(tmp_path, _CANVAS_ROSTER), db_url=gradebook)
    assert kept["lms"] == "canvas" and list(kept["students"]) == ["alice", "bob", "carol", "dana"]
    with Gradebook(gradebook) as gb:
        carol = gb.find_student("carol")
        assert (carol.first_name, carol.last_name, carol.lms_user_id) == ('"Zoë"', "Ødegård-Łukasz", "1003")
        assert gb.find_student("bob").last_name == "Stone, Jr."
    sheet = export.read_gradebook(gradebook)
    out = tmp_path / "canvas.csv"
    export.write(sheet, "canvas", out, roster=roster.load(course))
    got = _read(out)
    assert got[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    by_login = {r[3]: r for r in got[2:]}
    assert by_login["bob"][:5] == ["Stone, Jr., Bob", "1002", "S-002", "bob", "Sec 1"]
    assert by_login["carol"][:5] == ['Ødegård-Łukasz, "Zoë"', "1003", "S-003", "carol", "Sec 2"]
    assert by_login["dana"][5:] == ["", ""]
    export.write(sheet, "canvas", out, roster=roster.load(course), missing="zero")
    assert {r[3]: r for r in _read(out)[2:]}["dana"][5:] == ["0", "0"]
    export.write(sheet, "canvas", out, roster=roster.load(course), missing="leave")
    assert "dana" not in {r[3] for r in _read(out)[2:]}


def test_a_student_the_moodle_roster_lacks_stops_the_export_before_it_writes(tmp_path, gradebook):
    from kpcourse.grading.course import roster

    course = tmp_path / "course"
    course.mkdir()
    moodle = _roster_file(tmp_path, "First name,Last name,ID number,Institution,Email address\n"
                                    "Alice,Liddell,alice,Uni,alice@uni.example\nBob,\"Stone, Jr.\",bob,Uni,"
                                    "bob@uni.example\n")
    roster.import_roster(course, moodle, db_url=gradebook)
    out = tmp_path / "moodle.csv"
    with pytest.raises(ValueError, match="does not hold carol"):
        export.write(export.read_gradebook(gradebook), "moodle", out, roster=roster.load(course))
    assert not out.exists()
    code = export.main(["moodle", "--db", gradebook, "--out", str(out), "--course", str(course)])
    assert code == 2 and not out.exists()


@pytest.mark.parametrize("text,match", [
    ("Name,Login\nA,a\n", "neither a Canvas gradebook export"),
    ("First name,Last name,ID number,Email address\nAlice,Liddell,,a@x\n", "row 2 .*has no ID number"),
    ("First name,Last name,ID number,Email address\nA,B,x,a@x\nC,D,x,c@x\n", "also on an earlier row"),
])
def test_a_roster_the_course_cannot_use_is_refused_with_its_rows_named(tmp_path, text, match):
    from kpcourse.grading.course import roster

    with pytest.raises(ValueError, match=match):
        roster.read(_roster_file(tmp_path, text))
