"""The course's exchange steps (``kpcourse.grading.course.exchange``), through nbgrader's own classes.

In a folder of the test, as the user running it: a release puts the sticky bit on ``inbound/``; a
submission folder is left ``770`` (nbgrader's is ``777``); a collect of several students whose
submissions all belong to one Unix user is refused, with what to do, unless the course says so; and,
as root, a submit is refused where the student is in the group of ``inbound/``. The same rules with
real Unix users and a hub: ``tests/browser/test_hub.py`` (``make test-hub``).
"""

from __future__ import annotations

import grp
import json
import os
import stat

import pytest
from nbgrader.auth import Authenticator
from nbgrader.coursedir import CourseDirectory
from nbgrader.exchange.abc.exchange import ExchangeError
from traitlets.config import Config

from kpcourse.grading.course.exchange import OwnerCheckedCollect, SealedRelease, SealedSubmit

COURSE, ASSIGNMENT = "rules", "a1"


def _step(cls, base, student=None, **settings):
    """Run one exchange step (``cls``) as nbgrader's command would, in ``base``'s course and exchange."""
    cfg = Config()
    cfg.Exchange.root = str(base / "exchange")
    cfg.Exchange.cache = str(base / "cache")
    cfg.Exchange.assignment_dir = str(base / "work" / (student or "instructor"))
    cfg.CourseDirectory.root = str(base / "course")
    cfg.CourseDirectory.course_id = COURSE
    cfg.CourseDirectory.assignment_id = ASSIGNMENT
    if student:
        cfg.CourseDirectory.student_id = student
    for key, value in settings.items():
        setattr(cfg[cls.__name__], key, value)
    step = cls(coursedir=CourseDirectory(config=cfg), authenticator=Authenticator(config=cfg), config=cfg)
    return step.start()


@pytest.fixture
def course(tmp_path):
    (tmp_path / "exchange").mkdir(mode=0o777)
    (tmp_path / "exchange").chmod(0o1777)
    released = tmp_path / "course" / "release" / ASSIGNMENT
    released.mkdir(parents=True)
    (released / "a1.ipynb").write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    _step(SealedRelease, tmp_path)
    return tmp_path


def _submit(base, student):
    work = base / "work" / student / ASSIGNMENT
    work.mkdir(parents=True)
    (work / "a1.ipynb").write_text((base / "course" / "release" / ASSIGNMENT / "a1.ipynb").read_text())
    _step(SealedSubmit, base, student)
    (folder,) = (base / "exchange" / COURSE / "inbound").glob(f"{student}+{ASSIGNMENT}+*")
    return folder


def test_the_release_puts_the_sticky_bit_on_inbound(course):
    mode = stat.S_IMODE((course / "exchange" / COURSE / "inbound").stat().st_mode)
    assert mode == 0o3733, oct(mode)  # nbgrader's 2733, and no student renames or removes another's folder


def test_a_submission_is_its_students_and_the_graders_group_only(course):
    folder = _submit(course, "alice")
    inbound = course / "exchange" / COURSE / "inbound"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o770, oct(folder.stat().st_mode)
    files = sorted(folder.iterdir())
    assert {p.name for p in files} == {"a1.ipynb", "timestamp.txt", "submission_secret.txt"}, files
    assert folder.stat().st_gid == inbound.stat().st_gid  # inbound/ is set-group-id: the grader's group


def test_a_collect_of_students_who_share_one_unix_user_is_refused(course):
    for student in ("alice", "bob"):
        _submit(course, student)
    with pytest.raises(ExchangeError):
        _step(OwnerCheckedCollect, course)
    assert not (course / "course" / "submitted").exists(), "nothing should be collected"
    _step(OwnerCheckedCollect, course, check_owner=False)  # a course tried out under one account
    assert sorted(p.name for p in (course / "course" / "submitted").iterdir()) == ["alice", "bob"]


def test_the_refusal_says_why_and_what_to_do(course, caplog):
    for student in ("alice", "bob"):
        _submit(course, student)
    with pytest.raises(ExchangeError):
        _step(OwnerCheckedCollect, course)
    said = caplog.text
    assert "alice, bob" in said and "one Unix user" in said and "check_owner = False" in said, said


def test_one_student_id_under_the_instructors_own_user_is_collected(course):
    _submit(course, "instructor-trying")
    _step(OwnerCheckedCollect, course)
    assert [p.name for p in (course / "course" / "submitted").iterdir()] == ["instructor-trying"]


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root, to give inbound/ to another user")
def test_a_submit_where_the_student_is_in_the_group_of_inbound_is_refused(course, caplog):
    inbound = course / "exchange" / COURSE / "inbound"
    os.chown(inbound, 65534, os.getegid())  # another owner, a group the submitter is in
    with pytest.raises(ExchangeError):
        _submit(course, "alice")
    assert "which you are in" in caplog.text, caplog.text
    assert not list(inbound.iterdir()), "nothing should be written"
    others = [g.gr_gid for g in grp.getgrall() if g.gr_gid not in (os.getegid(), *os.getgroups())]
    if not others:
        pytest.skip("every group of this machine holds the user running the test")
    os.chown(inbound, 65534, others[0])  # a group of the grader's alone
    assert stat.S_IMODE(_submit(course, "bob").stat().st_mode) == 0o770
