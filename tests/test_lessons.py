"""What every lesson's checks are checked for, one test over the lessons (tests/test_checks_NN.py: the rest).

For each lesson ``NN`` (``source/NN-*``, ``kpcourse/checks/lessonNN.py``):

- the lesson module computes no expected answer: it imports no reference and uses none of the
  names, operators, statements, calls or loops its row of :data:`NO_ALGORITHM` forbids (each
  rule of the table is shown to catch what it forbids, so none can pass by being empty);
- nothing of the legacy checks is left in the notebook, the grader or the lesson module;
- the source's graded cells are the grader's cells and its written answers (:data:`ANSWERS`);
- every cell of the grader passes the source's own solution, which calls only functions the
  notebook defines;
- the golden reference-call submissions (``tests/golden``) lose, under the source policy,
  exactly the exercises they attack.
"""

import ast
import functools
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from giveaway import nbg, source_notebook
from giveaway import solution as source_solution
from giveaway import without_markers as _without_markers

from kpcourse.grading.course import folder as course
from kpcourse.grading.judge import policy
from kpcourse.grading.judge.spec import is_test_cell
from kpcourse.grading.judge.trusted import GRADER_FILE, load_grader

ROOT = Path(__file__).resolve().parents[1]
LESSONS = {name[:2]: name for name in course.assignments(ROOT)}

_REFERENCES = ("kpcourse.perceptron", "kpcourse.kernels", "kpcourse.gram", "sklearn")  # in every row
_BY_ANSWERS = ("zip(", "enumerate(zip(")  # a loop over the answers and probes, zipped


@dataclass(frozen=True)
class Rules:
    """What a lesson module may not hold (it compares answers with data; it computes nothing)."""

    imports: tuple = ()    # modules (and below) it may not import
    names: tuple = ()      # names and attributes it may not use
    operators: tuple = ()  # ast operator types (a matrix product, a division, ...)
    nodes: tuple = ()      # ast statement types (a while loop, an update +=)
    text: tuple = ()       # strings its source may not contain
    calls: tuple = ()      # functions it may not call, as written (np.sqrt), or ending so (.permutation)
    loops: tuple = None    # None: for loops unchecked; else (prefixes, words): a loop's iterable starts
    #                        with one of the prefixes or contains one of the words


NO_ALGORITHM = {
    # no norm, matrix product, argmax/argmin or set arithmetic
    "01": Rules(imports=(*_REFERENCES, "kpcourse._checks", "scipy", "collections"),
                names=("norm", "linalg", "argmax", "argmin", "sqrt", "dot", "matmul", "Counter", "intersection"),
                operators=(ast.MatMult, ast.BitAnd, ast.Div)),
    "02": Rules(imports=_REFERENCES, nodes=(ast.While,)),
    # no merging, training, retraining or null-space search: a comparison only checks properties
    "03": Rules(imports=(*_REFERENCES, "kpcourse._dual", "scipy"),
                names=("svd", "lstsq", "unique", "bincount", "delete", "ix_", "argmin"),
                nodes=(ast.While, ast.AugAssign), loops=(_BY_ANSWERS, ())),
    # no matrix product (a Gram matrix, a score, a gap), no comb (a count), no training loop
    "04": Rules(imports=(*_REFERENCES, "kpcourse._dual", "scipy", "math"), operators=(ast.MatMult,),
                names=("comb", "dot", "matmul", "einsum", "inner", "factorial", "sqrt"), nodes=(ast.While,),
                loops=(("(",), ("answers", "zip", "items", "keys"))),
    # references belong in grader.py; loops only over answers, probes and hint tables
    "05": Rules(imports=(*_REFERENCES, "kpcourse._dual", "kpcourse._checks_legacy", "scipy", "torch"),
                text=("np.exp(", "np.sqrt(", ".fit(", "sigma_errors"),
                loops=((), ("answers", "zip", "items", "enumerate", "checked"))),
    "06": Rules(imports=(*_REFERENCES, "kpcourse._dual", "kpcourse._backend", "torch", "math"),
                text=("np.exp(", "isqrt", "sqrt("), nodes=(ast.While,)),
    "07": Rules(imports=(*_REFERENCES, "kpcourse._dual", "kpcourse._backend", "kpcourse._checks_legacy", "torch"),
                text=("** degree", "argmax(", "@ X", ".T @", "np.outer"), nodes=(ast.While,)),
    # no margin, no folds, no model computed here
    "08": Rules(imports=(*_REFERENCES, "kpcourse._dual", "scipy"), nodes=(ast.While, ast.AugAssign),
                calls=("np.linalg.norm", "np.array_split", "np.sqrt", "np.dot", "np.lexsort", ".permutation"),
                loops=(_BY_ANSWERS, ())),
    # no kernel, no training, no class chosen, no table read: accuracies and error rates of given labels, and
    # the folds of the rule the notebook states (the inputs of the recomputed table entries)
    "09": Rules(imports=(*_REFERENCES, "kpcourse._dual", "kpcourse.datasets.tables", "scipy"), operators=(ast.MatMult,),
                names=("argmax", "unique", "exp", "qr", "load_table", "bincount"),
                nodes=(ast.While, ast.AugAssign)),
}

