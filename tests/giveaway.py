"""Which autograded exercise does a function the course already gives away pass? (issue 21, item 5: a measurement).

For every autograded test cell of every assignment, each candidate function is submitted in the
student's place and judged by the grader's own tests (:meth:`kpcourse.grading.judge.spec.Cell.judge_here`,
visible tests then hidden ones, the grader's default seed). The candidates:

* every function a lecture notebook (``notebooks/*.ipynb``) defines: its code cells are run in order
  in one fresh namespace per notebook (IPython ``%``/``!`` lines dropped, matplotlib on Agg, each cell
  under an alarm), and every function whose globals are that namespace is kept -- each version of a
  function a later cell redefines too;
* every module-level function of the package (``kpcourse``, ``kpcourse.grading`` and ``kpcourse.checks``
  excepted), every function, static method and class method of its classes, the bound methods of every
  estimator (a class with ``fit``) fitted on lesson 02's four points, and the bound methods of the
  package's module-level objects (the ``Kernel`` entries of ``kernels.KERNELS``, ...).

A candidate is tried on a cell only where its signature accepts the arguments of the cell's first
call. The cell's other functions (a ``Ref`` argument) are the source notebook's own solution; where a
call takes what another of the student's functions returns (a ``Via``: ``predict(fit(...), X)``), each
candidate is also tried in that function's place, the solution doing the rest. A
candidate passes a cell when ``judge_here`` raises nothing; any exception, a time-out included, is
a fail. Only the judging is measured: the grader's reading of the submitted source (forbidden
references such as ``kpcourse``, loop-free exercises) is not applied here, so a package function
that passes would still be caught there when it is called by name; a lecture function copied into
the notebook would not.

Not collected by pytest (not a ``test_`` module); prints or writes a Markdown report::

    python tests/giveaway.py [--lessons 01 02 ...] [--out FILE.md]

With ``KPCOURSE_DATA`` (lessons 06 and 07 read the data folder) and ``MPLBACKEND=Agg``.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import hashlib
import importlib
import inspect
import io
import pkgutil
import sys
import time
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import nbformat

from kpcourse.checks._core import _time_limit, _TimeUp  # the checks' own alarm
from kpcourse.grading.course import folder as course
from kpcourse.grading.judge.spec import is_test_cell
from kpcourse.grading.judge.trusted import GRADER_FILE, load_grader

ROOT = Path(__file__).resolve().parents[1]

#: Seconds a lecture cell may run before it is stopped (an alarm), and before it is reported as slow.
CELL_LIMIT_S = 60
CELL_SLOW_S = 20
#: Seconds one candidate may spend in its own calls over one cell (its calls fail once it has spent them).
CANDIDATE_BUDGET_S = 30.0

#: Packages whose functions are not candidates: the grader and the checks themselves.
PACKAGE_SKIPPED = ("kpcourse.grading", "kpcourse.checks")

#: The locked cells run before the solution cells, as in a student's kernel (default: the setup cell).
GIVEN = {"03": ("setup", "ex3-helper"), "06": ("setup", "ex3-given"), "07": ("setup", "helper"),
         "08": ("setup", "helper"), "09": ("setup", "data")}


# --------------------------------------------------------------------------- #
# Candidates
# --------------------------------------------------------------------------- #

@dataclass
class Candidate:
    name: str      # notebooks/NAME.ipynb:func, or kpcourse.module.func
    kind: str      # "lecture" or "package"
    function: object


@dataclass
class CellEvent:
    notebook: str
    index: int     # index of the cell among the notebook's cells
    seconds: float
    error: str = ""  # "" when it ran; the exception (or "timed out") otherwise


@dataclass
class Collected:
    candidates: list = field(default_factory=list)
    notebooks: int = 0
    events: list = field(default_factory=list)  # every lecture cell that raised, timed out or was slow
    seconds: float = 0.0


@contextlib.contextmanager
def _quiet():
    """No prints, no warnings, no blocking plot, no figure left behind and the plotting backend as it was
    (the capstone's setup cell chooses Jupyter's inline backend)."""
    show, backend = plt.show, plt.get_backend()
    plt.show = lambda *args, **kwargs: None
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            warnings.simplefilter("ignore")
            yield
    finally:
        plt.show = show
        plt.close("all")
        if plt.get_backend() != backend:
            plt.switch_backend(backend)


def _without_magics(source):
    """The cell's source without its IPython magic and shell lines (``%...``, ``!...``)."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())


