"""Course folders, through nbgrader's own :class:`~nbgrader.coursedir.CourseDirectory`.

``course_path(root, "autograded", "bob", "02-perceptron-by-hand")`` is where nbgrader puts
that step's files (``<root>/autograded/bob/02-perceptron-by-hand`` with the default
``directory_structure``); ``source`` and ``release`` have no student.
"""

from __future__ import annotations

import functools
import os
import shutil
from pathlib import Path

__all__ = ["course_path", "copy_source", "course_config", "STEPS", "SHARED_SOURCE"]

#: nbgrader's steps (CourseDirectory traits ``<step>_directory``).
STEPS = ("source", "release", "submitted", "autograded", "feedback")
#: Files of ``source/`` beside the assignments' folders that their grader files load (grader-only).
SHARED_SOURCE = ("references.py",)


@functools.lru_cache(maxsize=8)
def _course(root):
    from nbgrader.coursedir import CourseDirectory

    return CourseDirectory(root=root)


def course_path(root, step, student=".", assignment="."):
    """The folder of ``step`` for ``student`` (``"*"`` in a glob pattern) and ``assignment``."""
    if step not in STEPS:
        raise ValueError(f"unknown course step {step!r}; one of {', '.join(STEPS)}")
    course = _course(str(Path(root).absolute()))
    return Path(os.path.normpath(course.format_path(getattr(course, f"{step}_directory"), student, assignment)))


def copy_source(root, dest, assignment, **copytree):
    """Copy ``source/<assignment>/`` of course ``root`` into course ``dest``, with :data:`SHARED_SOURCE`.

    ``copytree``: options of :func:`shutil.copytree` (``ignore=...``).
    """
    shutil.copytree(course_path(root, "source", assignment=assignment),
                    course_path(dest, "source", assignment=assignment), **copytree)
    for name in SHARED_SOURCE:
        if (course_path(root, "source") / name).is_file():  # a course whose graders share nothing may lack it
            shutil.copy2(course_path(root, "source") / name, course_path(dest, "source") / name)


def course_config(root):
    """The course's ``nbgrader_config.py`` as a traitlets ``Config`` (``None`` when the course has none)."""
    from traitlets.config.loader import PyFileConfigLoader

    path = Path(root) / "nbgrader_config.py"
    return PyFileConfigLoader(path.name, path=str(path.parent)).load_config() if path.is_file() else None
