"""kpcourse.grading.judge.rerun: every hidden call, made by the grader in a run where only the student's
definitions ran, one child per call; under a memory limit (a memory test) or on read-only inputs
(a test that the inputs stay as they were).

The runs need bubblewrap as tests/test_sandbox.py does (skipped without it, a failure under
``CI=true``); each is one short sandbox (about 0.7 s).
"""

import os
from pathlib import Path

import nbformat
import numpy as np
import pytest

from kpcourse.checks._core import Call, Test
from kpcourse.grading.judge import rerun
from kpcourse.grading.judge.spec import Cell

N, M, D = 1000, 700, 30  # the hidden probe's size: K is 5.6 MB
_TILED = '''def gram(X, Z, sigma, max_memory):
    rows = max(1, max_memory // (4 * 8 * len(Z)))
    K = np.empty((len(X), len(Z)))
    zz = (Z * Z).sum(1)
    for a in range(0, len(X), rows):
        B = X[a:a + rows]
        d2 = (B * B).sum(1)[:, None] - 2 * B @ Z.T + zz[None, :]
        K[a:a + rows] = np.exp(-np.maximum(d2, 0) / (2 * sigma ** 2))
    return K
'''
_UNTILED = '''def gram(X, Z, sigma, max_memory):
    d2 = (X * X).sum(1)[:, None] - 2 * X @ Z.T + (Z * Z).sum(1)[None, :]
    return np.exp(-np.maximum(d2, 0) / (2 * sigma ** 2))
'''


def _notebook(*student):
    cells = [nbformat.v4.new_code_cell("import numpy as np"), *map(nbformat.v4.new_code_cell, student),
             nbformat.v4.new_code_cell("# the test cell")]
    cells[0].metadata["nbgrader"] = {"grade_id": "setup", "locked": True}
    for i, c in enumerate(cells[1:-1]):
        c.metadata["nbgrader"] = {"grade_id": f"student-{i}", "solution": True, "grade": False}
    cells[-1].metadata["nbgrader"] = {"grade_id": "tests", "grade": True, "locked": True, "points": 1}
    return nbformat.v4.new_notebook(cells=cells)


def _limit(budget):
    """Bytes the tiled Gram matrix may allocate: its result K, the budget, float64 copies of X and Z."""
    return 8 * N * M + budget + 8 * (N + M) * (D + 4) + 65536


def _cells(budget=400_000):
    call = Call.measured("gram", np.random.default_rng(0).normal(size=(N, D)),
                         np.random.default_rng(1).normal(size=(M, D)), 5.0, budget)
    call.memory_limit = _limit(budget)
    visible, hidden = Test([Call("gram", np.ones((2, 2)), np.ones((2, 2)), 1.0, 64)], None), Test([call], None)
    hidden.hidden = True
    return {"tests": Cell("student-0", "a tiled Gram matrix", [visible, hidden])}


def _measure(tmp_path, *student, timeout=20):
    (tmp_path / "source").mkdir(exist_ok=True)
    got = rerun.rerun(_notebook(*student), _cells(), {"setup", "tests"}, tmp_path / "source", timeout)
    assert list(got) == [("tests", 1, 0)]  # the hidden call only
    return got[("tests", 1, 0)]


def test_every_hidden_call_is_planned():
    cells = _cells()
    limit = cells["tests"].tests[1].calls[0].memory_limit
    assert rerun.planned(cells) == [rerun.Job("tests", 1, 0, limit)]  # the visible test's call is not
    cells["tests"].tests[1].calls[0].memory_limit = None
    assert rerun.planned(cells) == [rerun.Job("tests", 1, 0)]
    cells["tests"].tests[1].read_only = True  # a test of the inputs left unchanged: read-only inputs
    assert rerun.planned(cells) == [rerun.Job("tests", 1, 0, None, True)]


def test_the_instructors_cells_run_first_then_the_students_definitions_only():
    nb = _notebook("x = 1", "print('hello')\ny = 2\nz = f()")
    nb.cells.insert(2, nbformat.v4.new_code_cell("import math"))
    nb.cells[2].metadata["nbgrader"] = {"grade_id": "more-setup", "locked": True}
    spec, jobs, kept = rerun.spec_of(nb, _cells(), {"setup", "more-setup", "tests"})
    assert spec["setup"] == ["import numpy as np", "import math"]
    assert spec["code"] == ["x = 1", "y = 2"] and list(kept.left_out) == ["z"]
    assert len(jobs) == len(spec["calls"]) == 1
    # a cell the notebook's own run stopped (past its time) is left out here too
    assert rerun.spec_of(nb, _cells(), {"setup", "more-setup", "tests"}, skip={1})[0]["code"] == ["y = 2"]


