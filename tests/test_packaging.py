"""Setup files agree with each other; importing kpcourse has no side effects."""

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONDA_NAMES = {"pytorch": "torch"}  # conda-forge name -> PyPI name


def _name_spec(req):
    m = re.match(r"^\s*([A-Za-z0-9_.\-]+)\s*(.*)$", req)
    return m.group(1).lower().replace("_", "-"), m.group(2).replace(" ", "")


def test_environment_yml_lists_the_same_requirements_as_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"])
    for extra in ("course", "dev"):
        reqs += project["optional-dependencies"][extra]
    from_pyproject = dict(_name_spec(r) for r in reqs)

    conda = {}
    lines = (ROOT / "environment.yml").read_text().splitlines()
    deps = lines[lines.index("dependencies:") + 1:]
    for line in deps:
        m = re.match(r"^  - ([^:]+)$", line)
        if m and not m.group(1).startswith(("python", "pip")):
            name, spec = _name_spec(m.group(1))
            conda[CONDA_NAMES.get(name, name)] = spec
    assert conda == from_pyproject
    assert any("python=3.11" in ln for ln in deps)
    assert any("-e .[course,dev]" in ln for ln in deps), "environment.yml must pip-install the package"


def test_constraints_pin_the_cpu_torch_and_only_known_packages():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = dict(line.split("==") for line in (ROOT / "constraints.txt").read_text().splitlines()
                if line and not line.startswith("#"))
    assert pins["torch"] == "2.13.0"
    assert project["requires-python"] == ">=3.11"  # tomllib (the checks' mistake tables); 3.10 ended in 2026-10


def test_import_has_no_side_effects():
    code = (
        "import sys, random, numpy as np\n"
        "state = np.random.get_state()[1].copy(); r = random.getstate()\n"
        "import kpcourse, kpcourse.kernels, kpcourse.gram, kpcourse.perceptron, kpcourse.datasets,"
        " kpcourse.plotting, kpcourse.checks\n"
        "assert (np.random.get_state()[1] == state).all() and random.getstate() == r, 'seeded at import'\n"
        "assert 'ipywidgets' not in sys.modules, 'widgets imported'\n"
        "assert 'matplotlib.pyplot' not in sys.modules, 'pyplot imported'\n"
        "import torch; assert not torch.cuda.is_initialized()\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def _kpcourse_imports():
    """Module -> kpcourse modules it imports (any import statement, at any level)."""
    import ast

    graph = {}
    for path in (ROOT / "kpcourse").rglob("*.py"):
        rel = path.relative_to(ROOT).with_suffix("")
        name = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        package = name if rel.name == "__init__" else name.rpartition(".")[0]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                deps |= {a.name for a in node.names if a.name.startswith("kpcourse")}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(parts + ([base] if base else []))
                if base.startswith("kpcourse"):
                    deps.add(base)
                    deps |= {f"{base}.{a.name}" for a in node.names}
        graph[name] = deps
    return {m: {d for d in deps if d in graph and d != m} for m, deps in graph.items()}


def test_no_import_cycles_in_the_package():
    graph = _kpcourse_imports()
    state = {}

    def visit(m, stack):
        state[m] = "open"
        for d in sorted(graph[m]):
            if state.get(d) == "open":
                raise AssertionError("import cycle: " + " -> ".join(stack[stack.index(d):] + [d]))
            if d not in state:
                visit(d, stack + [d])
        state[m] = "done"

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])


def test_students_package_holds_no_grader_file():
    """Hidden tests and references live beside the source notebooks, never in kpcourse/."""
    assert not list((ROOT / "kpcourse").rglob("grader.py"))
    # the references the graders share stay beside them (source/references.py), never in the package
    def bodies(path):
        return {ast.dump(ast.Module(n.body, [])): n.name for n in ast.walk(ast.parse(path.read_text()))
                if isinstance(n, ast.FunctionDef)}

    shared = bodies(ROOT / "source" / "references.py")
    for module in (ROOT / "kpcourse").rglob("*.py"):
        copied = [shared[b] for b in set(shared) & set(bodies(module))]
        assert not copied, f"{module} holds the graders' shared references {sorted(copied)}"
    for lesson in (ROOT / "kpcourse" / "checks").glob("lesson*.py"):
        text = lesson.read_text()
        assert "kpcourse.perceptron" not in text and "from kpcourse import perceptron" not in text, lesson


def test_nbformat_builds_no_parser_at_import():
    """jsonschema 4.24+ imports rfc3987-syntax, which builds a grammar at import time: 2.3 s in
    every process that imports nbformat (each nbgrader command, each grading sandbox).
    constraints.txt pins jsonschema 4.23, which does not import it."""
    code = "import sys, nbformat; assert 'rfc3987_syntax' not in sys.modules, 'rfc3987_syntax imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_grading_sandbox_executor_imports_no_nbgrader():
    """What runs in every sandbox (kpcourse.grading.sandbox.inside) imports neither nbgrader nor nbconvert."""
    code = ("import sys, kpcourse.grading.sandbox.inside, kpcourse.grading.sandbox.executor\n"
            "bad = [m for m in ('nbgrader', 'nbconvert') if m in sys.modules]\n"
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)
