"""Instructor tooling on top of nbgrader: release, parallel autograde, feedback, validate.

Used by ``make release``, ``make autograde`` and ``make validate`` and by
``nbgrader_config.py``; importing :mod:`kpcourse` does not import this module.

What it adds to plain nbgrader 0.9:

- :class:`RestartingExecute`: when a cell times out and ignores the interrupt
  (``while True`` inside ``try/except KeyboardInterrupt``), restart the kernel,
  re-run the cells above and go on grading, instead of giving up on the notebook.
- :class:`ScrubHiddenTests`: removes hidden tests from feedback, including the
  copies of their lines that tracebacks print.
- :func:`autograde`: one nbgrader process per submission in a private course
  directory, ``jobs`` at a time; only the parent writes the course gradebook, one
  submission after another.
- :func:`validate`: exits non-zero when a notebook fails its tests.

Run ``python -m kpcourse.grading --help``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from nbclient.exceptions import CellTimeoutError
from nbclient.util import ensure_async, run_sync
from nbformat import NotebookNode
from nbgrader.preprocessors import Execute, NbGraderPreprocessor

__all__ = ["RestartingExecute", "ScrubHiddenTests", "release", "autograde", "validate", "main"]

HIDDEN_BEGIN, HIDDEN_END = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


# ------------------------------------------------------------ nbgrader plug-ins
class RestartingExecute(Execute):
    """nbgrader's Execute, but a cell that cannot be interrupted does not sink the notebook.

    On a timeout nbgrader interrupts the kernel. A loop that swallows
    ``KeyboardInterrupt`` keeps the kernel busy, nbgrader then fails the whole
    submission and deletes its autograded copy. Here the kernel is restarted
    instead, the code cells above are re-run to rebuild the state (skipping
    cells that timed out), the stuck cell gets a ``CellTimeoutError`` output and
    grading goes on with the next cell.
    """

    def preprocess(self, nb, resources=None, km=None):
        self._skip = set()
        return super().preprocess(nb, resources, km=km)

    async def async_execute_cell(self, cell, cell_index, execution_count=None, store_history=True):
        try:
            cell = await super().async_execute_cell(cell, cell_index, execution_count, store_history)
        except CellTimeoutError:
            self.log.error("Cell %d ignored the interrupt: restarting the kernel", cell_index)
            self._skip.add(cell_index)
            await self._restart_and_replay(cell_index)
            cell.outputs = [_timeout_output(self.timeout, restarted=True)]
            return cell
        if any(o.get("ename") == "CellTimeoutError" for o in cell.get("outputs", [])):
            self._skip.add(cell_index)  # interrupted in time; never run it again
        return cell

    async def _restart_and_replay(self, upto):
        await ensure_async(self.km.restart_kernel(now=True))
        await ensure_async(self.kc.wait_for_ready(timeout=self.startup_timeout))
        for idx, other in enumerate(self.nb.cells[:upto]):
            if other.cell_type != "code" or idx in self._skip:
                continue
            kept = other.outputs
            try:
                await super().async_execute_cell(other, idx, store_history=False)
            except CellTimeoutError:
                self._skip.add(idx)
            other.outputs = kept

    # nbconvert calls the synchronous wrapper, bound to the base class's coroutine.
    execute_cell = run_sync(async_execute_cell)


def _timeout_output(timeout, restarted):
    why = (f"this cell ran longer than {timeout} s and ignored the interrupt; the kernel was "
           "restarted and the cells above it were run again") if restarted else \
        f"this cell ran longer than {timeout} s and was interrupted"
    return NotebookNode(output_type="error", ename="CellTimeoutError", evalue=why,
                        traceback=[f"CellTimeoutError: {why}"])


class ScrubHiddenTests(NbGraderPreprocessor):
    """Remove hidden tests from a graded notebook, and their lines from tracebacks.

    nbgrader's ClearHiddenTests only edits cell sources; a failing hidden assert
    still prints its own line (and its neighbours) in the traceback. Errors raised
    inside a hidden region are reported as "a hidden test failed" with no detail.
    """

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code" or HIDDEN_BEGIN not in cell.source:
            return cell, resources
        hidden, visible, inside = set(), [], False
        for number, line in enumerate(cell.source.splitlines(), start=1):
            if line.strip() == HIDDEN_BEGIN:
                inside = True
            if inside:
                hidden.add(number)
            else:
                visible.append(line)
            if line.strip() == HIDDEN_END:
                inside = False
        texts = {ln.strip() for i, ln in enumerate(cell.source.splitlines(), 1) if i in hidden and ln.strip()}
        cell.source = "\n".join(visible)
        for out in cell.get("outputs", []):
            if out.output_type == "error":
                _scrub_error(out, hidden, texts)
        return cell, resources


def _scrub_error(out, hidden_lines, hidden_texts):
    lines = [_ANSI.sub("", ln) for entry in out.traceback for ln in entry.splitlines()]
    raised_at = None
    for ln in lines:  # the last "----> N" marker inside the cell's own frame
        m = re.match(r"^-+>\s*(\d+)", ln)
        if m:
            raised_at = int(m.group(1))
            break
    if raised_at in hidden_lines:
        out.evalue = "a hidden test failed (its details are not shown)"
        out.traceback = [f"{out.ename}: {out.evalue}"]
        return
    kept = []
    for ln in lines:
        code = re.sub(r"^\s*(-+>)?\s*\d+\s?", "", ln).strip()
        if code and (code in hidden_texts or "HIDDEN TESTS" in code):
            continue
        kept.append(ln)
    out.traceback = ["\n".join(kept)]


# ------------------------------------------------------------------ commands
def _nbgrader(args, root, env=None, check=True):
    """Run one nbgrader command with the venv's bin/ first on PATH (for alembic)."""
    bindir = str(Path(sys.executable).parent)
    e = dict(os.environ if env is None else env)
    e["PATH"] = bindir + os.pathsep + e.get("PATH", "")
    cmd = [sys.executable, "-m", "nbgrader", *args]
    proc = subprocess.run(cmd, cwd=root, env=e, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise RuntimeError(f"`nbgrader {' '.join(args)}` failed ({proc.returncode}):\n"
                           f"{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}")
    return proc


def assignments(root):
    """Assignment names under ``source/``, in lesson order."""
    return sorted(p.name for p in (Path(root) / "source").iterdir()
                  if p.is_dir() and any(p.glob("*.ipynb")))


def release(root, names=None):
    """Regenerate ``release/<a>/`` from ``source/<a>/`` for every assignment."""
    root = Path(root)
    for a in names or assignments(root):
        _nbgrader(["generate_assignment", a, "--force"], root)
        for nb in (root / "release" / a).glob("*.ipynb"):
            _normalise(nb)
    return names or assignments(root)


def _normalise(path):
    """Write a notebook in one stable form (sorted keys, one-space indent, final newline)."""
    nb = json.loads(Path(path).read_text())
    Path(path).write_text(json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n")


def _submissions(root):
    sub = Path(root) / "submitted"
    if not sub.is_dir():
        return []
    return sorted((s.name, a.name) for s in sub.iterdir() if s.is_dir()
                  for a in s.iterdir() if a.is_dir() and any(a.glob("*.ipynb")))


def _grade_one(root, student, assignment, workdir, env):
    """Autograde one submission in a private course directory (its own gradebook)."""
    root, t = Path(root), Path(workdir)
    shutil.copy2(root / "nbgrader_config.py", t / "nbgrader_config.py")
    shutil.copytree(root / "source" / assignment, t / "source" / assignment)
    shutil.copytree(root / "submitted" / student / assignment, t / "submitted" / student / assignment)
    shutil.copy2(root / "gradebook.db", t / "gradebook.db")
    start = time.monotonic()
    proc = _nbgrader(["autograde", assignment, "--student", student, "--force"], t, env=env, check=False)
    graded = t / "autograded" / student / assignment
    ok = proc.returncode == 0 and graded.is_dir()
    return {"student": student, "assignment": assignment, "ok": ok, "seconds": time.monotonic() - start,
            "log": (proc.stdout + proc.stderr)[-4000:], "dir": t}


def _merge(src_db, dst_db, assignment, student):
    """Copy one submission's grades and comments from a private gradebook into the course one."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(f"sqlite:///{src_db}") as src, Gradebook(f"sqlite:///{dst_db}") as dst:
        sub = src.find_submission(assignment, student)
        st = sub.student
        dst.update_or_create_student(student, first_name=st.first_name, last_name=st.last_name,
                                     email=st.email, lms_user_id=st.lms_user_id)
        try:
            dst.remove_submission(assignment, student)
        except MissingEntry:
            pass
        dst.add_submission(assignment, student, timestamp=sub.timestamp)
        for nb in sub.notebooks:
            for g in nb.grades:
                d = dst.find_grade(g.name, nb.name, assignment, student)
                d.auto_score, d.manual_score, d.extra_credit = g.auto_score, g.manual_score, g.extra_credit
                d.needs_manual_grade = g.needs_manual_grade
            for c in nb.comments:
                d = dst.find_comment(c.name, nb.name, assignment, student)
                d.auto_comment, d.manual_comment = c.auto_comment, c.manual_comment
            dnb = dst.find_submission_notebook(nb.name, assignment, student)
            dnb.flagged, dnb.late_submission_penalty = nb.flagged, nb.late_submission_penalty
        dst.db.commit()


def _ensure_in_gradebook(root, names):
    """Make sure each assignment and its cells are in the course gradebook."""
    from nbgrader.api import Gradebook, MissingEntry

    missing = []
    with Gradebook(f"sqlite:///{Path(root) / 'gradebook.db'}") as gb:
        for a in names:
            try:
                if not gb.find_assignment(a).notebooks:
                    missing.append(a)
            except MissingEntry:
                missing.append(a)
    if missing:
        release(root, missing)


def autograde(root, jobs=None, *, feedback=True, export="grades.csv", log=print):
    """Autograde everything in ``submitted/``, then generate feedback and export grades.

    Returns the list of per-submission results (dicts with ``student``,
    ``assignment``, ``ok``, ``seconds``).
    """
    root = Path(root).resolve()
    subs = _submissions(root)
    if not subs:
        raise SystemExit(f"nothing to grade: {root / 'submitted'} holds no <student>/<assignment>/*.ipynb")
    jobs = jobs or os.cpu_count() or 1
    _ensure_in_gradebook(root, sorted({a for _, a in subs}))
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    results = []
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="kpcourse-grade-") as tmp:
        dirs = []
        for i, _ in enumerate(subs):
            dirs.append(Path(tmp) / f"job{i}")
            dirs[-1].mkdir()
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(_grade_one, root, s, a, d, env)
                       for (s, a), d in zip(subs, dirs, strict=True)]
            for fut in futures:  # in order: the parent alone writes the course gradebook
                r = fut.result()
                if r["ok"]:
                    _merge(r["dir"] / "gradebook.db", root / "gradebook.db", r["assignment"], r["student"])
                    dest = root / "autograded" / r["student"] / r["assignment"]
                    if dest.exists():
                        shutil.rmtree(dest)
                    shutil.copytree(r["dir"] / "autograded" / r["student"] / r["assignment"], dest)
                log(f"{'graded' if r['ok'] else 'FAILED'} {r['student']}/{r['assignment']} "
                    f"in {r['seconds']:.1f} s")
                if not r["ok"]:
                    log(r["log"])
                results.append({k: r[k] for k in ("student", "assignment", "ok", "seconds")})
    wall = time.monotonic() - start
    log(f"autograded {len(subs)} submission(s) with {jobs} job(s) in {wall:.1f} s "
        f"({60 * len(subs) / wall:.1f} per minute)")
    if feedback:
        for a in sorted({a for _, a in subs}):
            _nbgrader(["generate_feedback", a, "--force"], root)
    if export:
        _nbgrader(["export", "--to", str(root / export)], root)
        log(f"grades written to {root / export}")
    return results


def validate(paths, root=None):
    """Run each notebook's tests; return ``{path: [failures]}`` for those that fail."""
    from nbgrader.validator import Validator
    from traitlets.config import Config

    config = Config()
    cfg = Path(root or Path.cwd()) / "nbgrader_config.py"
    if cfg.exists():
        from traitlets.config.loader import PyFileConfigLoader

        config.merge(PyFileConfigLoader(cfg.name, str(cfg.parent)).load_config())
    failures = {}
    for p in paths:
        result = Validator(config=config).validate(str(p))
        bad = result.get("failed") or result.get("changed") or result.get("type_changed")
        if bad:
            failures[str(p)] = bad
    return failures


def main(argv=None):
    """Command line: ``python -m kpcourse.grading {release,autograde,validate}``."""
    parser = argparse.ArgumentParser(prog="python -m kpcourse.grading", description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=".", help="course root (default: current directory)")
    sub = parser.add_subparsers(dest="command", required=True)
    rel = sub.add_parser("release", help="regenerate release/ from source/")
    rel.add_argument("assignments", nargs="*", help="default: every assignment in source/")
    ag = sub.add_parser("autograde", help="autograde submitted/, generate feedback, export grades")
    ag.add_argument("--jobs", type=int, default=None, help="parallel submissions (default: CPU cores)")
    ag.add_argument("--no-feedback", action="store_true")
    va = sub.add_parser("validate", help="exit non-zero when a notebook fails its tests")
    va.add_argument("notebooks", nargs="*", help="default: every source notebook")
    args = parser.parse_args(argv)
    root = Path(args.root).resolve()
    if args.command == "release":
        for a in release(root, args.assignments or None):
            print(f"released {a}")
        return 0
    if args.command == "autograde":
        results = autograde(root, args.jobs, feedback=not args.no_feedback)
        return 0 if all(r["ok"] for r in results) else 1
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
