"""Due dates and extensions from nbgrader_config.py; submission times a student cannot change.

The end-to-end test goes through nbgrader's real exchange on this machine: the instructor
releases assignment 02 to a temporary exchange, four students fetch it and submit the
source's solutions (every automatic point), the instructor collects with the course's
``OwnerCheckedCollect`` and runs the project's autograde (in the sandbox), with a due date an
hour before the submissions and an extension, both from ``nbgrader_config.py``. One student
edits the ``timestamp.txt`` and the folder name of the submission in ``inbound/`` to two days
earlier, one deletes the ``timestamp.txt``: nbgrader's own collect would copy the edited file,
or none, and charge them nothing.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from kpcourse.grading.course import deadlines
from kpcourse.grading.paths import copy_source

REPO = Path(__file__).resolve().parents[1]
ASSIGNMENT = "02-perceptron-by-hand"
COURSE = "kpcourse"


def test_the_trusted_time_only_moves_later(tmp_path):
    folder = tmp_path / f"alice+{ASSIGNMENT}+2027-01-01 10:00:00.000000 UTC+abc"
    folder.mkdir()
    (folder / "timestamp.txt").write_text("2027-01-01 10:00:00.000000 UTC")
    (folder / "a.ipynb").write_text("{}")
    first = deadlines.trusted_time(folder)
    assert abs((first - dt.datetime.now(dt.UTC).replace(tzinfo=None)).total_seconds()) < 60
    time.sleep(0.05)
    old = time.time() - 5 * 86400
    os.utime(folder / "a.ipynb", (old, old))  # a file's times set back: its ctime is now
    (folder / "timestamp.txt").unlink()
    assert deadlines.trusted_time(folder) > first


def test_deadlines_are_read_and_checked(tmp_path):
    root = tmp_path / "course"
    copy_source(REPO, root, ASSIGNMENT)
    config = (REPO / "nbgrader_config.py").read_text()
    subprocess.run([sys.executable, "-m", "nbgrader", "db", "assignment", "add", ASSIGNMENT], cwd=root, check=True,
                   capture_output=True)
    said = []
    (root / "nbgrader_config.py").write_text(config)  # the course's own file: no due date set
    assert deadlines.apply(root, [ASSIGNMENT], log=said.append) == {}
    assert said and "no due date" in said[0], said
    (root / "nbgrader_config.py").write_text(config + f"\nc.Deadlines.due = {{{ASSIGNMENT!r}: 'not a date'}}\n")
    with pytest.raises(ValueError, match="is not a date"):
        deadlines.apply(root, [ASSIGNMENT])
    (root / "nbgrader_config.py").write_text(config + "\nc.Deadlines.due = {'99-nothing': '2027-01-01 00:00 UTC'}\n")
    with pytest.raises(ValueError, match="99-nothing"):
        deadlines.apply(root, [ASSIGNMENT])
    (root / "nbgrader_config.py").write_text(
        config + f"\nc.Deadlines.due = {{{ASSIGNMENT!r}: '2027-01-01 00:00 UTC'}}\n"
        f"c.Deadlines.extensions = {{{ASSIGNMENT!r}: {{'alice': -1}}}}\n")
    with pytest.raises(ValueError, match="0 or more"):
        deadlines.apply(root, [ASSIGNMENT], [("alice", ASSIGNMENT)])


# ------------------------------------------------------------------ end to end
def _nbgrader(args, cwd, config_dir, check=True):
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(config_dir),
               PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    proc = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)
    assert not check or proc.returncode == 0, f"nbgrader {' '.join(args)}:\n{proc.stdout[-2000:]}{proc.stderr[-3000:]}"
    return proc


def _person(base, name, exchange, student=True):
    config = base / name / "config"
    config.mkdir(parents=True)
    lines = ["c = get_config()  # noqa: F821", f"c.Exchange.root = {str(exchange)!r}",
             f"c.CourseDirectory.course_id = {COURSE!r}"]
    if student:
        lines.append(f"c.CourseDirectory.student_id = {name!r}")
    (config / "nbgrader_config.py").write_text("\n".join(lines) + "\n")
    (base / name / "work").mkdir()
    return config, base / name / "work"


@pytest.fixture(scope="module")
def term(tmp_path_factory):
    """Release, four submissions (one forged, one without its timestamp), collect, autograde."""
    if shutil.which("bwrap") is None and os.environ.get("KPCOURSE_ISOLATION") == "require":
        pytest.fail("bubblewrap is missing")
    base = tmp_path_factory.mktemp("term")
    exchange = base / "exchange"
    exchange.mkdir()
    exchange.chmod(0o777)
    root = base / "course"
    copy_source(REPO, root, ASSIGNMENT)
    teacher, _ = _person(base, "instructor", exchange, student=False)
    due = dt.datetime.now(dt.UTC) - dt.timedelta(hours=1)
    (root / "nbgrader_config.py").write_text(
        (REPO / "nbgrader_config.py").read_text() + "\n# this test's term\n"
        f"c.Deadlines.due = {{{ASSIGNMENT!r}: {deadlines.stamp(due.replace(tzinfo=None))!r}}}\n"
        f"c.Deadlines.extensions = {{{ASSIGNMENT!r}: {{'dave': 2}}}}\n"
        f"c.CourseDirectory.course_id = {COURSE!r}\n"
        "c.OwnerCheckedCollect.check_owner = False  # everyone of this test is one Unix user\n")
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(teacher))
    subprocess.run([sys.executable, "-m", "kpcourse.grading", "release", ASSIGNMENT], cwd=root, env=env, check=True,
                   capture_output=True)
    _nbgrader(["release_assignment", ASSIGNMENT, "--force"], root, teacher)
    solved = nbformat.read(REPO / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    for student in ("alice", "bob", "carol", "dave"):
        config, work = _person(base, student, exchange)
        _nbgrader(["fetch_assignment", ASSIGNMENT], work, config)
        nbformat.write(solved, work / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
        _nbgrader(["submit", ASSIGNMENT], work, config)
    inbound = exchange / COURSE / "inbound"
    early = deadlines.stamp((due - dt.timedelta(days=2)).replace(tzinfo=None))
    for folder in inbound.iterdir():
        student = folder.name.split("+")[0]
        if student == "bob":  # the claimed time and the folder's name, two days before the due date
            (folder / "timestamp.txt").write_text(early)
            folder.rename(inbound / "+".join([student, ASSIGNMENT, early, folder.name.split("+")[-1]]))
        elif student == "carol":
            (folder / "timestamp.txt").unlink()
    collected = _nbgrader(["collect", ASSIGNMENT], root, teacher)
    graded = subprocess.run([sys.executable, "-m", "kpcourse.grading", "autograde", "--jobs", "2", "--no-feedback"],
                            cwd=root, env=env, capture_output=True, text=True, timeout=900)
    assert graded.returncode == 0, graded.stdout[-3000:] + graded.stderr[-3000:]
    from nbgrader.api import Gradebook

    out = {}
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        for student in ("alice", "bob", "carol", "dave"):
            sub = gb.find_submission(ASSIGNMENT, student)
            out[student] = {"score": sub.score, "penalty": sum(nb.late_submission_penalty or 0 for nb in sub.notebooks),
                            "late": sub.total_seconds_late, "extension": sub.extension}
    _nbgrader(["generate_feedback", ASSIGNMENT, "--force"], root, teacher)
    for student in out:
        out[student]["feedback"] = (root / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()
    return out, collected.stdout + collected.stderr, root


def test_a_late_submission_pays_the_penalty(term):
    got, *_ = term
    alice = got["alice"]
    assert alice["score"] > 0 and 3600 <= alice["late"] < 3600 + 600, alice
    assert alice["penalty"] == pytest.approx(round(0.1 * alice["score"], 2), abs=0.011), alice  # 1 day started: 10 %


@pytest.mark.parametrize("student", ["bob", "carol"])
def test_an_edited_or_deleted_timestamp_never_lowers_the_penalty(term, student):
    got, log, _ = term
    assert got[student]["late"] >= got["alice"]["late"] - 60, got
    assert got[student]["penalty"] == pytest.approx(got["alice"]["penalty"], abs=0.011), got
    if student == "bob":
        assert "bob" in log and "claims" in log, log[-2000:]  # the collect names the difference


def test_an_extension_survives_the_autograde(term):
    got, *_ = term
    assert got["dave"]["extension"] == dt.timedelta(days=2), got["dave"]
    assert got["dave"]["late"] == 0 and got["dave"]["penalty"] == 0, got["dave"]


def test_the_feedback_states_the_rule_and_what_it_did(term):
    """Each student's feedback begins with the late rule, the due date, the time that counted, and the penalty."""
    got, *_ = term
    for student in ("alice", "bob", "carol"):
        text = got[student]["feedback"]
        assert "Late work." in text and "after 15 minutes of grace, costs 10%" in text, text[:3000]
        assert "late: 10% comes off this assignment" in text and "when its files reached the course" in text
    dave = got["dave"]["feedback"]
    assert "Due, with your extension of 2 days, " in dave and "It was on time: no penalty." in dave