def _display(*objs, **kwargs):
    """``display`` (an IPython builtin) where no IPython runs: nothing shown."""


def lecture_candidates(notebooks, log=print):
    """The functions each lecture notebook defines, and the cells that raised, timed out or were slow."""
    out = Collected()
    start = time.perf_counter()
    for path in notebooks:
        rel = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
        out.notebooks += 1
        nb = nbformat.read(path, as_version=4)
        namespace = {"__name__": "__main__", "display": _display}
        seen, versions = set(), []  # (name, function, cell index)
        t_nb = time.perf_counter()
        for index, c in enumerate(nb.cells):
            if c.cell_type != "code":
                continue
            t0, error = time.perf_counter(), ""
            try:
                code = compile(_without_magics(c.source), f"{rel}[{index}]", "exec")
                with contextlib.chdir(path.parent), _quiet(), _time_limit(CELL_LIMIT_S):
                    exec(code, namespace)  # noqa: S102 - the course's own lecture
            except _TimeUp:
                error = f"timed out after {CELL_LIMIT_S} s"
            except BaseException as exc:  # noqa: BLE001 - record it and go on (SystemExit, KeyboardInterrupt too)
                if isinstance(exc, KeyboardInterrupt):
                    raise
                error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"
            seconds = time.perf_counter() - t0
            if error or seconds > CELL_SLOW_S:
                out.events.append(CellEvent(rel, index, seconds, error))
            for name, value in list(namespace.items()):
                if inspect.isfunction(value) and value.__globals__ is namespace and id(value) not in seen:
                    seen.add(id(value))
                    versions.append((name, value, index))
        counts = {}
        for name, _, _ in versions:
            counts[name] = counts.get(name, 0) + 1
        for name, value, index in versions:
            label = f"{rel}:{name}" if counts[name] == 1 else f"{rel}:{name}@cell{index}"
            out.candidates.append(Candidate(label, "lecture", value))
        log(f"  {rel}: {len(versions)} functions, {time.perf_counter() - t_nb:.1f} s")
    out.seconds = time.perf_counter() - start
    return out


def package_candidates(log=print):
    """Every module-level function of ``kpcourse`` (the grading and checks packages excepted), and
    the methods of its classes, fitted estimators and module-level objects (:func:`method_candidates`)."""
    import kpcourse

    found, methods, errors = [], [], []
    for info in pkgutil.walk_packages(kpcourse.__path__, "kpcourse."):
        if info.name.startswith(PACKAGE_SKIPPED):
            continue
        try:
            module = importlib.import_module(info.name)
        except Exception as exc:  # noqa: BLE001 - a module that cannot be imported here: reported
            errors.append(f"{info.name}: {type(exc).__name__}: {exc}")
            continue
        for name, value in sorted(vars(module).items()):
            if inspect.isfunction(value) and value.__module__ == module.__name__:
                found.append(Candidate(f"{module.__name__}.{name}", "package", value))
        methods += method_candidates(module, errors)
    seen = {c.function for c in found}
    for c in methods:  # a function also held by a table's object is tried once, under its module-level name
        if not inspect.isfunction(c.function) or c.function not in seen:
            seen.add(c.function)
            found.append(c)
    for e in errors:
        log(f"  cannot import {e}")
    return found, errors


def _ours(value):
    """Whether ``value`` is an instance of a class of the package (never a module, class or function)."""
    return type(value).__module__.startswith("kpcourse.")


def _bound(owner, label):
    """The bound methods of the object ``owner`` (its class's, public or private, dunders excepted), and
    the package's functions it holds as attributes (a ``Kernel``'s ``bound``, a lambda)."""
    out = []
    for name in sorted(dir(owner)):
        if name.startswith("__"):
            continue
        with contextlib.suppress(Exception):  # a property that raises on this object: no method there
            value = getattr(owner, name)
            if inspect.ismethod(value) and value.__self__ is owner or \
                    inspect.isfunction(value) and value.__module__.startswith("kpcourse."):
                out.append(Candidate(f"{label}.{name}", "package", value))
    return out


def fitted(cls):
    """An estimator of class ``cls`` (default parameters, ``random_state=0``) fitted on lesson 02's four points."""
    from kpcourse.datasets import worked_example

    takes = inspect.signature(cls).parameters
    return cls(**({"random_state": 0} if "random_state" in takes else {})).fit(*worked_example())