@pytest.mark.parametrize("held", [("data",), ("student-0",)])
def test_a_locked_cell_the_grader_holds_back_is_not_run_where_answers_are_made(tmp_path, held):
    from kpcourse.grading.judge.trusted import grading_context, held_cells

    nb = _notebook("def f(x):\n    return x + y_test.sum()")
    nb.cells.insert(1, nbformat.v4.new_code_cell("y_test = np.arange(3)"))
    nb.cells[1].metadata["nbgrader"] = {"grade_id": "data", "locked": True}
    source = tmp_path / "a"
    source.mkdir()
    nbformat.write(nb, source / "a.ipynb")
    (source / "grader.py").write_text(f"NOT_IN_GRADERS_RUN = {held!r}\n\n\ndef cells():\n    return {{}}\n")
    if held != ("data",):  # only a locked cell can be held back: a student's cell is not the grader's
        with pytest.raises(ValueError, match="student-0.*not locked cells"):
            grading_context(source, "a")
        return
    *_, locked, _, _, held_back = grading_context(source, "a")
    assert held_back == {"data"} and held_cells(nb, held_back) == {1}
    spec, _, _ = rerun.spec_of(nb, _cells(), locked, skip=held_cells(nb, held_back))
    assert spec["setup"] == ["import numpy as np"]  # y_test is not defined where the hidden calls are made
    assert spec["code"] == ["def f(x):\n    return x + y_test.sum()"]


def test_a_tiled_function_fits_an_untiled_one_does_not(bwrap, tmp_path):
    tiled = _measure(tmp_path, _TILED)
    assert tiled.limited and tiled.error is None and tiled.value.shape == (N, M), tiled.message
    untiled = _measure(tmp_path, _UNTILED)
    assert untiled.limited and untiled.error == "MemoryError"
    assert "more memory than the grader allows" in untiled.message and "MiB" not in untiled.message


_MEMMAP = '''def gram(X, Z, sigma, max_memory):
    G, D, K = (np.memmap(f"/tmp/{name}.dat", dtype=float, mode="w+", shape=(len(X), len(Z))) for name in "GDK")
    np.matmul(X, Z.T, out=G)
    np.add((X * X).sum(1)[:, None], (Z * Z).sum(1)[None, :], out=D)
    np.subtract(D, 2 * G, out=D)
    np.maximum(D, 0, out=D)
    np.divide(D, -2 * sigma ** 2, out=K)
    return np.exp(K, out=K)
'''
_IN_A_PROCESS = '''def gram(X, Z, sigma, max_memory):
    import subprocess
    import sys
    np.save("/tmp/x.npy", X)
    np.save("/tmp/z.npy", Z)
    subprocess.run([sys.executable, "-c", "import numpy as np; X, Z = np.load('/tmp/x.npy'), np.load('/tmp/z.npy'); "
                    "d2 = (X * X).sum(1)[:, None] - 2 * X @ Z.T + (Z * Z).sum(1)[None, :]; "
                    "np.save('/tmp/k.npy', np.exp(-np.maximum(d2, 0) / 50.0))"], check=True)
    return np.load("/tmp/k.npy")
'''


def test_any_array_of_numbers_comes_back_as_it_is(bwrap, tmp_path):
    """float32 or a transposed result: written without a copy under the limit, read back the same."""
    got = _measure(tmp_path, _TILED.replace("K = np.empty((len(X), len(Z)))", "K = np.empty((len(Z), len(X))).T")
                   .replace("return K", "return K.astype(np.float32)"))
    assert got.error is None and got.value.dtype == np.float32 and got.value.shape == (N, M), got.message


def test_a_student_cell_that_loops_is_stopped_by_the_cell_limit(bwrap, tmp_path):
    got = _measure(tmp_path, "while True:\n    pass", _TILED, timeout=1)
    assert got.error is None and got.value.shape == (N, M), got.message


