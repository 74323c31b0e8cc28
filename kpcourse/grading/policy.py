"""Did the student write it, or call it? Decided from the source, parsed and never run.

The grader reads the student's cells of a submitted notebook as text and builds, for
each graded function, everything it can reach: the student's own top-level
definitions it names (transitively), the modules and names it imports. A graded
function earns nothing when that reach includes

* a **forbidden reference**: a dotted name under one of the cell's forbidden prefixes
  (``kpcourse``, ``sklearn``, … as configured per assignment), however it was
  imported or aliased;
* a **way around this analysis**: ``exec``/``eval``/``compile``/``__import__``/
  ``getattr``/``globals``/``open``…, modules such as ``importlib``, ``sys``, ``os``,
  ``inspect``, ``pickle``, loaders that unpickle (``numpy.load``, ``torch.load``),
  or dunder attributes (``__dict__``, ``__globals__``, ``__subclasses__``);
* and the same for top-level code that patches a library (``np.dot = ...``): what it
  assigns counts as reachable from every graded function.

Top-level code that uses a way around the analysis taints every exercise: the grader
cannot know what it defined. This module imports only the standard library (and
IPython's input transformer, to read ``%magics``).
"""

from __future__ import annotations

import ast
import importlib.util
import symtable
import sys

__all__ = ["Program"]

ESCAPE_BUILTINS = frozenset({
    "exec", "eval", "compile", "__import__", "getattr", "setattr", "delattr", "globals", "locals",
    "vars", "open", "breakpoint", "input", "help", "memoryview", "__builtins__", "__loader__",
    "__spec__", "get_ipython", "exit", "quit", "_ih", "_oh", "In", "Out",
})
ESCAPE_MODULES = frozenset({
    "importlib", "builtins", "sys", "os", "subprocess", "inspect", "runpy", "ctypes", "pickle",
    "_pickle", "marshal", "types", "gc", "code", "codeop", "shutil", "pathlib", "io", "socket",
    "signal", "multiprocessing", "threading", "_thread", "atexit", "pty", "imp", "zipimport",
    "pkgutil", "dill", "cloudpickle", "joblib", "tempfile", "glob", "fileinput", "linecache",
    "IPython", "ipykernel", "jupyter_client", "nbformat", "nbclient", "nbgrader", "resource",
    "mmap", "posix", "shelve", "dbm", "sqlite3", "urllib", "http", "requests", "asyncio",
    "concurrent", "functools.partial", "operator.attrgetter", "operator.methodcaller",
    "numpy.load", "numpy.lib", "numpy.ctypeslib", "numpy.f2py", "numpy.distutils", "numpy.testing",
    "torch.load", "torch.jit", "torch.hub", "torch.package", "torch.utils", "torch.ops",
    "torch.library", "torch._C", "torch.classes", "kpcourse.grading",
    "pandas.read_pickle", "pydoc",
})
#: Module names that, reached as an attribute of another module (``logging.sys``, ``torch.importlib``,
#: ``np._pytesttester.sys``), are a way to every other module: an escape wherever they appear in a chain.
ESCAPE_ATTRIBUTES = frozenset({"sys", "_sys", "os", "_os", "importlib", "builtins", "subprocess", "pydoc",
                               "ctypes", "gc", "inspect", "runpy", "pickle", "imp", "pkgutil"})
#: Escapes that can read but not redefine the notebook's names: reached through a function that
#: top-level code calls, they cost that function's exercise only (the others, e.g. exec or
#: importlib with a computed name, could define anything, so they cost every exercise).
READING_ESCAPES = frozenset({"getattr", "open", "inspect", "os", "pathlib", "io", "glob", "shutil", "tempfile",
                             "signal", "subprocess", "socket", "resource", "linecache", "fileinput", "input",
                             "help", "breakpoint", "memoryview"})
_ALLOWED_DUNDERS = frozenset({"__init__", "__name__", "__doc__", "__len__", "__call__", "__eq__",
                              "__lt__", "__repr__", "__str__", "__iter__", "__next__", "__getitem__"})
