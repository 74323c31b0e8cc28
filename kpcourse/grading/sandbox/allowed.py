"""What a submission's kernel can import while it is graded: the rest is absent, not forbidden.

The source policy (:mod:`kpcourse.grading.judge.policy`) reads the student's code for calls of a reference;
Python has more ways to name a module than any reader can follow. So the sandbox also
*lacks* the references: it sees a trimmed copy of the ``kpcourse`` package that holds
only what the assignment allows (the checks, the course data and the plots by default,
plus the modules they import), and in place of scikit-learn and SciPy a package whose
import fails with a clear message. What is not there cannot be called, whatever route
the code takes to it.

A grader file widens this with ``SANDBOX_ALLOW`` (dotted names), e.g.
``("kpcourse.perceptron", "sklearn", "scipy")`` where an exercise fits the package's
model: ``kpcourse.X`` adds that part of the package (and what it imports); a top-level
name keeps that installed package. This module imports only the standard library.
"""

from __future__ import annotations

import ast
import glob
import importlib.util
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Allowed", "DEFAULT_PACKAGE", "ABSENT"]

#: The parts of kpcourse every graded notebook may import (and the sandbox's own runner).
DEFAULT_PACKAGE = ("checks", "datasets", "data", "plotting")
#: Installed packages that are absent from the sandbox unless a grader file allows them.
ABSENT = ("sklearn", "scipy")
#: The only files of kpcourse.grading the sandbox needs: its runners (a notebook; the grader's own runs
#: of calls) and executor.
_GRADING_FILES = ("__init__.py", "sandbox/__init__.py", "sandbox/inside.py", "sandbox/executor.py",
                  "sandbox/limits.py", "judge/__init__.py", "judge/rerun.py")

_STUB = '''"""Absent while this assignment is graded."""
raise ImportError("{name} is not available while this assignment is graded: the exercises ask "
                  "for your own code with NumPy (the grader file's SANDBOX_ALLOW decides what is there)")
'''


def _package_dir():
    import kpcourse

    return Path(kpcourse.__file__).resolve().parent


@dataclass(frozen=True)
class Allowed:
    """What a sandbox holds: ``extra`` widens the default (see module doc).

    Parameters
    ----------
    extra : tuple of str, default=()
        ``"kpcourse.<part>"`` or the top-level name of an installed package.
    """

    extra: tuple = ()

    def __post_init__(self):
        parts = {p.name.removesuffix(".py") for p in _package_dir().iterdir()}
        for name in self.extra:
            top, _, rest = str(name).partition(".")
            if top == "kpcourse":
                if rest.split(".")[0] not in parts:
                    raise ValueError(f"SANDBOX_ALLOW names {name!r}, which is not a part of the kpcourse package "
                                     f"(its parts: {', '.join(sorted(p for p in parts if not p.startswith('__')))})")
            elif rest or importlib.util.find_spec(top) is None:
                raise ValueError(f"SANDBOX_ALLOW names {name!r}: give kpcourse.<part> or the top-level name of "
                                 "an installed package (e.g. 'sklearn')")

    @classmethod
    def of_grader(cls, grader):
        """The grader file's ``SANDBOX_ALLOW`` (a module loaded by
        :func:`kpcourse.grading.judge.trusted.load_grader`)."""
        return cls(tuple(getattr(grader, "SANDBOX_ALLOW", ())))

    def parts(self):
        """The parts of kpcourse in the sandbox: the default and the extras, with what they import."""
        wanted = list(DEFAULT_PACKAGE) + [n.split(".")[1] for n in self.extra if n.startswith("kpcourse.")]
        root, done = _package_dir(), set()
        while wanted:
            part = wanted.pop()
            if part in done or part == "grading":
                continue
            done.add(part)
            wanted.extend(_imported_parts(root, part))
        return sorted(done)

    def absent(self):
        """The installed packages the sandbox replaces by a failing stand-in."""
        return [name for name in ABSENT if name not in self.extra and importlib.util.find_spec(name) is not None]

    def overlays(self, scratch):
        """Build the trimmed package and the stand-ins in ``scratch``; ``[(source, destination)]``."""
        scratch, root = Path(scratch), _package_dir()
        trimmed = scratch / "kpcourse"
        trimmed.mkdir(mode=0o755)
        # compiled files come along with their modules only (their source's times are kept, so
        # they stay valid): the sandbox writes none, and compiling the checks anew costs every kernel
        _copy_module(root / "__init__.py", trimmed)
        for part in self.parts():
            source = root / part if (root / part).is_dir() else root / f"{part}.py"
            if source.is_dir():  # its modules and its data files (tables of hints, probes)
                for path in sorted(source.rglob("*")):
                    if not path.is_file() or "__pycache__" in path.parts or path.suffix == ".pyc":
                        continue
                    if path.suffix == ".py":
                        _copy_module(path, trimmed / path.parent.relative_to(root))
                    else:
                        (trimmed / path.parent.relative_to(root)).mkdir(parents=True, exist_ok=True)
                        shutil.copy2(path, trimmed / path.relative_to(root))
            elif source.is_file():
                _copy_module(source, trimmed)
        for name in _GRADING_FILES:
            _copy_module(root / "grading" / name, (trimmed / "grading" / name).parent)
        pairs = [(trimmed, root)]
        for name in self.absent():
            where = importlib.util.find_spec(name).submodule_search_locations
            if not where:
                continue
            stub = scratch / "absent" / name
            stub.mkdir(parents=True)
            (stub / "__init__.py").write_text(_STUB.format(name=name))
            pairs.append((stub, Path(list(where)[0]).resolve()))
        empty = scratch / "empty"
        empty.mkdir()
        pairs += [(empty, folder) for folder in foreign_site_packages()]
        _readable(scratch)
        return pairs


