"""What of a student's cells the grader's own run executes: their definitions, nothing else.

The hidden tests are decided in a fresh interpreter of the grader's (:mod:`kpcourse.grading.judge.rerun`), where
no statement of the student's has run except the definitions the graded functions need.
:func:`definitions` reads each of the student's cells as the kernel reads it (IPython's
input transformer, :func:`kpcourse.grading.judge.policy._parse`) and keeps, at top level,

* imports (the sandbox holds the allowed packages only);
* ``def`` and ``class`` statements whose decorators, default values, bases and class
  bodies run no code of the student's (:data:`SAFE_DECORATORS`; annotations of functions are
  dropped, they never run);
* assignments of **constants** to plain names: literals, containers, arithmetic,
  comprehensions and lambdas, names kept earlier, and calls of a few builtins
  (:data:`SAFE_BUILTINS`), of NumPy's and ``math``'s functions (not their files,
  callbacks or settings, :data:`_NOT_NUMPY`) and of a few pure functions such as
  ``json.loads`` (:data:`_CONSTANT_FUNCTIONS`), on constants, and methods of constants.

Everything else (a call of the student's own function, ``print``, a loop, an attribute
assignment, a patch of a library, a magic) is left out: it never runs where points are
decided. What a statement left out would have bound is reported, so that a graded function
that needs it can be told why it is missing (:attr:`Kept.left_out`).

Why this is enough: no student code runs before the grader's calls, since a kept statement
can only call trusted code (NumPy, ``math``, builtins) on values that are not the student's
functions or classes; the class hooks that Python calls on its own (``__init_subclass__``,
``__set_name__``, ``__class_getitem__``, ``__mro_entries__``) are refused.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

__all__ = ["Kept", "definitions", "SAFE_BUILTINS", "SAFE_DECORATORS"]

#: Builtins a constant may call (types and pure functions of values).
SAFE_BUILTINS = frozenset({
    "float", "int", "complex", "bool", "str", "bytes", "tuple", "list", "dict", "set", "frozenset", "range",
    "len", "abs", "min", "max", "sum", "round", "sorted", "reversed", "enumerate", "zip", "pow", "divmod",
    "all", "any", "slice", "object",
})
#: Decorators a kept function or class may carry (dotted names as the student wrote them, or
#: reached from an imported module: ``functools.lru_cache``, ``np.vectorize``).
SAFE_DECORATORS = frozenset({"staticmethod", "classmethod", "property", "functools.lru_cache", "functools.cache",
                             "functools.cached_property", "numpy.vectorize", "dataclasses.dataclass"})
#: Modules whose functions a constant may call.
_CONSTANT_MODULES = ("numpy", "math", "fractions", "decimal")
#: Functions of other modules a constant may call (pure functions of their arguments).
_CONSTANT_FUNCTIONS = frozenset({"json.loads", "collections.namedtuple", "collections.OrderedDict",
                                 "collections.Counter", "itertools.product", "itertools.combinations",
                                 "itertools.permutations", "itertools.chain", "string.ascii_lowercase"})
#: Parts of a NumPy (or other) name a constant may not call: files, callbacks, settings, internals.
_NOT_NUMPY = frozenset({
    "lib", "ctypeslib", "testing", "f2py", "distutils", "core", "load", "loads", "loadtxt", "genfromtxt",
    "fromfile", "fromregex", "memmap", "open_memmap", "save", "savez", "savez_compressed", "savetxt", "tofile",
    "seterr", "seterrcall", "setbufsize", "set_printoptions", "printoptions", "frompyfunc", "vectorize",
    "show_config", "show_runtime", "info", "apply_along_axis", "apply_over_axes", "piecewise", "fromfunction",
    "getcontext", "setcontext", "localcontext", "ctypes", "dump", "dumps",
})
#: Methods Python calls by itself when a class is made or subscripted: a class defining one is left out.
_CLASS_HOOKS = frozenset({"__init_subclass__", "__set_name__", "__class_getitem__", "__mro_entries__",
                          "__prepare__", "__new__"})
_BASE_CLASSES = frozenset({"object", "Exception", "ValueError", "TypeError", "RuntimeError", "ArithmeticError",
                           "KeyError", "IndexError", "NamedTuple"})
def _part_ok(part):
    return part not in _NOT_NUMPY and not part.startswith("_")


def _trusted(dotted):
    """A name under NumPy, ``math``, ``fractions`` or ``decimal`` that reads no file, takes no callback
    and changes no setting."""
    parts = dotted.split(".")
    return dotted in _CONSTANT_FUNCTIONS or (parts[0] in _CONSTANT_MODULES and all(_part_ok(p) for p in parts[1:]))


_SCOPES = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


@dataclass
class Kept:
    """The student's definitions as code to run, and what the statements left out bind.

    ``code``: one source per student cell (possibly empty), in order. ``left_out``:
    ``{name: "`first line of the statement`"}`` for every name a left-out statement would have bound (the
    latest such statement), unless a kept statement binds it later.
    """

    code: list = field(default_factory=list)
    left_out: dict = field(default_factory=dict)

    def why_missing(self, message, function=None):
        """A sentence for a ``NameError`` ``message`` that names a left-out binding (or for the
        graded ``function`` itself left out), else ``""``."""
        names = [n for n in self.left_out if f"'{n}'" in str(message) or n == function]
        if not names:
            return ""
        name = names[0]
        return (f" ({name} is set by top-level code, {self.left_out[name]}, which the grader does not run when it "
                "calls your functions: it runs your imports, your def and class statements (without decorators "
                "or defaults that call your code) and your constants only; define it inside your function, or as "
                "a constant)")


class _Reader:
    """The names the kept statements have bound so far, and the checks of one statement."""

    def __init__(self):
        self.modules = {}      # alias -> dotted module or module attribute ("np" -> "numpy")
        self.constants = set()  # names bound to constants (values no student code made)
        self.own = set()        # names bound to the student's functions and classes
        self.classes = set()    # ... of which classes

    # ----------------------------------------------------------- expressions
    def dotted(self, node):
        """``"numpy.linalg.norm"`` for ``np.linalg.norm`` when its root is an imported module, else None."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.modules:
            return None
        return ".".join([self.modules[node.id], *reversed(parts)])

    def callable_ok(self, func, local=frozenset()):
        """A builtin of :data:`SAFE_BUILTINS`, a function of NumPy or ``math``, or a method of a constant."""
        if isinstance(func, ast.Name) and func.id in self.modules and func.id not in local:
            return _trusted(self.modules[func.id])  # from numpy import linspace
        if isinstance(func, ast.Name):
            return func.id in SAFE_BUILTINS and func.id not in self.own | self.constants | local
        name = self.dotted(func)
        if name is not None:
            return _trusted(name)
        return isinstance(func, ast.Attribute) and _part_ok(func.attr) and self.constant(func.value, local)

    def constant(self, node, local=frozenset()):
        """Whether evaluating ``node`` runs only trusted code on values no student code made."""
        if isinstance(node, ast.Lambda):  # a definition: only its defaults run now
            return all(self.constant(d, local) for d in (*node.args.defaults, *node.args.kw_defaults) if d)
        if isinstance(node, _SCOPES):
            names = set(local)
            for gen in node.generators:
                if not self.constant(gen.iter, names) or gen.is_async:
                    return False
                names |= {n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
                if not all(self.constant(c, names) for c in gen.ifs):
                    return False
            parts = (node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,)
            return all(self.constant(p, names) for p in parts)
        if isinstance(node, ast.Name):  # a module itself is no constant: its functions are reached by name
            builtin = node.id in SAFE_BUILTINS | {"None", "True", "False"}
            return node.id in local or node.id in self.constants \
                or (builtin and node.id not in self.own | set(self.modules))
        if isinstance(node, ast.Attribute):
            name = self.dotted(node)
            if name is not None:
                return _trusted(name)
            return _part_ok(node.attr) and self.constant(node.value, local)
        if isinstance(node, ast.Call):
            return self.callable_ok(node.func, local) and all(self.constant(a, local) for a in node.args) \
                and all(self.constant(k.value, local) for k in node.keywords)
        if isinstance(node, (ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)):
            return False
        if isinstance(node, (ast.Constant, ast.Tuple, ast.List, ast.Set, ast.Dict, ast.BinOp, ast.UnaryOp,
                             ast.BoolOp, ast.Compare, ast.IfExp, ast.Subscript, ast.Slice, ast.Starred,
                             ast.JoinedStr, ast.FormattedValue)):
            return all(self.constant(c, local) for c in ast.iter_child_nodes(node)
                       if not isinstance(c, (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)))
        return False

    def decorator_ok(self, node):
        target = node.func if isinstance(node, ast.Call) else node
        if isinstance(node, ast.Call) and not (all(self.constant(a) for a in node.args)
                                               and all(self.constant(k.value) for k in node.keywords)):
            return False
        if isinstance(target, ast.Name) and target.id in SAFE_DECORATORS and target.id not in self.own:
            return True
        name = self.dotted(target)
        return name is not None and name in SAFE_DECORATORS

    # ------------------------------------------------------------ statements
    def function(self, node):
        """The ``def`` without annotations, or None when defining it would run student code."""
        args = node.args
        if not all(self.decorator_ok(d) for d in node.decorator_list):
            return None
        if not all(self.constant(d) for d in (*args.defaults, *args.kw_defaults) if d is not None):
            return None
        for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
            if a is not None:
                a.annotation = None
        node.returns = None
        return node

    def klass(self, node):
        if node.keywords or not all(self.decorator_ok(d) for d in node.decorator_list):
            return None
        for base in node.bases:
            if not ((isinstance(base, ast.Name) and (base.id in self.classes or
                                                     (base.id in _BASE_CLASSES and base.id not in self.own)))
                    or self.dotted(base) is not None):
                return None
        body = []
        for stmt in node.body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) or isinstance(stmt, ast.Pass):
                body.append(stmt)
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if stmt.name in _CLASS_HOOKS or self.function(stmt) is None:
                    return None
                body.append(stmt)
            elif isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) and t.id not in _CLASS_HOOKS
                                                      for t in stmt.targets) and self.constant(stmt.value):
                body.append(stmt)
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) \
                    and stmt.target.id not in _CLASS_HOOKS and self.constant(stmt.annotation) \
                    and (stmt.value is None or self.constant(stmt.value)):
                body.append(stmt)
            else:
                return None
        node.body = body or [ast.Pass()]
        return node

    def statement(self, stmt):
        """The statement to keep (possibly rewritten), or None; records what a kept one binds."""
        if isinstance(stmt, ast.Import):
            for a in stmt.names:
                if a.asname:
                    self.modules[a.asname] = a.name
                else:
                    root = a.name.split(".")[0]
                    self.modules[root] = root
            self.forget({a.asname or a.name.split(".")[0] for a in stmt.names}, keep_modules=True)
            return stmt
        if isinstance(stmt, ast.ImportFrom):
            if stmt.level or any(a.name == "*" for a in stmt.names):
                return None
            for a in stmt.names:
                self.forget({a.asname or a.name})
                self.modules[a.asname or a.name] = f"{stmt.module}.{a.name}"
            return stmt
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            kept = self.function(stmt)
            if kept is not None:
                self.forget({stmt.name})
                self.own.add(stmt.name)
            return kept
        if isinstance(stmt, ast.ClassDef):
            kept = self.klass(stmt)
            if kept is not None:
                self.forget({stmt.name})
                self.own.add(stmt.name)
                self.classes.add(stmt.name)
            return kept
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            names = [n for t in targets for n in _names(t)]
            if names is None or any(n is None for n in names) or stmt.value is None \
                    or not self.constant(stmt.value):
                return None
            if isinstance(stmt, ast.AnnAssign):
                stmt = ast.Assign(targets=[stmt.target], value=stmt.value, lineno=stmt.lineno)
            self.forget(set(names))
            if any(isinstance(n, ast.Lambda) for n in ast.walk(stmt.value)):
                self.own |= set(names)  # a lambda is the student's function: never a constant's input
            else:
                self.constants |= set(names)
            return stmt
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            return None  # a docstring: nothing to run
        return None

    def forget(self, names, keep_modules=False):
        for n in names:
            self.constants.discard(n)
            self.own.discard(n)
            self.classes.discard(n)
            if not keep_modules:
                self.modules.pop(n, None)