_MAGICS_OK = frozenset({"time", "timeit", "matplotlib", "precision"})


class Program:
    """The student's cells as parsed text: top-level bindings, imports, patches, escapes.

    Parameters
    ----------
    student_sources : list of str
        The student's cells (solution cells and cells they added), in notebook order.
    context_sources : list of str
        Locked cells of the assignment (setup, tests): their imports name modules the
        student's code may use (``np``); nothing in them is judged.
    """

    def __init__(self, student_sources, context_sources=()):
        self.aliases = {}        # name -> dotted module path / imported name
        self.bindings = {}       # top-level name -> list of AST nodes that bind it
        self.patch_nodes = []    # top-level statements assigning to attributes / subscripts of imports
        self.top_nodes = []      # every other top-level statement (not a def, class or import)
        self.unparsable = 0
        self.star_imports = []   # `from module import *` in the student's cells
        for src in context_sources:
            tree = _parse(src)
            if tree is not None:
                self._collect_imports(tree, context=True)
        for src in student_sources:
            tree = _parse(src)
            if tree is None:
                self.unparsable += 1
                continue
            self._collect_imports(tree, context=False)
            for stmt in tree.body:
                self._bind(stmt)

    # ---------------------------------------------------------------- building
    def _collect_imports(self, tree, context):
        for node in tree.body if context else ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    self.aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for a in node.names:
                    self.aliases[a.asname or a.name] = f"{node.module}.{a.name}"

    def _bind(self, stmt):
        names = _bound_names(stmt)
        if isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names):
            self.star_imports.append(stmt)
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for n in names:
                self.bindings.setdefault(n, []).append(stmt)
            return
        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(isinstance(t, (ast.Attribute, ast.Subscript)) for t in _flat_targets(targets)):
                self.patch_nodes.append(stmt)
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names += [n for sub in ast.walk(stmt) if isinstance(sub, ast.Global) for n in sub.names]
        for n in names:
            self.bindings.setdefault(n, []).append(stmt)
        if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.top_nodes.append(stmt)

    # ---------------------------------------------------------------- queries
    def reach(self, names, patches=True):
        """Dotted references and escapes reachable from the student's ``names``.

        Returns ``(refs, escapes, missing)``: ``refs`` maps each dotted reference to the
        student name whose code uses it; ``escapes`` likewise for ways around the
        analysis; ``missing`` the names that no student cell defines.
        """
        refs, escapes, missing, used = {}, {}, [], set()
        seen, todo = set(), [(n, n) for n in names]
        extra = [(node, "top-level code that changes a library") for node in self.patch_nodes] if patches else []
        while todo or extra:
            if extra:
                node, owner = extra.pop()
                nodes = [node]
            else:
                name, owner = todo.pop()
                if name in seen:
                    continue
                seen.add(name)
                nodes = self.bindings.get(name)
                if not nodes:
                    if name in self.aliases:
                        refs.setdefault(self.aliases[name], name)
                        used.add(self.aliases[name])
                    elif name in names:
                        missing.append(name)
                    continue
            for node in nodes:
                for kind, value in _references(node, self.aliases):
                    if kind == "name":
                        if value in self.bindings and value not in seen:
                            todo.append((value, owner))
                        elif value in ESCAPE_BUILTINS:
                            escapes.setdefault(value, owner)
                        elif value in self.aliases:
                            refs.setdefault(self.aliases[value], owner)
                            used.add(self.aliases[value])
                    elif kind == "dotted":
                        refs.setdefault(value, owner)
                        used.add(value)
                    elif kind == "import":  # importing is no escape; using what it names may be
                        refs.setdefault(value, owner)
                    else:
                        escapes.setdefault(value, owner)
        for ref, owner in list(refs.items()):
            if ref in used and _covered(ref, ESCAPE_MODULES):
                escapes.setdefault(ref, owner)
        return refs, escapes, missing

    def top_level_escapes(self):
        """Ways around the analysis that top-level code (outside functions) reaches."""
        escapes = {}
        for node in self.top_nodes:
            for kind, value in _references(node, self.aliases):
                if kind == "escape" or (kind == "name" and value in ESCAPE_BUILTINS):
                    escapes.setdefault(value, "top-level code")
                elif kind == "dotted" and _covered(value, ESCAPE_MODULES):
                    escapes.setdefault(value, "top-level code")
        called = {v for node in self.top_nodes for k, v in _references(node, self.aliases)
                  if k == "name" and (v in self.bindings or v in self.aliases)}
        for node in self.star_imports:
            escapes.setdefault(f"from {node.module} import *", "top-level code")
        if called:  # functions that top-level code runs: only escapes that can redefine things count
            refs, more, _ = self.reach(sorted(called), patches=False)
            for esc in more:
                if not _covered(esc, READING_ESCAPES):
                    escapes.setdefault(esc, "top-level code (through a function it calls)")
        return escapes

    def loops(self, names):
        """The student's functions among ``names`` (or their own helpers) that contain a loop."""
        found, seen, todo = [], set(), list(names)
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            for node in self.bindings.get(name, []):
                if any(isinstance(n, (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp,
                                      ast.DictComp, ast.GeneratorExp)) for n in ast.walk(node)):
                    found.append(name)
                for kind, value in _references(node, self.aliases):
                    if kind == "name" and value in self.bindings:
                        todo.append(value)
        return sorted(set(found))

    def verdict(self, names, forbidden, allow=(), what="the algorithm"):
        """Problems (strings) that cost the graded functions ``names`` their credit; [] if none."""
        refs, escapes, _ = self.reach(names)
        escapes.update(self.top_level_escapes())
        problems = []
        flagged = [r for r in refs if _covered(r, forbidden) and not _covered(r, allow)]
        refs = {r: o for r, o in refs.items() if r in flagged and not any(f.startswith(r + ".") for f in flagged)}
        escapes = {e: o for e, o in escapes.items() if not any(f.startswith(e + ".") for f in escapes)}
        for ref, owner in sorted(refs.items()):
            problems.append(f"this exercise asks you to write {what} yourself; calling {ref} "
                            "gets no credit" + (f" (used by {owner})" if owner not in names else ""))
        for esc, owner in sorted(escapes.items()):
            problems.append(
                f"{owner} uses `{esc}`, which the grader cannot check: no credit for {what}. "
                "Write it with plain Python and NumPy (no exec/eval/getattr/importlib/open/sys/os, "
                "no dunder attributes, no patching of libraries)")
        return problems[:3]


