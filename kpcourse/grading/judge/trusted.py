"""Points decided where the student's code cannot reach: the grader's own process.

:class:`TrustedExecute` takes nbgrader's place for executing a submission during
``autograde``. For one notebook it

1. loads the assignment's grader file (``source/<assignment>/grader.py``) in this,
   the grader's, process: the hidden tests and the references they use;
2. reads the student's cells as text (:mod:`kpcourse.grading.judge.policy`): a graded function that reaches
   a forbidden reference, or a way around that analysis, earns nothing;
3. **run**: replaces each autograded test cell by a call to
   :func:`kpcourse.checks._core.produce` and runs the notebook in the sandbox
   (:mod:`kpcourse.grading.sandbox.bwrap`): the student's kernel only *calls* their functions on the visible
   tests' inputs and writes what came back as plain JSON (for the student's feedback); then
   makes every hidden call in a run of the grader's own (:mod:`kpcourse.grading.judge.rerun`), where the
   student's definitions ran and nothing else of theirs, one forked child per call (read-only
   inputs for a test of purity, memory limits for a measured call);
4. **read, judge**: judges those answers here, with the grader file's tests -- the visible
   tests on the kernel's answers, the hidden tests on the grader's run alone;
5. **report**: writes each test cell's verdict as its only output (an error output when it
   fails), from which nbgrader's ``SaveAutoGrades`` computes the points as usual.

A cell passes only when its hidden test passes too, so no point depends on anything the
student's top-level code did, and no hidden input is ever in the student's kernel.
Nothing the student's process prints, patches or writes can pass a test: their
outputs in test cells are discarded, and their answers are data, never unpickled.
A summary (isolation, verdicts, time, cells that timed out, kernel restarts, locked
cells put back) is written next to the autograded notebook as ``kpcourse-grading.json``;
``make report`` reads it (:mod:`kpcourse.grading.views.report`).
"""

from __future__ import annotations

import copy
import importlib.util
import inspect
import json
import secrets
import shutil
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbformat import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Integer, Unicode

from kpcourse.checks import _core
from kpcourse.grading.judge import policy, rerun
from kpcourse.grading.judge.spec import (
    DEFAULT_FORBIDDEN,
    GRADER_FILE,
    SUMMARY,
    is_test_cell,
    released_files,
    split_hidden,
)
from kpcourse.grading.judge.summary import Summary
from kpcourse.grading.paths import course_path
from kpcourse.grading.sandbox import bwrap as sandbox
from kpcourse.grading.sandbox.allowed import Allowed
from kpcourse.grading.sandbox.bwrap import read_untrusted
from kpcourse.grading.sandbox.limits import Limits, cap_outputs, describe, limits_hit

__all__ = ["TrustedExecute", "load_grader", "grading_context", "held_cells", "program_of", "prepare_workdir", "verdict",
           "read_untrusted", "SUMMARY"]

_NO_RUN = "the grader's own run of your definitions gave no answer for it"
PASSED = "All tests passed: the visible tests and the hidden ones.\n"
_SNIPPET = ("# Grading: this cell only records what your functions return; the grader judges it.\n"
            "from kpcourse.checks._core import produce as _kpcourse_produce\n"
            "_kpcourse_produce({gid!r}, globals())")


