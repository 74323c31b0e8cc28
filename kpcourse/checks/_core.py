"""The plumbing every lesson's checks share: call a student's function, judge what came back.

A check is split in two halves so that the same check can run in two places:

* **calling** — :class:`Call` names a student function and its arguments; :func:`call`
  runs it on private copies of the arguments and returns an :class:`Answer` (the value,
  or the exception it raised, and whether it changed its arguments in place). This is
  the only place where student code is run.
* **judging** — a :class:`Test` holds its calls and a ``judge(answers)`` that looks at
  the answers as plain data and raises ``AssertionError`` with a hint, or returns.
  Judges hold data (expected outputs of fixed probes, outputs of common mistakes), never
  a reference algorithm.

In JupyterLab a visible test runs both halves in the student's kernel (:func:`run`).
At grading time the kernel only calls (:func:`produce` writes the answers as JSON),
and the grader judges them in its own process (:mod:`kpcourse.grading`), where the
student's code cannot reach. :func:`encode` / :func:`decode` carry values between the
two as plain JSON: arrays, numbers, strings, tuples, lists and dicts; nothing that can
run code when it is read.

Importing this module imports numpy only.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import json
import math
import os
import re
import signal
import threading
import time
from pathlib import Path

import numpy as np

__all__ = [
    "Ref", "Via", "names_of", "Call", "Answer", "Test", "call", "run", "produce", "encode", "decode",
    "fmt", "fail", "as_numbers", "check_shape", "check_close", "check_labels", "expect_raises", "one_number",
    "unpack", "same", "check_loop_free", "load_data", "load_mistakes",
]

#: Environment variable naming the probes file while grading (set by the grader).
PROBES_ENV = "KPCOURSE_PROBES"
#: Environment variable naming the folder where the answers go while grading.
ANSWERS_ENV = "KPCOURSE_ANSWERS"
#: Largest answer file the grader reads (bytes).
MAX_ANSWER_BYTES = 64 * 2**20
#: Largest array the grader decodes (elements × itemsize, checked before anything is allocated).
MAX_ARRAY_BYTES = 256 * 2**20
#: Widest string a decoded string array may hold (characters).
MAX_STRING_CHARS = 1000


# ----------------------------------------------------------------- formatting
def fmt(value):
    """Short text, on one line, for a value a student returned or a probe's input."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, Opaque):
        return repr(value)
    try:
        arr = np.asarray(value)
    except Exception:  # noqa: BLE001 - anything odd a student returned (a ragged tuple, ...)
        return repr(value)[:80]
    if arr.ndim == 0:
        try:
            return f"{float(value):g}"
        except (TypeError, ValueError):
            return repr(value)[:80]
    if arr.dtype.kind in "biuf":  # on one line: a report lists a message's lines as separate hints
        text = np.array2string(arr.astype(float), precision=4, suppress_small=True, separator=", ", threshold=12)
        return " ".join(line.strip() for line in text.splitlines() if line.strip())
    return repr(value)[:80]


def fail(name, problems):
    """Raise one ``AssertionError`` listing ``problems`` (strings) under ``name``; no-op when empty."""
    __tracebackhide__ = True  # keep students' tracebacks short
    problems = [p for p in problems if p]
    if problems:
        lines = "\n".join(f"  - {p}" for p in problems)
        s = "s" if len(problems) > 1 else ""
        raise AssertionError(f"{name}: {len(problems)} problem{s} found\n{lines}")


def problem(check, *args, **kwargs):
    """The message of ``check(*args, **kwargs)`` when it fails (an ``AssertionError``), else None.

    Lets a judge collect every problem before failing once: ``problems.append(problem(
    expect_raises, answer, "ValueError", why))``; :func:`fail` skips the ``None`` entries.
    """
    try:
        check(*args, **kwargs)
    except AssertionError as exc:
        return str(exc)
    return None


# ------------------------------------------------------------ generic checks
def check_shape(value, shape, name):
    """Check the shape of an array-like; ``None`` in ``shape`` matches any length."""
    if isinstance(value, Opaque):
        raise AssertionError(f"{name} should be an array, got {value.type_name}")
    try:
        got = np.shape(value)
    except ValueError:
        raise AssertionError(f"{name} is not a regular array (rows of different lengths?)") from None
    ok = len(got) == len(shape) and all(s is None or s == g for s, g in zip(shape, got, strict=True))
    if not ok:
        want = ", ".join("n" if s is None else str(s) for s in shape)
        want = f"({want},)" if len(shape) == 1 else f"({want})"
        hint = ""
        if len(got) == len(shape) + 1 and got[-1] == 1:
            hint = " — a column vector: return a 1-D array (e.g. with .ravel())"
        elif len(got) == 2 and len(shape) == 2 and got[::-1] == tuple(shape):
            hint = " — transposed?"
        raise AssertionError(f"{name}: shape {want} expected, got {got}{hint}")


