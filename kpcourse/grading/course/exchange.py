"""nbgrader's exchange on a shared machine: a collect that refuses submissions made in another's name.

nbgrader names a submission in the exchange's ``inbound`` folder after the student id the
submitting process claims (``CourseDirectory.student_id``, the login name by default): a student
who sets it to a classmate's id submits in that classmate's name. nbgrader's collect notices that
the folder's Unix owner differs (``check_owner``) but only logs a warning and collects it anyway,
as the classmate's submission. :class:`OwnerCheckedCollect`, named in ``nbgrader_config.py``
(``c.ExchangeFactory.collect``), leaves such a submission in ``inbound`` and logs an error naming
both users; it keeps the student's own latest submission. Where student ids are not login names
(no Unix owner to compare with), set ``c.OwnerCheckedCollect.check_owner = False``.

It also decides *when* a submission was made: from :func:`kpcourse.grading.course.deadlines.trusted_time`
(the latest status-change time of the inbound folder and of everything in it, which no student can
set back), never from the ``timestamp.txt`` or the folder name the student's own submit wrote. The
collected folder's ``timestamp.txt`` is rewritten with that time; a claim more than a minute off it
is logged as a warning naming the student.

Where every student's server runs as one Unix user (containers often run everyone as uid 1000),
nothing on the file system tells students apart, nor keeps one from changing another's
submission: such a collect is refused with a message that says so (``check_owner = False``
accepts it, for a course tried out under one account).

Two more exchange steps keep a submission its student's and the grader's alone:
:class:`SealedSubmit` (the students' ``c.ExchangeFactory.submit``) leaves the submission folder
``770`` where nbgrader leaves it ``777``, open to anyone who learns its name;
:class:`SealedRelease` (the course's ``c.ExchangeFactory.release_assignment``) sets the sticky bit
on ``inbound/``, so that no student can rename or remove a classmate's folder.
"""

from __future__ import annotations

import grp
import os
import pwd
import stat

from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.exchange.default.release_assignment import ExchangeReleaseAssignment
from nbgrader.exchange.default.submit import ExchangeSubmit

from kpcourse.grading.course.deadlines import stamp, trusted_time

__all__ = ["OwnerCheckedCollect", "SealedRelease", "SealedSubmit", "owner"]


def owner(path):
    """Login name of the Unix owner of ``path`` (``"uid <n>"`` when it has none)."""
    return _login(os.stat(path).st_uid)


def _login(uid):
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


class OwnerCheckedCollect(ExchangeCollect):
    """nbgrader's collect, skipping each inbound submission not owned by the student it names."""

    def _path_to_record(self, path):
        record = super()._path_to_record(path)
        claimed, record["timestamp"] = record["timestamp"], trusted_time(path)  # the time no student can set back
        if abs((record["timestamp"] - claimed).total_seconds()) > 60:
            self.log.warning("%s claims to be submitted at %s; its files were last changed at %s, the time that "
                             "counts", record["username"], stamp(claimed), stamp(record["timestamp"]))
        # a folder the collecting user owns is the instructor's own: a submission tried out under one
        # student id; under several ids (every server run as one user), init_src refuses the collect
        self._seen.append(record)
        if os.stat(path).st_uid == os.getuid():
            record["mine"] = True
        elif self.check_owner:
            who = owner(path)
            if who != record["username"]:
                self.log.error("not collected: %s claims to be submitted by %s but belongs to %s",
                               path, record["username"], who)
                record["forged"] = True
        return record

    def _sort_by_timestamp(self, records):
        # nbgrader keeps the first record of each student's sorted list: put forged ones last
        # (it collects the newest genuine one), and drop the student when none is genuine.
        ordered = super()._sort_by_timestamp(records)
        return sorted(ordered, key=lambda r: bool(r.get("forged")))

    def do_copy(self, src, dest):
        """Copy the submission, then write the time that counts as its ``timestamp.txt``."""
        when = trusted_time(src)
        super().do_copy(src, dest)
        stamp_file = os.path.join(dest, "timestamp.txt")
        if os.path.lexists(stamp_file):
            os.remove(stamp_file)
        with open(stamp_file, "w") as f:
            f.write(stamp(when))

    def init_src(self):
        self._seen = []  # every record nbgrader's init_src reads (_path_to_record), the refused ones too
        super().init_src()
        mine = sorted({r["username"] for r in self._seen if r.get("mine")})
        if self.check_owner and len(mine) > 1:
            self.fail(
                f"Collect refused: the submissions of {len(mine)} students ({', '.join(mine[:5])}"
                f"{', ...' if len(mine) > 5 else ''}) all belong to your own Unix user, {_login(os.getuid())!r}. "
                "When every server runs as one Unix user (containers often run everyone as uid 1000), "
                "nothing tells the students apart, and each can change or remove the others' submissions. "
                "Give each student a Unix user of their own (README, 'Deploying on a JupyterHub'); to collect "
                "anyway, in a course tried out under one account, set c.OwnerCheckedCollect.check_owner = False.")
        forged = sorted({r["username"] for r in self._seen if r.get("forged")})
        if forged:
            self.log.error(
                "%d student(s) have submissions that belong to another Unix user, left in inbound: %s. Someone "
                "submitted in their name; or, when every student's server runs as one Unix user (containers: "
                "uid 1000), the exchange cannot tell students apart: give each student a Unix user of their own.",
                len(forged), ", ".join(forged))
        self.src_records = [r for r in self.src_records if not r.get("forged")]


