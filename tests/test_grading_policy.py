"""kpcourse.grading.judge.policy: "wrote it or called it?", decided from the source, never run."""

import pytest

from kpcourse.grading.judge.policy import Program

CONTEXT = ["import numpy as np\nfrom kpcourse import checks\nfrom kpcourse.datasets import worked_example\n"
           "X4, y4 = worked_example()"]
FORBIDDEN = ("kpcourse", "sklearn", "scipy")
HONEST = ("def train(X, y):\n    w = np.zeros(X.shape[1])\n    for i in range(len(X)):\n"
          "        w = w + y[i] * X[i]\n    return w")


def verdict(sources, names=("train",), **kwargs):
    return Program(sources, CONTEXT).verdict(list(names), kwargs.pop("forbidden", FORBIDDEN), **kwargs)


@pytest.mark.parametrize("sources", [
    [HONEST],
    [HONEST, "%timeit train(X4, y4)"],
    [HONEST, "%%time\nw = train(X4, y4)"],
    [HONEST, "%matplotlib inline"],
    [HONEST, "%timeit -p 3 -n 1 -r 1 train(X4, y4)"],
    [HONEST, "%%timeit -n 1 w0 = None\ntrain(X4, y4)"],
    [HONEST, "w = %time train(X4, y4)"],
    [HONEST, "match X4.shape:\n    case (n, d):\n        print(n, d)"],
    # a scratch cell that uses the package's Perceptron does not touch the graded function
    [HONEST, "from kpcourse.perceptron import Perceptron\nclf = Perceptron().fit(X4, y4)\nw = clf.coef_"],
    # a parameter named like a top-level variable is the parameter
    ["def train(X, y, w=None):\n    w = np.zeros(2) if w is None else w\n    return w",
     "import sklearn.linear_model as lm\nw = lm.Perceptron().fit(X4, y4).coef_"],
    ["def helper(X):\n    return X.sum()\n\ndef train(X, y):\n    return helper(X) * y"],
    ["class Model:\n    def __init__(self, n):\n        self.w = np.zeros(n)\n\n"
     "def train(X, y):\n    return Model(2).w"],
    # a comprehension's first iterable is the function's local, not a top-level name of that name
    ["def train(X, y):\n    ref = np.zeros(2)\n    return np.array([a for a in ref])",
     "from kpcourse.perceptron import KernelPerceptron\nref = KernelPerceptron()"],
    # comprehension variables and nested functions' locals in a "try it" cell are not top-level names
    ["def train(X, y):\n    return np.zeros(2) + helper_value",
     "helper_value = 1.0\nshown = [ref for ref in range(3)]",
     "from kpcourse.perceptron import Perceptron\nz = {k: Perceptron for k in 'ab'}\n"
     "if True:\n    def g():\n        helper_value = Perceptron\n        return helper_value"],
])
def test_honest_code_passes(sources):
    assert verdict(sources) == []


@pytest.mark.parametrize("chain", ["logging.sys.modules['kpcourse.perceptron']", "np._pytesttester.sys.modules",
                                   "torch.importlib.import_module('sklearn')", "pydoc.locate('kpcourse.perceptron')"])
def test_attribute_chains_to_the_module_table_are_escapes(chain):
    top = chain.split(".")[0]
    imports = {"np": "import numpy as np", "torch": "import torch"}.get(top, f"import {top}")
    got = verdict([f"{imports}\ndef train(X, y):\n    return {chain}"])
    assert got and "which the grader cannot check" in got[0], got