def method_candidates(module, errors):
    """The functions, static and class methods of ``module``'s classes; the bound methods of each of its
    estimators, fitted (:func:`fitted`); those of its module-level objects, in a dict's values too."""
    out = []
    for cname, value in sorted(vars(module).items()):
        label = f"{module.__name__}.{cname}"
        if inspect.isclass(value) and value.__module__ == module.__name__:
            for name, raw in sorted(vars(value).items()):
                if inspect.isfunction(raw) or isinstance(raw, (staticmethod, classmethod)):
                    out.append(Candidate(f"{label}.{name}", "package", getattr(value, name)))
            if callable(getattr(value, "fit", None)) and not inspect.isabstract(value):
                try:
                    out += _bound(fitted(value), f"{label}(fitted)")
                except Exception as exc:  # noqa: BLE001 - an estimator that cannot be fitted here: reported
                    errors.append(f"{label}(fitted): {type(exc).__name__}: {exc}")
        elif _ours(value):
            out += _bound(value, label)
        elif isinstance(value, dict):
            for key, item in sorted(value.items(), key=lambda kv: str(kv[0])):
                if _ours(item):
                    out += _bound(item, f"{label}[{key!r}]")
    return out


# --------------------------------------------------------------------------- #
# Assignments: cells, points, the source's solution
# --------------------------------------------------------------------------- #

def nbg(cell):
    """A cell's nbgrader metadata ({} for an ungraded cell)."""
    return cell.metadata.get("nbgrader", {})


