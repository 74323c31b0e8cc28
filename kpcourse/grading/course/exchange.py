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
"""

from __future__ import annotations

import os
import pwd

from nbgrader.exchange.default.collect import ExchangeCollect

from kpcourse.grading.course.deadlines import stamp, trusted_time

__all__ = ["OwnerCheckedCollect", "owner"]


def owner(path):
    """Login name of the Unix owner of ``path`` (``"uid <n>"`` when it has none)."""
    uid = os.stat(path).st_uid
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
        # a folder the collecting user owns is the instructor's own (a one-user course, as in
        # tests/browser/test_exchange.py, where every server runs as one user): nothing forged
        if self.check_owner and os.stat(path).st_uid != os.getuid():
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
        super().init_src()
        self.src_records = [r for r in self.src_records if not r.get("forged")]