# ------------------------------------------------------------------- helpers
def _strip_safe_magics(src):
    """Keep the code of %time/%timeit lines and drop %matplotlib; other magics stay as they are."""
    lines = src.splitlines()
    if lines and lines[0].strip().split(" ")[0] in ("%%time", "%%timeit"):
        lines = lines[1:]
    out = []
    for ln in lines:
        s = ln.lstrip()
        word = s.split(" ")[0]
        if word in ("%time", "%timeit"):
            rest = s[len(word):].strip()
            while rest.startswith("-"):  # options such as -n 10 -r 3
                parts = rest.split(" ", 2)
                rest = parts[2] if len(parts) > 2 and parts[0] in ("-n", "-r") else " ".join(parts[1:])
            out.append(ln[: len(ln) - len(s)] + rest)
        elif word in ("%matplotlib", "%precision"):
            out.append(ln[: len(ln) - len(s)] + "pass")
        else:
            out.append(ln)
    return "\n".join(out)


def _parse(src):
    src = _strip_safe_magics(src)
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        src = TransformerManager().transform_cell(src)
    except Exception:  # noqa: BLE001 - fall back to the raw text
        pass
    try:
        tree = ast.parse(src)
        table = symtable.symtable(src, "<cell>", "exec")
    except (SyntaxError, ValueError):
        return None
    _mark_locals(tree, table)
    return tree


_SCOPES = {ast.FunctionDef: None, ast.AsyncFunctionDef: None, ast.ClassDef: None, ast.Lambda: "lambda",
           ast.ListComp: "listcomp", ast.SetComp: "setcomp", ast.DictComp: "dictcomp",
           ast.GeneratorExp: "genexpr"}