#: Left by the legacy checks: never in a notebook, a grader or a lesson module.
LEGACY = ("_checks_legacy", "guarded(", "check_against_reference")
#: Left by the legacy notebooks: never in a source notebook (lesson 07's own: its old exercise).
LEGACY_NOTEBOOK = ("HIDDEN TESTS", "no_reference_calls", "POLY_FORBIDDEN", "diagnose_fixed_update")
LEGACY_NOTEBOOK_OF = {"07": ("ovr_train",)}

#: The graded solution cells of each source notebook: written answers, graded by hand, no grader cell.
ANSWERS = {"01": ("ex5-similarity-answer",), "02": ("ex5-bias-answer",), "03": ("ex5-dual-answer",),
           "04": ("ex5-sets-answer",), "05": ("ex5-sigma-answer",),
           "06": ("ex5-plans-answer",), "07": ("ex5-batch-answer",), "08": ("ex5-machines-answer",),
           "09": ("ex3-choice-answer", "ex4-report-answer")}

#: Lessons whose setup cell or hidden tests read the course's data folder.
NEEDS_DATA = ("07",)


def _data(request):
    """The data folder's fixture (skipped, or failed under CI, where it is absent), and KPCOURSE_DATA set."""
    os.environ.setdefault("KPCOURSE_DATA", str(request.getfixturevalue("shared_data")))


@functools.cache
def _notebook(lesson):
    return source_notebook(LESSONS[lesson])


@functools.cache
def _grader(lesson):
    return load_grader(ROOT / "source" / LESSONS[lesson] / GRADER_FILE)


def _module_file(lesson):
    return ROOT / "kpcourse" / "checks" / f"lesson{lesson}.py"


@functools.cache
def _cells(lesson):
    return _grader(lesson).cells()


# --------------------------------------------------------------------------- #
# The lesson module holds no algorithm
# --------------------------------------------------------------------------- #

def algorithm_problems(source, rules):
    """What in ``source`` (a module's text) breaks ``rules``: ``[]`` where nothing does."""
    tree = ast.parse(source)
    nodes = list(ast.walk(tree))
    imported = {a.name for n in nodes if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in nodes if isinstance(n, ast.ImportFrom) and n.module}
    problems = [f"imports {m}" for m in sorted(imported) if m.startswith(rules.imports)]
    used = {n.attr for n in nodes if isinstance(n, ast.Attribute)} | {n.id for n in nodes if isinstance(n, ast.Name)}
    problems += [f"uses {name}" for name in sorted(used & set(rules.names))]
    problems += [f"a {type(n).__name__} operator" for n in nodes if isinstance(n, rules.operators)]
    problems += [f"a {type(n).__name__} statement" for n in nodes if isinstance(n, rules.nodes)]
    problems += [f"{text!r} in the source" for text in rules.text if text in source]
    called = {ast.unparse(n.func) for n in nodes if isinstance(n, ast.Call)}
    problems += [f"calls {c}" for c in sorted(called) for name in rules.calls
                 if c == name or (name.startswith(".") and c.endswith(name))]
    if rules.loops is not None:
        prefixes, words = rules.loops
        for n in nodes:
            it = ast.unparse(n.iter) if isinstance(n, ast.For) else None
            if it is not None and not (it.startswith(prefixes) or any(w in it for w in words)):
                problems.append(f"a loop over {it}")
    return problems


@pytest.mark.parametrize("lesson", sorted(NO_ALGORITHM))
def test_lesson_module_holds_no_algorithm(lesson):
    assert algorithm_problems(_module_file(lesson).read_text(), NO_ALGORITHM[lesson]) == []


def _breaking(rules):
    """One snippet for each rule of ``rules``, each breaking that rule only."""
    yield from (f"import {m}.x\n" for m in rules.imports)
    yield from (f"y = {name}\n" for name in rules.names)
    yield from ({ast.MatMult: "y = a @ b\n", ast.BitAnd: "y = a & b\n", ast.Div: "y = a / b\n"}[op]
                for op in rules.operators)
    yield from ({ast.While: "while a:\n    pass\n", ast.AugAssign: "a += 1\n"}[node] for node in rules.nodes)
    yield from (f"y = {text!r}\n" for text in rules.text)
    yield from (f"y = a{c}(b)\n" if c.startswith(".") else f"y = {c}(b)\n" for c in rules.calls)
    if rules.loops is not None:
        yield "for i in range(3):\n    pass\n"