class SealedSubmit(ExchangeSubmit):
    """nbgrader's submit, leaving the submission to its student and the course's grader group.

    nbgrader makes the submission folder ``777`` (so that the instructor can remove it): anyone who
    learns its name can read, change or remove what is in it. Here it is ``770``. ``inbound/`` is
    set-group-id, so the folder's group is the one of the folder the instructor's release made: the
    course's grader account reads and removes it through that group, and nobody else can enter it (its
    files keep nbgrader's ``644``: whoever cannot enter the folder cannot reach them). So the submit
    is refused when the student is in that group, where every member could read it.
    """

    def init_dest(self):
        super().init_dest()
        info = os.stat(self.inbound_path)
        if info.st_uid != os.getuid() and (info.st_gid == os.getegid() or info.st_gid in os.getgroups()):
            self.fail(
                f"Submit refused: the exchange's folder {self.inbound_path} belongs to the group "
                f"{_group(info.st_gid)!r}, which you are in, so your submission would be readable by every "
                "member of it. Ask your instructor to release the course from an account whose own group "
                "holds no students (README, 'Deploying on a JupyterHub').")

    def copy_files(self):
        super().copy_files()
        folder = os.path.join(self.inbound_path, self.assignment_filename)
        group = os.stat(self.inbound_path).st_gid
        if os.stat(folder).st_gid == group:
            os.chmod(folder, 0o770)
        else:  # inbound/ without its set-group-id bit: only nbgrader's 777 lets the grader read it
            self.log.warning("%s has not the group of %s (is its set-group-id bit off?): the submission is left "
                             "open to anyone who learns its name", folder, self.inbound_path)


class SealedRelease(ExchangeReleaseAssignment):
    """nbgrader's release, with the sticky bit on ``inbound/``.

    nbgrader makes ``inbound/`` ``2733``: every student may add a folder to it, and, without the
    sticky bit, rename or remove a classmate's (a rename also moves the time the submission counts
    as made). With it, only a folder's owner and the course's own account can.
    """

    def init_dest(self):
        super().init_dest()
        info = os.stat(self.inbound_path)
        mode = stat.S_IMODE(info.st_mode)
        if mode & stat.S_ISVTX:
            return
        if info.st_uid == os.getuid():
            os.chmod(self.inbound_path, mode | stat.S_ISVTX)
        else:  # a course shared by several instructors (groupshared): the folder's owner can set it
            self.log.warning("%s has no sticky bit, and only its owner, %s, can set it (chmod +t): until then "
                             "a student can rename or remove a classmate's submission", self.inbound_path,
                             owner(self.inbound_path))


def _group(gid):
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return f"gid {gid}"
