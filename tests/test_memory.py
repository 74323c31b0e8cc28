"""kpcourse.grading.memory: a memory test decided by the kernel's limit, in a run of the grader's own.

The runs need bubblewrap as tests/test_sandbox.py does (skipped without it, a failure under
``CI=true``); each is one short sandbox (about 0.7 s).
"""

import os
from pathlib import Path

import nbformat
import numpy as np
import pytest

from kpcourse.checks import lesson06
from kpcourse.checks._core import Call, Test
from kpcourse.grading import memory
from kpcourse.grading.spec import Cell

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


def _cells(budget=400_000):
    call = Call.measured("gram", np.random.default_rng(0).normal(size=(N, D)),
                         np.random.default_rng(1).normal(size=(M, D)), 5.0, budget)
    call.memory_limit = lesson06.memory_limit(N, M, D, budget)
    visible, hidden = Test([Call("gram", np.ones((2, 2)), np.ones((2, 2)), 1.0, 64)], None), Test([call], None)
    hidden.hidden = True
    return {"tests": Cell("student-0", "a tiled Gram matrix", [visible, hidden])}


def _measure(tmp_path, *student, timeout=20):
    (tmp_path / "source").mkdir(exist_ok=True)
    got = memory.measure(_notebook(*student), _cells(), {"setup", "tests"}, tmp_path / "source", timeout)
    assert list(got) == [("tests", 1, 0)]  # the hidden call only
    return got[("tests", 1, 0)]


def test_only_hidden_calls_with_a_limit_are_measured():
    cells = _cells()
    assert [(g, t, j) for g, t, j, _ in memory.measured_calls(cells)] == [("tests", 1, 0)]
    cells["tests"].tests[1].calls[0].memory_limit = None
    assert memory.measured_calls(cells) == []


def test_the_instructors_cells_run_first_the_students_after():
    nb = _notebook("x = 1", "y = 2")
    nb.cells.insert(2, nbformat.v4.new_code_cell("import math"))
    nb.cells[2].metadata["nbgrader"] = {"grade_id": "more-setup", "locked": True}
    setup, student = memory._cells_before(nb, "tests", {"setup", "more-setup", "tests"},
                                          lambda c: c.metadata["nbgrader"].get("points"))
    assert (setup, student) == (["import numpy as np", "import math"], ["x = 1", "y = 2"])


def test_a_tiled_function_fits_an_untiled_one_does_not(bwrap, tmp_path):
    tiled = _measure(tmp_path, _TILED)
    assert tiled.limited and tiled.error is None and tiled.value.shape == (N, M), tiled.message
    untiled = _measure(tmp_path, _UNTILED)
    assert untiled.limited and untiled.error == "MemoryError"
    assert "more memory than the grader allows" in untiled.message and "MiB" not in untiled.message


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
], ids=["forged-tracemalloc", "limit-lifted", "own-process"])
def test_what_a_students_cells_try_does_not_lift_the_limit(bwrap, tmp_path, cells):
    got = _measure(tmp_path, *cells)
    assert got.limited and got.error is not None and got.value is None, got.message
    assert got.error == "MemoryError" or cells == [_IN_A_PROCESS], (got.error, got.message)


def test_what_the_run_wrote_is_read_as_data_only(tmp_path):
    call = _cells()["tests"].tests[1].calls[0]
    (tmp_path / "out").mkdir()
    assert memory._answer(call, tmp_path, {}).error == "NoAnswer"  # nothing written
    (tmp_path / "out" / "status.json").write_text('{"error": "ValueError", "message": "bad"}')
    assert (memory._answer(call, tmp_path, {}).error, memory._answer(call, tmp_path, {}).message) == ("ValueError",
                                                                                                       "bad")
    (tmp_path / "out" / "status.json").write_text("{}")
    np.save(tmp_path / "out" / "value.npy", np.array([object()], dtype=object), allow_pickle=True)
    assert memory._answer(call, tmp_path, {}).error == "NoAnswer"  # a pickle is never loaded
    (tmp_path / "out" / "value.npy").unlink()
    os.symlink(Path(__file__), tmp_path / "out" / "value.npy")
    assert memory._answer(call, tmp_path, {}).error == "NoAnswer"  # a link is never followed