@pytest.mark.parametrize("cells", [
    # the kernel's measurement told to report nothing: not what decides here
    ["import tracemalloc\ntracemalloc.get_traced_memory = lambda: (0, 0)", _UNTILED],
    # the limit lifted: a hard limit is never raised again
    ["import resource\ntry:\n    resource.setrlimit(resource.RLIMIT_DATA, (resource.RLIM_INFINITY,) * 2)\n"
     "except (ValueError, OSError):\n    pass", _UNTILED],
    # K computed by a process of its own, which would have an allowance of its own: none starts
    [_IN_A_PROCESS],
    # every n x m array in a file mapped into memory (np.memmap): RLIMIT_DATA counts none, RLIMIT_AS all
    [_MEMMAP],
], ids=["forged-tracemalloc", "limit-lifted", "own-process", "memmap"])
def test_what_a_students_cells_try_does_not_lift_the_limit(bwrap, tmp_path, cells):
    got = _measure(tmp_path, *cells)
    assert got.limited and got.error is not None and got.value is None, got.message
    assert got.error == "MemoryError" or cells == [_IN_A_PROCESS], (got.error, got.message)


def test_what_the_run_wrote_is_read_as_data_only(tmp_path):
    call = _cells()["tests"].tests[1].calls[0]
    job = rerun.Job("tests", 1, 0, call.memory_limit)
    (tmp_path / "out").mkdir()
    assert rerun.answer_of(call, 0, job, tmp_path, {}).error == "NoAnswer"  # nothing written
    (tmp_path / "out" / "status-0.json").write_text('{"error": "ValueError", "message": "bad"}')
    answer = rerun.answer_of(call, 0, job, tmp_path, {})
    assert (answer.error, answer.message) == ("ValueError", "bad")
    (tmp_path / "out" / "status-0.json").write_text("{}")
    np.save(tmp_path / "out" / "value-0.npy", np.array([object()], dtype=object), allow_pickle=True)
    assert rerun.answer_of(call, 0, job, tmp_path, {}).error == "NoAnswer"  # a pickle is never loaded
    (tmp_path / "out" / "value-0.npy").unlink()
    os.symlink(Path(__file__), tmp_path / "out" / "value-0.npy")
    assert rerun.answer_of(call, 0, job, tmp_path, {}).error == "NoAnswer"  # a link is never followed


# ------------------------------------------------------------------ read-only inputs (Check.pure)
_CENTRE_COPY = "def centre(X, y):\n    return X - X.mean(0), y * 2\n"
_CENTRE_IN_PLACE = "def centre(X, y):\n    X -= X.mean(0)\n    return X, y * 2\n"


def _pure_cells():
    X, y = np.arange(12.0).reshape(4, 3), np.array([1, -1, 1, -1])
    hidden = Test([Call("centre", X, y), Call("centre", X[:2], y=y[:2])], None)
    hidden.hidden, hidden.read_only = True, True
    return {"tests": Cell("student-0", "centring", [Test([], None), hidden])}, X, y


def _read_only(tmp_path, *student):
    (tmp_path / "source").mkdir(exist_ok=True)
    cells, X, y = _pure_cells()
    got = rerun.rerun(_notebook(*student), cells, {"setup", "tests"}, tmp_path / "source", 20)
    assert sorted(got) == [("tests", 1, 0), ("tests", 1, 1)]  # the hidden test's calls, in one run
    return got[("tests", 1, 0)], got[("tests", 1, 1)], X, y


def test_a_function_that_leaves_its_inputs_gives_its_answers(bwrap, tmp_path):
    first, second, X, y = _read_only(tmp_path, _CENTRE_COPY)
    assert first.error is None and not first.mutated and not first.limited, first.message
    np.testing.assert_allclose(first.value[0], X - X.mean(0))
    np.testing.assert_array_equal(first.value[1], 2 * y)
    np.testing.assert_allclose(second.value[0], X[:2] - X[:2].mean(0))


@pytest.mark.parametrize("cells", [
    [_CENTRE_IN_PLACE],
    # the kernel's comparison told to see nothing: not what decides here
    ["import kpcourse.checks._core as _c\n_c._changed = lambda a, b: False", _CENTRE_IN_PLACE],
    # the array made writable again: NumPy refuses
    ["def centre(X, y):\n    X.setflags(write=True)\n    X -= X.mean(0)\n    return X, y * 2\n"],
], ids=["in-place", "forged-comparison", "made-writable"])
def test_a_function_that_writes_to_its_inputs_is_named(bwrap, tmp_path, cells):
    first, second, _, _ = _read_only(tmp_path, *cells)
    assert first.mutated and first.error is None and first.value is None, (first.error, first.message)
    assert second.mutated


