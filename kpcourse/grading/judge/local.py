"""Judge *trusted* notebooks quickly: one IPython shell for many, no sandbox, no kernel, no nbgrader.

For lesson authors and the course's own tests (golden submissions written by the
course's authors), never for students' work: the code runs unsandboxed, in a plain
process. What decides a point is exactly what ``make autograde`` uses —
:func:`kpcourse.grading.judge.trusted.prepare_workdir` lays out the same probes and the same
recording cells, :func:`kpcourse.checks._core.produce` records the answers, and
:func:`kpcourse.grading.judge.trusted.verdict` judges them in this, the caller's, process —
only the executor differs: instead of one sandboxed Jupyter kernel per submission, one
child process runs the notebooks one after another in an IPython shell whose namespace
is reset between them.

What this cannot show, and ``make autograde`` must be used for: the sandbox (files,
processes, network), kernel restarts after a loop that ignores the interrupt, custom
exception handlers, nbgrader putting back locked cells and turning outputs into points,
the grader's own run of the hidden calls in a sandbox, one child per call, under memory
limits (:mod:`kpcourse.grading.judge.rerun`; here: the same definitions-only run of each notebook in this shell,
after a reset, with read-only copies for a test of purity and ``tracemalloc`` for memory).

``judge(source_dir, {name: notebook}, timeout)`` returns, per notebook, the verdict of
each test cell (``None`` = passed, else the message) and the cells' printed text.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["judge", "points"]

#: Extra seconds for the child process besides its notebooks' cells (imports, start).
_SLACK = 120


def judge(source_dir, notebooks, timeout=60, notebook_name=None, seed=None):
    """Run trusted ``notebooks`` of one assignment and judge their test cells.

    Parameters
    ----------
    source_dir : path
        ``source/<assignment>`` (the grader file and the source notebook).
    notebooks : dict
        ``{label: nbformat.NotebookNode}``, each a whole submission of this assignment.
    timeout : int, default=60
        Per-cell limit (s); a cell past it is stopped with ``TimeoutError``.
    notebook_name : str, optional
        The notebook's name in ``source_dir`` (default: the folder's name).
    seed : int, optional
        Seed of the hidden probes (default: the grader's own, ``declared.DEFAULT_SEED``);
        ``make autograde`` draws a fresh one per notebook, so a case's points must not depend on it.

    Returns
    -------
    dict
        ``{label: {"verdicts": {grade_id: None or message}, "text": str, "seconds": {index: s}}}``;
        ``text`` is everything the cells printed, error messages included; ``seconds`` each
        code cell's run time.
    """
    from kpcourse.grading.judge import rerun
    from kpcourse.grading.judge.trusted import (
        grading_context,
        held_cells,
        is_test_cell,
        prepare_workdir,
        program_of,
        verdict,
    )

    source_dir = Path(source_dir)
    cells, forbidden, locked, tests, _, held_back = grading_context(source_dir, notebook_name or source_dir.name,
                                                                   seed=seed)
    with tempfile.TemporaryDirectory(prefix="kpcourse-local-") as tmp:
        work = {}
        hidden = {}
        for i, (label, nb) in enumerate(notebooks.items()):
            work[label] = Path(tmp) / f"nb{i}"
            work[label].mkdir()
            prepare_workdir(work[label], nb, cells, source_dir)
            spec, jobs, kept = rerun.spec_of(nb, cells, locked, skip=held_cells(nb, held_back))
            (work[label] / "in" / "hidden.json").write_text(json.dumps(spec, allow_nan=True))
            hidden[label] = (jobs, kept)
        n_cells = sum(c.cell_type == "code" for nb in notebooks.values() for c in nb.cells)
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
                   MPLBACKEND="Agg", NBGRADER_EXECUTION="autograde")
        proc = subprocess.run([sys.executable, "-m", "kpcourse.grading.judge.local", "--timeout", str(timeout),
                               *map(str, work.values())], env=env, capture_output=True, text=True,
                              timeout=timeout * n_cells + _SLACK)
        results = {}
        for label, nb in notebooks.items():
            out = work[label] / "out" / "outputs.json"
            if not out.is_file():
                raise RuntimeError(f"the local run of {label} left no outputs (exit {proc.returncode}):\n"
                                   f"{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}")
            ran = json.loads(out.read_text())
            outputs = {int(k): v for k, v in ran["outputs"].items()}
            program = program_of(nb, locked)
            jobs, kept = hidden[label]
            own = {}
            for k, job in enumerate(jobs):  # measured by tracemalloc here: read as a plain answer
                c = cells[job.gid].tests[job.test].calls[job.call]
                plain = rerun.Job(job.gid, job.test, job.call, None, job.read_only)
                own[(job.gid, job.test, job.call)] = rerun.answer_of(
                    c, k, plain, work[label], {}, kept, cells[job.gid].answer_bytes or 2**26)
            verdicts = {}
            for index, cell in enumerate(nb.cells):
                gid = cell.metadata.get("nbgrader", {}).get("grade_id")
                if is_test_cell(cell) and gid in tests:
                    verdicts[gid] = verdict(cells[gid], program, forbidden, work[label] / "answers" / f"{gid}.json",
                                            outputs.get(index, []),
                                            hidden={(t, j): a for (g, t, j), a in own.items() if g == gid})
            text = "\n".join(o.get("text", "") + o.get("evalue", "") for outs in outputs.values() for o in outs)
            results[label] = {"verdicts": verdicts, "text": text,
                              "seconds": {int(k): v for k, v in ran["seconds"].items()}}
        return results


def points(source_nb, verdicts):
    """``{grade_id: points}`` as nbgrader would give them: a cell's points when it passed, else 0."""
    out = {}
    for c in source_nb.cells:
        md = c.metadata.get("nbgrader", {})
        if md.get("grade_id") in verdicts:
            out[md["grade_id"]] = float(md.get("points", 0)) if verdicts[md["grade_id"]] is None else 0.0
    return out


# ------------------------------------------------------------------ child process
class _CellTimeout(Exception):
    pass


def _alarm(signum, frame):
    raise _CellTimeout("the cell ran past its time limit")


def _run_all(workdirs, timeout):
    """Execute each ``workdir/in/notebook.ipynb`` in one shell; write ``workdir/out/outputs.json``."""
    import nbformat
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    from kpcourse.checks._core import ANSWERS_ENV, PROBES_ENV

    shell = InteractiveShell.instance()
    # figures are not part of a verdict: `%matplotlib inline` renders nothing here
    shell.register_magic_function(lambda line: None, "line", "matplotlib")
    signal.signal(signal.SIGALRM, _alarm)
    home = Path.cwd()
    for wd in map(Path, workdirs):
        os.environ[PROBES_ENV] = str(wd / "in" / "probes.json")
        os.environ[ANSWERS_ENV] = str(wd / "answers")
        nb = nbformat.read(wd / "in" / "notebook.ipynb", as_version=4)
        os.chdir(wd / "run")
        shell.reset(new_session=False)
        outputs, seconds = {}, {}
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            outs, started = [], time.monotonic()
            with capture_output() as cap:
                signal.alarm(timeout)
                try:
                    result = shell.run_cell(cell.source, store_history=False, silent=False)
                except _CellTimeout as exc:  # raised outside the cell's own code
                    result = None
                    outs.append({"output_type": "error", "ename": "CellTimeoutError", "evalue": str(exc)})
                finally:
                    signal.alarm(0)
            error = result is not None and (result.error_in_exec or result.error_before_exec)
            if error:
                ename = "CellTimeoutError" if isinstance(error, _CellTimeout) else type(error).__name__
                outs.append({"output_type": "error", "ename": ename, "evalue": str(error)})
            text = cap.stdout + cap.stderr
            if text:
                outs.insert(0, {"output_type": "stream", "name": "stdout", "text": text})
            outputs[index], seconds[index] = outs, round(time.monotonic() - started, 3)
        try:
            import matplotlib.pyplot as plt

            plt.close("all")
        except ImportError:
            pass
        (wd / "out").mkdir(exist_ok=True)
        _hidden(shell, json.loads((wd / "in" / "hidden.json").read_text()), wd / "out", timeout)
        os.chdir(home)
        (wd / "out" / "outputs.json").write_text(json.dumps({"outputs": outputs, "seconds": seconds}, default=str))


def _hidden(shell, spec, out, timeout):
    """The hidden calls as :mod:`kpcourse.grading.judge.rerun` makes them, in this shell: the instructor's cells and the
    student's definitions only (after a reset), then each call on private copies, or on read-only
    ones for a test of purity; memory measured by ``tracemalloc``. Writes ``status-k.json`` and
    ``answer-k.json`` as the grader's run does."""
    from IPython.utils.capture import capture_output

    from kpcourse.checks._core import Call, call
    from kpcourse.grading.judge.rerun import replace_arrays, result_file, status_of

    shell.reset(new_session=False)
    with capture_output():
        for source in [*spec["setup"], *spec["code"]]:
            signal.alarm(timeout)
            try:
                shell.run_cell(source, store_history=False)
            except _CellTimeout:
                pass
            finally:
                signal.alarm(0)
        for k, item in enumerate(spec["calls"]):
            c = Call.from_data(item["call"])
            if item["read_only"]:
                replace_arrays(c, lambda _, value: _frozen(value))
            answer = call(shell.user_ns.get(c.function), c, shell.user_ns, time_limit=item["time_limit"],
                          private=not item["read_only"])
            (out / result_file(k, "status")).write_text(json.dumps(status_of(answer)))
            if answer.error is None:
                (out / result_file(k, "answer")).write_text(json.dumps(answer.to_data(), allow_nan=True))


def _frozen(value):
    """A copy of ``value`` that NumPy refuses to write to."""
    import numpy as np

    copy = np.array(value)
    copy.flags.writeable = False
    return copy


def main(argv=None):
    import argparse

    parser = argparse.ArgumentParser(prog="python -m kpcourse.grading.judge.local")
    parser.add_argument("--timeout", type=int, default=60)
    parser.add_argument("workdirs", nargs="+")
    args = parser.parse_args(argv)
    _run_all(args.workdirs, args.timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
