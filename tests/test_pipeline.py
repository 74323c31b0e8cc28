"""The grading pipeline, end to end, for every assignment in source/.

In one temporary course directory: regenerate the release and compare it with the
committed one, look for leaks, then autograde a set of golden submissions per
assignment for real with nbgrader (in parallel, as ``make autograde`` does) and
check every grade. Cases that every assignment gets:

- ``solution``: the source's solutions → full marks on every autograded cell;
- ``release``: the untouched student version → 0;
- ``first-cell-raises``: a new first cell that raises, first exercise solved →
  graded, that exercise full, the others 0;
- ``loop``: ``while True: pass`` in the first exercise → it times out, 0 there,
  the other exercises full;
- ``swallow``: a loop that catches KeyboardInterrupt in the first exercise → the
  same, and nothing deleted;
- ``edited-tests``: locked test cells replaced by ``pass`` → original tests run → 0;
- ``deleted-tests``: locked test cells deleted, solutions in → original tests put
  back → full marks;
- ``hostile-output``: the solution, with outputs, Markdown, a raw cell and a written answer
  that try to run a script in whoever's browser opens them (``hostile.py``) → full marks,
  and the autograded notebook (what the formgrader renders) and the feedback are inert;

and the adversarial cases (the student's cells only; every autograded cell must get 0):

- ``patch-helpers``: functions return None; the first solution cell first replaces the
  ``kpcourse.checks`` helpers, ``numpy.testing`` and builtins with no-ops;
- ``swallow-errors``: an IPython custom exception handler and ``sys.excepthook`` that
  swallow every error, functions return None;
- ``fake-pass``: each solution cell prints the success messages, functions return None;
- ``steal-solutions``: the first solution cell looks for the instructor's source
  notebooks, grader files and gradebook (relative to the working folder, absolute, under
  ``$HOME``, walking up from ``cwd`` and from ``kpcourse.__file__``, the real course
  folders) and executes the solution cells it finds; it must find nothing (``STOLEN=0``);
- ``tamper``: tries to overwrite grader files, source notebooks and the gradebook so
  that the next student is graded wrongly; nothing may change (``TAMPERED=0``);
- ``kill-grader``: signals its parent and its process group; grading goes on;
- ``shared-memory``: 2,400 MiB in memfd files before the solutions: the sandbox's control group
  counts them, the sandbox is stopped, its summary names the memory limit;
- ``unreadable-cell``: the solutions beside a cell that runs but is too deeply nested for the
  source policy to read: the policy fails closed and says why;
- ``exec-reference``: reads the package's perceptron source and ``exec``-s it;
- ``lookup-table``: one exercise answered from a table of the reference's outputs on the
  visible probes and on one grading run's hidden probes (leaked, or computed at home): 0 for
  that exercise, since every notebook is graded on fresh hidden inputs; ``lookup-same-seed``,
  judged locally with the table's own seed, gets every point (the table is right) unless the
  grader caps the literals a graded function holds (the capstone: ``Cell.max_literals``);

plus the common mistakes and the reference-call cases of ``tests/golden/<a>.py``.

``loop``, ``swallow`` and ``patch-helpers`` (whose patched checks loop) wait out the cell
limit: they are graded with a limit of their own, ``LOOP_TIMEOUT`` (8 s, twice the slowest
honest cell), the others with ``TIMEOUT`` (15 s). Every case is graded on every
assignment, ``plant-links`` and ``bombs`` (the limits of ``nbgrader_config.py``, the reading
of what the sandbox wrote) included.

Which cases go through a real autograde, and which are judged locally
----------------------------------------------------------------------
Through ``make autograde``'s own path (nbgrader, one sandbox and one kernel per
submission): every generic case above, every adversarial case, the first golden case of
each assignment (one correct and one mistaken submission per assignment), and the golden
cases marked ``"autograde"`` (``forge-memory`` and ``forge-pure`` of 06: a memory, and inputs
left unchanged, that only the grader's own run decides, :mod:`kpcourse.grading.judge.rerun`). These
prove what only that path has: the sandbox (files, processes), the kernel (timeouts,
restarts, exception hooks), nbgrader (locked cells put back, outputs turned into points,
feedback, the export).

Every other golden case (a common mistake, or a reference reached by import, importlib,
getattr, exec of a file, scikit-learn) is judged by :mod:`kpcourse.grading.judge.local`: the
same probes, the same recording call in place of each test cell, the same source policy
and the same judges (``trusted.verdict``), with one IPython shell running all of an
assignment's cases one after another instead of a sandboxed kernel each. Their points
depend only on what their functions return and on their source text, never on the
sandbox, so they prove what they proved before: the hint, the partial credit, the
reference refused. ``test_local_judge_agrees_with_autograde`` checks, for every
assignment, that the local judge gives the same points as the real autograde on the
cases graded both ways (solution, release and the first golden case).
"""

from __future__ import annotations

import copy
import functools
import hashlib
import importlib.util
import json
import os
import re
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import hostile
import nbformat
import pytest

