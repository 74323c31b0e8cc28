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
cannot know what it defined.

The reading fails closed. A cell is read as the kernel reads it: IPython's own input
transformer turns magics into calls, the code that ``%time``/``%timeit`` run (line or cell,
setup line included, options parsed by IPython's own option parser) is read as top-level
code, and names are bound as Python's ``symtable`` binds them (``match`` captures included).
A cell that IPython cannot compile is not judged (it runs nothing); a cell that would run
but cannot be read (too deep to parse, a magic whose code is not plain text, options the
magic would not accept) costs every exercise its credit, with a message saying so. This
module imports only the standard library (and IPython's input transformer and option parser).
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
#: Magics whose argument is Python code that runs, with their option letters (as IPython parses them).
_CODE_MAGICS = {"time": None, "timeit": "n:r:tcp:qo"}
#: Magics a cell may use: the code magics (their code is read as the cell's own) and two that run none.
_MAGICS_OK = frozenset({*_CODE_MAGICS, "matplotlib", "precision"})


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
        self.unparsable = 0      # cells that IPython cannot compile either: they run nothing
        self.unreadable = []     # why a cell that would run could not be read (fails closed)
        self.star_imports = []   # `from module import *` in the student's cells
        for src in context_sources:
            tree, _ = _parse(src)
            if tree is not None:
                self._collect_imports(tree, context=True)
        for number, src in enumerate(student_sources, 1):
            tree, problem = _parse(src)
            if problem:
                self.unreadable.append(f"your cell {number} ({_first_line(src)}): {problem}")
            if tree is None:
                self.unparsable += problem is None
                continue
            try:
                self._collect_imports(tree, context=False)
                for stmt in tree.body:
                    self._bind(stmt)
            except (RecursionError, MemoryError):
                self.unreadable.append(f"your cell {number} ({_first_line(src)}): too deeply nested to read")

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
        for name in sorted(ESCAPE_BUILTINS & set(self.bindings)):  # e.g. a get_ipython of its own
            escapes.setdefault(name, "top-level code (it redefines it)")
        if called:  # functions that top-level code runs: only escapes that can redefine things count
            refs, more, _ = self.reach(sorted(called), patches=False)
            for esc in more:
                if not _covered(esc, READING_ESCAPES):
                    escapes.setdefault(esc, "top-level code (through a function it calls)")
        return escapes

    def _reached(self, names):
        """``(name, node)`` for each binding of the student's ``names``, of their own helpers and of the
        top-level names they read, and so on."""
        seen, todo = set(), list(names)
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            for node in self.bindings.get(name, []):
                yield name, node
                todo += [v for kind, v in _references(node, self.aliases) if kind == "name" and v in self.bindings]

    def loops(self, names):
        """The student's functions among ``names`` (or their own helpers) that contain a loop."""
        return sorted({name for name, node in self._reached(names)
                       if any(isinstance(n, (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp,
                                             ast.DictComp, ast.GeneratorExp)) for n in ast.walk(node))})

    def literals(self, names):
        """What the student's functions among ``names`` (with their own helpers and the top-level names
        they read) hold as data in their source: ``(count, longest)``, how many literals (numbers, strings,
        bytes) and the length of the longest as written (a string's or bytes' characters, a number's
        digits). Docstrings count only where the code reads ``__doc__``."""
        count, longest, docs_read, doc_length = 0, 0, False, 0
        for _, node in self._reached(names):
            docs = {id(n.body[0].value) for n in ast.walk(node)
                    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.body
                    and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)
                    and isinstance(n.body[0].value.value, str)}
            for sub in ast.walk(node):
                docs_read |= isinstance(sub, ast.Attribute) and sub.attr == "__doc__"
                if not isinstance(sub, ast.Constant) or isinstance(sub.value, bool) or sub.value is None:
                    continue
                size = len(sub.value) if isinstance(sub.value, (str, bytes)) else len(repr(sub.value))
                if id(sub) in docs:
                    doc_length = max(doc_length, size)
                else:
                    count, longest = count + 1, max(longest, size)
        return count, max(longest, doc_length if docs_read else 0)

    def verdict(self, names, forbidden, allow=(), what="the algorithm"):
        """Problems (strings) that cost the graded functions ``names`` their credit; [] if none."""
        problems = [f"the grader cannot check {u}: no credit for {what}. Keep every cell plain Python "
                    "(magics: %time and %timeit with their usual options)" for u in self.unreadable]
        if problems:
            return problems[:3]
        refs, escapes, _ = self.reach(names)
        escapes.update(self.top_level_escapes())
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
def _first_line(src):
    line = next((ln.strip() for ln in src.splitlines() if ln.strip()), "")
    return f"`{line[:40]}`" + ("..." if len(line) > 40 else "")


def _magic_code(tree):
    """The code that ``%time``/``%timeit`` calls in ``tree`` run (line, setup line and cell).

    Raises ``ValueError`` when that code cannot be known from the text.
    """
    snippets = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("run_line_magic", "run_cell_magic") and node.args
                and isinstance(node.args[0], ast.Constant) and node.args[0].value in _CODE_MAGICS):
            continue
        name = node.args[0].value
        if not all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in node.args[1:3]):
            raise ValueError(f"a %{name} whose code is not plain text")
        line = node.args[1].value if len(node.args) > 1 else ""
        if _CODE_MAGICS[name]:
            from IPython.core.magics.execution import ExecutionMagics

            try:
                _, line = ExecutionMagics(shell=None).parse_options(line, _CODE_MAGICS[name], posix=False,
                                                                   strict=False, preserve_non_opts=True)
            except Exception as exc:  # noqa: BLE001 - IPython's UsageError: the magic would not run either
                raise ValueError(f"a %{name} with options it does not take ({exc})") from None
        snippets.append(line)
        if node.func.attr == "run_cell_magic" and len(node.args) > 2:
            snippets.append(node.args[2].value)
    return snippets


