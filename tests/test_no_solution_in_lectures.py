"""No line of an assignment's solution appears in a lecture.

Solution lines are the lines between ``### BEGIN SOLUTION`` and ``### END SOLUTION`` in the code
cells of ``source/*/*.ipynb``, plus the lines of manually graded answer cells (markdown cells
whose nbgrader metadata says ``solution: true``: the model answer). A lecture is every cell of
``notebooks/*.ipynb``: code and markdown sources, and the text a code cell printed.

A line *leaks* when, with all white space removed, it occurs anywhere in a lecture cell
(white space removed too), so re-indenting, re-spacing or wrapping it in a ``print`` does not
hide it. Trivial lines are skipped, because they give nothing away and occur everywhere:

* lines shorter than 20 characters once stripped (``break``, ``alpha[i] += 1``, ``else:``);

and, in code only (a model answer's prose line of 20 characters or more always counts):

* comments (``# ...``) and import statements;
* docstring lines (a line opening or closing ``\"\"\"``/``'''``, numpydoc underlines);
* ``return`` of plain names (``return alpha, b``);
* coercing an argument, ``X = np.asarray(X, dtype=float)`` and the like;
* lines made only of names, dots, commas, brackets and colons — no operator, assignment,
  comparison or string: loop headers (``for epoch in range(max_epochs):``) and bare calls
  (``model.fit(X_train, y_train)``), which every lecture writes too.

Everything else counts, error messages included: a lecture that shows the exact solution line
hands the student the answer. The test is parametrized by lecture, so each lesson fails on its
own; the checker is unit-tested on synthetic notebooks below (a planted copy must be found).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LECTURES = sorted((ROOT / "notebooks").glob("*.ipynb"))
SOURCES = sorted((ROOT / "source").glob("*/*.ipynb"))
MIN_LENGTH = 20

BEGIN = re.compile(r"^\s*###\s*BEGIN SOLUTION")
END = re.compile(r"^\s*###\s*END SOLUTION")
TRIVIAL = [
    re.compile(r"^#"),                                              # comment
    re.compile(r"^(import\s|from\s+\S+\s+import\s)"),               # import
    re.compile(r"^[rRuUbB]?(\"\"\"|''')|(\"\"\"|''')$|^-{3,}$"),    # docstring lines
    re.compile(r"^return\s+[\w.]+(\s*,\s*[\w.]+)*$"),               # return of plain names
    re.compile(r"^\w+\s*=\s*(np\.)?(asarray|asanyarray|array|float|int)\(\s*\w+\s*"
               r"(,\s*dtype\s*=\s*[\w.]+\s*)?\)$"),                 # argument coercion
    re.compile(r"^[\w\s.,()\[\]:]+$"),                              # loop header, bare call
]


def _text(source):
    return "".join(source) if isinstance(source, list) else source


def _squash(text):
    return re.sub(r"\s+", "", text)


def is_trivial(line, code=True):
    """True for a solution line that gives nothing away (see the module docstring)."""
    line = line.strip()
    return len(line) < MIN_LENGTH or (code and any(p.search(line) for p in TRIVIAL))


def solution_lines(nb):
    """The non-trivial solution lines of a source notebook, in order, without duplicates."""
    found = []
    for cell in nb["cells"]:
        lines = _text(cell["source"]).splitlines()
        if cell["cell_type"] == "markdown":
            if cell.get("metadata", {}).get("nbgrader", {}).get("solution"):
                found += [line for line in lines if not is_trivial(line, code=False)]
            continue
        inside = False
        for line in lines:
            if BEGIN.match(line):
                inside = True
            elif END.match(line):
                inside = False
            elif inside and not is_trivial(line):
                found.append(line)
    return list(dict.fromkeys(line.strip() for line in found))


def _lecture_texts(nb):
    for index, cell in enumerate(nb["cells"]):
        yield index, _text(cell["source"])
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream":
                yield index, _text(out.get("text", ""))
            elif "text/plain" in out.get("data", {}):
                yield index, _text(out["data"]["text/plain"])


def find_leaks(lines, lecture_nb):
    """(cell index, line) for every solution line that occurs in the lecture."""
    squashed = [(line, _squash(line)) for line in lines]
    return [(index, line) for index, text in _lecture_texts(lecture_nb)
            for line, key in squashed if key in _squash(text)]


def _load(path):
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def all_solution_lines():
    return {path.parent.name: solution_lines(_load(path)) for path in SOURCES}


def test_there_are_solutions_to_check(all_solution_lines):
    assert SOURCES, "no source/*/*.ipynb found"
    assert sum(map(len, all_solution_lines.values())) > 0, "no solution line found in source/"


@pytest.mark.parametrize("path", LECTURES, ids=lambda p: p.stem)
def test_no_solution_line_in_the_lecture(path, all_solution_lines):
    nb = _load(path)
    leaks = [f"cell {index}: {line!r} (from source/{name})"
             for name, lines in all_solution_lines.items() for index, line in find_leaks(lines, nb)]
    assert not leaks, f"{path.name} shows assignment solution lines:\n" + "\n".join(leaks)


# --------------------------------------------------------------------------- #
# The checker itself, on synthetic input
# --------------------------------------------------------------------------- #

SOURCE_NB = {"cells": [
    {"cell_type": "code", "metadata": {}, "source": [
        "def train(X, y):\n",
        "    \"\"\"Docstring line that is long enough to count if it were code.\"\"\"\n",
        "    ### BEGIN SOLUTION\n",
        "    import numpy as np  # an import\n",
        "    X = np.asarray(X, dtype=float)\n",
        "    # a comment explaining the update rule in detail\n",
        "    w = np.zeros(X.shape[1])\n",
        "    for i in range(len(X)):\n",
        "        if y[i] * (X[i] @ w) <= 0:\n",
        "            w = w + learning_rate * y[i] * X[i]\n",
        "    return w\n",
        "    ### END SOLUTION\n",
        "    w_outside = 'this line is outside the solution region'\n",
    ]},
    {"cell_type": "markdown", "metadata": {"nbgrader": {"solution": True, "grade": True}},
     "source": "The bias shifts the line parallel to itself, away from the origin."},
    {"cell_type": "markdown", "metadata": {}, "source": "A question cell that is long enough to count."},
]}


def test_checker_collects_the_non_trivial_solution_lines():
    assert solution_lines(SOURCE_NB) == [
        "w = np.zeros(X.shape[1])",
        "if y[i] * (X[i] @ w) <= 0:",
        "w = w + learning_rate * y[i] * X[i]",
        "The bias shifts the line parallel to itself, away from the origin.",
    ]


def test_checker_finds_a_planted_copy():
    lecture = {"cells": [
        {"cell_type": "markdown", "metadata": {}, "source": "Some prose. The bias shifts the line\n"
         "parallel to itself, away from the origin."},
        {"cell_type": "code", "metadata": {}, "outputs": [], "source": "def step(w, X, y, i):\n"
         "    w=w+learning_rate*y[i]*X[i]   # re-spaced, still the solution\n    return w\n"},
        {"cell_type": "code", "metadata": {}, "source": "print(src)", "outputs": [
            {"output_type": "stream", "name": "stdout", "text": "if y[i]*(X[i] @ w) <= 0:\n"}]},
    ]}
    leaks = find_leaks(solution_lines(SOURCE_NB), lecture)
    assert leaks == [(0, "The bias shifts the line parallel to itself, away from the origin."),
                     (1, "w = w + learning_rate * y[i] * X[i]"), (2, "if y[i] * (X[i] @ w) <= 0:")], leaks


def test_checker_ignores_trivial_and_unrelated_lines():
    lecture = {"cells": [
        {"cell_type": "code", "metadata": {}, "outputs": [], "source":
         "import numpy as np\nX = np.asarray(X, dtype=float)\nw = w + eta * y[i] * x_i\nreturn w\n"
         "for i in range(len(X)):\n"
         "w_outside = 'this line is outside the solution region'\n"},
    ]}
    assert find_leaks(solution_lines(SOURCE_NB), lecture) == []


def test_checker_finds_a_planted_copy_of_a_real_solution_line(tmp_path):
    """Copy a real lecture into a temp dir, plant a real solution line in it, expect a failure."""
    source = next((p for p in SOURCES if solution_lines(_load(p))), None)
    if source is None:
        pytest.skip("no solution lines in source/")
    line = solution_lines(_load(source))[0]
    lecture = _load(LECTURES[0])
    lecture["cells"].append({"cell_type": "code", "metadata": {}, "outputs": [],
                             "execution_count": None, "source": f"    {line}\n"})
    planted = tmp_path / LECTURES[0].name
    planted.write_text(json.dumps(lecture), encoding="utf-8")
    leaks = find_leaks([line], _load(planted))
    assert (len(lecture["cells"]) - 1, line) in leaks