def test_the_input_files_cannot_be_opened_for_writing(bwrap, tmp_path):
    """The file behind the map is on a read-only mount: writing to it through the file fails too."""
    first, _, _, _ = _read_only(tmp_path, "def centre(X, y):\n    with open(X.base.filename, 'r+b') as f:\n"
                                          "        f.write(b'x')\n    return X, y\n")
    assert first.error in ("OSError", "PermissionError") and first.value is None, (first.error, first.message)


def test_answers_of_a_read_only_run_are_read_as_data_only(tmp_path):
    cells, _, _ = _pure_cells()
    calls = cells["tests"].tests[1].calls
    jobs = [rerun.Job("tests", 1, j, None, True) for j in range(2)]
    out = tmp_path / "out"
    out.mkdir()

    def answers(cap=2**20):
        pairs = enumerate(zip(calls, jobs, strict=True))
        return [rerun.answer_of(c, k, job, tmp_path, {}, cap=cap) for k, (c, job) in pairs]
    assert [a.error for a in answers()] == ["NoAnswer"] * 2  # nothing written
    (out / "status-0.json").write_text("{}")
    (out / "answer-0.json").write_text('{"error": null, "value": 1}')
    (out / "status-1.json").write_text('{"error": "ValueError", "message": "output array is read-only"}')
    first, second = answers()
    assert (first.value, first.mutated, second.error, second.mutated) == (1, [], None, [0, "y"])
    assert answers(cap=10)[0].error == "NoAnswer"  # over the cap
    (out / "answer-0.json").write_text("[" * 100_000)
    assert answers()[0].error == "NoAnswer"  # not plain data


def test_a_write_past_numpy_stops_the_run(bwrap, tmp_path):
    """Writing to the map's memory by address (ctypes): its pages are not writable, the run stops."""
    first, second, _, _ = _read_only(tmp_path, "import ctypes\n\n\ndef centre(X, y):\n"
                                               "    ctypes.memset(X.ctypes.data, 0, 8)\n    return X, y\n")
    assert first.error == second.error == "NoAnswer" and first.value is None, (first.error, first.message)


_SWAP_INPUTS = """import gc
for _o in gc.get_objects():  # the grader's calls, their read-only inputs swapped for writable copies
    if type(_o).__name__ == "Call":
        _o.args = tuple(np.array(a) if isinstance(a, np.ndarray) else a for a in _o.args)
        _o.kwargs = {k: np.array(v) if isinstance(v, np.ndarray) else v for k, v in _o.kwargs.items()}
"""


def test_top_level_code_never_runs_where_answers_are_made(bwrap, tmp_path):
    """The attack that forged "inputs unchanged" before: top-level code found the grader's calls with
    gc and made their inputs writable. Only definitions run now: the write is seen."""
    first, second, _, _ = _read_only(tmp_path, _SWAP_INPUTS, _CENTRE_IN_PLACE)
    assert first.mutated and second.mutated, (first.error, first.message)


def test_each_call_is_made_alone(bwrap, tmp_path):
    """A call cannot leave anything for the next one: each is a child of a process no student code ran in."""
    first, second, _, _ = _read_only(tmp_path, "CALLS = 0\n\n\ndef centre(X, y):\n    global CALLS\n"
                                               "    CALLS += 1\n    return CALLS, y\n")
    assert first.value[0] == second.value[0] == 1, (first.error, first.message)


def test_a_call_cannot_read_the_process_that_writes_the_answers(bwrap, tmp_path):
    first, _, _, _ = _read_only(tmp_path, "import os\n\n\ndef centre(X, y):\n"
                                          "    with open(f'/proc/{os.getppid()}/mem', 'rb') as f:\n"
                                          "        f.read(1)\n    return X, y\n")
    assert first.error in ("PermissionError", "OSError"), (first.error, first.message)


def test_a_name_set_by_left_out_code_is_explained(bwrap, tmp_path):
    first, _, _, _ = _read_only(tmp_path, "def scale():\n    return 2\n\n\nSCALE = scale()\n\n\n"
                                          "def centre(X, y):\n    return X - X.mean(0), y * SCALE\n")
    assert first.error == "NameError" and "SCALE = scale()" in first.message, first.message
    assert "does not run" in first.message