def without_markers(code):
    return "\n".join(ln for ln in code.splitlines() if ln.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION"))


def source_notebook(name):
    return nbformat.read(ROOT / "source" / name / f"{name}.ipynb", as_version=4)


def points(nb):
    """grade_id -> points of each autograded test cell of a source notebook."""
    return {nbg(c)["grade_id"]: float(nbg(c).get("points", 0)) for c in nb.cells if is_test_cell(c)}


def solution(name, nb=None):
    """The functions the source notebook ``nb`` (read when not given) of assignment ``name`` defines (its
    given cells, then its solution cells, run in its folder as a student's kernel would), by name."""
    lesson, nb = name[:2], nb or source_notebook(name)
    namespace = {}
    with contextlib.chdir(ROOT / "source" / name), _quiet():
        for c in nb.cells:
            if c.cell_type == "code" and (nbg(c).get("grade_id") in GIVEN.get(lesson, ("setup",))
                                          or nbg(c).get("solution")):
                exec(compile(without_markers(c.source), nbg(c)["grade_id"], "exec"), namespace)  # noqa: S102
    return {k: v for k, v in namespace.items() if inspect.isfunction(v) and v.__globals__ is namespace}


def _made_by(c):
    """``(name, Via)`` for each of the student's functions whose result ``c`` takes (:class:`Via`), the first
    of each name: a candidate is tried in their place too, the solution's functions doing the rest."""
    from kpcourse.checks._core import Via

    found, todo = {}, [*c.args, *c.kwargs.values()]
    while todo:
        a = todo.pop(0)
        if isinstance(a, Via):
            found.setdefault(a.function, a)
            todo += [*a.args, *a.kwargs.values()]
    return list(found.items())


def accepts(function, c):
    """Whether ``function``'s signature takes the arguments of call ``c``."""
    try:
        inspect.signature(function).bind(*c.args, **c.kwargs)
    except (TypeError, ValueError):
        return False
    return True


def budgeted(function, seconds=CANDIDATE_BUDGET_S):
    """``function``, whose calls raise ``TimeoutError`` once it has run ``seconds`` in all."""
    spent = [0.0]

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        if spent[0] > seconds:
            raise TimeoutError(f"the candidate has spent its {seconds:g} s on this cell")
        t0 = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - t0
    return wrapper


def remembered(function):
    """``function`` (one of the solution's), computed once per distinct arguments and copied out: every
    candidate of a cell is judged with the same models (``Via``), trained once."""
    import copy
    import pickle

    results = {}

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        try:
            key = hashlib.sha256(pickle.dumps((args, sorted(kwargs.items())))).hexdigest()
        except Exception:  # noqa: BLE001 - arguments that cannot be pickled: no memory
            return function(*args, **kwargs)
        if key not in results:
            results[key] = function(*args, **kwargs)
        return copy.deepcopy(results[key])
    return wrapper


def judge(cell, exercise, function, others, workdir):
    """``(passed, why)``: ``cell.judge_here`` with ``function`` in the place of ``exercise``."""
    functions = {**others, exercise: budgeted(function)}
    try:
        with contextlib.chdir(workdir), _quiet():
            cell.judge_here(functions)
    except AssertionError as exc:
        return False, str(exc).splitlines()[0][:160] if str(exc) else "AssertionError"
    except Exception as exc:  # noqa: BLE001 - a crash of the judging (or of the candidate) is a fail
        return False, f"{type(exc).__name__}: {exc}"[:160]
    return True, ""


@dataclass
class CellResult:
    assignment: str
    grade_id: str
    exercise: str        # the function the cell calls (the one replaced)
    solution_cell: str   # grade_id of the exercise's solution cell
    points: float
    tried: int = 0
    passing: list = field(default_factory=list)  # Candidate names
    kinds: set = field(default_factory=set)
    solution_passes: bool | None = None
    solution_why: str = ""
    seconds: float = 0.0
    loop_free: bool = False  # the grader also requires a loop-free source (not checked by judge_here)


#: The address space a measurement may use. A candidate called with a probe's integer where it expects a size (a
#: list times 10**9, a d x d matrix for d = 46,340) then raises MemoryError and fails, instead of growing to the
#: machine's memory and being killed with the whole test process.
MEASURE_MEMORY = 12 * 2**30


@contextlib.contextmanager
def memory_capped(limit=MEASURE_MEMORY):
    """Lower the process's address-space limit to ``limit`` bytes (never raise it) for the block."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (limit if soft == resource.RLIM_INFINITY else min(soft, limit), hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def measure(name, candidates, log=print):
    """Every cell of assignment ``name`` against every candidate that can take its arguments, under
    :func:`memory_capped`."""
    with memory_capped():
        return _measure(name, candidates, log)


def _measure(name, candidates, log):
    nb = source_notebook(name)
    pts = points(nb)
    grader = load_grader(ROOT / "source" / name / GRADER_FILE)
    cells = grader.cells()
    own = solution(name, nb)
    workdir = ROOT / "source" / name
    results = []
    for gid, cell in cells.items():
        t0 = time.perf_counter()
        first = cell.tests[0].calls[0]
        exercise = first.function
        others = {n: remembered(own[n]) for n in cell.called() if n != exercise and n in own}
        r = CellResult(name, gid, exercise, cell.exercise, pts.get(gid, 0.0), loop_free=bool(cell.loop_free))
        if exercise in own:
            r.solution_passes, r.solution_why = judge(cell, exercise, own[exercise], others, workdir)
        for target, shape in ((exercise, first), *_made_by(first)):  # the called function, then a Via's
            rest = {**others, exercise: remembered(own[exercise])} if target != exercise and exercise in own \
                else others
            rest = {n: f for n, f in rest.items() if n != target and f is not None}
            for cand in candidates:
                if not accepts(cand.function, shape):
                    continue
                r.tried += 1
                passed, _ = judge(cell, target, cand.function, rest, workdir)
                if passed:
                    r.passing.append(cand.name if target == exercise else f"{cand.name} (as {target})")
                    r.kinds.add(cand.kind)
        r.seconds = time.perf_counter() - t0
        check = "" if r.solution_passes else f" (the solution FAILS: {r.solution_why})"
        log(f"  {gid}: {r.tried} tried, {len(r.passing)} pass, {r.seconds:.1f} s{check}"
            + (f": {', '.join(r.passing)}" if r.passing else ""))
        results.append(r)
    missing = sorted(set(pts) - set(cells))
    if missing:
        log(f"  test cells with points but no grader cell: {missing}")
    return results


# --------------------------------------------------------------------------- #
# Report
# --------------------------------------------------------------------------- #

def _pts(x):
    return f"{x:g}"


def report(results, collected, package, package_errors, seconds, lessons):
    lines = ["# Give-away measurement: functions the course already holds, judged as submissions", ""]
    n_lecture = len(collected.candidates)
    n_defining = len({c.name.split(":")[0] for c in collected.candidates})
    lines += [f"Assignments: {', '.join(sorted({r.assignment for r in results}))}"
              + (f" (--lessons {' '.join(lessons)})" if lessons else ""), "",
              f"Candidates: {n_lecture} lecture functions (from {n_defining} of the {collected.notebooks} "
              "lecture notebooks run), "
              f"{len(package)} package functions (module-level functions only: no methods, no bound methods "
              "of instances; kpcourse.grading and kpcourse.checks excepted).", "",
              "A candidate is tried on a cell when its signature accepts the arguments of the cell's first call; "
              "it passes when `Cell.judge_here` (visible and hidden tests, default seed) raises nothing. The "
              "grader's reading of the source (forbidden references, loop-free exercises) is not applied.", ""]
    total = sum(r.points for r in results)
    by = {kind: sum(r.points for r in results if kind in r.kinds) for kind in ("lecture", "package")}
    either = sum(r.points for r in results if r.kinds)
    lines += ["## Totals", "",
              "| | points | of | share |", "|---|---:|---:|---:|",
              *(f"| {label} | {_pts(p)} | {_pts(total)} | {p / total:.0%} |" if total else f"| {label} | 0 | 0 | - |"
                for label, p in (("some lecture function alone earns", by["lecture"]),
                                 ("some package function alone earns", by["package"]),
                                 ("some lecture or package function earns", either))),
              "", f"Cells passed by some candidate: {sum(bool(r.kinds) for r in results)} of {len(results)}.", ""]
    failing = [r for r in results if r.solution_passes is not True]
    if failing:
        lines += ["Control: the source's own solution does NOT pass "
                  + ", ".join(f"{r.assignment}/{r.grade_id} ({r.solution_why})" for r in failing), ""]
    else:
        lines += ["Control: the source's own solution passes every cell through the same harness.", ""]

    for name in sorted({r.assignment for r in results}):
        rows = [r for r in results if r.assignment == name]
        sub = sum(r.points for r in rows)
        won = sum(r.points for r in rows if r.kinds)
        lines += [f"## {name}", "", f"{_pts(won)} of {_pts(sub)} points passed by some candidate.", "",
                  "| exercise | cell | points | tried | passing candidates |", "|---|---|---:|---:|---|"]
        for r in rows:
            passing = "<br>".join(f"`{p}`" for p in r.passing) or "-"
            cell = f"{r.grade_id} (loop-free*)" if r.loop_free else r.grade_id
            lines.append(f"| {r.solution_cell} (`{r.exercise}`) | {cell} | {_pts(r.points)} | {r.tried} | "
                         f"{passing} |")
        lines.append("")
    lines += ["(loop-free*) the grader also requires the function's source to hold no Python loop; that is "
              "read from the submitted notebook, not by `judge_here`, so it is not applied here.", ""]
    untried = [r for r in results if not r.tried]
    if untried:
        lines += ["Cells no candidate's signature can take (so none was tried): "
                  + ", ".join(f"{r.assignment}/{r.grade_id}" for r in untried) + ".", ""]

    pairs = [(r, p) for r in results for p in r.passing]
    lines += ["## Passing (cell, candidate) pairs", ""]
    lines += [f"- {r.assignment}/{r.grade_id} ({_pts(r.points)} pt): `{p}`" for r, p in pairs] or ["none"]
    lines += ["", "## Lecture cells that raised, timed out or ran more than "
              f"{CELL_SLOW_S} s (alarm at {CELL_LIMIT_S} s)", ""]
    lines += [f"- {e.notebook} cell {e.index}: {e.seconds:.1f} s" + (f", {e.error}" if e.error else "")
              for e in collected.events] or ["none"]
    if package_errors:
        lines += ["", "## Package modules that could not be imported", "", *(f"- {e}" for e in package_errors)]
    lines += ["", "## Time", "",
              f"Lecture notebooks: {collected.seconds:.0f} s; judging: "
              f"{sum(r.seconds for r in results):.0f} s; in all: {seconds:.0f} s.", ""]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lessons", nargs="*", default=[], help="lesson numbers (01 02 ...); default: all")
    parser.add_argument("--out", type=Path, help="write the Markdown report here (default: stdout)")
    args = parser.parse_args(argv)
    matplotlib.use("Agg")  # the lectures' figures are drawn and dropped
    start = time.perf_counter()

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    names = [n for n in course.assignments(ROOT) if not args.lessons or n[:2] in args.lessons]
    if not names:
        parser.error(f"no assignment for --lessons {' '.join(args.lessons)}")
    log("lecture notebooks:")
    collected = lecture_candidates(sorted((ROOT / "notebooks").glob("*.ipynb")), log)
    package, package_errors = package_candidates(log)
    log(f"{len(collected.candidates)} lecture functions, {len(package)} package functions")
    candidates = [*collected.candidates, *package]
    results = []
    for name in names:
        log(f"{name}:")
        try:
            results += measure(name, candidates, log)
        except Exception:  # noqa: BLE001 - an assignment that cannot be measured: said, and the others go on
            log(traceback.format_exc())
    text = report(results, collected, package, package_errors, time.perf_counter() - start, args.lessons)
    if args.out:
        args.out.write_text(text)
        log(f"report written to {args.out}")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