def load_grader(path):
    """Import a grader file (trusted: the instructor's) as a fresh module."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no grader file {path}: every assignment needs source/<assignment>/{GRADER_FILE} "
                                "(README, 'Adding an exercise')")
    name = f"kpcourse_grader_{path.parent.name.replace('-', '_')}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _nbg(cell):
    return cell.metadata.get("nbgrader", {})


class TrustedExecute(NbGraderPreprocessor):
    """Execute a submission in the sandbox; decide its test cells here (see module doc)."""

    timeout = Integer(120, help="Per-cell time limit in the sandbox (s).").tag(config=True)
    course_root = Unicode("", help="Course root (default: CourseDirectory.root or cwd).").tag(config=True)
    memory_bytes = Integer(Limits.memory_bytes,
                           help="Memory of a submission: each process and all together.").tag(config=True)
    processes = Integer(Limits.processes, help="Processes and threads a submission may run at once.").tag(config=True)
    tmp_bytes = Integer(Limits.tmp_bytes, help="Size of the sandbox's /tmp.").tag(config=True)
    work_bytes = Integer(Limits.work_bytes, help="Bytes a submission may write to its work folder.").tag(config=True)
    file_bytes = Integer(Limits.file_bytes, help="Largest file a submission may write.").tag(config=True)
    output_bytes = Integer(Limits.output_bytes, help="Output kept per cell; the rest is cut.").tag(config=True)
    answer_bytes = Integer(Limits.answer_bytes, help="Largest answers file of one test cell.").tag(config=True)
    hidden_seed = Integer(-1, help="Seed of the hidden probes of declared exercises (kpcourse.checks.exercise); "
                                   "-1: a fresh secret seed for every notebook graded, so that hidden inputs "
                                   "seen once serve no other run.").tag(config=True)

    def limits(self):
        """The :class:`~kpcourse.grading.sandbox.limits.Limits` these settings give."""
        return Limits(memory_bytes=self.memory_bytes, processes=self.processes, tmp_bytes=self.tmp_bytes,
                      work_bytes=self.work_bytes, file_bytes=self.file_bytes, output_bytes=self.output_bytes,
                      answer_bytes=self.answer_bytes)

    def preprocess(self, nb, resources):
        started = time.monotonic()
        info = resources.get("nbgrader", {})
        assignment, notebook = info.get("assignment"), info.get("notebook")
        root = Path(self.course_root or self.config.get("CourseDirectory", {}).get("root") or Path.cwd())
        source_dir = course_path(root, "source", assignment=assignment)
        seed = secrets.randbelow(2**63) if self.hidden_seed < 0 else self.hidden_seed
        cells, forbidden, locked, tests, allowed, held_back = grading_context(source_dir, notebook, seed=seed)
        limits = self.limits()
        # nbgrader has already put back the source's version of every locked cell (by grade_id)
        for c in nb.cells:
            if is_test_cell(c) and _nbg(c).get("grade_id") not in tests:  # not a test cell of this assignment
                c.metadata["nbgrader"].update(grade=False, locked=False)
                self.log.warning("ignoring a graded cell that is not one of the assignment's: %s",
                                 _nbg(c).get("grade_id"))
        missing = sorted(tests - set(cells))
        if missing:
            raise KeyError(f"{source_dir / GRADER_FILE} has no Cell for the test cells {missing}")

        program = program_of(nb, locked)

        workdir = Path(tempfile.mkdtemp(prefix="kpcourse-sandbox-"))
        try:
            result = self._run(nb, cells, workdir, source_dir, limits, allowed)
            hidden = rerun.rerun(nb, cells, locked, source_dir, self.timeout, limits, allowed,
                                 answer_bytes=limits.answer_bytes,
                                 skip={*result["stuck"], *held_cells(nb, held_back)})
            verdicts = {}
            for index, cell in enumerate(nb.cells):
                if cell.cell_type != "code":
                    continue
                if is_test_cell(cell):
                    gid = _nbg(cell)["grade_id"]
                    problem = verdict(cells[gid], program, forbidden, workdir / "answers" / f"{gid}.json",
                                      result["outputs"].get(index, []), log=self.log,
                                      answer_bytes=limits.answer_bytes, stopped=result["stopped"],
                                      hidden={(t, j): a for (g, t, j), a in hidden.items() if g == gid})
                    verdicts[gid] = problem
                    cell.outputs = [_passed()] if problem is None else [_failed(problem)]
                else:
                    cell.outputs = result["outputs"].get(index, [])
            if not result["isolated"]:
                self.log.warning("NOT ISOLATED: %s/%s ran without a sandbox (%s)", info.get("student"),
                                 assignment, result["why"])
            elif result.get("cgroup") is None:
                self.log.warning("%s/%s: no control group (%s): its memory limit counts resident memory only, "
                                 "not shared memory, and its process limit counts its user's processes",
                                 info.get("student"), assignment, result.get("cgroup_why"))
            summary = Summary(
                student=info.get("student"), assignment=assignment, notebook=notebook,
                isolated=result["isolated"], why_not_isolated=result["why"], killed=result["killed"],
                seconds=round(time.monotonic() - started, 2), verdicts=verdicts,
                timed_out_cells=result["timed_out"],
                timed_out_ids=[_nbg(nb.cells[i]).get("grade_id") or f"cell {i}" for i in result["timed_out"]],
                kernel_restarted=result["restarted"], uid=result.get("uid"), limits_hit=result["limits_hit"],
                hidden_seed=seed,
                locked_restored=_restored(course_path(root, "submitted", str(info.get("student")), assignment) /
                                          f"{notebook}.ipynb", nb, locked))
            summary.write(Path(resources.get("metadata", {}).get("path") or "."))
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        return nb, resources

    # ------------------------------------------------------------------ steps
    def _run(self, nb, cells, workdir, source_dir, limits, allowed):
        """Run the notebook (test cells replaced by answer calls) in the sandbox."""
        prepare_workdir(workdir, nb, cells, source_dir)
        n_code = sum(c.cell_type == "code" for c in nb.cells)
        result = sandbox.run_notebook("notebook.ipynb", workdir, self.timeout,
                                      budget=self.timeout * (n_code + 4) + 60, limits=limits, allowed=allowed)
        result.update(outputs={}, timed_out=[], stuck=[], restarted=False, limits_hit=[], stopped=None)
        if result.get("limit"):
            result["limits_hit"].append(result["limit"])
            memory = result["limit"] == "memory"
            allowance = describe(limits.memory_bytes if memory else limits.work_bytes)
            result["stopped"] = (f"your notebook was stopped while it was graded: it used more than {allowance} "
                                 f"of {'memory' if memory else 'disk'} (the limit while grading)")
        elif result["killed"]:
            result["stopped"] = "your notebook was stopped while it was graded: it ran past its time budget"
        # the sandbox wrote out/ and answers/: read as data, never through a link, with size caps
        text = read_untrusted(workdir, ("out", "executed.ipynb"), limits.output_bytes * (n_code + 8) + 8 * 2**20)
        done = None
        if text is not None:
            try:
                done = nbformat.reads(text.decode("utf-8", "replace"), as_version=4)
            except Exception as exc:  # noqa: BLE001 - anything the student's process wrote
                self.log.error("unreadable executed notebook: %s", exc)
        if done is not None and len(done.cells) == len(nb.cells):
            for i, c in enumerate(done.cells):
                if c.cell_type == "code" and nb.cells[i].cell_type == "code":
                    outs = [o for o in c.get("outputs", []) if isinstance(o, dict)]
                    outs, _ = cap_outputs(outs, limits.output_bytes)
                    result["outputs"][i] = outs
                    result["limits_hit"] += limits_hit(outs)
                    if any(o.get("ename") == "CellTimeoutError" for o in outs):
                        result["timed_out"].append(i)
                    if any(o.get("ename") in ("CellTimeoutError", "DeadKernelError") for o in outs):
                        result["stuck"].append(i)  # stopped there: left out of the grader's own runs too
                    if any(o.get("ename") in ("CellTimeoutError", "DeadKernelError") and
                           "restarted" in str(o.get("evalue")) for o in outs):
                        result["restarted"] = True
        elif result["killed"]:
            self.log.error("the sandbox ran past its budget and was killed")
        result["limits_hit"] = list(dict.fromkeys(result["limits_hit"]))
        if result["returncode"] not in (0, None) and text is None:
            self.log.error("the sandbox failed (%s):\n%s", result["returncode"], result["log"][-3000:])
        return result


def grading_context(source_dir, notebook, seed=None):
    """What grading one notebook of ``source_dir`` needs from the instructor's side.

    ``seed`` draws the hidden probes of a grader whose ``cells`` takes one (declared
    exercises, :mod:`kpcourse.grading.judge.declared`); ``None``: the grader's default.

    Returns
    -------
    cells : dict
        ``{grade_id: Cell}`` from the grader file.
    forbidden : tuple of str
        The grader file's ``FORBIDDEN`` (default :data:`DEFAULT_FORBIDDEN`).
    locked : set of str
        grade_ids of the source notebook's locked cells.
    tests : set of str
        grade_ids of its autograded test cells.
    allowed : kpcourse.grading.sandbox.allowed.Allowed
        What the sandbox holds for this assignment (the grader file's ``SANDBOX_ALLOW``).
    held_back : frozenset of str
        grade_ids of the locked cells that the grader's own run leaves out (the grader file's
        ``NOT_IN_GRADERS_RUN``: data the graded functions must not read, absent where the hidden calls
        are made).
    """
    source_dir = Path(source_dir)
    grader = load_grader(source_dir / GRADER_FILE)
    source_nb = nbformat.read(source_dir / f"{notebook}.ipynb", as_version=4)
    locked = {_nbg(c)["grade_id"] for c in source_nb.cells if _nbg(c).get("locked") and _nbg(c).get("grade_id")}
    tests = {_nbg(c)["grade_id"] for c in source_nb.cells if is_test_cell(c)}
    takes_seed = "seed" in inspect.signature(grader.cells).parameters
    cells = grader.cells(seed=seed) if takes_seed else grader.cells()
    held_back = frozenset(getattr(grader, "NOT_IN_GRADERS_RUN", ()))
    if not held_back <= locked:
        raise ValueError(f"{source_dir / GRADER_FILE}: NOT_IN_GRADERS_RUN names {sorted(held_back - locked)}, "
                         "which are not locked cells of the notebook")
    return (cells, tuple(getattr(grader, "FORBIDDEN", DEFAULT_FORBIDDEN)), locked, tests,
            Allowed.of_grader(grader), held_back)


def held_cells(nb, held_back):
    """Indices of ``nb``'s cells whose grade_id is in ``held_back`` (left out of the grader's own run)."""
    return {i for i, c in enumerate(nb.cells) if _nbg(c).get("grade_id") in held_back}


def program_of(nb, locked):
    """The submission's code cells as :class:`policy.Program` (``locked``: grade_ids of locked cells)."""
    def is_locked(c):
        return _nbg(c).get("grade_id") in locked

    return policy.Program(
        [c.source for c in nb.cells if c.cell_type == "code" and not is_locked(c)],
        [c.source for c in nb.cells if c.cell_type == "code" and is_locked(c) and not is_test_cell(c)])