from kpcourse import grading
from kpcourse.grading.judge import local
from kpcourse.grading.paths import copy_source

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).parent / "golden"
# KPCOURSE_ASSIGNMENTS="02-perceptron-by-hand 03-dual-form" restricts a run (lesson authors).
_ONLY = os.environ.get("KPCOURSE_ASSIGNMENTS", "").split()
ASSIGNMENTS = [a for a in grading.assignments(ROOT) if not _ONLY or a in _ONLY]
TIMEOUT = 15  # per-cell limit while grading the golden submissions (s)
# The cases that wait out the limit (an endless loop, a loop that swallows the interrupt, a patch
# that leaves the checks looping) get a shorter one: still stopped, still 0, the rest still graded.
# 8 s is twice the slowest honest cell of any solution on a quiet machine (3.7 s, lesson 01's
# `together` cell, by the local judge; 9.5 s at load 7, but in these cases it calls the looped
# exercise and stops at once); the other exercises of these cases graded in full at load 15.
WAITING = ("loop", "swallow", "patch-helpers")
LOOP_TIMEOUT = 8
# Three autograde jobs on two cores: a job's core is idle part of the time (sandbox and kernel
# start, loops waiting for their timeout); more jobs than that slow honest cells towards their limits.
JOBS = int(os.environ.get("KPCOURSE_PIPELINE_JOBS", (os.cpu_count() or 1) * 3 // 2))

def nbg(cell):
    return cell.metadata.get("nbgrader", {})


def solution_code(cell):
    """A source solution cell as a student would have written it (markers removed)."""
    lines = [ln for ln in cell.source.splitlines() if ln.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION")]
    return "\n".join(lines)


@functools.cache
def _grader(name):
    from kpcourse.grading.judge.trusted import GRADER_FILE, load_grader

    return load_grader(ROOT / "source" / name / GRADER_FILE)


def autograde_only(spec):
    """A golden case whose points only the real autograde decides (``"autograde": True``: what the
    local judge measures in-process, as the student's kernel would, e.g. memory)."""
    return bool(spec.get("autograde"))


def golden_cases(assignment):
    path = GOLDEN / f"{assignment}.py"
    if not path.exists():
        return {}
    spec = importlib.util.spec_from_file_location(f"golden_{assignment.replace('-', '_')}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.CASES


class Assignment:
    """Cells of one assignment: its solutions, its graded cells, its exercises."""

    def __init__(self, name, root):
        self.name = name
        self.source = nbformat.read(root / "source" / name / f"{name}.ipynb", as_version=4)
        self.release = nbformat.read(root / "release" / name / f"{name}.ipynb", as_version=4)
        self.solutions = {nbg(c)["grade_id"]: solution_code(c) for c in self.source.cells
                          if nbg(c).get("solution") and c.cell_type == "code"}
        self.written = {nbg(c)["grade_id"] for c in self.source.cells
                        if nbg(c).get("solution") and c.cell_type == "markdown"}
        self.auto = {nbg(c)["grade_id"]: float(nbg(c)["points"]) for c in self.source.cells
                     if nbg(c).get("grade") and not nbg(c).get("solution")}
        # exercises: the autograded cells that follow each code solution cell
        self.exercises, current = {}, None
        for c in self.source.cells:
            gid = nbg(c).get("grade_id")
            if gid in self.solutions:
                current = gid
                self.exercises[current] = []
            elif gid in self.auto and current:
                self.exercises[current].append(gid)
        self.first = next(iter(self.solutions))

    def losing(self, gid, through=True):
        """The autograded cells that lose their points with solution cell ``gid`` when it defines nothing:
        its exercise's, and every cell whose calls use a function it defines (the capstone's pipeline calls
        fit and predict), ``through`` the student's other functions too (select calls them); without
        ``through``, only the cells that call them directly (the functions exist, but answer wrongly)."""
        import ast

        uses = {}  # each solution function -> the names it reads (what it calls among them)
        for code in self.solutions.values():
            for n in ast.parse(code).body:
                if isinstance(n, ast.FunctionDef):
                    uses[n.name] = {m.id for m in ast.walk(n) if isinstance(m, ast.Name)}
        defined = {n.name for n in ast.parse(self.solutions[gid]).body if isinstance(n, ast.FunctionDef)}

        def reached(names):  # the functions named, and those they call, and so on
            seen, todo = set(), list(names)
            while todo:
                name = todo.pop()
                if name in uses and name not in seen:
                    seen.add(name)
                    todo += uses[name]
            return seen | set(names)

        calling = [g for g, called in self._called.items() if (reached(called) if through else called) & defined]
        return list(dict.fromkeys([*self.exercises[gid], *calling]))

    @functools.cached_property
    def _cells(self):
        """The grader's cells (one draw)."""
        return _grader(self.name).cells()

    @functools.cached_property
    def _called(self):
        """``{grade_id: names of the student's functions its calls use}`` (one draw of the grader's cells)."""
        return {g: set(cell.called()) for g, cell in self._cells.items()}

    def over_literals(self, nb):
        """The autograded cells whose cap on literals (``Cell.max_literals``) submission ``nb`` breaks."""
        from kpcourse.grading.judge.policy import Program

        program = Program([c.source for c in nb.cells if c.cell_type == "code" and nbg(c).get("solution")])
        over = []
        for g, cell in self._cells.items():
            if cell.max_literals:
                count, longest = program.literals(cell.called())
                if count > cell.max_literals[0] or longest > cell.max_literals[1]:
                    over.append(g)
        return over

    def points(self, expect):
        """``{grade_id: points}`` of every autograded cell: ``expect``'s where it says, else full points."""
        return {g: float(expect.get(g, pts)) for g, pts in self.auto.items()}

    def submission(self, fill=True, replace=None):
        """The release with solutions filled in: all (True), none (False) or a set of ids."""
        chosen = set(self.solutions) if fill is True else set(fill or ())
        nb = copy.deepcopy(self.release)
        for c in nb.cells:
            gid = nbg(c).get("grade_id")
            if replace and gid in replace:
                c.source = replace[gid]
            elif gid in chosen:
                c.source = self.solutions[gid]
            elif fill is True and gid in self.written:
                c.source = "The bias shifts the boundary away from the origin."
        return nb


def _stubs(code, body="return None"):
    """``def name(*args, **kwargs): return None`` for every function a solution cell defines."""
    import ast

    names = [n.name for n in ast.parse(code).body if isinstance(n, ast.FunctionDef)]
    return "\n".join(f"def {n}(*args, **kwargs):\n    {body}\n" for n in names) or "pass"


def _attack(a: Assignment, first, others=None):
    """The release with the first solution cell = ``first`` + stubs, the others stubs (or ``others``)."""
    replace = {}
    for gid, code in a.solutions.items():
        stub = _stubs(code)
        replace[gid] = (first + "\n\n" + stub) if gid == a.first else (others or stub)
    return a.submission(replace=replace)


_PATCH = """import builtins
import numpy.testing
import kpcourse.checks as _checks
for _name in dir(_checks):
    if not _name.startswith("__"):
        setattr(_checks, _name, lambda *args, **kwargs: None)
for _name in dir(numpy.testing):
    if _name.startswith("assert"):
        setattr(numpy.testing, _name, lambda *args, **kwargs: None)
builtins.isinstance = lambda *args: True
builtins.AssertionError = type("AssertionError", (Exception,), {})
builtins.print = lambda *args, **kwargs: None"""

_SWALLOW = """import sys
get_ipython().set_custom_exc((BaseException,), lambda *args, **kwargs: None)
sys.excepthook = lambda *args: None"""

_FAKE = 'print("Visible tests passed.")\nprint("All tests passed: the visible tests and the hidden ones.")'


def _steal(guesses):
    return f"""import glob, json, os, pathlib
import kpcourse
_found = set()
_starts = [os.getcwd(), os.path.dirname(kpcourse.__file__), os.path.expanduser("~"), "/tmp", "/root",
           "/srv/nbgrader", *{guesses!r}]
for _s in _starts:
    _p = pathlib.Path(_s)
    for _up in [_p, *_p.parents]:
        for _pat in ("source/*/*.ipynb", "source/*/grader.py", "gradebook.db", "*/source/*/*.ipynb",
                     "*/gradebook.db", "submitted/*/*/*.ipynb", "*/*/source/*/grader.py"):
            _found.update(glob.glob(str(_up / _pat)))
for _dir, _subdirs, _files in os.walk("/"):
    if _dir.count("/") >= 4 or _dir.startswith(("/proc", "/sys", "/usr", "/dev")):
        _subdirs[:] = []
    _found.update(os.path.join(_dir, f) for f in _files if f in ("gradebook.db", "grader.py"))
print("STOLEN=%d" % len(_found))
for _f in sorted(_found):
    if _f.endswith(".ipynb"):
        for _c in json.load(open(_f))["cells"]:
            _src = "".join(_c["source"])
            if "BEGIN SOLUTION" in _src:
                exec(_src, globals())"""


def _tamper(guesses):
    return _steal(guesses).replace("exec(_src, globals())", "pass") + """
_t = 0
for _f in sorted(_found):
    try:
        with open(_f, "a") as _out:
            _out.write("\\n# tampered\\n")
        _t += 1
    except OSError:
        pass
print("TAMPERED=%d" % _t)"""


_KILL = """import os, signal
for _pid in (os.getppid(),):
    try:
        os.kill(_pid, signal.SIGKILL)
    except OSError:
        pass
os.killpg(os.getpgid(0), signal.SIGKILL)"""

_EXEC_REFERENCE = """import kpcourse.perceptron
_ns = {}
exec(open(kpcourse.perceptron.__file__).read(), _ns)
Perceptron = _ns["Perceptron"]"""


def _escape_routes(name):
    """Routes to a reference that no reader of the source follows: every one must find nothing."""
    from kpcourse.grading.sandbox.allowed import Allowed

    allowed = Allowed.of_grader(_grader(name))
    parts = {p.name.removesuffix(".py") for p in (ROOT / "kpcourse").iterdir() if not p.name.startswith("__")}
    absent = sorted({f"kpcourse.{p}" for p in parts - set(allowed.parts()) - {"grading"}} |
                    {"kpcourse.grading.judge.policy", "kpcourse.grading.judge.trusted", *allowed.absent()})
    return f"""import logging, pydoc
_reached = []
# packages of the base interpreter and the system, put first on the path; compiled files of
# modules the trimmed package leaves out
import glob as _glob, os as _os, kpcourse as _kp
_s = logging.sys
_s.path[:0] = [d for r in {{_s.base_prefix, "/usr", "/usr/local"}} for d in _glob.glob(r + "/lib/python3*/*-packages")]
for _pyc in _glob.glob(_os.path.dirname(_kp.__file__) + "/**/__pycache__/*.pyc", recursive=True):
    _mod = _os.path.basename(_pyc).split(".")[0] + ".py"
    if not _os.path.exists(_os.path.join(_os.path.dirname(_os.path.dirname(_pyc)), _mod)):
        _reached.append("compiled " + _mod)
for _name in {absent!r}:
    try:
        if pydoc.locate(_name) is not None:
            _reached.append(_name)
    except Exception:
        pass
    try:
        logging.sys.modules["importlib"].import_module(_name)
        _reached.append(_name)
    except Exception:
        pass
class _S:
    chain = logging.sys
print("REACHED=%r" % sorted(set(_reached)))"""


_FORGE = """import glob, json, os
_huge = json.dumps([[{"value": {"__ndarray__": "<U125000000", "shape": [1], "list": ["a"]}, "error": None}] * 40])
def _forge(*args, **kwargs):
    for _p in glob.glob("/grading/answers/*.json"):
        try:
            with open(_p, "w") as _f:
                _f.write(_huge)
        except OSError:
            pass
get_ipython().events.register("post_run_cell", _forge)"""


_PRINT_PROBES = """import glob
_printed = 0
for _p in sorted(glob.glob("/grading/in/*")):
    with open(_p) as _f:
        _text = _f.read()
    print(_text)
    _printed += len(_text)
print("PRINTED=%d" % _printed)"""


def _plant_links(guesses):
    targets = [str(p) for g in guesses for p in sorted(Path(g).glob("source/*/*.ipynb"))]
    return f"""import os
_planted = 0
for _i, _t in enumerate({targets!r}):
    for _link in ("/grading/out/executed.ipynb", f"/grading/answers/link{{_i}}.json"):
        try:
            os.symlink(_t, _link)
            _planted += 1
        except OSError:
            pass
try:
    os.mkfifo("/grading/out/fifo")
except OSError:
    pass
print("PLANTED=%d" % _planted)"""


#: One cell per limit, each left to fail: its error shows which limit stopped it.
_BOMBS = [
    "print('y' * 30_000_000)",  # output: past the cell's 1 MiB and ZeroMQ's 16 MiB message limit
    "import numpy as np\n_a = np.ones(6 * 2**30 // 8)",  # memory: MemoryError
    "with open('/tmp/big', 'wb') as _f:\n    for _ in range(5 * 1024):\n        _f.write(b'x' * 2**20)",  # file size
    "import os\nos.remove('/tmp/big')\nfor _i in range(8):\n    with open(f'/tmp/part{_i}', 'wb') as _f:\n"
    "        for _ in range(100):\n            _f.write(b'x' * 2**20)",  # /tmp full
    "import subprocess\n_ps = [subprocess.Popen(['sleep', '20']) for _ in range(1000)]",  # processes
]
#: 2,400 MiB held in memfd files, each under the file-size limit and mapped by no process: the
#: sandbox's control group counts them, and the whole sandbox is stopped (nothing after it runs)
_SHARED_MEMORY = ("import os\n_fds = [os.memfd_create(f'm{_i}') for _i in range(24)]\nfor _fd in _fds:\n"
                  "    for _ in range(100):\n        os.write(_fd, b'x' * 2**20)")


# ---------------------------------------------------------- a lookup table of last run's answers
#: The helpers of a submission that answers from a table (no loop: a loop-free exercise accepts it).
_LOOKUP_HELPERS = """import hashlib
import json

import numpy as np


def _key(value):
    if isinstance(value, (np.ndarray, np.generic)):
        arr = np.ascontiguousarray(value)
        return "a" + arr.dtype.str + str(arr.shape) + hashlib.sha256(arr.tobytes()).hexdigest()
    if isinstance(value, (list, tuple)):
        return "l(" + ",".join(map(_key, value)) + ")"
    if isinstance(value, (set, frozenset)):
        return "s(" + ",".join(sorted(map(_key, value))) + ")"
    if isinstance(value, dict):
        return "d(" + ",".join(map(lambda kv: str(kv[0]) + "=" + _key(kv[1]), sorted(value.items()))) + ")"
    return "v" + repr(value)


def _decode(data):
    if isinstance(data, dict) and "__array__" in data:
        return np.array(data["__array__"], dtype=data["dtype"]).reshape(data["shape"])
    if isinstance(data, dict) and "__tuple__" in data:
        return tuple(map(_decode, data["__tuple__"]))
    if isinstance(data, dict) and "__raise__" in data:
        raise {"ValueError": ValueError, "TypeError": TypeError}.get(data["__raise__"], RuntimeError)("as last run")
    return data"""
_LOOKUP = {}
exec(_LOOKUP_HELPERS, _LOOKUP)
#: The largest table a lookup submission carries (its first exercise whose table is this small).
_LOOKUP_BYTES = 2**20


def _table_entry(out):
    import numpy as np

    if isinstance(out, np.ndarray):
        return {"__array__": out.tolist(), "dtype": out.dtype.str, "shape": list(out.shape)}
    if isinstance(out, tuple):
        return {"__tuple__": [_table_entry(o) for o in out]}
    return out.item() if isinstance(out, np.generic) else out


def _lookup_cases(a: Assignment):
    """``lookup-table``: an exercise answered from a table of what the reference gave on its visible
    probes and on the hidden probes of one grading run (seed ``DEFAULT_SEED``: leaked once, or
    computed at home) -- no reasoning, only the answers. With a fresh seed per notebook (the
    course's setting) it earns nothing for that exercise; ``lookup-same-seed``, the same notebook
    judged locally with the seed the table was made for, earns every point: the table is right,
    only the fresh inputs defeat it (unless the grader caps the literals a graded function holds, as
    the capstone's does: the table is refused whatever the seed)."""
    import importlib

    from kpcourse.checks._core import Ref, Via, decode, encode
    from kpcourse.grading.judge.declared import DEFAULT_SEED, argument, hidden_probes

    grader = _grader(a.name)

    def recorded(v):  # a Via argument as the table's own fit gives it: [name, its arguments, keywords]
        if isinstance(v, Via):
            return [v.function, [recorded(x) for x in v.args], {k: recorded(x) for k, x in v.kwargs.items()}]
        return v

    for exercise in importlib.import_module(f"kpcourse.checks.lesson{a.name[:2]}").LESSON.exercises:
        table, vias = {}, set()
        for check in exercise.checks:
            for probe in [*check.probes, *hidden_probes(check.cell, grader.HIDDEN[check.cell], DEFAULT_SEED)]:
                if any(isinstance(v, Ref) for v in (*probe.args, *probe.kwargs.values())):
                    table = None
                    break
                vias |= {v.function for v in (*probe.args, *probe.kwargs.values()) if isinstance(v, Via)}
                args = decode(encode([recorded(v) for v in probe.args]))  # as sent
                kwargs = decode(encode({k: recorded(v) for k, v in probe.kwargs.items()}))
                try:
                    out = _table_entry(grader.REFERENCES[exercise.function](
                        *[argument(v, grader.REFERENCES) for v in probe.args],
                        **{k: argument(v, grader.REFERENCES) for k, v in probe.kwargs.items()}))
                except Exception as exc:  # noqa: BLE001 - the reference refuses: so does the table
                    out = {"__raise__": type(exc).__name__}
                table[_LOOKUP["_key"]((args, kwargs))] = out
            if table is None:
                break
        text = json.dumps(table) if table else ""
        if not text or len(text) > _LOOKUP_BYTES:
            continue
        # a function whose result the probes pass on (fit, for predict) only records its arguments
        recorders = "".join(f"def {v}(*args, **kwargs):\n    return [{v!r}, list(args), kwargs]\n\n\n"
                            for v in sorted(vias))
        code = (f"{_LOOKUP_HELPERS}\n\n\n_TABLE = json.loads({text!r})\n\n\n{recorders}"
                f"def {exercise.function}(*args, **kwargs):\n    return _decode(_TABLE.get(_key((args, kwargs))))\n")
        nb = a.submission(replace={exercise.solution: code})
        # the cells of other exercises that call the replaced functions lose their points either way, and
        # where the grader caps the literals a graded function holds (the capstone), every cell that reaches
        # the table (the seed does not matter then)
        over = a.over_literals(nb)
        losing = list(dict.fromkeys([*a.losing(exercise.solution, through=False), *over]))
        others = [g for g in losing if g not in a.exercises[exercise.solution] or g in over]
        return {"lookup-table": (nb, dict.fromkeys(losing, 0.0)),
                "lookup-same-seed": (copy.deepcopy(nb), dict.fromkeys(others, 0.0))}
    raise AssertionError(f"{a.name}: no exercise whose table of answers is under {_LOOKUP_BYTES} bytes")


LOCAL_ONLY = ("lookup-same-seed",)  # judged by kpcourse.grading.judge.local, whose seed is DEFAULT_SEED


def adversarial_cases(a: Assignment, guesses):
    zero = {g: 0.0 for g in a.auto}
    bombs = a.submission()
    bombs.cells[0:0] = [nbformat.v4.new_code_cell(b) for b in _BOMBS]
    shared = a.submission()
    shared.cells.insert(0, nbformat.v4.new_code_cell(_SHARED_MEMORY))
    unreadable = a.submission()
    unreadable.cells.insert(0, nbformat.v4.new_code_cell("_x = " + "1 + " * 1000 + "1"))
    return {
        "patch-helpers": (_attack(a, _PATCH), zero, None),
        "swallow-errors": (_attack(a, _SWALLOW), zero, None),
        "fake-pass": (_attack(a, _FAKE), zero, None),
        "steal-solutions": (_attack(a, _steal(guesses), others="pass"), zero, "STOLEN=0"),
        "tamper": (_attack(a, _tamper(guesses)), zero, "TAMPERED=0"),
        "kill-grader": (a.submission(replace={a.first: _KILL + "\n\n" + a.solutions[a.first]}), zero, None),
        "exec-reference": (_attack(a, _EXEC_REFERENCE), zero, None),
        # the reference is not there to be reached, however it is named (the base interpreter's
        # packages on the path, a compiled file left behind)
        "escape-routes": (_attack(a, _escape_routes(a.name)), zero, "REACHED=[]"),
        # answers rewritten after they are recorded (names of huge arrays): judged as data, 0
        "forge-answers": (_attack(a, _FORGE), zero, None),
        # the files the kernel was given, printed: they hold the visible tests' inputs only
        # (test_no_hidden_input_in_feedback_notebook_or_report reads its feedback)
        "print-probes": (_attack(a, _PRINT_PROBES), zero, "PRINTED="),
        # links planted where the grader reads: never followed
        "plant-links": (_attack(a, _plant_links(guesses)), zero, None),
        # a bomb per limit, each stopped by its limit; the real solutions after them earn nothing
        # (top-level code that starts processes and opens files is a way around the source policy)
        "bombs": (bombs, zero, "[output cut:"),
        # the solution after memory that per-process limits and a resident-memory watch miss
        "shared-memory": (shared, zero, None),
        # the solution beside a cell that runs but is too deep for the source policy to read:
        # the policy fails closed
        "unreadable-cell": (unreadable, zero, "too deeply nested to read"),
    }


def generic_cases(a: Assignment):
    others = [g for ex, tests in a.exercises.items() if ex != a.first for g in tests]
    first_tests = a.losing(a.first)
    swallow = ("import time\nwhile True:\n    try:\n        time.sleep(0.05)\n"
               "    except KeyboardInterrupt:\n        pass")
    cases = {
        "solution": (a.submission(), {}),
        "release": (a.submission(fill=False), {g: 0.0 for g in a.auto}),
        "loop": (a.submission(replace={a.first: "while True:\n    pass"}), dict.fromkeys(first_tests, 0.0)),
        "swallow": (a.submission(replace={a.first: swallow}), dict.fromkeys(first_tests, 0.0)),
    }
    raising = a.submission(fill={a.first})
    raising.cells.insert(0, nbformat.v4.new_code_cell("raise RuntimeError('a student cell that fails')"))
    cases["first-cell-raises"] = (raising, dict.fromkeys(others, 0.0))
    edited = a.submission(fill=False)
    for c in edited.cells:
        if nbg(c).get("grade_id") in a.auto:
            c.source = "pass"
    cases["edited-tests"] = (edited, {g: 0.0 for g in a.auto})
    deleted = a.submission()
    deleted.cells = [c for c in deleted.cells if nbg(c).get("grade_id") not in a.auto]
    cases["deleted-tests"] = (deleted, {})
    cases["hostile-output"] = (hostile.add_to(a.submission(), a.written), {})
    return cases


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A course directory with every golden submission autograded."""
    root = tmp_path_factory.mktemp("course")
    for a in ASSIGNMENTS:
        copy_source(ROOT, root, a)
        shutil.copytree(ROOT / "release" / a, root / "release" / a)
    shutil.copy2(ROOT / "nbgrader_config.py", root / "nbgrader_config.py")
    regenerated = root / "regenerated"
    # 1. regenerate the release where the committed one can be compared (one nbgrader process
    #    at a time, beside the local judging below)
    (root / "fresh").mkdir()
    shutil.copy2(ROOT / "nbgrader_config.py", root / "fresh" / "nbgrader_config.py")
    for a in ASSIGNMENTS:
        copy_source(ROOT, root / "fresh", a)
    beside = ThreadPoolExecutor(max_workers=2)  # the release, and the local judging below
    released = beside.submit(grading.release, root / "fresh")

    assignments = {name: Assignment(name, root) for name in ASSIGNMENTS}
    expected, messages, local_nbs = {}, {}, {}
    for name, a in assignments.items():
        cases = generic_cases(a)
        golden = golden_cases(name)
        for case, spec in golden.items():
            cases[case] = (a.submission(replace=spec["replace"]), spec.get("expect", {}))
            messages[(case, name)] = spec.get("message")
        for case, (nb, expect, message) in adversarial_cases(a, [str(ROOT), str(root)]).items():
            cases[case] = (nb, expect)
            messages[(case, name)] = message
        cases.update(_lookup_cases(a))
        for case, (nb, expect) in cases.items():
            expected[(case, name)] = a.points(expect)
            real_only = autograde_only(golden.get(case, {}))  # what only the real path measures
            if case in golden and case != next(iter(golden)) and not real_only or case in LOCAL_ONLY:
                local_nbs.setdefault(name, {})[case] = nb  # judged locally only
                continue
            if case in ("solution", "release") or case in golden and not real_only:  # both ways
                local_nbs.setdefault(name, {})[case] = nb
            folder = root / "submitted" / case / name
            folder.mkdir(parents=True)
            nbformat.write(nb, folder / f"{name}.ipynb")
    # The cases judged locally (one shell, an assignment after another) run beside the autograde,
    # whose workers spend much of their time waiting out cell limits (loops, restarts).
    start = time.monotonic()

    def judge_locally():
        judged = {n: local.judge(root / "source" / n, local_nbs[n], TIMEOUT) for n in local_nbs}
        return judged, time.monotonic() - start
    local_run = beside.submit(judge_locally)
    released.result()
    shutil.move(root / "fresh" / "release", regenerated)
    shutil.copy2(root / "fresh" / "gradebook.db", root / "gradebook.db")  # the assignments, as released
    print(f"regenerated the release of {len(ASSIGNMENTS)} assignments beside it")
    before = {p: _digest(p) for p in (root / "submitted").rglob("*.ipynb")}
    before.update({p: _digest(p) for base in (root, ROOT) for sub in ("source", "release") for a in ASSIGNMENTS
                   for p in (base / sub / a).rglob("*") if p.is_file() and "__pycache__" not in p.parts})
    os.environ["KPCOURSE_CELL_TIMEOUT"] = str(TIMEOUT)
    os.environ.setdefault("KPCOURSE_ISOLATION", "require")  # adversarial cases need the sandbox
    start = time.monotonic()
    try:
        results = grading.autograde(root, jobs=JOBS, log=lambda *a: None,
                                    timeouts=dict.fromkeys(WAITING, LOOP_TIMEOUT))
    finally:
        os.environ.pop("KPCOURSE_CELL_TIMEOUT", None)
    wall = time.monotonic() - start
    print(f"\nautograded {len(results)} golden submissions in {wall:.0f} s "
          f"({60 * len(results) / wall:.1f}/min)")
    judged, local_wall = local_run.result()
    beside.shutdown()
    local_results = {(case, name): r for name, by_case in judged.items() for case, r in by_case.items()}
    slowest = max((s, case, name, i) for (case, name), r in local_results.items() if case == "solution"
                  for i, s in r["seconds"].items())
    print(f"judged {len(local_results)} golden submissions locally beside it in {local_wall:.0f} s "
          f"(slowest cell of a solution: {slowest[0]:.1f} s, {slowest[2]} cell {slowest[3]})")
    graded = {(r["student"], r["assignment"]) for r in results}
    return {"root": root, "regenerated": regenerated, "assignments": assignments, "results": results,
            "expected": expected, "messages": messages, "before": before, "wall": wall,
            "local": {k: v for k, v in local_results.items() if k not in graded}, "both": local_results}


def _digest(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _strip_volatile(nb):
    nb = json.loads(json.dumps(nb))
    nb.get("metadata", {}).pop("widgets", None)
    return nb


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_release_is_regenerated_from_source(course, name):
    committed = json.loads((ROOT / "release" / name / f"{name}.ipynb").read_text())
    fresh = json.loads((course["regenerated"] / name / f"{name}.ipynb").read_text())
    assert _strip_volatile(fresh) == _strip_volatile(committed), (
        f"release/{name} differs from what source/{name} generates: run `make release` and commit")


def _secret_lines(a: Assignment, only=None):
    """Solution and hidden-test lines that appear nowhere else in the source notebook.

    ``only``: keep the secret lines of that one cell (by grade_id).
    """
    secret, public = set(), set()
    for c in a.source.cells:
        mine = only is None or nbg(c).get("grade_id") == only
        inside = None
        for ln in c.source.splitlines():
            s = ln.strip()
            if s in ("### BEGIN SOLUTION", "### BEGIN HIDDEN TESTS"):
                inside = s
                continue
            if s in ("### END SOLUTION", "### END HIDDEN TESTS"):
                inside = None
                continue
            if inside and mine:
                secret.add(s)
            elif not inside:
                public.add(s)
    return {s for s in secret - public - _PACKAGE_LINES if len(s) >= 8 and not s.startswith("#")}


# Lines of the package's own code are public: tracebacks through kpcourse show them.
_PACKAGE_LINES = {ln.strip() for f in (ROOT / "kpcourse").glob("*.py") for ln in f.read_text().splitlines()}


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_no_solution_or_hidden_test_in_release(course, name):
    a = course["assignments"][name]
    text = (ROOT / "release" / name / f"{name}.ipynb").read_text()
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"):
        assert marker not in text
    sources = "\n".join(c.source for c in a.release.cells)
    leaked = [s for s in _secret_lines(a) if s in sources]
    assert not leaked, f"release/{name} shows solution or hidden-test lines: {leaked[:3]}"
    assert not any(c.get("outputs") for c in a.release.cells if c.cell_type == "code"), "release keeps outputs"


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_no_hidden_test_or_solution_in_feedback(course, name):
    a = course["assignments"][name]
    hidden = {s for c in a.source.cells if "### BEGIN HIDDEN TESTS" in c.source
              for s in re.findall(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", c.source, re.S)}
    hidden_lines = {ln.strip() for block in hidden for ln in block.splitlines() if len(ln.strip()) >= 8}
    hidden_lines -= _public_lines(a)  # e.g. an import that the visible part has too
    # the untouched or test-edited release shows no solution at all; the loop cases
    # show the other exercises' (submitted) solutions but not the looped one's
    others = set().union(*[_secret_lines(a, g) for g in a.solutions if g != a.first])
    looped = _secret_lines(a, a.first) - others
    secret = {"release": _secret_lines(a), "edited-tests": _secret_lines(a), "loop": looped, "swallow": looped}
    for case in {r["student"] for r in course["results"] if r["assignment"] == name}:  # graded by nbgrader
        html = course["root"] / "feedback" / case / name / f"{name}.html"
        assert html.exists(), f"no feedback for {case}/{name}"
        text = _html_text(html.read_text())
        assert "HIDDEN TESTS" not in text
        submitted = nbformat.read(course["root"] / "submitted" / case / name / f"{name}.ipynb", as_version=4)
        own = {ln.strip() for c in submitted.cells for ln in c.source.splitlines()}  # the student's lines
        shown = [ln for ln in hidden_lines - own if ln in text]
        assert not shown, f"feedback {case}/{name} shows hidden-test lines: {shown[:3]}"
        if case in secret:  # whole lines: instructions may quote a fragment such as "return 0.0"
            lines = {ln.strip() for ln in text.splitlines()}
            solution_shown = [ln for ln in secret[case] - hidden_lines if ln in lines]
            assert not solution_shown, f"feedback {case}/{name} shows solution lines: {solution_shown[:3]}"


def _public_lines(a: Assignment):
    """Lines of the source notebook outside solution and hidden-test regions."""
    public = set()
    for c in a.source.cells:
        inside = False
        for ln in c.source.splitlines():
            s = ln.strip()
            if s in ("### BEGIN SOLUTION", "### BEGIN HIDDEN TESTS"):
                inside = True
            elif s in ("### END SOLUTION", "### END HIDDEN TESTS"):
                inside = False
            elif not inside:
                public.add(s)
    return public


def _html_text(html):
    import html as h

    return h.unescape(re.sub(r"<[^>]+>", "", html))


def _grades(root, case, name):
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        sub = gb.find_submission(name, case)
        return {g.name: (g.score, g.max_score, g.needs_manual_grade) for nb in sub.notebooks for g in nb.grades}


def _cases():
    return [(case, name) for name in ASSIGNMENTS
            for case in ["solution", "release", "first-cell-raises", "loop", "swallow", "edited-tests",
                         "deleted-tests", "hostile-output", *golden_cases(name), *ADVERSARIAL, "lookup-table",
                         *LOCAL_ONLY]]


ADVERSARIAL = ("patch-helpers", "swallow-errors", "fake-pass", "steal-solutions", "tamper", "kill-grader",
               "exec-reference", "escape-routes", "forge-answers", "print-probes", "plant-links", "bombs",
               "shared-memory", "unreadable-cell")


@pytest.mark.parametrize("case,name", _cases())
def test_golden_submission_grades(course, case, name):
    expected = course["expected"][(case, name)]
    message = course["messages"].get((case, name))
    if (case, name) in course["local"]:  # judged by kpcourse.grading.judge.local (module docstring)
        judged = course["local"][(case, name)]
        got = local.points(course["assignments"][name].source, judged["verdicts"])
        assert got == pytest.approx(expected), f"{case}/{name} (judged locally): got {got}, expected {expected}"
        shown = judged["text"] + "\n".join(v for v in judged["verdicts"].values() if v)
        assert not message or message in shown, f"{case}/{name}: the visible test should say {message!r}"
        return
    result = next(r for r in course["results"] if (r["student"], r["assignment"]) == (case, name))
    assert result["ok"], f"autograde failed for {case}/{name}"
    grades = _grades(course["root"], case, name)
    got = {g: grades[g][0] for g in expected}
    assert got == pytest.approx(expected), f"{case}/{name}: got {got}, expected {expected}"
    if case not in UNFILLED:  # a filled-in written answer waits for a human grader
        for g in course["assignments"][name].written:
            assert grades[g][2], f"written answer {g} must wait for a human grader"
    if message:
        out = _outputs(course["root"] / "autograded" / case / name / f"{name}.ipynb")
        assert message in out, f"{case}/{name}: the visible test should say {message!r}"


UNFILLED = {"release", "edited-tests", "first-cell-raises"}  # written answers left blank


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_local_judge_agrees_with_autograde(course, name):
    """The cases graded both ways get the same points from the local judge as from nbgrader."""
    a = course["assignments"][name]
    both = [case for (case, n) in course["both"] if n == name and (case, n) not in course["local"]]
    assert {"solution", "release"} <= set(both), both
    for case in both:
        local_points = local.points(a.source, course["both"][(case, name)]["verdicts"])
        graded = {g: v[0] for g, v in _grades(course["root"], case, name).items() if g in a.auto}
        assert local_points == pytest.approx(graded), f"{case}/{name}: local {local_points}, autograde {graded}"


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_what_a_submission_shows_is_inert(course, name):
    """Outputs, Markdown and raw cells that would run a script: text in the autograded notebook
    the formgrader renders, and in the feedback (``kpcourse.grading.views.inert``)."""
    from kpcourse.grading.views.inert import SAFE_OUTPUTS, markdown_hazards

    root = course["root"]
    nb = nbformat.read(root / "autograded" / "hostile-output" / name / f"{name}.ipynb", as_version=4)
    shown = [c for c in nb.cells if c.cell_type == "code" and "class Shown" in c.source]
    assert shown and shown[0].outputs, "the hostile cell did not run (no output to make inert)"
    for i, cell in enumerate(nb.cells):
        assert cell.cell_type in ("code", "markdown"), f"cell {i} is a {cell.cell_type} cell"
        for out in cell.get("outputs", []):
            assert set(out.get("data", {})) <= set(SAFE_OUTPUTS), f"cell {i}: {sorted(out['data'])}"
        if cell.cell_type == "markdown":
            assert markdown_hazards(cell.source, cell.get("attachments")) == [], f"cell {i}: {cell.source[:200]}"
    page = (root / "feedback" / "hostile-output" / name / f"{name}.html").read_text()
    assert hostile.live_payloads(page) == []
    assert page.count(hostile.MARKER) >= 4  # shown, as text


def test_every_submission_was_isolated(course):
    """The grading sandbox ran for every submission (CI installs bubblewrap)."""
    assert all(r["isolated"] for r in course["results"]), [r for r in course["results"] if not r["isolated"]]


def _outputs(path):
    nb = nbformat.read(path, as_version=4)
    parts = []
    for c in nb.cells:
        for o in c.get("outputs", []):
            parts.append(o.get("evalue", "") + "".join(o.get("traceback", [])) + str(o.get("text", "")))
    return grading._ANSI.sub("", "\n".join(parts))


def test_loops_are_bounded_and_nothing_is_deleted(course):
    for r in course["results"]:
        if r["student"] in ("loop", "swallow"):
            # timeout + IOPub wait + restart + replay, never the whole notebook stuck
            assert r["seconds"] < 6 * LOOP_TIMEOUT + 240, r
    for path, digest in course["before"].items():
        assert _digest(path) == digest, f"{path} was changed by grading (or by a submission)"
    for name in ASSIGNMENTS:
        assert (course["root"] / "autograded" / "swallow" / name / f"{name}.ipynb").exists()


def test_grades_csv_exported(course):
    import csv

    with open(course["root"] / "grades.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    # one row per student and assignment (a student without a submission scores 0)
    students = {r["student"] for r in course["results"]}
    assert len(rows) == len(students) * len(ASSIGNMENTS)
    for r in course["results"]:
        row = next(x for x in rows if (x["student_id"], x["assignment"]) == (r["student"], r["assignment"]))
        total = sum(v[0] for v in _grades(course["root"], r["student"], r["assignment"]).values())
        assert float(row["raw_score"]) == pytest.approx(total)


def test_scrub_hidden_tests_removes_hidden_lines_from_tracebacks():
    src = ("assert f(1) == 2, 'f(1) should double'\n### BEGIN HIDDEN TESTS\n"
           "assert f(3) == 6, 'secret expectation 6'\n### END HIDDEN TESTS")
    tb = ["\x1b[0;31mAssertionError\x1b[0m  Traceback (most recent call last)",
          "Cell In[3], line 3\n      1 assert f(1) == 2, 'f(1) should double'\n"
          "      2 ### BEGIN HIDDEN TESTS\n----> 3 assert f(3) == 6, 'secret expectation 6'\n"
          "      4 ### END HIDDEN TESTS",
          "AssertionError: secret expectation 6"]
    cell = nbformat.v4.new_code_cell(src)
    cell.outputs = [nbformat.v4.new_output("error", ename="AssertionError",
                                           evalue="secret expectation 6", traceback=tb)]
    cell, _ = grading.ScrubHiddenTests().preprocess_cell(cell, {}, 0)
    text = cell.source + json.dumps(cell.outputs)
    assert "secret" not in text and "HIDDEN" not in text
    assert "hidden test failed" in cell.outputs[0]["evalue"]
    # a visible failure keeps its message but loses the neighbouring hidden lines
    cell = nbformat.v4.new_code_cell(src)
    tb_visible = ["Cell In[3], line 1\n----> 1 assert f(1) == 2, 'f(1) should double'\n"
                  "      2 ### BEGIN HIDDEN TESTS\n      3 assert f(3) == 6, 'secret expectation 6'",
                  "AssertionError: f(1) should double"]
    cell.outputs = [nbformat.v4.new_output("error", ename="AssertionError",
                                           evalue="f(1) should double", traceback=tb_visible)]
    cell, _ = grading.ScrubHiddenTests().preprocess_cell(cell, {}, 0)
    text = json.dumps(cell.outputs)
    assert "should double" in text and "secret" not in text and "HIDDEN" not in text


def test_planted_links_are_not_followed(course):
    """A link to the instructor's notebook in place of the executed notebook copies nothing of it."""
    for name in ASSIGNMENTS:
        source = nbformat.read(ROOT / "source" / name / f"{name}.ipynb", as_version=4)
        theirs = [str(o.get("text", "")) for c in source.cells if c.cell_type == "code"
                  for o in c.get("outputs", []) if len(str(o.get("text", ""))) >= 20]
        graded = _outputs(course["root"] / "autograded" / "plant-links" / name / f"{name}.ipynb")
        assert not [t for t in theirs if t in graded], f"{name}: the instructor's outputs reached the graded notebook"


def test_no_submission_ran_as_root_and_limits_are_reported(course):
    for r in course["results"]:
        summary = json.loads((course["root"] / "autograded" / r["student"] / r["assignment"] /
                              "kpcourse-grading.json").read_text())
        assert summary["uid"] not in (0, None), summary
        if r["student"] == "bombs":
            assert set(summary["limits_hit"]) == {"memory", "processes", "file size", "disk", "output"}, summary
            assert r["seconds"] < 120, r
        if r["student"] == "shared-memory":
            assert summary["limits_hit"] == ["memory"], summary
            assert r["seconds"] < 120, r


# ------------------------------------------------------------ hidden inputs never shown
_NUMBER = re.compile(r"-?\d+\.\d+(?:e[+-]?\d+)?")


def _hidden_arrays(name, seed):
    """The float arrays among the hidden probes' arguments drawn with ``seed``, flattened (grader-side)."""
    import numpy as np

    from kpcourse.grading.judge.declared import hidden_probes

    grader = _grader(name)
    arrays = []
    for cell, draw in getattr(grader, "HIDDEN", {}).items():
        for probe in hidden_probes(cell, draw, seed):
            for arg in (*probe.args, *probe.kwargs.values()):
                arr = np.asarray(arg) if isinstance(arg, (np.ndarray, list)) else None
                if arr is not None and arr.dtype.kind == "f" and arr.size >= 3:
                    arrays.append(arr.ravel())
    return arrays


def _shown_runs(text, arrays, run=3):
    """Runs of ``run`` numbers, one after another in ``text`` and each printed with 3 or more
    digits, equal (to those digits) to ``run`` consecutive entries of one of ``arrays``: a hidden
    array as a message would print it (``fmt`` shows 4 decimals)."""
    import numpy as np

    found = _NUMBER.findall(text)
    if len(found) < run:
        return []
    digits = [f.split(".")[1].split("e")[0] for f in found]
    printed = np.array([float(f) for f in found])
    scale = np.array([10.0 ** int(f.split("e")[1]) if "e" in f else 1.0 for f in found])
    steps = np.array([10.0 ** -len(d) for d in digits]) * scale
    fine = np.array([len(d) >= 3 for d in digits])
    hits = []
    for arr in arrays:
        arr = arr[:5000]
        for j in range(len(printed) - run + 1):
            if not fine[j:j + run].all():
                continue
            starts = np.flatnonzero(np.abs(arr[:len(arr) - run + 1] - printed[j]) <= steps[j])
            for start in starts:
                if np.all(np.abs(arr[start:start + run] - printed[j:j + run]) <= steps[j:j + run]):
                    hits.append(" ".join(found[j:j + run]))
                    break
    return hits


def test_shown_runs_finds_a_printed_array_and_nothing_else():
    import numpy as np

    from kpcourse.checks._core import fmt

    hidden = np.random.default_rng(0).normal(size=(40, 3))
    text = f"on new data: X={fmt(hidden)}; you returned 0.5, 0.25, 0.125 and [1.2345, 2.2222, 3.3333]"
    assert len(_shown_runs(text, [hidden.ravel()])) >= 2  # the first rows and the last ones
    assert _shown_runs(text.split("X=")[0] + text.split(";")[1], [hidden.ravel()]) == []


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_no_hidden_input_in_feedback_notebook_or_report(course, name):
    """The hidden inputs each submission was graded on (drawn again from the seed its summary
    records) appear in none of its feedback, its autograded notebook and the class report."""
    from kpcourse.grading.judge.summary import Summary
    from kpcourse.grading.views.report import write_report

    root = course["root"]
    report = write_report(root, name, root / "reports")
    report_text = _html_text(Path(report).read_text()) + Path(report).with_suffix(".json").read_text()
    checked = 0
    for case in sorted({r["student"] for r in course["results"] if r["assignment"] == name and r["ok"]}):
        graded = root / "autograded" / case / name
        summary = Summary.read(graded / "kpcourse-grading.json")
        if summary is None or summary.hidden_seed is None:
            continue
        arrays = _hidden_arrays(name, summary.hidden_seed)
        texts = {"autograded notebook": _outputs(graded / f"{name}.ipynb"), "report": report_text}
        feedback = root / "feedback" / case / name / f"{name}.html"
        if feedback.exists():
            texts["feedback"] = _html_text(feedback.read_text())
        for where, text in texts.items():
            shown = _shown_runs(text, arrays)
            assert not shown, f"{case}/{name}: the {where} shows hidden inputs: {shown[:2]}"
        checked += bool(arrays)
    assert checked, f"{name}: no submission's hidden float inputs were checked"