def foreign_site_packages():
    """Folders of installed packages that the grader's own Python does not use (the base
    interpreter's, the system's): empty in the sandbox, so that no path added to ``sys.path``
    reaches a package the assignment leaves out."""
    own = {str(Path(p).resolve()) for p in sys.path if p and Path(p).is_dir()}
    roots = {sys.base_prefix, sys.prefix, sys.exec_prefix, "/usr", "/usr/local", "/opt/conda"}
    patterns = ("lib/python3*/site-packages", "lib/python3*/dist-packages", "lib/python3/dist-packages",
                "local/lib/python3*/site-packages", "local/lib/python3*/dist-packages")
    found = {str(Path(p).resolve()) for r in roots for pat in patterns for p in glob.glob(f"{r}/{pat}")}
    return sorted(p for p in found if Path(p).is_dir() and p not in own)


def _copy_module(path, folder):
    """Copy the module ``path`` into ``folder``, with its own compiled files and nothing else."""
    folder.mkdir(mode=0o755, parents=True, exist_ok=True)
    shutil.copy2(path, folder / path.name)
    for pyc in (path.parent / "__pycache__").glob(f"{path.stem}.*.pyc"):
        (folder / "__pycache__").mkdir(exist_ok=True)
        shutil.copy2(pyc, folder / "__pycache__" / pyc.name)


def _readable(top):
    top.chmod(0o755)
    for path in top.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)


def _imported_parts(root, part):
    """The other parts of kpcourse that the files of ``part`` import (absolute or relative)."""
    source = root / part if (root / part).is_dir() else root / f"{part}.py"
    files = sorted(source.rglob("*.py")) if source.is_dir() else [source] if source.is_file() else []
    found = set()
    for path in files:
        package = ["kpcourse", *path.relative_to(root).with_suffix("").parts]
        if package[-1] == "__init__":
            package = package[:-1]
        else:
            package = package[:-1]
        try:
            tree = ast.parse(path.read_text())
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                module = [*base, *(node.module.split(".") if node.module else [])]
                names = [".".join(module)] + [".".join([*module, a.name]) for a in node.names] \
                    if node.level or node.module else []
            else:
                continue
            for name in names:
                bits = name.split(".")
                if len(bits) > 1 and bits[0] == "kpcourse" and bits[1] != part:
                    found.add(bits[1])
    parts = {p.name.removesuffix(".py") for p in root.iterdir()}
    return sorted(found & parts)