@pytest.mark.parametrize("lesson", sorted(NO_ALGORITHM))
def test_each_rule_catches_what_it_forbids(lesson):
    rules = NO_ALGORITHM[lesson]
    snippets = list(_breaking(rules))
    assert len(snippets) == sum(map(len, (rules.imports, rules.names, rules.operators, rules.nodes, rules.text,
                                          rules.calls))) + (rules.loops is not None)
    for snippet in snippets:
        assert algorithm_problems(snippet, rules), f"lesson {lesson}: {snippet!r} passes"
    assert algorithm_problems("import numpy as np\n\ny = np.asarray(a)\n", rules) == []


def test_the_table_covers_every_lesson():
    assert set(NO_ALGORITHM) == set(LESSONS) == set(ANSWERS)


# --------------------------------------------------------------------------- #
# No legacy checks
# --------------------------------------------------------------------------- #

@pytest.mark.parametrize("lesson", sorted(LESSONS))
def test_the_lesson_no_longer_uses_the_legacy_checks(lesson):
    name = LESSONS[lesson]
    notebook = ROOT / "source" / name / f"{name}.ipynb"
    for path in (notebook, ROOT / "source" / name / GRADER_FILE, _module_file(lesson)):
        text = path.read_text()
        assert not [w for w in LEGACY if w in text], path
    text = notebook.read_text()
    assert not [w for w in (*LEGACY_NOTEBOOK, *LEGACY_NOTEBOOK_OF.get(lesson, ())) if w in text], notebook


# --------------------------------------------------------------------------- #
# The grader's cells: the source's graded cells, passed by its solution
# --------------------------------------------------------------------------- #

@pytest.mark.parametrize("lesson", sorted(LESSONS))
def test_every_graded_cell_of_the_source_has_a_cell_or_is_a_written_answer(lesson):
    nb, cells = _notebook(lesson), _grader(lesson).cells
    tests = {nbg(c)["grade_id"] for c in nb.cells if is_test_cell(c)}
    answers = {nbg(c)["grade_id"] for c in nb.cells if nbg(c).get("grade") and nbg(c).get("solution")}
    assert tests and tests == set(cells())
    assert answers == set(ANSWERS[lesson])


@pytest.fixture(scope="module")
def solution(request):
    """``solution(lesson)``: the functions the source notebook defines (its given cells, then its solution
    cells, executed as a student's kernel would), by name."""
    made = {}

    def solution(lesson):
        if lesson not in made:
            if lesson in NEEDS_DATA:
                _data(request)
            made[lesson] = source_solution(LESSONS[lesson], _notebook(lesson))
        return made[lesson]
    return solution


def _test_cells():
    for lesson in sorted(LESSONS):
        for c in _notebook(lesson).cells:
            if is_test_cell(c):
                yield pytest.param(lesson, nbg(c)["grade_id"], id=f"{lesson}-{nbg(c)['grade_id']}")


@pytest.mark.parametrize("lesson,gid", list(_test_cells()))
def test_every_cell_passes_the_solution(lesson, gid, solution, request):
    if lesson in NEEDS_DATA:
        _data(request)  # a hidden test may read the data folder
    functions = solution(lesson)
    cell = _cells(lesson)[gid]
    assert set(cell.called()) <= set(functions), sorted(set(cell.called()) - set(functions))
    cell.judge_here(dict(functions))


# --------------------------------------------------------------------------- #
# Golden reference-call submissions: the source policy takes the attacked exercise only
# --------------------------------------------------------------------------- #

def _golden(lesson):
    name = LESSONS[lesson]
    spec = importlib.util.spec_from_file_location(f"golden_{lesson}", ROOT / "tests" / "golden" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.CASES


@pytest.mark.parametrize("lesson,case", [(lesson, case) for lesson in sorted(LESSONS) for case in _golden(lesson)
                                         if case.startswith("reference")])
def test_reference_cases_lose_only_the_attacked_exercise(lesson, case):
    """The source policy on the golden submission, read as the grader reads it (release + answers)."""
    spec, name, source = _golden(lesson)[case], LESSONS[lesson], _notebook(lesson)
    release = nbformat.read(ROOT / "release" / name / f"{name}.ipynb", as_version=4)
    solutions = {nbg(c)["grade_id"]: _without_markers(c.source)
                 for c in source.cells if c.cell_type == "code" and nbg(c).get("solution")}
    student, context = [], []
    for c in release.cells:
        if c.cell_type != "code":
            continue
        gid = nbg(c).get("grade_id")
        if nbg(c).get("locked"):
            if not nbg(c).get("grade"):
                context.append(c.source)
            continue
        student.append(spec["replace"].get(gid, solutions.get(gid, c.source)))
    program = policy.Program(student, context)
    assert program.unparsable == 0
    grader, told = _grader(lesson), []
    for gid, cell in _cells(lesson).items():
        problems = program.verdict(cell.called(), grader.FORBIDDEN, cell.allow, cell.what)
        attacked = spec["expect"].get(gid) == 0
        assert bool(problems) == attacked, (gid, problems)
        if attacked and spec.get("message"):
            told.append(spec["message"] in "\n".join(problems))
    assert all(told), (case, told)