@pytest.mark.parametrize("sources,expected", [
    (["from kpcourse.perceptron import Perceptron\ndef train(X, y):\n    return Perceptron().fit(X, y).coef_"],
     "calling kpcourse.perceptron.Perceptron gets no credit"),
    (["import kpcourse.perceptron as ref\ndef train(X, y):\n    return ref.Perceptron().fit(X, y)"],
     "kpcourse.perceptron.Perceptron"),
    (["import kpcourse\ndef train(X, y):\n    return kpcourse.perceptron.Perceptron().fit(X, y)"],
     "kpcourse.perceptron.Perceptron"),
    (["from sklearn.linear_model import Perceptron as P\nhelper = lambda: P\ndef train(X, y):\n    return helper()"],
     "sklearn.linear_model.Perceptron"),
    (["def train(X, y):\n    from scipy.spatial.distance import cdist\n    return cdist(X, X)"],
     "scipy.spatial.distance.cdist"),
    (["from kpcourse.perceptron import Perceptron as P\ndef train(X, y):\n    def inner():\n        P = 0\n"
      "    return P().fit(X, y)"], "kpcourse.perceptron.Perceptron"),
    (["from kpcourse.perceptron import Perceptron\ndef train(X, y, k=Perceptron):\n    return k().fit(X, y)"],
     "kpcourse.perceptron.Perceptron"),
    (["def f():\n    global train\n    from sklearn.linear_model import Perceptron\n    train = Perceptron\nf()"],
     "sklearn.linear_model.Perceptron"),
    (["import kpcourse.perceptron as p\nnp.dot = p.Perceptron", "def train(X, y):\n    return np.dot(X, y)"],
     "kpcourse.perceptron.Perceptron"),
    (["def train(X, y):\n    import importlib\n    return importlib.import_module('kpcourse.perceptron')"],
     "calling kpcourse.perceptron"),
    (["def train(X, y, m='kpcourse'):\n    import importlib\n    return importlib.import_module(m + '.perceptron')"],
     "importlib.import_module"),
    (["def train(X, y, name='dot'):\n    return getattr(np, name)(X, y)"], "getattr"),
    (["import kpcourse.perceptron as m\ndef train(X, y):\n    return getattr(m, 'Perceptron')().fit(X, y)"],
     "calling kpcourse.perceptron.Perceptron"),
    (["def train(X, y):\n    import importlib\n    return importlib.import_module('sklearn.svm').SVC()"],
     "calling sklearn.svm"),
    (["def train(X, y):\n    import helper_i_wrote\n    return helper_i_wrote.train(X, y)"], "import helper_i_wrote"),
    (["def train(X, y):\n    import __main__\n    return __main__.reference(X, y)"], "import __main__"),
    (["def train(X, y):\n    return X.__class__.__subclasses__()"], "__class__"),
    (["exec(open('solution.py').read())", HONEST], "exec"),
    (["import builtins\nbuiltins.isinstance = lambda *a: True", HONEST], "builtins"),
    (["import sys\nsys.excepthook = lambda *a: None", HONEST], "sys"),
    (["get_ipython().set_custom_exc((Exception,), lambda *a, **k: None)", HONEST], "get_ipython"),
    (["!cat ../source/*/*.ipynb", HONEST], "get_ipython"),
    (["from kpcourse.perceptron import *", HONEST], "import *"),
    (["def train(X, y):\n    return np.load('ref.npy', allow_pickle=True)"], "allow_pickle"),
    (["def train(X, y):\n    import torch\n    return torch.load('model.pt')"], "torch.load"),
    (["train = __import__('kpcourse.perceptron').perceptron.Perceptron"], "kpcourse.perceptron"),
    (["train = __import__('kpcourse' + '.perceptron')"], "__import__"),
    # names bound by a match capture are bindings like any other
    (["import kpcourse.perceptron\nmatch kpcourse.perceptron.KernelPerceptron:\n    case KP:\n        pass",
      "def train(X, y):\n    return KP().fit(X, y)"], "kpcourse.perceptron.KernelPerceptron"),
    # the setup line of %%timeit runs in the notebook's namespace
    (["%%timeit -n 1 -r 1 import kpcourse.perceptron as p; train = p.Perceptron\npass"], "kpcourse.perceptron"),
    # %timeit with options: its code is read, not skipped
    (["%timeit -p 3 -n 1 -r 1 exec('train = 1')", HONEST], "exec"),
    # a get_ipython of one's own: the magics it would run are no longer IPython's
    (["def get_ipython():\n    return None", HONEST], "get_ipython"),
])
def test_forbidden_references_and_escapes_cost_the_credit(sources, expected):
    problems = verdict(sources, what="the training loop")
    assert problems and any(expected in p for p in problems), problems
    assert "the training loop" in " ".join(problems)


def test_allow_and_per_cell_forbidden():
    src = ["from kpcourse.datasets import worked_example as we\ndef train(X, y):\n    return we()"]
    assert verdict(src)
    assert verdict(src, allow=("kpcourse.datasets",)) == []
    assert verdict(["from sklearn.svm import SVC\ndef train(X, y):\n    return SVC()"], forbidden=("kpcourse",)) == []