def _parse(src, depth=0):
    """``(tree, problem)`` of one cell, read as the kernel reads it.

    ``(None, None)``: IPython cannot compile the cell, so it runs nothing. ``(None, why)``: it
    would run but cannot be read (the policy fails closed on it).
    """
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        text = TransformerManager().transform_cell(src)
    except Exception as exc:  # noqa: BLE001 - anything IPython's transformer raises
        return None, f"IPython's reading of it failed ({type(exc).__name__})"
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):  # a syntax error or a null byte: the kernel cannot compile it either
        return None, None
    except (RecursionError, MemoryError):
        return None, "too deeply nested to read"
    try:
        snippets = _magic_code(tree)
    except ValueError as exc:
        return None, str(exc)
    extra = []
    for code in snippets:  # the magic's code, read the same way (magics inside it included)
        if depth >= 3:
            return None, "magics inside magics"
        sub, problem = _parse(code, depth + 1)
        if problem:
            return None, problem
        if sub is not None:
            extra.append(ast.unparse(sub))
    try:
        if extra:
            text = text + "\n" + "\n".join(extra)
            tree = ast.parse(text)
        _mark_locals(tree, symtable.symtable(text, "<cell>", "exec"))
    except SyntaxError:  # what only the compiler refuses (`nonlocal` or `return` at top level)
        return None, None
    except (RecursionError, MemoryError):
        return None, "too deeply nested to read"
    return tree, None


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
    try:  # Python's own view of what the statement binds at top level (match captures included)
        table = symtable.symtable(ast.unparse(stmt), "<statement>", "exec")
        names += [sym.get_name() for sym in table.get_symbols() if sym.is_assigned() or sym.is_imported()]
    except (SyntaxError, ValueError):  # a statement that only parses in its cell (e.g. a bare `return`)
        pass
    for node in _walk_scope(stmt):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.append(node.id)
        elif isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            names.append(node.target.id)  # := binds in the enclosing scope, even in a comprehension
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not stmt:
            names.append(node.name)  # defined inside if/try/with at top level
    return list(dict.fromkeys(names))


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


def _allowed_magic(call):
    """``get_ipython().run_line_magic(<a magic of _MAGICS_OK>, "...")``, or the cell form of
    ``%%time``/``%%timeit``, with text arguments: what IPython's transformer writes for them."""
    f = call.func
    if not (isinstance(f, ast.Attribute) and f.attr in ("run_line_magic", "run_cell_magic")
            and isinstance(f.value, ast.Call) and isinstance(f.value.func, ast.Name)
            and f.value.func.id == "get_ipython" and not f.value.args and not f.value.keywords
            and call.args and not call.keywords
            and all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in call.args)):
        return False
    magic = call.args[0].value
    return magic in _CODE_MAGICS if f.attr == "run_cell_magic" else magic in _MAGICS_OK


def _references(node, aliases):
    """Yield ("name", n), ("dotted", "pkg.mod.attr") and ("escape", what) found under ``node``."""
    skip, magics = set(), set()
    for sub in ast.walk(node):  # constant dynamic lookups: resolved, their parts not judged again
        if isinstance(sub, ast.Call):
            if _allowed_magic(sub):  # %time, %timeit (their code is read as the cell's own), %matplotlib
                magics.add(id(sub))
                continue
            target = _constant_lookup(sub, aliases)
            if target is not None:
                skip.add(id(sub))
    for sub in _walk(node, skip | magics):
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
                # the allowed magics were left out above (_allowed_magic): any other is an escape
                magic = sub.args[0].value if sub.args and isinstance(sub.args[0], ast.Constant) else None
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