def check_close(value, reference, name, *, hint=None, rtol=1e-7, atol=1e-9):
    """Check ``value`` against ``reference`` up to a tolerance, never showing the reference."""
    ref = np.asarray(reference, dtype=float)
    arr = as_numbers(value, ref.shape, name)
    if not np.all(np.isfinite(arr)):
        raise AssertionError(f"{name} contains NaN or infinite values: {fmt(arr)}")
    bad = ~np.isclose(arr, ref, rtol=rtol, atol=atol)
    if bad.any():
        if ref.ndim == 0:
            msg = f"{name} is not correct: you returned {fmt(arr)}"
        else:
            first = tuple(int(i) for i in np.argwhere(bad)[0])
            where = first[0] if len(first) == 1 else first
            msg = (f"{name} is not correct: {int(bad.sum())} of {bad.size} values differ "
                   f"(first at index {where}: yours is {fmt(arr[first])})")
        raise AssertionError(msg + (f"; {hint}" if hint else ""))


def as_numbers(value, shape, name):
    """``value`` as a float array of ``shape`` (see :func:`check_shape`), or fail clearly."""
    check_shape(value, shape, name)
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError(f"{name} should be numbers, got {_type_name(value)}: {fmt(value)}") from None


def check_labels(value, n, name):
    """Check a 1-D array of ``n`` labels in {-1, +1}."""
    check_shape(value, (n,), name)
    arr = np.asarray(value)
    if arr.dtype == bool:
        raise AssertionError(f"{name} holds True/False; return the labels -1 and +1 instead")
    if arr.dtype.kind not in "biuf":
        raise AssertionError(f"{name} should hold numbers -1/+1, got dtype {arr.dtype}")
    extra = sorted(set(np.unique(arr).tolist()) - {-1, 1})
    if extra:
        if extra == [0]:
            raise AssertionError(f"{name} contains 0: every point gets a label -1 or +1 "
                                 "(np.sign gives 0 for a score of exactly 0)")
        raise AssertionError(f"{name} contains {fmt(np.array(extra[:5]))}; labels must be -1 or +1")


def same(a, b, rtol=1e-7, atol=1e-9):
    """True when two answers hold the same numbers, entry by entry for tuples; never raises."""
    if isinstance(b, tuple):
        return isinstance(a, (tuple, list)) and len(a) == len(b) and all(
            same(x, y, rtol, atol) for x, y in zip(a, b, strict=True))
    if isinstance(b, str) or isinstance(a, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    if isinstance(a, Opaque) or a is None:
        return False
    try:
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    except (TypeError, ValueError):
        return _same_labels(a, b)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))


def _same_labels(a, b):
    """Arrays of labels that are not numbers (strings): equal entry by entry; never raises."""
    try:
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and a.dtype.kind in "US" and b.dtype.kind in "US" and bool(np.array_equal(a, b))
    except Exception:  # noqa: BLE001 - anything odd a student returned
        return False


