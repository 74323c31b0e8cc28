"""The instructor's command line (python -m kpcourse.grading), thin over the grading steps.

- ``release``: :func:`kpcourse.grading.course.folder.release`;
- ``autograde``: :func:`kpcourse.grading.course.autograding.autograde` (sandboxed, in parallel,
  feedback and ``grades.csv``);
- ``report``: :func:`kpcourse.grading.views.report.write_report`, the class report;
- ``checks-data``: :func:`checks_data`, the visible checks' data from the grader files;
- ``validate``: :func:`validate`, exits non-zero when a notebook fails its visible tests.

Run ``python -m kpcourse.grading --help``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from kpcourse.grading.course.autograding import autograde
from kpcourse.grading.course.folder import assignments, release
from kpcourse.grading.paths import course_path
from kpcourse.grading.views.plugins import ANSI as _ANSI

__all__ = ["checks_data", "data_file", "validate", "main"]


def checks_data(root, names=None):
    """Write each grader's ``visible_data()`` to ``kpcourse/checks/data/lessonNN.json``.

    The visible checks hold data, not algorithms: the expected outputs of their fixed
    probes (and of common mistakes) are computed here, by the grader files' references.
    """
    from kpcourse.checks import _core
    from kpcourse.grading.judge.trusted import GRADER_FILE, load_grader

    written = []
    for a in names or assignments(root):
        grader = load_grader(course_path(root, "source", assignment=a) / GRADER_FILE)
        if not hasattr(grader, "visible_data"):
            continue
        target = data_file(a)
        target.write_text(json.dumps(_core.encode(grader.visible_data(), readable=True), indent=1,
                                     sort_keys=True, allow_nan=True) + "\n")
        written.append(str(target))
    return written


def data_file(assignment):
    """``kpcourse/checks/data/lessonNN.json`` for assignment ``NN-slug``."""
    import kpcourse.checks

    return Path(kpcourse.checks.__file__).parent / "data" / f"lesson{assignment[:2]}.json"


def validate(paths, root=None):
    """Run each notebook's tests; return ``{path: [failures]}`` for those that fail."""
    from nbgrader.validator import Validator
    from traitlets.config import Config

    from kpcourse.grading.paths import course_config

    config = Config()
    course = course_config(root or Path.cwd())
    if course is not None:
        config.merge(course)
    failures = {}
    for p in paths:
        result = Validator(config=config).validate(str(p))
        bad = result.get("failed") or result.get("changed") or result.get("type_changed")
        if bad:
            failures[str(p)] = bad
    return failures


def main(argv=None):
    """Command line: ``python -m kpcourse.grading {release,autograde,report,checks-data,validate}``."""
    parser = argparse.ArgumentParser(prog="python -m kpcourse.grading", description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=".", help="course root (default: current directory)")
    sub = parser.add_subparsers(dest="command", required=True)
    rel = sub.add_parser("release", help="regenerate release/ from source/")
    rel.add_argument("assignments", nargs="*", help="default: every assignment in source/")
    ag = sub.add_parser("autograde", help="autograde submitted/, generate feedback, export grades")
    ag.add_argument("--jobs", type=int, default=None, help="parallel submissions (default: CPU cores)")
    ag.add_argument("--no-feedback", action="store_true")
    ag.add_argument("--student", action="append", metavar="ID",
                    help="re-grade only this student's submissions (repeat for several)")
    ag.add_argument("--no-progress", action="store_true", help="no progress line on stderr")
    rp = sub.add_parser("report", help="class report: reports/<assignment>.html and its figures")
    rp.add_argument("assignments", nargs="*", help="default: every assignment with submissions in the gradebook")
    rp.add_argument("--out", default="reports", help="folder of the reports, relative to the root (default: reports)")
    cd = sub.add_parser("checks-data", help="write the visible checks' data from the grader files")
    cd.add_argument("assignments", nargs="*", help="default: every assignment in source/")
    va = sub.add_parser("validate", help="exit non-zero when a notebook fails its tests")
    va.add_argument("notebooks", nargs="*", help="default: every source notebook")
    args = parser.parse_args(argv)
    root = Path(args.root).resolve()
    if args.command == "release":
        for a in release(root, args.assignments or None):
            print(f"released {a}")
        return 0
    if args.command == "checks-data":
        for f in checks_data(root, args.assignments or None):
            print(f"wrote {f}")
        return 0
    if args.command == "autograde":
        results = autograde(root, args.jobs, students=args.student, feedback=not args.no_feedback,
                            progress=not args.no_progress)
        return 0 if all(r["ok"] for r in results) else 1
    if args.command == "report":
        from kpcourse.grading.views.report import graded_assignments, write_report

        names = args.assignments or graded_assignments(root)
        if not names:
            print(f"nothing to report: {root / 'gradebook.db'} holds no submission (run `make autograde` first)")
            return 1
        for a in names:
            print(f"wrote {write_report(root, a, root / args.out)}")
        return 0
    paths = args.notebooks or sorted(str(p) for p in (root / "source").glob("*/*.ipynb"))
    failures = validate(paths, root)
    for p in paths:
        print(f"{'FAILED' if p in failures else 'passed'}  {p}")
        for f in failures.get(p, []):
            error = _ANSI.sub("", str(f.get("raw_error") or f.get("source", f))).strip().splitlines()
            print("    " + "\n    ".join(error[-6:]))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