def _mark_locals(tree, module_table):
    """Set ``node._kp_local = True`` on every Name that is not a module global in its scope.

    Uses :mod:`symtable`, Python's own scope analysis, so that a parameter or local
    variable that shares its name with a top-level binding is not mistaken for it.
    """
    def children(table):
        out = {}
        for t in table.get_children():
            out.setdefault((t.get_name(), t.get_lineno()), []).append(t)
        return out

    def visit(node, table, kids, is_module):
        kind = type(node)
        if kind in _SCOPES:
            name = getattr(node, "name", None) or _SCOPES[kind]
            candidates = kids.get((name, node.lineno), [])
            child = candidates.pop(0) if candidates else None
            # parts evaluated in the enclosing scope
            outer = list(getattr(node, "decorator_list", []))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                outer += list(node.args.defaults) + [d for d in node.args.kw_defaults if d is not None]
            if isinstance(node, ast.ClassDef):
                outer += list(node.bases) + [k.value for k in node.keywords]
            if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                outer.append(node.generators[0].iter)
            for o in outer:
                visit(o, table, kids, is_module)
            if child is None:  # unknown scope: judge its names as globals (stricter)
                inner_nodes = [n for n in ast.iter_child_nodes(node) if n not in outer]
                for n in inner_nodes:
                    visit(n, table, kids, is_module)
                return
            inner_kids = children(child)
            skip = {id(o) for o in outer}
            for n in ast.iter_child_nodes(node):
                if id(n) not in skip:
                    visit(n, child, inner_kids, False)
            return
        if isinstance(node, ast.Name) and not is_module and not hasattr(node, "_kp_local"):
            # (a comprehension's first iterable is reached twice: first from the enclosing scope,
            # where it is evaluated, then as a child of the comprehension; the first visit decides)
            try:
                sym = table.lookup(node.id)
                node._kp_local = not (sym.is_global() or sym.is_declared_global() or sym.is_imported())
            except KeyError:
                node._kp_local = False
        for n in ast.iter_child_nodes(node):
            visit(n, table, kids, is_module)

    top_kids = children(module_table)
    for stmt in tree.body:
        visit(stmt, module_table, top_kids, True)


def _flat_targets(targets):
    for t in targets:
        if isinstance(t, (ast.Tuple, ast.List)):
            yield from _flat_targets(t.elts)
        else:
            yield t


def _bound_names(stmt):
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [stmt.name]
    if isinstance(stmt, ast.Import):
        return [a.asname or a.name.split(".")[0] for a in stmt.names]
    if isinstance(stmt, ast.ImportFrom):
        return [a.asname or a.name for a in stmt.names if a.name != "*"]
    names = []
    for node in _walk_scope(stmt):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.append(node.id)
        elif isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            names.append(node.target.id)  # := binds in the enclosing scope, even in a comprehension
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not stmt:
            names.append(node.name)  # defined inside if/try/with at top level
    return names


_INNER_SCOPES = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda)


def _walk_scope(stmt):
    """``ast.walk`` of one top-level statement without what is local to the scopes inside it:
    comprehensions and lambdas (their variables are not top-level names; their walrus targets
    and first iterables, which belong to the enclosing scope, are kept) and nested functions
    and classes (only their own name is bound here)."""
    todo = [stmt]
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not stmt:
            continue  # its name is bound here; its body's names are its own
        if isinstance(node, _INNER_SCOPES):
            todo.extend(n for n in ast.walk(node) if isinstance(n, ast.NamedExpr))
            if not isinstance(node, ast.Lambda):
                todo.append(node.generators[0].iter)
            continue
        todo.extend(ast.iter_child_nodes(node))


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return list(reversed(parts))
    return None


def _base(node):
    while isinstance(node, ast.Attribute):
        node = node.value
    return node


def _walk(node, skip):
    """``ast.walk`` that does not enter the nodes whose id is in ``skip``."""
    todo = [node]
    while todo:
        sub = todo.pop()
        if id(sub) in skip:
            continue
        yield sub
        todo.extend(ast.iter_child_nodes(sub))