def one_number(value, name):
    """``value`` as a float when it is one number (not an array, a bool or a string), or fail clearly."""
    if isinstance(value, (Opaque, str, bool, np.bool_)) or np.ndim(value) != 0:
        got = fmt(value) if isinstance(value, (Opaque, str, bool, np.bool_)) else f"shape {np.shape(value)}"
        raise AssertionError(f"{name} should return one number, got {got}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise AssertionError(f"{name} should return one number, got {_type_name(value)}") from None


def unpack(value, fname, names):
    """Unpack a tuple/list result of the expected length, or fail clearly."""
    __tracebackhide__ = True
    if not isinstance(value, (tuple, list)) or len(value) != len(names):
        got = _type_name(value)
        if isinstance(value, (tuple, list)):
            got += f" of length {len(value)}"
        raise AssertionError(f"{fname} should return a tuple ({', '.join(names)}), got {got}")
    return value


def expect_raises(answer, exception, why):
    """Fail unless ``answer`` is the exception named ``exception`` ("ValueError")."""
    if answer.error == exception:
        return
    fname = answer.call.function
    if answer.error in _NOT_RUN:
        answer.get()  # not written / timed out / missing: say that instead
    if answer.error:
        raise AssertionError(f"{fname} should raise {exception} when {why}; it raised "
                             f"{answer.error}: {answer.message}")
    raise AssertionError(f"{fname} should raise {exception} when {why}; it returned normally")


def _type_name(value):
    return value.type_name if isinstance(value, Opaque) else type(value).__name__


# ------------------------------------------------------------ calls and answers
class Ref:
    """An argument that is one of the student's own functions, looked up by name (e.g. ``phi``)."""

    def __init__(self, name):
        self.name = str(name)

    def __repr__(self):
        return self.name


#: How an error raised while making a :class:`Via` argument names that function (``"in fit: ..."``).
VIA_PREFIX = "in {}: "


class Via:
    """An argument that is what one of the student's functions returns on arguments of its own:
    ``Via("fit", X, y, params)`` passes ``fit(X, y, params)`` (a model) to ``predict``.

    It is made inside the same call, under the same time limit; an error of it is the call's.
    """

    def __init__(self, function, *args, **kwargs):
        self.function, self.args, self.kwargs = str(function), args, kwargs

    def __repr__(self):
        return f"{self.function}(...)"


def _to_data(a):
    if isinstance(a, Ref):
        return {"__ref__": a.name}
    if isinstance(a, Via):
        return {"__via__": a.function, "args": [_to_data(v) for v in a.args],
                "kwargs": {k: _to_data(v) for k, v in a.kwargs.items()}}
    return a


def _from_data(a):
    if isinstance(a, dict) and list(a) == ["__ref__"]:
        return Ref(a["__ref__"])
    if isinstance(a, dict) and set(a) == {"__via__", "args", "kwargs"} and isinstance(a["args"], list) \
            and isinstance(a["kwargs"], dict):
        return Via(a["__via__"], *[_from_data(v) for v in a["args"]],
                   **{str(k): _from_data(v) for k, v in a["kwargs"].items()})
    return a


def names_of(call_):
    """Every name of the student's that ``call_`` uses: its function, its Ref and Via arguments'."""
    names, todo = {call_.function}, [*call_.args, *call_.kwargs.values()]
    while todo:
        a = todo.pop()
        if isinstance(a, Ref):
            names.add(a.name)
        elif isinstance(a, Via):
            names.add(a.function)
            todo += [*a.args, *a.kwargs.values()]
    return names


class Call:
    """One call of a student's function: its name and its arguments (plain data, :class:`Ref`
    or :class:`Via`).

    ``Call.measured(...)`` also records the peak memory the call allocated
    (``Answer.peak_bytes``, from :mod:`tracemalloc`); ``memory_limit`` (bytes, the result
    included), when set, is what the grader lets the call allocate when it makes the call
    itself, under address-space and data limits (:mod:`kpcourse.grading.judge.rerun`).
    """

    measure_memory = False
    memory_limit = None

    def __init__(self, function, *args, **kwargs):
        self.function, self.args, self.kwargs = str(function), args, kwargs

    @classmethod
    def measured(cls, function, *args, **kwargs):
        c = cls(function, *args, **kwargs)
        c.measure_memory = True
        return c

    def text(self):
        """``train(array([...]), learning_rate=0.5)``, short, for messages."""
        def show(a):
            return a.name if isinstance(a, Ref) else Call(a.function, *a.args, **a.kwargs).text() \
                if isinstance(a, Via) else fmt(a)

        parts = [show(a) for a in self.args] + [f"{k}={show(v)}" for k, v in self.kwargs.items()]
        return f"{self.function}({', '.join(parts)})"

    def to_data(self):
        # a Ref travels as {"__ref__": name}, a Via as {"__via__": name, ...}: only Call.from_data
        # (the probes) turns them back
        return {"function": self.function, "args": encode([_to_data(a) for a in self.args]),
                "kwargs": encode({k: _to_data(v) for k, v in self.kwargs.items()}),
                "measure_memory": self.measure_memory, "memory_limit": self.memory_limit}

    @classmethod
    def from_data(cls, data):
        c = cls(data["function"], *[_from_data(a) for a in decode(data["args"])],
                **{k: _from_data(v) for k, v in decode(data["kwargs"]).items()})
        c.measure_memory = bool(data.get("measure_memory"))
        limit = data.get("memory_limit")
        c.memory_limit = int(limit) if isinstance(limit, int) and not isinstance(limit, bool) else None
        return c


_NOT_RUN = ("NotImplementedError", "TimeUp", "NameError", "NoAnswer")


class Answer:
    """What one :class:`Call` gave: a value, or an error (exception class name and message).

    ``mutated`` lists the positions (int) and keywords (str) of the array arguments that
    the function changed in place. ``limited``: the grader ran the call itself under its
    memory limit (``Call.memory_limit``, :mod:`kpcourse.grading.judge.rerun`), so the
    value came within it; never set from what a kernel wrote.
    """

    def __init__(self, call_, value=None, error=None, message="", mutated=(), peak_bytes=None, limited=False):
        self.call, self.value, self.error, self.message = call_, value, error, str(message)
        self.mutated = list(mutated)
        self.peak_bytes = peak_bytes
        self.limited = bool(limited)

    def get(self, label=None):
        """The value, or an ``AssertionError`` that says what went wrong instead.

        ``label`` names the call in that message in place of its arguments (hidden inputs
        are never shown).
        """
        __tracebackhide__ = True
        fname = self.call.function
        if self.error is None:
            return self.value
        if self.error == "NotImplementedError":
            via = re.match(VIA_PREFIX.format(r"(\w+)"), self.message)  # raised by a function whose result it takes
            raise AssertionError(f"{via.group(1) if via else fname} is not written yet: it still raises "
                                 "NotImplementedError (replace that line with your code)")
        if self.error == "TimeUp":
            raise AssertionError(f"{fname} ran for more than {self.message} s: does every loop end (a "
                                 "training loop after max_epochs epochs at the latest), and does its work stay "
                                 "small as the input grows?")
        if self.error == "NameError" and self.message == "missing":
            raise AssertionError(f"{fname} is not defined: run the cell that defines it (and check "
                                 "that it keeps this name)")
        if self.error == "NoAnswer":
            raise AssertionError(f"no answer from {fname}: {self.message}")
        raise AssertionError(f"{label or self.call.text()} raised {self.error}: {self.message}")

    def to_data(self):
        return {"value": encode(self.value) if self.error is None else None, "error": self.error,
                "message": self.message[:500], "mutated": [m for m in self.mutated if isinstance(m, (int, str))],
                "peak_bytes": self.peak_bytes}

    @classmethod
    def from_data(cls, call_, data):
        if not isinstance(data, dict):
            return cls(call_, error="NoAnswer", message="the answer could not be read")
        error = data.get("error")
        error = str(error)[:80] if error is not None else None
        value = decode(data.get("value")) if error is None else None
        mutated = [m for m in data.get("mutated") or [] if isinstance(m, (int, str))]
        peak = data.get("peak_bytes")
        peak = int(peak) if isinstance(peak, (int, float)) and not isinstance(peak, bool) else None
        return cls(call_, value, error, str(data.get("message", ""))[:500], mutated, peak)


class _TimeUp(BaseException):
    """Raised by the alarm; a BaseException so that ``except Exception`` cannot swallow it."""


@contextlib.contextmanager
def _time_limit(seconds):
    """Raise ``_TimeUp`` after ``seconds`` (main thread on POSIX only; else no limit)."""
    usable = (seconds and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    def on_alarm(signum, frame):
        raise _TimeUp

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds, 1.0)  # fires again each second if swallowed
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _copy(value):
    try:
        return copy.deepcopy(value)
    except Exception:  # noqa: BLE001 - an uncopyable argument is passed as it is
        return value


def call(func, call_, functions=None, *, time_limit=10.0, private=True):
    """Run ``func`` on private copies of ``call_``'s arguments: the one way to call student code.

    ``Ref`` arguments are looked up in ``functions`` (name -> callable). ``private=False``
    passes the arguments themselves, uncopied and not compared afterwards (the grader's own
    runs, :mod:`kpcourse.grading.judge.rerun`: read-only inputs, or a call under a memory limit).
    Returns an :class:`Answer`; never raises for an ``Exception`` of the student's code.
    """
    functions = functions or {}

    def resolve(a):
        if isinstance(a, Ref):
            return functions.get(a.name)
        if isinstance(a, Via):  # made inside the time limit, below
            return a
        return _copy(a) if private else a

    def made(a):
        if not isinstance(a, Via):
            return a
        if functions.get(a.function) is None:
            raise NameError(f"{a.function} is not defined: run the cell that defines it (and check that it "
                            "keeps this name)")
        args = [made(resolve(v)) for v in a.args]
        kwargs = {k: made(resolve(v)) for k, v in a.kwargs.items()}
        try:
            return functions[a.function](*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - the student's error, said to come from that function
            exc.args = (f"{VIA_PREFIX.format(a.function)}{exc}",)
            raise

    args = [resolve(a) for a in call_.args]
    kwargs = {k: resolve(v) for k, v in call_.kwargs.items()}
    if func is None:
        return Answer(call_, error="NameError", message="missing")
    peak = None
    try:
        with _time_limit(time_limit), _memory(call_.measure_memory) as measured:
            args = [made(a) for a in args]
            kwargs = {k: made(v) for k, v in kwargs.items()}
            before = ([_copy(a) for a in args], {k: _copy(v) for k, v in kwargs.items()}) if private else None
            value = func(*args, **kwargs)
        peak = measured.get("peak")
    except _TimeUp:
        return Answer(call_, error="TimeUp", message=f"{time_limit:g}")
    except Exception as exc:  # noqa: BLE001 - the student's error is the answer
        return Answer(call_, error=type(exc).__name__, message=str(exc)[:300])
    if before is None:
        return Answer(call_, value, peak_bytes=peak)
    mutated = [i for i, (a, b) in enumerate(zip(args, before[0], strict=True)) if _changed(a, b)]
    mutated += [k for k in kwargs if _changed(kwargs[k], before[1][k])]
    return Answer(call_, value, mutated=mutated, peak_bytes=peak)


@contextlib.contextmanager
def _memory(on):
    """Record the peak of Python/NumPy allocations inside the block (``tracemalloc``)."""
    out = {}
    if not on:
        yield out
        return
    import tracemalloc

    was = tracemalloc.is_tracing()
    if not was:
        tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    try:
        yield out
    finally:
        out["peak"] = max(tracemalloc.get_traced_memory()[1] - base, 0)
        if not was:
            tracemalloc.stop()


def check_loop_free(func, name=None):
    """Fail when the student's function (from its source) uses a Python loop or comprehension.

    The grader makes the same check on the submitted source (never by timing).
    """
    __tracebackhide__ = True
    import ast
    import inspect
    import textwrap

    name = name or getattr(func, "__name__", "your function")
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    except (OSError, TypeError, SyntaxError):
        return  # no source to read (the grader reads the notebook instead)
    loops = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
    if any(isinstance(n, loops) for n in ast.walk(tree)):
        raise AssertionError(f"{name} uses a Python loop (for, while or a comprehension); this exercise "
                             "asks for whole-array NumPy operations (broadcasting, matrix products)")


def _changed(after, before):
    if isinstance(after, np.ndarray) and isinstance(before, np.ndarray):
        if after.shape != before.shape:
            return True
        try:
            return not np.array_equal(after, before, equal_nan=after.dtype.kind in "fc")
        except TypeError:
            return not np.array_equal(after, before)
    return False


class Test:
    """Calls of the student's functions and the judge of their answers.

    Parameters
    ----------
    calls : list of Call
    judge : callable
        ``judge(answers)`` with one :class:`Answer` per call, in order: raises
        ``AssertionError`` with an actionable message, or returns.
    time_limit : float, default=10.0
        Seconds for each call.
    """

    __test__ = False  # not a pytest test class

    def __init__(self, calls, judge, *, time_limit=10.0):
        self.calls, self.judge, self.time_limit = list(calls), judge, time_limit

    def answers(self, functions):
        """Run every call with the student's ``functions`` (name -> callable)."""
        return [call(functions.get(c.function), c, functions, time_limit=self.time_limit)
                for c in self.calls]


def run(tests, **functions):
    """Run visible tests in the student's kernel: call, judge, raise the first failure."""
    __tracebackhide__ = True
    for test in tests:
        test.judge(test.answers(functions))


# ------------------------------------------------------------- grading side
def produce(cell_id, namespace):
    """Grading only: call the student's functions for test cell ``cell_id``, write the answers.

    Reads the calls that the grader wrote into the file named by ``$KPCOURSE_PROBES``,
    looks the functions up in ``namespace`` (the notebook's globals) and writes
    ``<cell_id>.json`` into ``$KPCOURSE_ANSWERS``. Judging happens in the grader.
    Whatever the student's functions do or return, an answer file is written (with
    "NoAnswer" entries when a call could not be recorded), so that no file written
    earlier by the student's own code can stand in for it.
    """
    target = Path(os.environ.get(ANSWERS_ENV) or Path(os.environ[PROBES_ENV]).parent / "answers") / f"{cell_id}.json"
    out = []
    try:
        spec = json.loads(Path(os.environ[PROBES_ENV]).read_text())[cell_id]
        for test in spec["tests"]:
            calls = [Call.from_data(c) for c in test["calls"]]
            names = set().union(*(names_of(c) for c in calls))
            functions = {n: namespace.get(n) for n in names}
            answers = []
            for c in calls:
                started = time.monotonic()
                try:
                    answers.append(call(functions.get(c.function), c, functions,
                                        time_limit=test["time_limit"]).to_data())
                except BaseException as exc:  # noqa: BLE001 - an answer that cannot be recorded
                    answers.append({"error": "NoAnswer", "message": f"could not be recorded ({type(exc).__name__})"})
                if time.monotonic() - started > test["time_limit"]:
                    break
            out.append(answers)
        text = json.dumps(out, allow_nan=True)
    except BaseException as exc:  # noqa: BLE001
        text = json.dumps({"error": f"the answers could not be recorded ({type(exc).__name__})"})
    target.parent.mkdir(exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(target)
    print("Answers recorded for grading.")


# ----------------------------------------------------------- plain-data JSON
_KINDS = "biufcU"
_MAX_DEPTH = 20


def encode(value, _depth=0, readable=False):
    """A JSON-ready form of ``value``: arrays, numbers, strings, tuples, lists, dicts, None.

    Anything else (a torch tensor is turned into an array first) becomes an opaque
    marker holding its type name, so the judge can say what arrived. ``readable``
    writes arrays as nested lists instead of base64 (for the checks' data files).
    """
    if readable and _depth == 0:
        return _readable(encode(value))
    if _depth > _MAX_DEPTH:
        return {"__opaque__": "nested too deeply", "repr": ""}
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return {"__int__": str(value)} if abs(value) > 2**53 else value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"__float__": repr(value)}
    if type(value).__module__ == "torch" and type(value).__name__ in ("Tensor", "Parameter"):
        try:
            value = value.detach().cpu().numpy()
        except Exception:  # noqa: BLE001
            return {"__opaque__": "Tensor", "repr": ""}
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in _KINDS or value.dtype.fields is not None:
            return {"__opaque__": f"ndarray of dtype {value.dtype}", "repr": ""}
        if value.dtype.kind == "U":
            return {"__ndarray__": str(value.dtype), "shape": list(value.shape), "list": value.tolist()}
        data = np.ascontiguousarray(value)
        return {"__ndarray__": data.dtype.str, "shape": list(value.shape),
                "b64": base64.b64encode(data.tobytes()).decode("ascii")}
    if isinstance(value, np.generic):
        if value.dtype.kind not in _KINDS:
            return {"__opaque__": type(value).__name__, "repr": ""}
        return {"__npscalar__": encode(np.asarray(value), _depth + 1)}
    if isinstance(value, tuple):
        return {"__tuple__": [encode(v, _depth + 1) for v in value]}
    if isinstance(value, list):
        return [encode(v, _depth + 1) for v in value]
    if isinstance(value, dict):
        return {"__dict__": [[encode(k, _depth + 1), encode(v, _depth + 1)] for k, v in value.items()]}
    if isinstance(value, (set, frozenset)):
        return {"__set__": [encode(v, _depth + 1) for v in value]}
    try:
        text = repr(value)[:80]
    except Exception:  # noqa: BLE001
        text = ""
    return {"__opaque__": type(value).__name__[:60], "repr": text}


class Opaque:
    """A value that could not be carried as data; only its type name and a short repr remain."""

    def __init__(self, type_name, text=""):
        self.type_name, self.text = str(type_name)[:80], str(text)[:80]

    def __repr__(self):
        return f"<{self.type_name}>"


def decode(data, _depth=0):
    """The inverse of :func:`encode`; rejects anything that is not plain data."""
    if _depth > _MAX_DEPTH + 2:
        return Opaque("nested too deeply")
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if isinstance(data, list):
        return [decode(v, _depth + 1) for v in data]
    if not isinstance(data, dict) or len(data) == 0:
        return Opaque("unreadable")
    if "__ndarray__" in data:
        return _decode_array(data)
    if "__npscalar__" in data:
        arr = decode(data["__npscalar__"], _depth + 1)
        return arr[()] if isinstance(arr, np.ndarray) and arr.ndim == 0 else Opaque("unreadable")
    if "__tuple__" in data:
        return tuple(decode(v, _depth + 1) for v in data["__tuple__"])
    if "__dict__" in data:
        out = {}
        for pair in data["__dict__"]:
            key = decode(pair[0], _depth + 1)
            try:
                out[key] = decode(pair[1], _depth + 1)
            except TypeError:  # unhashable key
                return Opaque("dict")
        return out
    if "__set__" in data:
        try:
            return set(decode(v, _depth + 1) for v in data["__set__"])
        except TypeError:
            return Opaque("set")
    if "__int__" in data:
        return int(str(data["__int__"])[:400])
    if "__float__" in data:
        return float(str(data["__float__"])) if data["__float__"] in ("inf", "-inf", "nan") else Opaque("float")
    if "__opaque__" in data:
        return Opaque(data["__opaque__"], data.get("repr", ""))
    return Opaque("unreadable")


def _readable(data):
    if isinstance(data, list):
        return [_readable(v) for v in data]
    if isinstance(data, dict):
        if "b64" in data and "__ndarray__" in data:
            return {"__ndarray__": data["__ndarray__"], "shape": data["shape"],
                    "list": _decode_array(data).tolist()}
        return {k: _readable(v) for k, v in data.items()}
    return data


def load_data(name):
    """The data file ``kpcourse/checks/data/<name>.json`` (probes, expected outputs, mistakes)."""
    from importlib.resources import files

    return decode(json.loads(files("kpcourse.checks").joinpath("data", f"{name}.json").read_text()))


def load_mistakes(name):
    """The named mistakes of ``kpcourse/checks/data/<name>.mistakes.toml``: exercise (or group) -> {key: hint}.

    The hints are data, one table per exercise, that an instructor edits without reading
    code; keys separated by spaces share one hint. A fresh dict each call.
    """
    import tomllib
    from importlib.resources import files

    raw = tomllib.loads(files("kpcourse.checks").joinpath("data", f"{name}.mistakes.toml").read_text())
    return {group: {key: hint for keys, hint in table.items() for key in keys.split()} for group, table in raw.items()}


def _decode_array(data):
    try:
        dtype = np.dtype(str(data["__ndarray__"]))
        shape = tuple(int(s) for s in data["shape"])
    except (TypeError, ValueError, KeyError):
        return Opaque("unreadable array")
    if dtype.kind not in _KINDS or dtype.fields is not None or any(s < 0 for s in shape):
        return Opaque(f"ndarray of dtype {dtype}")
    # sizes are checked before anything is allocated: a short answer may name a huge array
    if len(shape) > 32 or math.prod(shape) * dtype.itemsize > MAX_ARRAY_BYTES:
        return Opaque("array too large")
    if dtype.kind == "U" and dtype.itemsize > 4 * MAX_STRING_CHARS:
        return Opaque("array of too long strings")
    if dtype.kind == "U" or "list" in data:
        if _leaves(data.get("list", []), math.prod(shape)) != math.prod(shape):
            return Opaque("unreadable array")
        try:
            arr = np.array(data.get("list", []), dtype=dtype)
        except (TypeError, ValueError):
            return Opaque("unreadable array")
        return arr.reshape(shape) if arr.size == math.prod(shape) else Opaque("unreadable array")
    raw = base64.b64decode(str(data.get("b64", "")), validate=True)
    if len(raw) != dtype.itemsize * math.prod(shape):
        return Opaque("unreadable array")
    return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()


def _leaves(nested, most):
    """How many non-list entries ``nested`` holds (counting stops past ``most``)."""
    count, todo = 0, [nested]
    while todo and count <= most:
        item = todo.pop()
        if isinstance(item, list):
            todo.extend(item)
        else:
            count += 1
    return count


def dumps(value):
    """``json.dumps(encode(value))``."""
    return json.dumps(encode(value), allow_nan=True)


def loads(text):
    """``decode(json.loads(text))``, refusing text longer than :data:`MAX_ANSWER_BYTES`."""
    if len(text) > MAX_ANSWER_BYTES:
        raise ValueError("answer too large")
    return decode(json.loads(text))