def _names(target):
    """The plain names an assignment target binds (``None`` for an attribute or subscript target)."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for t in target.elts for n in (_names(t) or [None])]
    return [None]


def definitions(sources, context=()):
    """The student's cells ``sources`` reduced to what the grader's own run executes (:class:`Kept`).

    ``context``: the instructor's (locked) cells, which run first and whole: their imports are
    modules here and the names they bind are constants (the instructor's values).
    """
    from kpcourse.grading.judge.policy import _bound_names, _parse

    reader, kept = _Reader(), Kept()
    for src in context:
        tree, _ = _parse(src)
        for stmt in (tree.body if tree is not None else []):
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                reader.statement(stmt)
            else:
                reader.constants |= set(_bound_names(stmt)) - set(reader.modules)
    for src in sources:
        tree, _ = _parse(src)
        body = []
        for stmt in (tree.body if tree is not None else []):
            line = ast.unparse(stmt).splitlines()[0] if stmt is not None else ""
            line = line if len(line) <= 60 else line[:57] + "..."
            keep = reader.statement(stmt)
            if keep is not None:
                body.append(keep)
                for name in _bound_names(keep):
                    kept.left_out.pop(name, None)
                continue
            for name in _bound_names(stmt):
                if name not in reader.modules:  # an import kept under the same name still binds it
                    kept.left_out[name] = f"`{line}`"
                    reader.forget({name})
        kept.code.append(ast.unparse(ast.fix_missing_locations(ast.Module(body=body, type_ignores=[]))))
    return kept