def prepare_workdir(workdir, nb, cells, source_dir):
    """Lay out what a run needs: ``in/notebook.ipynb`` (test cells replaced by recording calls),
    ``in/probes.json`` (the visible tests' calls: a hidden input never reaches the student's
    kernel, :mod:`kpcourse.grading.judge.rerun` makes those calls), an empty ``answers/`` and ``run/`` holding the files
    released with the assignment (from ``source_dir``, never files a student added).
    """
    workdir = Path(workdir)
    (workdir / "in").mkdir()
    (workdir / "run").mkdir()
    (workdir / "answers").mkdir()
    probes = {gid: {"tests": [{"calls": [] if getattr(t, "hidden", False) else [c.to_data() for c in t.calls],
                               "time_limit": t.time_limit} for t in cell.tests]} for gid, cell in cells.items()}
    (workdir / "in" / "probes.json").write_text(json.dumps(probes, allow_nan=True))
    run_nb = copy.deepcopy(nb)
    for cell in run_nb.cells:
        if is_test_cell(cell):
            cell.source = _SNIPPET.format(gid=_nbg(cell)["grade_id"])
        if cell.cell_type == "code":
            cell.outputs = []
    nbformat.write(run_nb, workdir / "in" / "notebook.ipynb")
    for f in released_files(source_dir):
        shutil.copy2(f, workdir / "run" / f.name)