_ROSTER = """Student,ID,SIS User ID,SIS Login ID,Section
    Points Possible,,,,
"Liddell, Alice",2001,S-1,alice,A
"Stone, Jr., Bob",2002,S-2,bob,A
"Ødegård-Łukasz, Zoë",2003,S-3,carol,B
"Dunn, Dave",2004,S-4,dave,B
"Newman, Erin",2005,S-5,erin,B
"""


def test_the_lms_files_of_the_term(term, tmp_path):
    """The term's gradebook with Canvas's roster imported: the Canvas and Moodle files are the expected ones —
    by the LMS's ids, scores after the penalty on the final score (a tenth off for an hour late), dave on time
    with his extension, erin (on the roster, no submission) blank or absent as asked."""
    from kpcourse.grading.course import export, roster

    got, _, root = term
    db = f"sqlite:///{root / 'gradebook.db'}"
    (tmp_path / "roster.csv").write_text(_ROSTER, encoding="utf-8")
    roster.import_roster(root, tmp_path / "roster.csv")
    full = got["dave"]["score"]
    late = f"{round(full - round(0.1 * full, 2), 2):g}"
    files = {}
    for fmt, missing in (("canvas", "blank"), ("moodle", "leave")):
        out = tmp_path / f"{fmt}.csv"
        assert export.main([fmt, "--db", db, "--out", str(out), "--course", str(root), "--missing", missing]) == 0
        files[fmt] = out.read_text(encoding="utf-8").splitlines()
    points = f"{export.read_gradebook(db).assignments[0]['max_score']:g}"
    assert files["canvas"] == [
        f"Student,ID,SIS User ID,SIS Login ID,Section,{ASSIGNMENT}", f"Points Possible,,,,,{points}",
        f"\"Liddell, Alice\",2001,S-1,alice,A,{late}", f"\"Stone, Jr., Bob\",2002,S-2,bob,A,{late}",
        f"\"Ødegård-Łukasz, Zoë\",2003,S-3,carol,B,{late}", f"\"Dunn, Dave\",2004,S-4,dave,B,{full:g}",
        "\"Newman, Erin\",2005,S-5,erin,B,"]
    assert files["moodle"][0] == f"First name,Last name,ID number,Email address,{ASSIGNMENT}"
    assert files["moodle"][1:] == [f"Alice,Liddell,alice,,{late}", f"Bob,\"Stone, Jr.\",bob,,{late}",
                                   f"Zoë,Ødegård-Łukasz,carol,,{late}", f"Dave,Dunn,dave,,{full:g}"]
