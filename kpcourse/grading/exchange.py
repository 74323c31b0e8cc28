"""nbgrader's exchange on a shared machine: a collect that refuses submissions made in another's name.

nbgrader names a submission in the exchange's ``inbound`` folder after the student id the
submitting process claims (``CourseDirectory.student_id``, the login name by default): a student
who sets it to a classmate's id submits in that classmate's name. nbgrader's collect notices that
the folder's Unix owner differs (``check_owner``) but only logs a warning and collects it anyway,
as the classmate's submission. :class:`OwnerCheckedCollect`, named in ``nbgrader_config.py``
(``c.ExchangeFactory.collect``), leaves such a submission in ``inbound`` and logs an error naming
both users; it keeps the student's own latest submission. Where student ids are not login names
(no Unix owner to compare with), set ``c.OwnerCheckedCollect.check_owner = False``.
"""

from __future__ import annotations

import os
import pwd

from nbgrader.exchange.default.collect import ExchangeCollect

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

    def init_src(self):
        super().init_src()
        self.src_records = [r for r in self.src_records if not r.get("forged")]