def _constant_lookup(call, aliases):
    """The dotted name a constant-argument dynamic lookup names, else ``None``.

    ``importlib.import_module("kpcourse.perceptron")``, ``__import__("sklearn")`` and
    ``getattr(module, "Perceptron")`` (``module`` an import) are treated as the plain
    references they spell; with computed arguments they remain ways around the analysis.
    """
    if not call.args or not all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in call.args[-1:]):
        return None
    parts = _dotted(call.func)
    if not parts:
        return None
    name = ".".join([aliases.get(parts[0], parts[0]), *parts[1:]])
    if name in ("importlib.import_module", "__import__") and len(call.args) == 1:
        target = call.args[0].value
        return None if target.split(".")[0] in ("__main__", "builtins", "sys") else target
    if name == "getattr" and len(call.args) == 2:
        base = _dotted(call.args[0])
        if base and base[0] in aliases and not getattr(_base(call.args[0]), "_kp_local", False):
            attr = call.args[1].value
            if not attr.startswith("__"):
                return ".".join([aliases[base[0]], *base[1:], attr])
    return None


def _references(node, aliases):
    """Yield ("name", n), ("dotted", "pkg.mod.attr") and ("escape", what) found under ``node``."""
    skip = set()
    for sub in ast.walk(node):  # constant dynamic lookups: resolved, their parts not judged again
        if isinstance(sub, ast.Call):
            target = _constant_lookup(sub, aliases)
            if target is not None:
                skip.add(id(sub))
    for sub in _walk(node, skip):
        if isinstance(sub, ast.Name):
            if not getattr(sub, "_kp_local", False):
                yield "name", sub.id
        elif isinstance(sub, ast.Attribute):
            if sub.attr.startswith("__") and sub.attr not in _ALLOWED_DUNDERS:
                yield "escape", sub.attr
            parts = _dotted(sub)
            if parts and parts[0] in aliases and not getattr(_base(sub), "_kp_local", False):
                yield "dotted", ".".join([aliases[parts[0]], *parts[1:]])
                chain = [aliases[parts[0]].split(".")[-1], *parts[1:]]
                for i, attr in enumerate(chain[1:], 1):
                    if attr in ESCAPE_ATTRIBUTES:
                        yield "escape", ".".join(chain[: i + 1])
                        break
        elif isinstance(sub, ast.Import):
            for a in sub.names:
                yield "import", a.name
                if not _installed(a.name):
                    yield "escape", f"import {a.name}"
        elif isinstance(sub, ast.ImportFrom):
            if sub.level:
                yield "escape", "a relative import"
            elif sub.module:
                if not _installed(sub.module):
                    yield "escape", f"import {sub.module}"
                for a in sub.names:
                    yield "import", sub.module if a.name == "*" else f"{sub.module}.{a.name}"
        elif isinstance(sub, ast.keyword) and sub.arg == "allow_pickle":
            yield "escape", "allow_pickle"
        elif isinstance(sub, ast.Call):
            parts = _dotted(sub.func)
            if parts and parts[-1] in ("run_line_magic", "run_cell_magic", "system", "getoutput"):
                magic = sub.args[0].value if sub.args and isinstance(sub.args[0], ast.Constant) else None
                if parts[-1] != "run_line_magic" or magic not in _MAGICS_OK:
                    yield "escape", f"%{magic or parts[-1]}"
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str) and "__" in sub.value \
                and any(w in sub.value for w in ("__import__", "__builtins__", "__globals__", "__subclasses__",
                                                  "__main__")):
            yield "escape", "a string naming a dunder"
    for sub in ast.walk(node):
        if id(sub) in skip:
            yield "dotted", _constant_lookup(sub, aliases)


def _installed(module):
    """Whether ``module`` is an installed module (never one a submission wrote itself)."""
    top = module.split(".")[0]
    if top in ("__main__",):
        return False
    if top in sys.builtin_module_names or top in sys.stdlib_module_names:
        return True
    try:
        return importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):
        return False


def _covered(ref, prefixes):
    return any(ref == p or ref.startswith(p + ".") for p in prefixes)