@pytest.mark.parametrize("cell, why", [
    ("x = " + "1 + " * 100_000 + "1", "too deeply nested to read"),
    ("%timeit -x 3 train(X4, y4)", "options it does not take"),
    ("get_ipython().run_line_magic('timeit', code_from_elsewhere)", "not plain text"),
    ("%time %timeit %time %timeit %time exec('1')", "magics inside magics"),
])
def test_a_cell_that_would_run_but_cannot_be_read_costs_every_exercise(cell, why):
    program = Program([HONEST, cell], CONTEXT)
    problems = program.verdict(["train"], FORBIDDEN)
    assert problems and "the grader cannot check your cell 2" in problems[0] and why in problems[0], problems


def test_missing_and_unparsable_cells_are_not_errors():
    program = Program(["def train(X, y:\n    return 1"], CONTEXT)
    assert program.unparsable == 1
    assert program.verdict(["train"], FORBIDDEN) == []
    assert program.reach(["train"])[2] == ["train"]


def test_a_cell_only_the_compiler_refuses_is_not_an_error():
    program = Program(["nonlocal x", HONEST], CONTEXT)  # parses, but no scope table: it never runs
    assert program.unparsable == 1 and program.unreadable == []
    assert program.verdict(["train"], FORBIDDEN) == []


def test_loops_follow_helpers():
    program = Program(["def helper(X):\n    return [x for x in X]\n\ndef gram(X, Z):\n    return helper(X)",
                       "def vectorised(X, Z):\n    return X @ Z.T"], CONTEXT)
    assert program.loops(["gram"]) == ["helper"]
    assert program.loops(["vectorised"]) == []


def test_what_top_level_code_runs_decides_how_far_an_escape_reaches():
    graded = "def predict(X):\n    return X"
    reading = "def train(X, y, name='dot'):\n    return getattr(np, name)(X, y)"
    mutating = "def train(X, y):\n    exec('w = 1')\n    return X"
    # a function with an escape costs its own exercise; called by top-level code, an escape that
    # could redefine other names (exec) costs every exercise, one that only reads does not
    for escape, spreads in ((reading, False), (mutating, True)):
        program = Program([graded, escape, "train(X4, y4)"], CONTEXT)
        assert program.verdict(["train"], FORBIDDEN)
        assert bool(program.verdict(["predict"], FORBIDDEN)) == spreads
        quiet = Program([graded, escape], CONTEXT)
        assert quiet.verdict(["predict"], FORBIDDEN) == []


def test_importing_an_escape_module_is_not_using_it():
    assert verdict(["import sys\nimport os", HONEST]) == []
    assert verdict(["import os\ndef train(X, y):\n    return os.listdir('.')"])


def test_running_the_visible_checks_in_a_scratch_cell_is_fine():
    assert verdict([HONEST, "checks.diagnose_trace(train, aspect='trace')"]) == []
    # patching them is not: what the patch assigns counts for every graded function
    assert verdict([HONEST, "from kpcourse.perceptron import Perceptron\ncheck = Perceptron\n"
                            "checks.diagnose_trace = check"])


def test_literals_count_what_the_functions_reach_and_not_their_docstrings():
    helper = "def helper(x):\n    \"\"\"" + "A long docstring. " * 20 + "\"\"\"\n    return x * 2.5 + len('abc')\n"
    table = "TABLE = [" + ", ".join(str(i % 3) for i in range(178)) + "]\n"
    p = Program([helper, table, "def f(x):\n    return helper(x) + TABLE[0]\n", "def g(x):\n    return 1\n"])
    assert p.literals(["g"]) == (1, 1)
    assert p.literals(["helper"]) == (2, 3)  # 2.5 and 'abc'; the docstring is not data
    assert p.literals(["f"]) == (2 + 178 + 1, 3)  # through helper, TABLE and its own 0
    # a docstring counts where the code reads it, and a number counts its digits
    reads = Program([helper, "def h(x):\n    return helper.__doc__.split()[x]\n"])
    assert reads.literals(["h"])[1] == len("A long docstring. " * 20)
    assert Program(["def k():\n    return 12345678901234567890123\n"]).literals(["k"]) == (1, 23)
