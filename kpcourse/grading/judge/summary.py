"""The grading summary: one typed record that the grader writes and the report reads.

:class:`~kpcourse.grading.judge.trusted.TrustedExecute` writes one beside each autograded
notebook (``kpcourse-grading.json``); ``make autograde`` adds the nbgrader process's
time; :mod:`kpcourse.grading.views.report` and the grades export read it.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path

from kpcourse.grading.judge.spec import SUMMARY

__all__ = ["Summary", "SUMMARY"]


@dataclass
class Summary:
    """How one notebook was graded.

    Attributes
    ----------
    student, assignment, notebook : str
    isolated : bool
        Ran in the sandbox; ``why_not_isolated`` says why not.
    killed : bool
        Stopped for running past its whole time budget.
    seconds : float
        Time in the grader's preprocessor; ``wall_seconds`` the whole nbgrader process's share.
    verdicts : dict
        grade_id -> ``None`` (passed) or the message of the failing test.
    timed_out_cells, timed_out_ids : list
        Indices and grade_ids of cells that ran past the cell limit.
    kernel_restarted : bool
    uid : int or None
        The user the submission ran as, measured (never 0; ``None`` when it left no file to measure).
    limits_hit : list of str
        Resource limits reached ("memory", "output", ...).
    hidden_seed : int
        Seed of the hidden probes of declared exercises in this run.
    locked_restored : list of str
        Locked cells the student had changed, put back before grading.
    """

    student: str | None = None
    assignment: str | None = None
    notebook: str | None = None
    isolated: bool = False
    why_not_isolated: str | None = None
    killed: bool = False
    seconds: float | None = None
    verdicts: dict = field(default_factory=dict)
    timed_out_cells: list = field(default_factory=list)
    timed_out_ids: list = field(default_factory=list)
    kernel_restarted: bool = False
    uid: int | None = None
    limits_hit: list = field(default_factory=list)
    hidden_seed: int | None = None
    locked_restored: list = field(default_factory=list)
    wall_seconds: float | None = None

    @classmethod
    def from_dict(cls, data):
        """A summary from its JSON form; unknown keys are ignored, missing ones get defaults."""
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in dict(data).items() if k in names})

    @classmethod
    def read(cls, path):
        """The summary in ``path`` (a file, or the folder holding it), or ``None`` when there is none."""
        path = Path(path)
        path = path / SUMMARY if path.is_dir() else path
        try:
            return cls.from_dict(json.loads(path.read_text()))
        except (OSError, ValueError, TypeError):
            return None

    def write(self, folder):
        """Write ``kpcourse-grading.json`` into ``folder``."""
        (Path(folder) / SUMMARY).write_text(json.dumps(dataclasses.asdict(self), indent=1))

    def flags(self):
        """Why the grader flags this submission (``[]`` when it does not)."""
        found = []
        if not self.isolated:
            found.append(f"not isolated ({self.why_not_isolated or 'no sandbox'})")
        if self.killed:
            found.append("killed: ran past its time budget")
        if self.timed_out_cells:
            ids = self.timed_out_ids or [f"cell {i}" for i in self.timed_out_cells]
            found.append(f"timed out: {', '.join(ids)}")
        if self.kernel_restarted:
            found.append("kernel restarted")
        if self.locked_restored:
            found.append(f"locked cells restored: {', '.join(self.locked_restored)}")
        if self.limits_hit:
            found.append(f"limit reached: {', '.join(self.limits_hit)}")
        if self.uid == 0:
            found.append("ran as root")
        elif self.uid is None and self.isolated:
            found.append("its user not measured (it removed the sandbox's mark)")
        return found