def verdict(cell, program, forbidden, answers_path, ran, log=None, answer_bytes=Limits.answer_bytes, stopped=None,
            hidden=None):
    """``None`` when the test cell passes, else the message the student reads (never an expected value).

    Parameters
    ----------
    cell : kpcourse.grading.judge.spec.Cell
        The grader's declaration of the test cell.
    program : kpcourse.grading.judge.policy.Program
        The submission's code cells, parsed (:func:`program_of`).
    forbidden : tuple of str
        The grader file's forbidden prefixes (a cell's own ``forbidden`` wins).
    answers_path : pathlib.Path
        ``answers/<grade_id>.json`` as :func:`kpcourse.checks._core.produce` wrote it in the
        student's kernel: the visible tests' answers, read as data.
    ran : list of dict
        The outputs of the test cell's recording call (for "the kernel said ...").
    log : logging.Logger, optional
        Where a judge that could not read an answer is reported.
    answer_bytes : int, optional
        Largest answers file read (:attr:`Limits.answer_bytes`).
    stopped : str, optional
        Why the whole notebook was stopped (a limit), said when an answer is missing.
    hidden : dict, optional
        ``{(test index, call index): Answer}``: the hidden tests' answers, made by the grader in a
        run where only the student's definitions ran (:func:`kpcourse.grading.judge.rerun.rerun`). A
        hidden test is judged on these alone; a call missing here has no answer.
    """
    names = cell.called()
    problems = program.verdict(names, cell.forbidden or forbidden, cell.allow, cell.what)
    if problems:
        return _core_message(cell.exercise, problems)
    if cell.max_literals is not None:
        (most, longest), (count, length) = cell.max_literals, program.literals(names)
        if count > most or length > longest:
            return _core_message(cell.exercise, [
                f"your functions hold {count} literals (numbers, strings) in their source, the longest "
                f"{length} characters long (here at most {most}, and {longest} characters each): data written "
                "into the code, such as a table of labels, earns nothing; compute from the arguments instead"])
    if cell.loop_free:
        loops = program.loops(cell.loop_free)
        if loops:
            return _core_message(cell.exercise, [
                f"{', '.join(loops)} uses a Python loop (for, while or a comprehension); this exercise "
                "asks for whole-array NumPy operations"])
    answers_path = Path(answers_path)
    answer_bytes = cell.answer_bytes or answer_bytes
    data = read_untrusted(answers_path.parent.parent, (answers_path.parent.name, answers_path.name),
                          answer_bytes)
    if data is None:
        if stopped:
            return f"no answer from your code for this test: {stopped}"
        try:
            too_large = answers_path.lstat().st_size > answer_bytes
        except OSError:
            too_large = False
        if too_large:
            return (f"your functions' answers for this test are larger than {describe(answer_bytes)} "
                    "(the limit while grading): return arrays of the asked shape")
        errors = [f"{o.get('ename')}: {str(o.get('evalue'))[:200]}" for o in ran if o.get("output_type") == "error"]
        return (f"no answer from your code for this test: the cell before it may have timed out or the "
                f"kernel stopped ({', '.join(names)} could not be called)" +
                (f"; the kernel said {errors[0]}" if errors else ""))
    try:
        raw = json.loads(data)
    except (ValueError, RecursionError):
        return "your functions' answers could not be read (not plain data)"
    for i, test in enumerate(cell.tests):
        got = raw[i] if isinstance(raw, list) and i < len(raw) and isinstance(raw[i], list) else []
        try:
            if getattr(test, "hidden", False):  # never the kernel's word: the grader's own run
                answers = [(hidden or {}).get((i, j)) or _core.Answer(c, error="NoAnswer", message=_NO_RUN)
                           for j, c in enumerate(test.calls)]
            else:
                answers = [_core.Answer.from_data(c, got[j]) if j < len(got)
                           else _core.Answer(c, error="NoAnswer", message="it did not finish in time")
                           for j, c in enumerate(test.calls)]
            test.judge(answers)
        except AssertionError as exc:
            return str(exc) or "a test failed"
        except Exception as exc:  # noqa: BLE001 - an answer the judge could not read
            if log is not None:
                log.error("judge of %s failed on an answer: %r", cell.exercise, exc)
            return f"an answer of yours could not be checked ({type(exc).__name__}): check its type and shape"
    return None


def _restored(submitted_path, nb, locked):
    """grade_ids of the locked cells nbgrader put back: deleted or edited in the submission.

    ``nb`` is the notebook after nbgrader's ``OverwriteCells``; ``submitted_path`` the
    file as the student handed it in (``[]`` when it cannot be read).
    """
    try:
        submitted = nbformat.read(submitted_path, as_version=4)
    except (OSError, ValueError):
        return []
    handed_in = {_nbg(c).get("grade_id"): c.source for c in submitted.cells}
    graded = {_nbg(c).get("grade_id"): c.source for c in nb.cells}
    return sorted(g for g in locked if g in graded and
                  (g not in handed_in or _visible(handed_in[g]) != _visible(graded[g])))


def _visible(source):
    """A cell's source without its hidden-test region (what the release shows)."""
    return split_hidden(source)[0].rstrip()


def _core_message(exercise, problems):
    return f"{exercise}: no credit\n" + "\n".join(f"  - {p}" for p in problems)


def _passed():
    return NotebookNode(output_type="stream", name="stdout", text=PASSED)


def _failed(message):
    return NotebookNode(output_type="error", ename="AssertionError", evalue=message,
                        traceback=[f"AssertionError: {message}"])
