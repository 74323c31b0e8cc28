"""Checks for the graded exercises: they say what is wrong, never what is right.

Every failed check raises ``AssertionError`` with a message a student can act on:
the value or shape that arrived, what kind of thing was expected and, when it can
be recognised, the likely mistake ("sign(0) must count as a mistake", "your update
ignores the bias"). A message never contains the expected answer.

Three kinds of helpers live here:

* generic checks used by hidden tests: :func:`check_type`, :func:`check_shape`,
  :func:`check_close`, :func:`check_labels`, :func:`check_trace`,
  :func:`check_stopping`, :func:`check_raises`, and test data from
  :func:`random_separable`;
* :func:`reference_blocked` and :func:`no_reference`, which make the package's
  reference perceptrons raise while a student's function runs, so that calling
  them instead of writing the algorithm gets no credit (and a time limit, so that an
  endless loop fails one test quickly);
* diagnoses that probe a student's function on small crafted inputs and name the
  mistake: :func:`diagnose_predict`, :func:`diagnose_update`, :func:`diagnose_trace`
  (lesson 02), :func:`diagnose_dual`, :func:`diagnose_dual_predict` (lesson 03).
  Each takes an ``aspect`` so that one graded cell checks one behaviour.

Importing this module imports numpy only.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import signal
import threading
import time

import numpy as np

__all__ = [
    "DEFAULT_FORBIDDEN",
    "check_type",
    "check_shape",
    "check_close",
    "check_labels",
    "check_trace",
    "check_stopping",
    "check_raises",
    "reference_blocked",
    "no_reference",
    "random_separable",
    "diagnose_predict",
    "diagnose_update",
    "diagnose_trace",
    "diagnose_dual",
    "diagnose_dual_predict",
]

#: Reference implementations a student's function may not call (``module.attribute``).
DEFAULT_FORBIDDEN = (
    "kpcourse.perceptron.Perceptron",
    "kpcourse.perceptron.KernelPerceptron",
    "sklearn.linear_model.Perceptron",
)

TRACE_COLUMNS = ("epoch", "index", "mistake", "intercept")


def _fmt(value):
    """Short text for a value the student returned or a probe's input."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if np.ndim(value) == 0:
        try:
            return f"{float(value):g}"
        except (TypeError, ValueError):
            return repr(value)
    arr = np.asarray(value)
    if arr.dtype.kind in "biuf":
        return np.array2string(arr.astype(float), precision=4, suppress_small=True,
                               separator=", ", threshold=12)
    return repr(value)


def _fail(name, problems):
    __tracebackhide__ = True  # keep students' tracebacks short
    if problems:
        lines = "\n".join(f"  - {p}" for p in problems)
        s = "s" if len(problems) > 1 else ""
        raise AssertionError(f"{name}: {len(problems)} problem{s} found\n{lines}")


# --------------------------------------------------------------------------- #
# Generic checks
# --------------------------------------------------------------------------- #

def check_type(value, types, name):
    """Check ``isinstance(value, types)``.

    Parameters
    ----------
    value : object
    types : type or tuple of type
    name : str
        What the value is, for the message ("the result of train").

    Raises
    ------
    AssertionError
        "`name` should be a tuple, got list".
    """
    __tracebackhide__ = True  # keep students' tracebacks short
    if not isinstance(value, types):
        kinds = types if isinstance(types, tuple) else (types,)
        wanted = " or ".join(t.__name__ for t in kinds)
        raise AssertionError(f"{name} should be a {wanted}, got {type(value).__name__}: {_fmt(value)}")


def check_shape(value, shape, name):
    """Check the shape of an array-like; ``None`` in ``shape`` matches any length.

    Parameters
    ----------
    value : array-like
    shape : tuple of int or None
    name : str

    Raises
    ------
    AssertionError
        "w: shape (2,) expected, got (2, 1)", with a hint for column vectors.
    """
    __tracebackhide__ = True  # keep students' tracebacks short
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
    """Check that ``value`` equals ``reference`` up to a tolerance, without showing it.

    Parameters
    ----------
    value : array-like or float
        What the student's code returned.
    reference : array-like or float
        The right answer; never printed.
    name : str
    hint : str, default=None
        The likely cause, appended to the message.
    rtol, atol : float, default=1e-7, 1e-9
        As in :func:`numpy.allclose`.

    Raises
    ------
    AssertionError
        Naming how many values differ and the first one the student returned.
    """
    __tracebackhide__ = True  # keep students' tracebacks short
    ref = np.asarray(reference, dtype=float)
    check_shape(value, ref.shape, name)
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError(f"{name} should be numbers, got {type(value).__name__}: {_fmt(value)}") from None
    if not np.all(np.isfinite(arr)):
        raise AssertionError(f"{name} contains NaN or infinite values: {_fmt(arr)}")
    bad = ~np.isclose(arr, ref, rtol=rtol, atol=atol)
    if bad.any():
        if ref.ndim == 0:
            msg = f"{name} is not correct: you returned {_fmt(arr)}"
        else:
            first = tuple(int(i) for i in np.argwhere(bad)[0])
            where = first[0] if len(first) == 1 else first
            msg = (f"{name} is not correct: {int(bad.sum())} of {bad.size} values differ "
                   f"(first at index {where}: yours is {_fmt(arr[first])})")
        raise AssertionError(msg + (f"; {hint}" if hint else ""))


def check_labels(value, n, name):
    """Check a 1-D array of ``n`` labels in {-1, +1}.

    Raises
    ------
    AssertionError
        For a wrong shape, booleans, 0/1 labels, or other values.
    """
    __tracebackhide__ = True  # keep students' tracebacks short
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
        raise AssertionError(f"{name} contains {_fmt(np.array(extra[:5]))}; labels must be -1 or +1")


def check_trace(trace, reference, name="trace"):
    """Compare a perceptron trace row by row with a reference trace, without showing it.

    Rows are (epoch, index, mistake, intercept, coef_1, ...), as
    ``kpcourse.perceptron.Perceptron.trace_``.

    Raises
    ------
    AssertionError
        The number of rows differs, or: the first step and column that differ, with
        the student's value there.
    """
    __tracebackhide__ = True  # keep students' tracebacks short
    ref = np.asarray(reference, dtype=float)
    try:
        arr = np.asarray(trace, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError(f"{name} should be an array of numbers, got {type(trace).__name__}") from None
    check_shape(arr, (None, ref.shape[1]), name)
    if arr.shape[0] != ref.shape[0]:
        raise AssertionError(
            f"{name} has {arr.shape[0]} rows, which is not the number of steps of this run: one row "
            "per visited sample, stopping after the first epoch without a mistake (or max_epochs)")
    bad = ~np.isclose(arr, ref, rtol=1e-7, atol=1e-9)
    if bad.any():
        r, c = (int(i) for i in np.argwhere(bad)[0])
        col = TRACE_COLUMNS[c] if c < 4 else f"coef_{c - 3}"
        raise AssertionError(
            f"{name} differs from step {r + 1} on (epoch {_fmt(arr[r, 0])}, sample {_fmt(arr[r, 1])}): "
            f"your {col} there is {_fmt(arr[r, c])}")


def check_raises(func, exception, *args, why, **kwargs):
    """Check that ``func(*args, **kwargs)`` raises ``exception``.

    Parameters
    ----------
    func : callable
    exception : type
    *args, **kwargs
        The call.
    why : str
        The situation, for the message ("X has 3 columns but w has 2 entries").
    """
    __tracebackhide__ = True  # keep students' tracebacks short
    fname = getattr(func, "__name__", "your function")
    try:
        no_reference(func)(*args, **kwargs)
    except exception:
        return
    except _CheckFailure:
        raise
    except Exception as exc:
        raise AssertionError(
            f"{fname} should raise {exception.__name__} when {why}; it raised "
            f"{type(exc).__name__}: {exc}") from None
    raise AssertionError(f"{fname} should raise {exception.__name__} when {why}; it returned normally")


# --------------------------------------------------------------------------- #
# Blocking the reference implementation, limiting time
# --------------------------------------------------------------------------- #

class _CheckFailure(AssertionError):
    """A failure found by these checks (as opposed to an error in the student's code)."""


class _ReferenceCall(_CheckFailure):
    """Raised when a student's function calls a blocked reference."""


class _TimeUp(BaseException):
    """Raised by the alarm; a BaseException so that ``except Exception`` cannot swallow it."""


_METHODS = ("__init__", "fit", "partial_fit", "predict", "decision_function", "fit_predict")


def _resolve(target):
    module, _, attr = target.rpartition(".")
    try:
        return importlib.import_module(module), attr
    except ImportError:
        return None, attr


def _no_credit(target, what):
    return (f"this exercise asks you to write {what} yourself; calling {target} gets no credit")


@contextlib.contextmanager
def reference_blocked(forbidden=DEFAULT_FORBIDDEN, *, what="the algorithm"):
    """Make the reference implementations raise while the ``with`` block runs.

    Classes get their constructor and ``fit``/``predict``/... methods replaced,
    functions their module attribute, so a call through any imported name fails
    with "this exercise asks you to write <what> yourself; calling <target> gets no
    credit". If the student's code catches that error, leaving the block raises it
    anyway. Everything is restored on exit.

    Parameters
    ----------
    forbidden : tuple of str, default=DEFAULT_FORBIDDEN
        Dotted names ``"package.module.Name"``; those whose module is not installed
        are skipped.
    what : str, default="the algorithm"
        What the exercise asks for, for the message ("the training loop").

    Examples
    --------
    >>> from kpcourse.perceptron import Perceptron
    >>> try:
    ...     with reference_blocked(what="the update"):
    ...         Perceptron()
    ... except AssertionError as exc:
    ...     print(str(exc).split("; ")[0])
    this exercise asks you to write the update yourself
    """
    calls = []
    undo = []

    def raiser_for(target):
        def raiser(*args, **kwargs):
            calls.append(target)
            raise _ReferenceCall(_no_credit(target, what))
        return raiser

    try:
        for target in forbidden:
            module, attr = _resolve(target)
            obj = getattr(module, attr, None) if module is not None else None
            if obj is None:
                continue
            if isinstance(obj, type):
                for meth in _METHODS:
                    if hasattr(obj, meth):
                        own = meth in vars(obj)
                        undo.append((obj, meth, vars(obj).get(meth), own))
                        setattr(obj, meth, raiser_for(target))
            else:
                undo.append((module, attr, obj, True))
                setattr(module, attr, raiser_for(target))
        yield calls
    except _ReferenceCall:
        raise
    except BaseException as exc:
        if calls:
            raise _CheckFailure(_no_credit(calls[0], what)) from exc
        raise
    finally:
        for owner, attr, old, own in reversed(undo):
            if own:
                setattr(owner, attr, old)
            else:
                delattr(owner, attr)
    if calls:
        raise _CheckFailure(_no_credit(calls[0], what))


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
    start = time.monotonic()
    outer = signal.setitimer(signal.ITIMER_REAL, seconds, 1.0)  # fires again each second if swallowed
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        if outer[0] > 0:  # nested: give the enclosing limit back what is left of it
            signal.setitimer(signal.ITIMER_REAL, max(outer[0] - (time.monotonic() - start), 1e-3), outer[1])


def no_reference(func, *, what="the algorithm", forbidden=DEFAULT_FORBIDDEN, time_limit=10.0):
    """Wrap a student's function: no reference calls, a time limit, friendly errors.

    The wrapper runs ``func`` inside :func:`reference_blocked`; a function still
    raising ``NotImplementedError`` or running longer than ``time_limit`` seconds
    fails with an ``AssertionError`` that says so.

    Parameters
    ----------
    func : callable
    what : str, default="the algorithm"
    forbidden : tuple of str, default=DEFAULT_FORBIDDEN
    time_limit : float or None, default=10.0
        Seconds; ``None`` for no limit.

    Returns
    -------
    wrapper : callable
        Same signature as ``func``.
    """
    fname = getattr(func, "__name__", "your function")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        __tracebackhide__ = True  # keep students' tracebacks short
        try:
            with reference_blocked(forbidden, what=what), _time_limit(time_limit):
                return func(*args, **kwargs)
        except NotImplementedError:
            raise _CheckFailure(
                f"{fname} is not written yet: it still raises NotImplementedError "
                "(replace that line with your code)") from None
        except _TimeUp:
            raise _CheckFailure(
                f"{fname} ran for more than {time_limit:g} s on a tiny input: does every loop "
                "end (after max_epochs epochs at the latest)?") from None

    return wrapper


def _run(func, what, *args, **kwargs):
    """Call a student's function under :func:`no_reference`; other errors get context."""
    __tracebackhide__ = True  # keep students' tracebacks short
    fname = getattr(func, "__name__", "your function")
    try:
        return no_reference(func, what=what)(*args, **kwargs)
    except _CheckFailure:
        raise
    except Exception as exc:
        shown = ", ".join([_fmt(a) for a in args] + [f"{k}={_fmt(v)}" for k, v in kwargs.items()])
        raise AssertionError(f"{fname}({shown}) raised {type(exc).__name__}: {exc}") from exc


def _pair(result, fname, names):
    """Unpack a tuple result of the expected length, or fail clearly."""
    __tracebackhide__ = True  # keep students' tracebacks short
    if not isinstance(result, (tuple, list)) or len(result) != len(names):
        got = type(result).__name__
        if isinstance(result, (tuple, list)):
            got += f" of length {len(result)}"
        raise AssertionError(f"{fname} should return a tuple ({', '.join(names)}), got {got}")
    return result


# --------------------------------------------------------------------------- #
# Data for tests
# --------------------------------------------------------------------------- #

def random_separable(n, n_features=2, *, margin=0.1, offset=True, scale=1.0, random_state=0):
    """Random points that a hyperplane separates with a margin, labels in {-1, +1}.

    Points are uniform in [-1, 1]^d (times ``scale``); the labels are
    ``sign(u · x + c)`` for a random unit vector ``u`` and offset ``c`` (0 when
    ``offset`` is False); points closer than ``margin * scale`` to the hyperplane
    are redrawn, so the perceptron converges.

    Parameters
    ----------
    n : int
    n_features : int, default=2
    margin : float, default=0.1
    offset : bool, default=True
    scale : float, default=1.0
    random_state : int, default=0

    Returns
    -------
    X : ndarray of shape (n, n_features)
    y : ndarray of shape (n,), int64
        Both classes are present.
    """
    rng = np.random.default_rng(random_state)
    u = rng.normal(size=n_features)
    u /= np.linalg.norm(u)
    c = rng.uniform(-0.3, 0.3) if offset else 0.0
    while True:
        X = rng.uniform(-1.0, 1.0, size=(4 * n + 20, n_features))
        s = X @ u + c
        X, s = X[np.abs(s) >= margin][:n], s[np.abs(s) >= margin][:n]
        if len(X) == n and len(np.unique(np.sign(s))) == 2:
            return scale * X, np.where(s > 0, 1, -1).astype(np.int64)


# --------------------------------------------------------------------------- #
# Lesson 02: predict, update, train
# --------------------------------------------------------------------------- #

def _primal(X, y, lr, max_epochs, *, zero_is_mistake=True, bias=True, bias_lr=True, w_lr=True,
            before=False, stop=True):
    """The perceptron loop and its common variants (the default is the right rule)."""
    X = np.asarray(X, float)
    w, b, rows = np.zeros(X.shape[1]), 0.0, []
    for epoch in range(1, max_epochs + 1):
        made = 0
        for i in range(len(y)):
            s = y[i] * (X[i] @ w + b)
            wrong = s <= 0 if zero_is_mistake else s < 0
            old = [b, *w]
            if wrong:
                w = w + (lr if w_lr else 1.0) * y[i] * X[i]
                b = b + ((lr if bias_lr else 1.0) * y[i] if bias else 0.0)
                made += 1
            rows.append([epoch, i, int(wrong), *(old if before else [b, *w])])
        if stop and made == 0:
            break
    return w, b, np.array(rows, float)


# Probes for predict: scores 1.5, -1.5, -1.5, 5.5, 0.4 (the last is -0.1 without b).
_P_W, _P_B = np.array([2.0, -1.0]), 0.5
_P_X = np.array([[1.0, 1.0], [0.0, 2.0], [-1.0, 0.0], [3.0, 1.0], [0.2, 0.5]])
_P_XZERO = np.array([[0.25, 1.0], [1.0, 0.0], [1.0, 2.5], [-1.0, -1.5]])  # scores 0, 2.5, 0, 0


def diagnose_predict(predict, aspect="all"):
    """Probe ``predict(w, b, X)`` and name the mistake.

    Aspects: ``"basic"`` (shape, labels -1/+1, the bias, a ``ValueError`` for a
    wrong number of columns) and ``"zero"`` (a score of exactly 0 predicts -1).

    Raises
    ------
    AssertionError
        Listing every problem found.
    """
    __tracebackhide__ = True  # keep students' tracebacks short
    what, name, problems = "the prediction", "predict", []
    if aspect in ("all", "basic"):
        got = _run(predict, what, _P_W.copy(), _P_B, _P_X.copy())
        scores = _P_X @ _P_W + _P_B
        arr = np.asarray(got)
        if arr.shape == (5,) and arr.dtype.kind in "fiu" and not np.isin(arr, (-1, 1)).all() \
                and np.allclose(arr, scores):
            problems.append("predict returned the scores w·x + b; return their labels -1/+1")
        else:
            check_labels(got, 5, f"predict(w={_fmt(_P_W)}, b=0.5, X with 5 rows)")
            right = np.where(scores > 0, 1, -1)
            if np.array_equal(arr, -right):
                problems.append("your labels are flipped: a positive score w·x + b predicts +1")
            elif np.array_equal(arr, np.where(_P_X @ _P_W > 0, 1, -1)):
                problems.append("your prediction ignores the bias b: the score is w·x + b")
            elif not np.array_equal(arr, right):
                problems.append(f"predict(w={_fmt(_P_W)}, b=0.5, X={_fmt(_P_X)}) gave {_fmt(arr)}: "
                                f"{int((arr != right).sum())} label(s) are wrong")
        one = _run(predict, what, _P_W.copy(), _P_B, _P_X[:1].copy())
        if np.shape(one) != (1,):
            problems.append(f"for X with one row (shape (1, 2)) predict should return shape (1,), "
                            f"got {np.shape(one)}")
        try:
            check_raises(predict, ValueError, _P_W.copy(), _P_B, np.ones((3, 3)),
                         why="X has 3 columns but w has 2 entries")
        except AssertionError as exc:
            problems.append(str(exc))
    if aspect in ("all", "zero"):
        got = _run(predict, what, _P_W.copy(), _P_B, _P_XZERO.copy())
        check_shape(got, (4,), "predict(...) for 4 points")
        arr = np.asarray(got, dtype=float)
        zero = arr[[0, 2, 3]]
        if np.any(zero == 0):
            problems.append("a score of exactly 0 gave 0 (np.sign(0) is 0): a point whose score is "
                            "not positive is labelled -1")
        elif np.any(zero == 1):
            problems.append("a score of exactly 0 gave +1: only a positive score predicts +1 "
                            "(a point on the boundary is not counted as positive)")
        elif arr[1] != 1:
            problems.append(f"for a positive score predict gave {_fmt(arr[1])}")
    _fail(name, problems)


_U = {  # probes for update: (w, b, x, y, learning_rate); scores in comments
    "plus": (np.array([1.0, -2.0]), 0.5, np.array([1.0, 2.0]), 1, 0.625),   # -2.5: mistake
    "minus": (np.array([1.0, -2.0]), 0.5, np.array([2.0, 0.5]), -1, 1.5),   # 1.5: mistake
    "ok_plus": (np.array([1.0, -2.0]), 0.5, np.array([2.0, 1.0]), 1, 0.75),  # 0.5: correct
    "ok_minus": (np.array([1.0, -2.0]), 0.5, np.array([1.0, 2.0]), -1, 0.75),  # -2.5: correct
    "zero_plus": (np.array([1.0, -1.0]), 0.0, np.array([3.0, 3.0]), 1, 0.5),  # 0
    "zero_minus": (np.array([1.0, 1.0]), -3.0, np.array([1.0, 2.0]), -1, 0.5),  # 0
}


def _probe_text(case):
    w, b, x, y, lr = case
    return f"w={_fmt(w)}, b={_fmt(b)}, x={_fmt(x)}, y={y:+d}, learning_rate={_fmt(lr)}"


def _call_update(update, key):
    __tracebackhide__ = True  # keep students' tracebacks short
    w, b, x, y, lr = _U[key]
    w_in, x_in = w.copy(), x.copy()
    out = _pair(_run(update, "the update", w_in, b, x_in, y, lr), "update", ("w", "b"))
    check_shape(out[0], w.shape, "the new w returned by update")
    if np.ndim(out[1]) != 0:
        raise AssertionError(f"the new b returned by update should be a number, got shape {np.shape(out[1])}")
    moved = not (np.array_equal(w_in, w) and np.array_equal(x_in, x))
    return np.asarray(out[0], float), float(out[1]), moved


def diagnose_update(update, aspect="all"):
    """Probe ``update(w, b, x, y, learning_rate) -> (w, b)`` and name the mistake.

    Aspects: ``"weights"`` (w moves by learning_rate·y·x on a mistake, stays on a
    correct point; the arrays passed in are not modified), ``"zero"`` (a score of
    exactly 0 is a mistake, for both labels) and ``"bias"`` (b moves by
    learning_rate·y on a mistake only). Each aspect checks only its own behaviour, so
    that one mistake fails one graded cell.

    Raises
    ------
    AssertionError
        Listing every problem found, e.g. "sign(0) must count as a mistake" or "your
        update ignores the bias".
    """
    __tracebackhide__ = True  # keep students' tracebacks short
    problems = []
    if aspect in ("all", "weights"):
        plus_right = True
        for key in ("plus", "minus"):  # y = +1, then y = -1
            w, b, x, y, lr = _U[key]
            nw, _, moved = _call_update(update, key)
            if moved and key == "plus":
                problems.append("your update changed the arrays passed in (in place, e.g. w += ...): "
                                "build a new array (w = w + ...) so earlier trace rows keep their values")
            if np.allclose(nw, w + lr * y * x):
                continue
            plus_right = plus_right and key != "plus"
            where = f"on the misclassified point ({_probe_text(_U[key])}) your update returned w={_fmt(nw)}"
            if np.allclose(nw, w):
                problems.append(f"{where}, unchanged: update when y(w·x + b) <= 0")
            elif plus_right and np.allclose(nw, w + lr * x):
                problems.append(f"{where}: your update ignores the label y (the step is learning_rate·y·x)")
            elif np.allclose(nw, w - lr * y * x):
                problems.append(f"{where}: the step has the wrong sign; a mistake moves w towards y·x")
            elif np.allclose(nw, w + y * x):
                problems.append(f"{where}: the learning rate is not applied (the step is learning_rate·y·x)")
            elif np.allclose(nw, lr * (w + y * x)) or np.allclose(nw, lr * w + y * x):
                problems.append(f"{where}: the learning rate is applied to the wrong thing; "
                                "it scales the step y·x only, not w")
            else:
                problems.append(f"{where}, not w + learning_rate·y·x")
        for key in ("ok_plus", "ok_minus"):
            nw, _, _ = _call_update(update, key)
            if not np.allclose(nw, _U[key][0]):
                problems.append(f"your update changed w on a correctly classified point "
                                f"({_probe_text(_U[key])}, y(w·x + b) > 0): update only on a mistake")
                break
        try:
            w, b, x, _, lr = _U["plus"]
            check_raises(update, ValueError, w.copy(), b, x.copy(), 0, lr, why="y is 0 (labels are -1 or +1)")
        except AssertionError as exc:
            problems.append(str(exc))
    if aspect in ("all", "zero"):
        missed = []
        for key in ("zero_plus", "zero_minus"):
            nw, nb, _ = _call_update(update, key)
            if np.allclose(nw, _U[key][0]) and nb == _U[key][1]:
                missed.append(key)
        if missed:
            extra = ""
            if missed == ["zero_minus"]:
                extra = (" — here for y = -1: comparing a prediction with y treats a score of 0 as "
                         "correct for the label -1; test y(w·x + b) <= 0 instead")
            elif missed == ["zero_plus"]:
                extra = " — here for y = +1"
            problems.append("sign(0) must count as a mistake: a point with score exactly 0 (on the boundary) "
                            f"must be updated, e.g. {_probe_text(_U[missed[0]])} was left unchanged{extra}")
    if aspect in ("all", "bias"):
        for key in ("plus", "minus"):
            w, b, x, y, lr = _U[key]
            _, nb, _ = _call_update(update, key)
            if np.isclose(nb, b + lr * y):
                continue
            where = f"on the misclassified point ({_probe_text(_U[key])}) b became {_fmt(nb)}"
            if nb == b:
                problems.append(f"your update ignores the bias: {where}, unchanged; on a mistake "
                                "b moves too (b + learning_rate·y)")
            elif np.isclose(nb, b + y):
                problems.append(f"{where}: the learning rate must scale the bias step too "
                                "(b + learning_rate·y)")
            elif np.isclose(nb, b - lr * y):
                problems.append(f"{where}: the bias step has the wrong sign (b + learning_rate·y)")
            else:
                problems.append(f"{where}, not b + learning_rate·y")
            break
        for key in ("ok_plus", "ok_minus"):
            _, nb, _ = _call_update(update, key)
            if nb != _U[key][1]:
                problems.append(f"your update changed b on a correctly classified point "
                                f"({_probe_text(_U[key])}): "
                                "update only on a mistake")
                break
    _fail("update", problems)


# Probes for train: separable data needing several epochs, and four XOR points.
_T_X = np.array([[3.0, 2.0], [2.0, 2.0], [-1.0, 3.0], [-3.0, -3.0], [-1.0, 0.0]])
_T_Y = np.array([-1, -1, 1, -1, -1])
_T_LR = 0.5
_XOR_X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])
_XOR_Y = np.array([1, 1, -1, -1])


def _call_train(train, X, y, lr, max_epochs):
    __tracebackhide__ = True  # keep students' tracebacks short
    out = _pair(_run(train, "the training loop", X.copy(), y.copy(), lr, max_epochs),
                "train", ("w", "b", "trace"))
    w, b, trace = out
    check_shape(w, (X.shape[1],), "the w returned by train")
    if np.ndim(b) != 0:
        raise AssertionError(f"the b returned by train should be a number, got shape {np.shape(b)}")
    try:
        trace = np.asarray(trace, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError("the trace should be an array of numbers (one row per step)") from None
    check_shape(trace, (None, 4 + X.shape[1]), "the trace (rows: epoch, index, mistake, b, w_1, w_2)")
    return np.asarray(w, float), float(b), trace


def _train_variants(X, y, lr, max_epochs):
    """(message, w, b, trace) for common mistakes, most specific first."""
    w, b, t = _primal(X, y, lr, max_epochs)
    out = []
    t0 = t.copy()
    t0[:, 0] -= 1
    out.append(("the epochs in the trace are numbered from 1 (the first epoch is epoch 1)", w, b, t0))
    t1 = t.copy()
    t1[:, 1] += 1
    out.append(("the index column holds the sample's row in X, from 0", w, b, t1))
    tw = np.hstack([t[:, :3], t[:, 4:], t[:, 3:4]])
    out.append(("the columns are epoch, index, mistake, intercept, then the weights: "
                "the intercept comes before w", w, b, tw))
    out.append(("a trace row holds b and w after that step, not before",
                *_primal(X, y, lr, max_epochs, before=True)))
    out.append(("the trace needs one row per visited sample, mistakes or not", w, b, t[t[:, 2] == 1]))
    out.append(("your loop must stop after the first epoch without a mistake",
                *_primal(X, y, lr, max_epochs, stop=False)))
    out.append(("sign(0) must count as a mistake: the first point (score 0, since w and b start at 0) "
                "must be updated", *_primal(X, y, lr, max_epochs, zero_is_mistake=False)))
    out.append(("your training ignores the bias: b must move by learning_rate·y on each mistake",
                *_primal(X, y, lr, max_epochs, bias=False)))
    out.append(("the learning rate must scale the bias step too (b + learning_rate·y)",
                *_primal(X, y, lr, max_epochs, bias_lr=False)))
    out.append(("the learning rate is not applied: each step is learning_rate·y·x "
                "(and learning_rate·y for b)",
                *_primal(X, y, lr, max_epochs, bias_lr=False, w_lr=False)))
    return out


def _same(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return a.shape == b.shape and np.allclose(a, b)


def diagnose_trace(train, aspect="all"):
    """Probe ``train(X, y, learning_rate, max_epochs) -> (w, b, trace)`` and name the mistake.

    Aspects: ``"trace"`` (every row of the trace on a small data set, and the
    returned w, b equal to the last row), ``"result"`` (the final w and b) and
    ``"stop"`` (one row per visited sample, stop after the first epoch without a
    mistake or after ``max_epochs``; judged by the student's own mistake column,
    so a wrong update rule does not fail it).

    Raises
    ------
    AssertionError
        Listing every problem found.
    """
    __tracebackhide__ = True  # keep students' tracebacks short
    problems = []
    X, y, lr, E = _T_X, _T_Y, _T_LR, 20
    if aspect in ("all", "trace", "result"):
        w, b, trace = _call_train(train, X, y, lr, E)
        rw, rb, rt = _primal(X, y, lr, E)
        variants = _train_variants(X, y, lr, E)
        if aspect in ("all", "trace") and not _same(trace, rt):
            named = [m for m, _, _, vt in variants if _same(trace, vt)]
            if named:
                problems.append(named[0])
            else:
                try:
                    check_trace(trace, rt, f"your trace on X={_fmt(X)}, y={_fmt(y)}, learning_rate={lr:g}")
                except AssertionError as exc:
                    problems.append(str(exc))
        if aspect in ("all", "trace") and len(trace) and not _same(trace[-1, 3:], [b, *w]):
            problems.append("the w and b you return must be those of the last trace row")
        if aspect in ("all", "result") and not (_same(w, rw) and np.isclose(b, rb)):
            named = [m for m, vw, vb, _ in variants[5:] if _same(w, vw) and np.isclose(b, vb)]
            problems.append(named[0] if named else
                            f"on X={_fmt(X)}, y={_fmt(y)}, learning_rate={lr:g} you returned "
                            f"w={_fmt(w)}, b={_fmt(b)}: not the final weights of the perceptron")
    if aspect in ("all", "stop"):
        for X_, y_, lr_, E_ in ((_XOR_X, _XOR_Y, 1.0, 3), (X, y, lr, E)):
            _, _, t = _call_train(train, X_, y_, lr_, E_)
            found = _stop_problems(t, len(y_), E_)
            if found:
                problems += found
                break
        try:
            check_raises(train, ValueError, X.copy(), y[:-1].copy(), lr, E,
                         why=f"X has {len(X)} rows but y has {len(y) - 1} labels")
        except AssertionError as exc:
            problems.append(str(exc))
    _fail("train", problems)


def check_stopping(trace, n_samples, max_epochs, name="train"):
    """Check when a training loop stopped, judged by its own trace (not by the rule).

    One row per visited sample, each epoch visiting samples 0..n-1 in order, epochs
    numbered consecutively; every epoch but the last has a mistake (flag 1); the last
    has none, unless ``max_epochs`` epochs ran. A wrong update rule does not fail
    this check: it only looks at how the loop uses its own mistake flags.

    Parameters
    ----------
    trace : array-like of shape (n_steps, 4 + n_features)
    n_samples : int
    max_epochs : int
    name : str, default="train"

    Raises
    ------
    AssertionError
    """
    __tracebackhide__ = True  # keep students' tracebacks short
    _fail(name, _stop_problems(np.asarray(trace, dtype=float), n_samples, max_epochs))


def _stop_problems(t, n, max_epochs):
    if len(t) == 0 or len(t) % n:
        return [f"your trace has {len(t)} rows for {n} points: one row per visited sample, every epoch "
                "visiting all of them"]
    epochs = t[:, 0].reshape(-1, n)
    flags = t[:, 2].reshape(-1, n)
    if not np.isin(flags, (0, 1)).all():
        return ["the mistake column holds 1 for a mistake and 0 otherwise"]
    if not (np.all(epochs == epochs[:, :1]) and np.all(np.diff(epochs[:, 0]) == 1)):
        return ["each epoch's rows carry the same epoch number, one more than the epoch before"]
    if not np.array_equal(t[:, 1].reshape(-1, n), np.tile(np.arange(n), (len(epochs), 1))):
        return ["each epoch visits the samples in order 0, 1, ..., n-1 (the index column)"]
    per_epoch = flags.sum(1)
    if len(epochs) > max_epochs:
        return [f"your loop ran {len(epochs)} epochs with max_epochs={max_epochs}"]
    if np.any(per_epoch[:-1] == 0):
        return ["your loop must stop after the first epoch without a mistake (it went on)"]
    if per_epoch[-1] > 0 and len(epochs) < max_epochs:
        return [f"your loop stopped after {len(epochs)} epochs although the last one had mistakes "
                "(and max_epochs was not reached)"]
    return []


# --------------------------------------------------------------------------- #
# Lesson 03: dual training and prediction
# --------------------------------------------------------------------------- #

def _dual(K, y, max_epochs, lr, *, zero_is_mistake=True, bias=True, bias_lr=True, bias_in_score=True,
          step="one"):
    """Dual perceptron training and common variants (the default is the right rule)."""
    n = len(y)
    alpha, b = np.zeros(n), 0.0
    for _ in range(max_epochs):
        made = 0
        for i in range(n):
            s = y[i] * (lr * np.dot(alpha * y, K[:, i]) + (b if bias_in_score else 0.0))
            if (s <= 0) if zero_is_mistake else (s < 0):
                alpha[i] = {"one": alpha[i] + 1, "set": 1.0, "y": alpha[i] + y[i]}[step]
                b += ((lr if bias_lr else 1.0) * y[i]) if bias else 0.0
                made += 1
        if made == 0:
            break
    return alpha, b


def _gram(X):
    return X @ X.T


# Counts: points far from the origin, separable through it, so the bias never decides.
_D_XC = 10.0 * np.array([[1.0, 3.0], [2.0, 3.0], [-2.0, -1.0], [-2.0, -2.0], [-2.0, 3.0], [0.0, 2.0]])
_D_YC = np.array([1, 1, -1, -1, -1, 1])
# Bias and learning rate: the bias matters.
_D_XB = np.array([[2.0, 3.0], [0.0, 1.0], [0.0, 3.0], [0.0, 0.0], [1.0, 1.0]])
_D_YB = np.array([1, -1, 1, -1, -1])


def _call_dual(dual_train, K, y, lr, max_epochs=20):
    __tracebackhide__ = True  # keep students' tracebacks short
    out = _pair(_run(dual_train, "the dual training", K.copy(), y.copy(), max_epochs, lr),
                "dual_train", ("alpha", "b"))
    alpha, b = out
    check_shape(alpha, (len(y),), "the alpha returned by dual_train")
    if np.ndim(b) != 0:
        raise AssertionError(f"the b returned by dual_train should be a number, got shape {np.shape(b)}")
    try:
        alpha = np.asarray(alpha, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError("alpha should be an array of numbers (mistake counts)") from None
    return alpha, float(b)


def _counting_problem(alpha, K, y):
    """Name a mistake in how alpha counts, or return None."""
    if np.all(alpha == 0):
        return ("sign(0) must count as a mistake: all your alpha are 0, but w = 0 and b = 0 at the "
                "first visit give a score of exactly 0, which is a mistake")
    if np.any(alpha < 0):
        return ("alpha counts mistakes, so it is never negative: add 1 (the label y_i enters the "
                "score, not alpha)")
    if np.allclose(alpha, _dual(K, y, 20, 1.0, step="set")[0]):
        return "alpha must count the mistakes on each sample (alpha[i] += 1), not just mark them with 1"
    return None


def diagnose_dual(dual_train, aspect="all"):
    """Probe ``dual_train(K, y, max_epochs, learning_rate) -> (alpha, b)`` and name the mistake.

    Aspects: ``"counts"`` (alpha counts the mistakes per sample, a score of 0 is a
    mistake, a ``ValueError`` for a non-square K; on a Gram matrix where the bias
    never decides), ``"bias"`` (b grows by learning_rate·y on each mistake and enters
    every score) and ``"learning_rate"`` (alpha does not depend on the learning rate,
    b is proportional to it).

    Raises
    ------
    AssertionError
        Listing every problem found, e.g. "the learning rate was applied to the dual
        counts alpha" or "your dual training ignores the bias".
    """
    __tracebackhide__ = True  # keep students' tracebacks short
    problems = []
    if aspect in ("all", "counts"):
        K, y = _gram(_D_XC), _D_YC
        alpha, _ = _call_dual(dual_train, K, y, 1.0)
        ra, _ = _dual(K, y, 20, 1.0)
        if not np.allclose(alpha, ra):
            named = _counting_problem(alpha, K, y)
            if named:
                problems.append(named)
            else:
                try:
                    check_close(alpha, ra, "alpha on a Gram matrix of 6 samples",
                                hint="alpha[i] counts the mistakes on sample i, visiting samples 0..n-1 in "
                                     "order; the score is learning_rate·Σ_j alpha_j y_j K[j, i] + b")
                except AssertionError as exc:
                    problems.append(str(exc))
        try:
            check_raises(dual_train, ValueError, np.ones((3, 4)), np.array([1, -1, 1]), 5, 1.0,
                         why="K has shape (3, 4), not (n, n) for n = len(y) labels")
        except AssertionError as exc:
            problems.append(str(exc))
    if aspect in ("all", "bias"):
        K, y = _gram(_D_XB), _D_YB
        alpha, b = _call_dual(dual_train, K, y, 1.0)
        ra, rb = _dual(K, y, 20, 1.0)
        ia, ib = _dual(K, y, 20, 1.0, bias_in_score=False)
        if not (np.allclose(alpha, ra) and np.isclose(b, rb)):
            if _counting_problem(alpha, K, y):
                problems.append(_counting_problem(alpha, K, y))
            elif b == 0 and np.allclose(alpha, _dual(K, y, 20, 1.0, bias=False)[0]):
                problems.append("your dual training ignores the bias: b never changes; on each mistake "
                                "b += learning_rate·y_i, and b enters every score")
            elif _same((*alpha, b), (*ia, ib)):
                problems.append("your b changes but never enters the score: "
                                "f(x_i) = learning_rate·Σ_j alpha_j y_j K[j, i] + b")
            else:
                problems.append(f"on K = X Xᵀ for X={_fmt(_D_XB)}, y={_fmt(y)} you returned "
                                f"alpha={_fmt(alpha)}, b={_fmt(b)}: check the mistake counts and the bias "
                                "(b += learning_rate·y_i on a mistake, added to every score)")
    if aspect in ("all", "learning_rate"):
        K, y = _gram(_D_XB), _D_YB
        a1, b1 = _call_dual(dual_train, K, y, 1.0)
        a4, b4 = _call_dual(dual_train, K, y, 0.25)
        ra, rb = _dual(K, y, 20, 1.0)
        va, vb = _dual(K, y, 20, 0.25, bias_lr=False)
        if not np.allclose(a4, np.round(a4)):
            problems.append(f"the learning rate was applied to the dual counts alpha (learning_rate=0.25 "
                            f"gave alpha={_fmt(a4)}): alpha[i] grows by exactly 1 per mistake, whatever the "
                            "learning rate; the learning rate multiplies the kernel sum and the bias step")
        elif _same((*a4, b4), (*ra, 0.25 * rb)):
            pass  # right for 0.25 (a wrong alpha for 1 is the other aspects' business)
        elif _same((*a4, b4), (*va, vb)) or (b1 != 0 and np.allclose(a4, a1) and np.isclose(b4, b1)):
            problems.append("the bias step must be scaled by the learning rate too (b += learning_rate·y_i)")
        elif not np.allclose(a4, a1):
            problems.append(f"alpha changed with the learning rate ({_fmt(a1)} for 1, {_fmt(a4)} for 0.25): "
                            "w and b start at 0, so the learning rate only rescales every score and the "
                            "mistakes stay the same; apply it to the kernel sum and to the bias step alike")
        elif not np.isclose(b4, 0.25 * b1):
            problems.append(f"b should be proportional to the learning rate: you returned b={_fmt(b1)} for "
                            f"learning_rate=1 and b={_fmt(b4)} for 0.25")
    _fail("dual_train", problems)


# Probes for dual_predict: K_test_train (4 test x 3 train); with alpha·y = (1, 0, -2) and
# b = -0.5 the scores are -3.5, 1.5, -0.3 and exactly 0.
_Q_K = np.array([[1.0, 0.0, 2.0], [0.0, 3.0, -1.0], [0.2, 0.0, 0.0], [0.5, 0.0, 0.0]])
_Q_ALPHA = np.array([1, 0, 2])
_Q_Y = np.array([1, -1, -1])
_Q_B = -0.5


def diagnose_dual_predict(dual_predict, aspect="all"):
    """Probe ``dual_predict(K_test_train, alpha, y, b, learning_rate) -> labels``.

    Aspects: ``"basic"`` (shape, labels -1/+1, labels y and bias used, a
    ``ValueError`` when the columns of K do not match alpha) and ``"details"`` (a
    score of exactly 0 predicts -1; the learning rate multiplies the kernel sum).

    Raises
    ------
    AssertionError
        Listing every problem found.
    """
    __tracebackhide__ = True  # keep students' tracebacks short
    what, problems = "the dual prediction", []
    scores = _Q_K @ (_Q_ALPHA * _Q_Y) + _Q_B
    if aspect in ("all", "basic"):
        m = 3
        got = _run(dual_predict, what, _Q_K[:m].copy(), _Q_ALPHA.copy(), _Q_Y.copy(), _Q_B, 1.0)
        arr = np.asarray(got)
        if arr.shape == (m,) and arr.dtype.kind in "fiu" and not np.isin(arr, (-1, 1)).all() \
                and np.allclose(arr, scores[:m]):
            problems.append("dual_predict returned the scores; return their labels -1/+1")
        else:
            check_labels(got, m, f"dual_predict for K_test_train of shape ({m}, 3)")
            right = np.where(scores[:m] > 0, 1, -1)
            if not np.array_equal(arr, right):
                if np.array_equal(arr, np.where(_Q_K[:m] @ _Q_ALPHA + _Q_B > 0, 1, -1)):
                    problems.append("your prediction ignores the labels y: the score is "
                                    "learning_rate·Σ_j alpha_j y_j K[t, j] + b")
                elif np.array_equal(arr, np.where(_Q_K[:m] @ (_Q_ALPHA * _Q_Y) > 0, 1, -1)):
                    problems.append("your prediction ignores the bias b: the score is "
                                    "learning_rate·Σ_j alpha_j y_j K[t, j] + b")
                elif np.array_equal(arr, -right):
                    problems.append("your labels are flipped: a positive score predicts +1")
                else:
                    problems.append(f"dual_predict(K_test_train={_fmt(_Q_K[:m])}, alpha={_fmt(_Q_ALPHA)}, "
                                    f"y={_fmt(_Q_Y)}, b={_fmt(_Q_B)}) gave {_fmt(arr)}: "
                                    f"{int((arr != right).sum())} label(s) are wrong")
        try:
            check_raises(dual_predict, ValueError, np.ones((2, 4)), _Q_ALPHA.copy(), _Q_Y.copy(), 0.0, 1.0,
                         why="K_test_train has 4 columns but there are 3 training samples (len(alpha))")
        except AssertionError as exc:
            problems.append(str(exc))
    if aspect in ("all", "details"):
        got = _run(dual_predict, what, _Q_K.copy(), _Q_ALPHA.copy(), _Q_Y.copy(), _Q_B, 1.0)
        check_shape(got, (4,), "dual_predict for 4 test points")
        z = float(np.asarray(got, float)[3])
        if z == 0:
            problems.append("a score of exactly 0 gave 0 (np.sign(0) is 0): a point whose score is not "
                            "positive is labelled -1")
        elif z == 1:
            problems.append("a score of exactly 0 gave +1: only a positive score predicts +1")
        # kernel sum 2, b = -1.5: the score is 0.5·2 - 1.5 < 0 with learning_rate=0.5
        got = _run(dual_predict, what, np.array([[2.0, 0.0, 0.0]]), np.array([1, 0, 2]),
                   np.array([1, 1, -1]), -1.5, 0.5)
        check_shape(got, (1,), "dual_predict for 1 test point")
        if float(np.asarray(got, float)[0]) != -1:
            problems.append("with learning_rate=0.5 your prediction ignores the learning rate: the score is "
                            "learning_rate·Σ_j alpha_j y_j K[t, j] + b (it multiplies the kernel sum, not b)")
    _fail("dual_predict", problems)


# ---- lesson 04 checks
# Lesson 04 (the kernel trick): the feature map φ, the identity (x·z)² = φ(x)·φ(z), the
# kernel perceptron with k(x, z) = (1 + x·z)², and the number of polynomial features.
# no_reference_calls also catches reference *functions* called through a name imported
# before the test (``from kpcourse.kernels import quadratic_features``), which
# reference_blocked alone cannot see: it watches the calls with a profile hook.

import inspect as _inspect  # noqa: E402  (lesson sections are appended: imports for this section)
import math as _math  # noqa: E402
import sys as _sys  # noqa: E402

__all__ += [
    "PHI_FORBIDDEN",
    "COUNT_FORBIDDEN",
    "no_reference_calls",
    "diagnose_phi",
    "diagnose_identity_gap",
    "diagnose_kernel_train",
    "diagnose_kernel_predict",
    "diagnose_count_features",
]

#: What phi may not call: the package's feature maps and scikit-learn's.
PHI_FORBIDDEN = (
    "kpcourse.kernels.quadratic_features",
    "kpcourse.kernels.polynomial_features",
    "sklearn.preprocessing.PolynomialFeatures",
)
#: What count_features may not call.
COUNT_FORBIDDEN = ("kpcourse.kernels.n_polynomial_features",)


@contextlib.contextmanager
def _watch_calls(forbidden):
    """Record calls of the forbidden Python functions, through whatever name they are called."""
    codes = {}
    for target in forbidden:
        module, attr = _resolve(target)
        obj = getattr(module, attr, None) if module is not None else None
        # unwrap decorators: scikit-learn's public functions share one wrapper's code
        code = getattr(_inspect.unwrap(obj), "__code__", None) if obj is not None else None
        if code is not None:
            codes[code] = target
    seen = []

    def hook(frame, event, arg):
        if event == "call" and frame.f_code in codes:
            seen.append(codes[frame.f_code])

    old = _sys.getprofile()
    _sys.setprofile(hook if codes else old)
    try:
        yield seen
    finally:
        _sys.setprofile(old)


def no_reference_calls(func, *, what="the algorithm", forbidden=DEFAULT_FORBIDDEN, time_limit=10.0):
    """Like :func:`no_reference`, and also catch reference functions called by any name.

    ``reference_blocked`` replaces a function in its module, so a copy imported
    earlier (``from kpcourse.kernels import quadratic_features``) still runs; here a
    profile hook notices every call of the forbidden functions' code while ``func``
    runs, and a call found makes the check fail ("... gets no credit") even if
    ``func`` returned normally or raised.

    Parameters
    ----------
    func : callable
    what : str, default="the algorithm"
    forbidden : tuple of str, default=DEFAULT_FORBIDDEN
        Dotted names of classes and functions.
    time_limit : float or None, default=10.0

    Returns
    -------
    wrapper : callable
        Same signature as ``func``.

    Lesson 04 (the kernel trick).
    """
    inner = no_reference(func, what=what, forbidden=forbidden, time_limit=time_limit)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with _watch_calls(forbidden) as seen:
            try:
                result = inner(*args, **kwargs)
            except BaseException as exc:
                if seen and not isinstance(exc, _CheckFailure):
                    raise _CheckFailure(_no_credit(seen[0], what)) from None
                raise
        if seen:
            raise _CheckFailure(_no_credit(seen[0], what))
        return result

    return wrapper


def _run04(func, what, forbidden, *args, time_limit=5.0):
    """Call a student's function under :func:`no_reference_calls`; other errors get context."""
    fname = getattr(func, "__name__", "your function")
    try:
        return no_reference_calls(func, what=what, forbidden=forbidden, time_limit=time_limit)(*args)
    except _CheckFailure:
        raise
    except Exception as exc:
        shown = ", ".join(_fmt(a) if not callable(a) else getattr(a, "__name__", "a function") for a in args)
        raise _CheckFailure(f"{fname}({shown}) raised {type(exc).__name__}: {exc}") from exc


def _raises04(func, what, forbidden, exception, *args, why):
    """A problem (str) unless ``func(*args)`` raises ``exception``; None if it does."""
    fname = getattr(func, "__name__", "your function")
    try:
        no_reference_calls(func, what=what, forbidden=forbidden, time_limit=5.0)(*args)
    except exception:
        return None
    except _CheckFailure:
        raise
    except Exception as exc:
        return f"{fname} should raise {exception.__name__} when {why}; it raised {type(exc).__name__}: {exc}"
    return f"{fname} should raise {exception.__name__} when {why}; it returned normally"


# --------------------------------------------------------------------- phi
def _quad(X):
    X = np.asarray(X, dtype=float)
    return np.column_stack([X[:, 0] ** 2, X[:, 1] ** 2, np.sqrt(2.0) * X[:, 0] * X[:, 1]])


_PHI_X = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.0], [-2.0, -1.5]])


def diagnose_phi(phi, aspect="all"):
    """Probe ``phi(X) -> (n, 3)``, the feature map of (x·z)², and name the mistake.

    Aspects: ``"shape"`` (shape (n, 3) for (n, 2) input, the input left unchanged, a
    ``ValueError`` for 3 columns and for a single point of shape (2,)) and
    ``"values"`` (the features x₁², x₂², √2·x₁x₂ in this order; a missing √2, a factor 2
    or a wrong column order are named).

    Raises
    ------
    AssertionError
        Listing every problem found, e.g. "the cross term needs the factor √2".

    Lesson 04 (the kernel trick).
    """
    what, forb, problems = "the feature map φ", PHI_FORBIDDEN, []
    if aspect in ("all", "shape"):
        X = _PHI_X.copy()
        got = _run04(phi, what, forb, X)
        check_shape(got, (4, 3), "phi(X) for X of shape (4, 2)")
        if not np.array_equal(X, _PHI_X):
            problems.append("phi changed the array X passed in: compute new columns instead of "
                            "writing into X")
        check_shape(_run04(phi, what, forb, _PHI_X[:1].copy()), (1, 3), "phi(X) for X of shape (1, 2)")
        for bad, why in ((np.ones((4, 3)), "X has shape (4, 3): φ maps 2-D points only"),
                         (np.array([1.0, 2.0]), "X has shape (2,): one point must be given as "
                                                "shape (1, 2)")):
            problem = _raises04(phi, what, forb, ValueError, bad, why=why)
            if problem:
                problems.append(problem)
    if aspect in ("all", "values"):
        got = _run04(phi, what, forb, _PHI_X.copy())
        check_shape(got, (4, 3), "phi(X) for X of shape (4, 2)")
        try:
            arr = np.asarray(got, dtype=float)
        except (TypeError, ValueError):
            raise AssertionError(f"phi should return numbers, got {type(got).__name__}") from None
        ref = _quad(_PHI_X)
        x1, x2 = _PHI_X[:, 0], _PHI_X[:, 1]
        if not np.allclose(arr, ref):
            if not np.all(np.isfinite(arr)):
                problems.append("phi returned NaN or infinite values (a square root of a negative "
                                "product?): the third feature is √2 times x1·x2")
            elif np.allclose(arr[:, :2], ref[:, :2]) and np.allclose(arr[:, 2], x1 * x2):
                problems.append("the cross term needs the factor √2: φ(x) = (x1², x2², √2·x1·x2). "
                                "Without it φ(x)·φ(z) = x1²z1² + x2²z2² + x1x2z1z2, which misses half "
                                "of the term 2·x1x2z1z2 of (x·z)²")
            elif np.allclose(arr[:, :2], ref[:, :2]) and np.allclose(arr[:, 2], 2 * x1 * x2):
                problems.append("the cross term is 2·x1·x2, but φ(x)·φ(z) multiplies two cross terms: "
                                "(2·x1x2)(2·z1z2) = 4·x1x2z1z2, twice too much; the factor is √2")
            elif np.allclose(np.sort(arr, axis=1), np.sort(ref, axis=1)):
                problems.append("the right features in the wrong order: the columns are x1², x2², "
                                "then √2·x1·x2")
            else:
                try:
                    check_close(arr, ref, "phi(X)", hint="each row must be (x1², x2², √2·x1·x2)")
                except AssertionError as exc:
                    problems.append(str(exc))
    _fail("phi", problems)


# ------------------------------------------------------------ identity gap
def _half_cross(X):
    """φ without the √2 (a wrong feature map): φ·φ − (x·z)² = −x1x2z1z2."""
    X = np.asarray(X, dtype=float)
    return np.column_stack([X[:, 0] ** 2, X[:, 1] ** 2, X[:, 0] * X[:, 1]])


def _double_cross(X):
    """φ with 2 instead of √2 (a wrong feature map): φ·φ − (x·z)² = +2·x1x2z1z2."""
    X = np.asarray(X, dtype=float)
    return np.column_stack([X[:, 0] ** 2, X[:, 1] ** 2, 2.0 * X[:, 0] * X[:, 1]])


def _all_products(X):
    """Degree-2 homogeneous features of any dimension: xᵢ² and √2·xᵢxⱼ (i < j)."""
    X = np.asarray(X, dtype=float)
    d = X.shape[1]
    cols = [X[:, i] * X[:, j] * (1.0 if i == j else np.sqrt(2.0)) for i in range(d) for j in range(i, d)]
    return np.column_stack(cols)


# The products x1x2z1z2 range from -1.5 to +6 here: the largest |difference| comes from a
# positive product, so a signed maximum fails for one of the two wrong maps.
_GAP_X = np.array([[1.0, 2.0], [-0.5, 1.0], [2.0, 0.5], [1.5, -1.0], [0.0, 1.0]])
_GAP_Z = np.array([[1.0, 1.5], [2.0, -0.5], [-1.0, 1.0], [0.5, 0.5]])


def _gap(feature_map, X, Z, how="max"):
    D = feature_map(X) @ feature_map(Z).T - (X @ Z.T) ** 2
    return {"max": np.abs(D).max(), "signed": D.max(), "flipped": (-D).max(),
            "mean": np.abs(D).mean(), "sum": np.abs(D).sum()}[how]


def _call_gap(gap, feature_map, X, Z):
    got = _run04(gap, "the identity check", DEFAULT_FORBIDDEN, feature_map, X.copy(), Z.copy())
    if np.ndim(got) != 0:
        raise AssertionError(f"identity_gap should return one number (the largest absolute "
                             f"difference), got shape {np.shape(got)}")
    try:
        return float(got)
    except (TypeError, ValueError):
        raise AssertionError(f"identity_gap should return a number, got {type(got).__name__}") from None


def diagnose_identity_gap(gap, aspect="all"):
    """Probe ``identity_gap(feature_map, X, Z) -> float`` and name the mistake.

    The function returns max over all pairs of |φ(x)·φ(z) − (x·z)²| with φ =
    ``feature_map``. Aspects: ``"values"`` (rounding-size for the exact map; the right
    gap for two wrong maps, so that a signed maximum, a mean or a sum are named) and
    ``"errors"`` (one number returned for X and Z of different lengths and any
    dimension; a ``ValueError`` when X and Z have different numbers of columns).

    Raises
    ------
    AssertionError
        Listing every problem found.

    Lesson 04 (the kernel trick).
    """
    problems = []
    X, Z = _GAP_X, _GAP_Z
    if aspect in ("all", "values"):
        exact = _call_gap(gap, _quad, X, Z)
        if not np.isfinite(exact) or abs(exact) > 1e-9:
            problems.append(f"with the exact feature map φ(x) = (x1², x2², √2·x1x2) your gap is "
                            f"{_fmt(exact)}, not rounding-size: compare feature_map(X) @ feature_map(Z).T "
                            "with the kernel values (X @ Z.T) ** 2, each entry squared")
        else:
            for wrong in (_half_cross, _double_cross):
                got = _call_gap(gap, wrong, X, Z)
                if np.isclose(got, _gap(wrong, X, Z)):
                    continue
                named = {"signed": "the largest absolute difference is needed: take np.abs of the "
                                   "differences before the maximum (a feature map can undershoot)",
                         "flipped": "the largest absolute difference is needed: take np.abs of the "
                                    "differences before the maximum (a feature map can overshoot)",
                         "mean": "return the largest absolute difference (max), not the mean",
                         "sum": "return the largest absolute difference (max), not the sum"}
                found = [m for how, m in named.items() if np.isclose(got, _gap(wrong, X, Z, how))]
                problems.append(found[0] if found else
                                f"for a feature map without the √2 (third feature x1·x2) you returned "
                                f"{_fmt(got)}: the gap is max |feature_map(X) @ feature_map(Z).T − "
                                "(X @ Z.T) ** 2| over all pairs")
                break
    if aspect in ("all", "errors"):
        A = np.array([[1.0, 0.5, -1.0], [0.0, 2.0, 1.0]])
        B = np.array([[1.0, 1.0, 1.0], [2.0, 0.0, -0.5], [0.5, -1.0, 0.0]])
        got = _call_gap(gap, _all_products, A, B)
        if not (np.isfinite(got) and abs(got) < 1e-9):
            problems.append(f"for 3-D points (2 of them in X, 3 in Z) and their exact degree-2 feature map "
                            f"you returned {_fmt(got)}: the gap must work for any dimension and for X and "
                            "Z of different lengths (a (2, 3) table of pairs)")
        problem = _raises04(gap, "the identity check", DEFAULT_FORBIDDEN, ValueError, _all_products,
                            np.ones((2, 2)), np.ones((3, 3)),
                            why="X has 2 columns and Z has 3: their points cannot be compared")
        if problem:
            problems.append(problem)
    _fail("identity_gap", problems)


# ------------------------------------------------- kernel perceptron (train)
def _kp04(X, y, max_epochs, *, kernel="quadratic", zero_is_mistake=True, bias=True, bias_in_score=True,
          step="one"):
    """The kernel perceptron with k = (1 + x·z)² and common variants (default: the right rule)."""
    X = np.asarray(X, dtype=float)
    G = X @ X.T
    K = {"quadratic": (1.0 + G) ** 2, "homogeneous": G ** 2, "linear": G}[kernel]
    n = len(y)
    alpha, b = np.zeros(n), 0.0
    for _ in range(max_epochs):
        made = 0
        for i in range(n):
            s = y[i] * (np.dot(alpha * y, K[:, i]) + (b if bias_in_score else 0.0))
            if (s <= 0) if zero_is_mistake else (s < 0):
                alpha[i] = alpha[i] + 1 if step == "one" else 1.0
                b += y[i] if bias else 0.0
                made += 1
        if made == 0:
            break
    return alpha, b


# Multiples of 1/4: every kernel value and score is exact in floating point. Labelled by
# the unit circle; 3 epochs, one point corrected twice; every variant below differs.
_KT_X = np.array([[-0.5, 0.5], [0.0, 0.75], [0.5, 1.5], [0.25, 0.0], [1.0, -1.25], [-1.5, -1.75],
                  [0.0, -0.5], [-1.25, -0.5]])
_KT_Y = np.array([-1, -1, 1, -1, 1, 1, -1, 1])
_KT_VARIANTS = (
    ({"kernel": "homogeneous"}, "your kernel is (x·z)², without the 1: this exercise uses "
                                "k(x, z) = (1 + x·z)²"),
    ({"kernel": "linear"}, "your kernel is the linear x·z: this exercise uses k(x, z) = (1 + x·z)²"),
    ({"bias": False}, "your training ignores the bias: b never changes; on each mistake b += y_i, "
                      "and b enters every score"),
    ({"bias_in_score": False}, "your b changes but never enters the score: "
                               "f(x_i) = Σ_j alpha_j y_j k(x_j, x_i) + b"),
    ({"step": "set"}, "alpha must count the mistakes on each sample (alpha[i] += 1), not just mark "
                      "them with 1"),
)


def _call_kt(train, X, y, max_epochs, copy=True):
    if copy:
        X, y = X.copy(), y.copy()
    out = _pair(_run04(train, "the kernel perceptron", DEFAULT_FORBIDDEN, X, y, max_epochs),
                "kernel_perceptron_train", ("alpha", "b"))
    alpha, b = out
    check_shape(alpha, (len(y),), "the alpha returned by kernel_perceptron_train")
    if np.ndim(b) != 0:
        raise AssertionError(f"the b returned by kernel_perceptron_train should be a number, "
                             f"got shape {np.shape(b)}")
    try:
        return np.asarray(alpha, dtype=float), float(b)
    except (TypeError, ValueError):
        raise AssertionError("alpha should hold numbers (mistake counts) and b should be a number") from None


def diagnose_kernel_train(train, aspect="all"):
    """Probe ``kernel_perceptron_train(X, y, max_epochs) -> (alpha, b)`` and name the mistake.

    The rule: k(x, z) = (1 + x·z)²; visit 0..n-1; if y_i f(x_i) <= 0 with
    f(x_i) = Σ_j alpha_j y_j k(x_j, x_i) + b, then alpha_i += 1 and b += y_i; stop after
    an epoch without a mistake or after max_epochs. Aspects: ``"basic"`` (a tuple of an
    (n,) array of non-negative whole counts and a number, a score of 0 is a mistake, the
    inputs unchanged, a ``ValueError`` when y does not have one label per row of X),
    ``"rule"`` (alpha and b on a small data set; a wrong kernel, a missing bias, a bias
    outside the score and alpha set to 1 are named) and ``"stop"`` (exactly max_epochs
    epochs when every visit is a mistake; judged on two copies of one point with
    opposite labels, so a wrong kernel or bias does not fail it).

    Raises
    ------
    AssertionError
        Listing every problem found.

    Lesson 04 (the kernel trick).
    """
    problems = []
    X, y = _KT_X, _KT_Y
    if aspect in ("all", "basic"):
        Xc, yc = X.copy(), y.copy()
        alpha, _ = _call_kt(train, Xc, yc, 20, copy=False)
        if not (np.array_equal(Xc, X) and np.array_equal(yc, y)):
            problems.append("kernel_perceptron_train changed the X or y passed in")
        if np.all(alpha == 0):
            problems.append("sign(0) must count as a mistake: all your alpha are 0, but alpha = 0 and "
                            "b = 0 give the first point a score of exactly 0, which is a mistake")
        elif np.any(alpha < 0) or not np.allclose(alpha, np.round(alpha)):
            problems.append(f"alpha counts mistakes, so it holds whole numbers >= 0; you returned "
                            f"{_fmt(alpha)} (add 1 on a mistake: the label y_i enters the score, not alpha)")
        problem = _raises04(train, "the kernel perceptron", DEFAULT_FORBIDDEN, ValueError, X.copy(),
                            y[:-1].copy(), 20, why=f"X has {len(y)} rows but y has {len(y) - 1} labels")
        if problem:
            problems.append(problem)
    if aspect in ("all", "rule"):
        alpha, b = _call_kt(train, X, y, 20)
        ra, rb = _kp04(X, y, 20)
        if not (np.allclose(alpha, ra) and np.isclose(b, rb)):
            variants = [(_kp04(X, y, 20, **kw), m) for kw, m in _KT_VARIANTS]
            named = [m for (va, vb), m in variants if np.allclose(alpha, va) and np.isclose(b, vb)]
            if named:
                problems.append(named[0])
            elif np.all(alpha == 0):
                problems.append("sign(0) must count as a mistake: all your alpha are 0")
            elif np.allclose(alpha, ra):
                problems.append(f"alpha is right but b is not (you returned b = {_fmt(b)}): b starts at 0 "
                                "and grows by y_i on each mistake")
            else:
                problems.append(f"on X={_fmt(X)}, y={_fmt(y)}, max_epochs=20 you returned "
                                f"alpha={_fmt(alpha)}, b={_fmt(b)}: not the kernel perceptron's. Visit the "
                                "samples 0..n-1 in order; f(x_i) = Σ_j alpha_j y_j (1 + x_j·x_i)² + b; "
                                "on y_i f(x_i) <= 0 add 1 to alpha_i and y_i to b")
    if aspect in ("all", "stop"):
        Xs, ys = np.array([[1.0, 0.5], [1.0, 0.5]]), np.array([1, -1])
        for epochs in (1, 3):
            alpha, _ = _call_kt(train, Xs, ys, epochs)
            if not np.allclose(alpha, epochs):
                problems.append(f"on two copies of one point with opposite labels every visit is a mistake, "
                                f"so with max_epochs={epochs} each alpha counts one mistake per epoch; you "
                                f"returned alpha={_fmt(alpha)}: run at most max_epochs epochs, and stop "
                                "early only after an epoch without a mistake")
                break
        if not problems:  # two separable points: every variant of the rule converges in 2 epochs
            try:
                no_reference_calls(train, what="the kernel perceptron", time_limit=3.0)(
                    np.array([[2.0, 0.0], [-2.0, 0.0]]), np.array([1, -1]), 10 ** 6)
            except _CheckFailure as exc:
                if "ran for more than" not in str(exc):
                    raise
                problems.append("with max_epochs=1000000 on two separable points your function did not "
                                "return within 3 s: stop after the first epoch without a mistake")
    _fail("kernel_perceptron_train", problems)


# ----------------------------------------------- kernel perceptron (predict)
# alpha·y = (2, -1, 1), b = -0.5; the scores of _KP_NEW are -6.5, -0.25, 4.5, -4.75 with
# (1 + x·z)², and the labels differ from every variant's (kernel (x·z)² or x·z, no y, no b).
_KP_X = np.array([[1.0, 0.0], [0.0, 2.0], [-1.0, 1.0]])
_KP_Y = np.array([1, -1, 1])
_KP_ALPHA = np.array([2, 1, 1])
_KP_B = -0.5
_KP_NEW = np.array([[-2.0, -2.0], [-2.0, -1.5], [-2.0, -1.0], [-1.5, 2.0]])


def _kp_scores(Xn, *, kernel="quadratic", use_y=True, use_b=True, X=_KP_X, y=_KP_Y, alpha=_KP_ALPHA, b=_KP_B):
    G = Xn @ X.T
    K = {"quadratic": (1.0 + G) ** 2, "homogeneous": G ** 2, "linear": G}[kernel]
    return K @ (alpha * (y if use_y else 1)) + (b if use_b else 0.0)


def _call_kp(predict, X, y, alpha, b, Xn):
    got = _run04(predict, "the kernel perceptron's prediction", DEFAULT_FORBIDDEN, X.copy(), y.copy(),
                 alpha.copy(), b, Xn.copy())
    return got, np.asarray(got)


def diagnose_kernel_predict(predict, aspect="all"):
    """Probe ``kernel_perceptron_predict(X_train, y_train, alpha, b, X_new) -> labels``.

    Labels sign(Σ_j alpha_j y_j (1 + x_j·x)² + b) in {-1, +1}, a score of exactly 0
    giving -1. Aspects: ``"basic"`` (shape, labels rather than scores, the labels y
    and the bias used, a ``ValueError`` when X_new and X_train have different numbers
    of columns) and ``"details"`` (the kernel (1 + x·z)², not (x·z)² or x·z; a score of
    exactly 0 predicts -1).

    Raises
    ------
    AssertionError
        Listing every problem found.

    Lesson 04 (the kernel trick).
    """
    what, problems = "the kernel perceptron's prediction", []
    args = (_KP_X, _KP_Y, _KP_ALPHA, _KP_B)
    right = np.where(_kp_scores(_KP_NEW) > 0, 1, -1)
    if aspect in ("all", "basic"):
        got, arr = _call_kp(predict, *args, _KP_NEW)
        scores = _kp_scores(_KP_NEW)
        if arr.shape == (4,) and arr.dtype.kind in "fiu" and np.allclose(arr, scores):
            problems.append("kernel_perceptron_predict returned the scores; return their labels -1/+1")
        else:
            check_labels(got, 4, "kernel_perceptron_predict for X_new of shape (4, 2)")
            if np.array_equal(arr, -right):
                problems.append("your labels are flipped: a positive score predicts +1")
            elif np.array_equal(arr, np.where(_kp_scores(_KP_NEW, use_y=False) > 0, 1, -1)):
                problems.append("your prediction ignores the labels y: the score is "
                                "Σ_j alpha_j y_j k(x_j, x) + b")
            elif np.array_equal(arr, np.where(_kp_scores(_KP_NEW, use_b=False) > 0, 1, -1)):
                problems.append("your prediction ignores the bias b: the score is "
                                "Σ_j alpha_j y_j k(x_j, x) + b")
        got1, _ = _call_kp(predict, *args, _KP_NEW[:1])
        if np.shape(got1) != (1,):
            problems.append(f"for X_new with one row (shape (1, 2)) return shape (1,), got {np.shape(got1)}")
        problem = _raises04(predict, what, DEFAULT_FORBIDDEN, ValueError, _KP_X.copy(), _KP_Y.copy(),
                            _KP_ALPHA.copy(), _KP_B, np.ones((2, 3)),
                            why="X_new has 3 columns but the training points have 2")
        if problem:
            problems.append(problem)
    if aspect in ("all", "details"):
        got, arr = _call_kp(predict, *args, _KP_NEW)
        check_labels(got, 4, "kernel_perceptron_predict for X_new of shape (4, 2)")
        if not np.array_equal(arr, right):
            for kernel, name in (("homogeneous", "(x·z)², without the 1"), ("linear", "the linear x·z")):
                if np.array_equal(arr, np.where(_kp_scores(_KP_NEW, kernel=kernel) > 0, 1, -1)):
                    problems.append(f"your kernel is {name}: this exercise uses k(x, z) = (1 + x·z)²")
                    break
            else:
                problems.append(f"kernel_perceptron_predict(X_train={_fmt(_KP_X)}, y_train={_fmt(_KP_Y)}, "
                                f"alpha={_fmt(_KP_ALPHA)}, b={_fmt(_KP_B)}, X_new={_fmt(_KP_NEW)}) gave "
                                f"{_fmt(arr)}: {int((arr != right).sum())} label(s) are wrong")
        # (1 + x·z)² is 2.25 for both training points at x = (0.5, 0.5): the score is exactly 0
        Xz, yz, az = np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1, -1]), np.array([1, 1])
        got, arr = _call_kp(predict, Xz, yz, az, 0.0, np.array([[0.5, 0.5], [2.0, 0.0]]))
        check_shape(got, (2,), "kernel_perceptron_predict for 2 new points")
        if float(arr[0]) == 0:
            problems.append("a score of exactly 0 gave 0 (np.sign(0) is 0): a point whose score is not "
                            "positive is labelled -1")
        elif float(arr[0]) == 1:
            problems.append("a score of exactly 0 gave +1: only a positive score predicts +1")
    _fail("kernel_perceptron_predict", problems)


# ------------------------------------------------------- counting features
def diagnose_count_features(count, aspect="all"):
    """Probe ``count_features(d, degree)``, the number of features of (1 + x·z)^degree.

    That number is C(d + degree, degree): the monomials of degree 0..degree in d
    variables. Aspects: ``"basic"`` (an integer, also when it is huge, and a
    ``ValueError`` for d < 1 or degree < 1) and ``"values"`` (small and large cases;
    counting only the monomials of degree exactly ``degree``, ordered products dⁿ or
    (d+1)ⁿ, or forgetting the constant feature are named).

    Raises
    ------
    AssertionError
        Listing every problem found.

    Lesson 04 (the kernel trick).
    """
    what, forb, problems = "the feature count", COUNT_FORBIDDEN, []
    if aspect in ("all", "basic"):
        for d, n in ((2, 2), (784, 5)):
            got = _run04(count, what, forb, d, n)
            if isinstance(got, (bool, np.bool_)) or not isinstance(got, (int, np.integer)):
                problems.append(f"count_features({d}, {n}) should return an int, got {type(got).__name__} "
                                f"{_fmt(got)}: a count is a whole number (use integer arithmetic, e.g. "
                                "math.comb or //, not /)")
                break
        for d, n, why in ((0, 2, "d = 0 (no coordinates)"), (3, 0, "degree = 0"),
                          (-2, 3, "d is negative")):
            problem = _raises04(count, what, forb, ValueError, d, n, why=why)
            if problem:
                problems.append(problem)
                break
    if aspect in ("all", "values"):
        for d, n in ((2, 2), (3, 2), (2, 3), (10, 3), (1, 4), (784, 5), (1000, 8)):
            got = _run04(count, what, forb, d, n)
            try:  # a float equal to the count passes here; "basic" asks for an int
                val = int(got) if float(got) == int(got) else got
            except (TypeError, ValueError, OverflowError):
                val = got
            if isinstance(val, int) and not isinstance(got, (bool, np.bool_)) and val == _math.comb(d + n, n):
                continue
            named = {_math.comb(d + n - 1, n): "you counted only the monomials of degree exactly `degree` "
                                               "(the features of (x·z)^degree); (1 + x·z)^degree has every "
                                               "degree from 0 (the constant 1) up to `degree`",
                     _math.comb(d + n, n) - 1: "you forgot the constant feature 1 (degree 0)",
                     d ** n: "you counted ordered products (x1·x2 and x2·x1 twice) of degree exactly "
                             "`degree`; a monomial is a multiset of variables",
                     (d + 1) ** n: "you counted ordered products (x1·x2 and x2·x1 twice); a monomial is a "
                                   "multiset of variables (stars and bars)"}
            if isinstance(val, int) and val in named:
                problems.append(named[val])
            elif isinstance(got, (int, np.integer)) and d == 1000:
                problems.append("count_features(1000, 8) is wrong although smaller cases are right: the "
                                "count exceeds 64-bit integers; use Python ints (math.comb)")
            else:
                problems.append(f"count_features({d}, {n}) returned {_fmt(got)}: count the monomials "
                                f"x1^k1 ... x{d}^k{d} with k1 + ... + k{d} <= {n}")
            break
    _fail("count_features", problems)


# ---- lesson 05 checks
# Lesson 05 (the Gaussian kernel): a loop-free RBF Gram matrix, the RBF prediction of the
# MSDN example, and the choice of the bandwidth σ on a validation split. The student's
# functions run under no_reference_calls (lesson 04), so calling a reference RBF through
# any name gets no credit.


__all__ += [
    "RBF_REFERENCES",
    "no_rbf_reference",
    "check_loop_free",
    "diagnose_rbf_gram",
    "diagnose_rbf_predict",
    "diagnose_choose_sigma",
    "sigma_errors",
    "check_sigma_choice",
]

#: RBF and distance implementations that rbf_gram / rbf_predict may not call (NumPy only).
RBF_REFERENCES = (
    "kpcourse.kernels.rbf",
    "kpcourse.kernels.squared_distances",
    "kpcourse.gram.gram_matrix",
    "kpcourse.perceptron.KernelPerceptron",
    "sklearn.metrics.pairwise.rbf_kernel",
    "sklearn.metrics.pairwise.euclidean_distances",
    "scipy.spatial.distance.cdist",
)


# The profile hook of lesson 04's no_reference_calls (it unwraps decorators too).
_l05_watch_calls = _watch_calls


def no_rbf_reference(func, *, what="the RBF kernel", forbidden=RBF_REFERENCES, time_limit=10.0):
    """Wrap a student's function: no RBF reference, by any name; a time limit.

    :func:`no_reference_calls` (lesson 04) with ``forbidden=RBF_REFERENCES``, naming the
    function the student called rather than a helper it calls in turn: calling
    ``kpcourse.kernels.rbf`` — through the module or through a name imported earlier
    (``from kpcourse.kernels import rbf``) — fails with "this exercise asks you to write
    <what> yourself; calling kpcourse.kernels.rbf gets no credit".

    Parameters
    ----------
    func : callable
    what : str, default="the RBF kernel"
    forbidden : tuple of str, default=RBF_REFERENCES
    time_limit : float or None, default=10.0

    Returns
    -------
    wrapper : callable
        Same signature as ``func``.

    Lesson 05 (the Gaussian kernel).
    """
    inner = no_reference(func, what=what, forbidden=forbidden, time_limit=time_limit)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with _l05_watch_calls(forbidden) as seen:  # the profile hook of no_reference_calls
            try:
                result = inner(*args, **kwargs)
            except BaseException:
                if seen:  # name what the student called, not the helper it calls in turn
                    raise _CheckFailure(_no_credit(seen[0], what)) from None
                raise
        if seen:
            raise _CheckFailure(_no_credit(seen[0], what))
        return result

    return wrapper


def _l05_call(func, what, *args, forbidden=RBF_REFERENCES, **kwargs):
    fname = getattr(func, "__name__", "your function")
    try:
        return no_rbf_reference(func, what=what, forbidden=forbidden)(*args, **kwargs)
    except _CheckFailure:
        raise
    except Exception as exc:
        shown = ", ".join([_fmt(a) for a in args] + [f"{k}={_fmt(v)}" for k, v in kwargs.items()])
        raise AssertionError(f"{fname}({shown}) raised {type(exc).__name__}: {exc}") from exc


def _l05_raises(func, what, args, why, forbidden=RBF_REFERENCES):
    """The problem text when ``func(*args)`` does not raise ValueError, else None."""
    fname = getattr(func, "__name__", "your function")
    try:
        no_rbf_reference(func, what=what, forbidden=forbidden)(*args)
    except ValueError:
        return None
    except _CheckFailure:
        raise
    except Exception as exc:
        return f"{fname} should raise ValueError when {why}; it raised {type(exc).__name__}: {exc}"
    return f"{fname} should raise ValueError when {why}; it returned normally"


_L05_LOOPS = {"For": "a `for` loop", "AsyncFor": "a `for` loop", "While": "a `while` loop",
              "ListComp": "a list comprehension", "SetComp": "a set comprehension",
              "DictComp": "a dict comprehension", "GeneratorExp": "a generator expression"}


def check_loop_free(func, name=None):
    """Check that the source of ``func`` holds no Python loop or comprehension.

    Reads the function's source (``inspect.getsource``; a function whose source cannot be
    read passes) and looks for ``for``, ``while`` and comprehensions anywhere in its body.

    Raises
    ------
    AssertionError
        "rbf_gram contains a `for` loop (line 3 of the function): ..."
    """
    import ast
    import inspect
    import textwrap

    name = name or getattr(func, "__name__", "your function")
    try:
        source = textwrap.dedent(inspect.getsource(func))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError, IndentationError):
        return
    for node in ast.walk(tree):
        kind = _L05_LOOPS.get(type(node).__name__)
        if kind:
            raise AssertionError(
                f"{name} contains {kind} (line {node.lineno} of the function): compute all pairs at "
                "once, without any Python loop — with broadcasting, or with "
                "‖x − z‖² = ‖x‖² − 2 x·z + ‖z‖² and a matrix product")


def _l05_rbf(X, Z, sigma):
    """The Gaussian kernel by broadcasting (exact squared distances)."""
    d2 = ((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
    return np.exp(-d2 / (2.0 * sigma ** 2))


def _l05_variants(d2, sigma):
    """(message, kernel values) for the common mistakes, most specific first."""
    return [
        ("σ instead of σ²: you divided the squared distance by 2σ; the denominator is 2σ² "
         "(square the bandwidth)", np.exp(-d2 / (2.0 * sigma))),
        ("the factor 2 is missing: you divided by σ², the denominator is 2σ²",
         np.exp(-d2 / sigma ** 2)),
        ("you divided by σ: the denominator is 2σ²", np.exp(-d2 / sigma)),
        ("σ is the bandwidth, not scikit-learn's γ: you computed exp(-σ‖x − z‖²), the kernel is "
         "exp(-‖x − z‖² / (2σ²))", np.exp(-sigma * d2)),
        ("you multiplied by 2σ² instead of dividing: the kernel is exp(-‖x − z‖² / (2σ²))",
         np.exp(-d2 * 2.0 * sigma ** 2)),
        ("use the squared distance ‖x − z‖², not the distance ‖x − z‖",
         np.exp(-np.sqrt(d2) / (2.0 * sigma ** 2))),
        ("the exponent must be negative: exp(-‖x − z‖² / (2σ²)) is 1 for x = z and falls towards 0",
         np.exp(d2 / (2.0 * sigma ** 2))),
        ("you returned the squared distances, not the kernel values exp(-‖x − z‖² / (2σ²))", d2),
    ]


def _l05_name_mistake(values, d2, sigma):
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        return None
    for message, v in _l05_variants(d2, sigma):
        if arr.shape == v.shape and np.allclose(arr, v, rtol=1e-7, atol=1e-12):
            return message
    return None


# Probes for rbf_gram: 4 x 3 points in 2-D, two bandwidths (σ, σ², 2σ and 2σ² all differ).
_G_X = np.array([[0.0, 0.0], [1.0, 2.0], [-1.5, 0.5], [2.0, -1.0]])
_G_Z = np.array([[0.5, 0.5], [1.0, 1.0], [-2.0, 0.0]])
_G_SIGMAS = (0.7, 2.5)
_G_LOOP_N = 300  # the timing probe: 300 x 300 points in 5-D


def _l05_loop_gram(X, Z, sigma):
    """The slow reference: a double Python loop over the pairs."""
    K = np.empty((X.shape[0], Z.shape[0]))
    for i in range(X.shape[0]):
        for j in range(Z.shape[0]):
            diff = X[i] - Z[j]
            K[i, j] = np.exp(-np.dot(diff, diff) / (2.0 * sigma ** 2))
    return K


def _l05_best_time(call, repeat):
    import time

    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - t0)
    return best


def diagnose_rbf_gram(rbf_gram, aspect="all"):
    """Probe ``rbf_gram(X, Z, sigma) -> K`` and name the mistake.

    Aspects: ``"values"`` (K[i, j] = exp(-‖X[i] − Z[j]‖² / (2σ²)) on a 4 × 3 probe for
    two bandwidths, ones on the diagonal of K(X, X); named mistakes: σ instead of σ²,
    the missing factor 2, γ instead of σ, the distance instead of its square, the
    sign), ``"shape"`` (shape (n, m) for rectangular, one-row and one-feature inputs,
    the inputs left unchanged, a ``ValueError`` for different numbers of columns and
    for σ <= 0) and ``"fast"`` (no Python loop in the source, and at least 10 times
    faster than a double loop over the pairs on 300 × 300 points in 5-D). Every call
    blocks :data:`RBF_REFERENCES` (no credit for calling them).

    Raises
    ------
    AssertionError
        Listing every problem found.
    """
    what, problems = "the RBF Gram matrix", []
    if aspect in ("all", "values"):
        for sigma in _G_SIGMAS:
            K = _l05_call(rbf_gram, what, _G_X.copy(), _G_Z.copy(), sigma)
            check_shape(K, (4, 3), f"rbf_gram(X with 4 rows, Z with 3 rows, sigma={sigma:g})")
            d2 = ((_G_X[:, None] - _G_Z[None]) ** 2).sum(-1)
            ref = _l05_rbf(_G_X, _G_Z, sigma)
            try:
                arr = np.asarray(K, dtype=float)
            except (TypeError, ValueError):
                raise AssertionError(f"rbf_gram should return an array of numbers, got "
                                     f"{type(K).__name__}") from None
            if not np.allclose(arr, ref, rtol=0, atol=1e-10):
                named = _l05_name_mistake(arr, d2, sigma)
                if named:
                    problems.append(named + f" (seen with sigma={sigma:g})")
                else:
                    try:
                        check_close(arr, ref, f"rbf_gram(X={_fmt(_G_X)}, Z={_fmt(_G_Z)}, sigma={sigma:g})",
                                    rtol=0, atol=1e-10,
                                    hint="K[i, j] = exp(-‖X[i] − Z[j]‖² / (2σ²))")
                    except AssertionError as exc:
                        problems.append(str(exc))
                break
        if not problems:
            K = _l05_call(rbf_gram, what, _G_X.copy(), _G_X.copy(), 1.3)
            check_shape(K, (4, 4), "rbf_gram(X, X, 1.3) for X with 4 rows")
            if not np.allclose(np.diag(np.asarray(K, float)), 1.0, rtol=0, atol=1e-10):
                problems.append(f"rbf_gram(X, X, 1.3) has diagonal {_fmt(np.diag(np.asarray(K, float)))}: "
                                "every point is at distance 0 from itself, so k(x, x) = 1")
    if aspect in ("all", "shape"):
        rng = np.random.default_rng(5)
        for n, m, d in ((6, 2, 3), (1, 5, 2), (4, 1, 1)):
            X, Z = rng.normal(size=(n, d)), rng.normal(size=(m, d))
            X_in, Z_in = X.copy(), Z.copy()
            K = _l05_call(rbf_gram, what, X_in, Z_in, 1.0)
            check_shape(K, (n, m), f"rbf_gram for X of shape {X.shape} and Z of shape {Z.shape}")
            if not (np.array_equal(X_in, X) and np.array_equal(Z_in, Z)):
                problems.append("rbf_gram changed the arrays passed in: leave X and Z as they are")
                break
        for args, why in (((np.ones((3, 2)), np.ones((4, 3)), 1.0),
                           "X has 2 columns but Z has 3 (points of different dimensions)"),
                          ((np.ones((3, 2)), np.ones((4, 2)), 0.0), "sigma is 0"),
                          ((np.ones((3, 2)), np.ones((4, 2)), -1.5), "sigma is negative")):
            found = _l05_raises(rbf_gram, what, args, why)
            if found:
                problems.append(found)
    if aspect in ("all", "fast"):
        check_loop_free(rbf_gram, "rbf_gram")
        rng = np.random.default_rng(7)
        X, Z = rng.normal(size=(_G_LOOP_N, 5)), rng.normal(size=(_G_LOOP_N, 5))
        K = _l05_call(rbf_gram, what, X, Z, 1.5)  # also warms up
        check_shape(K, (_G_LOOP_N, _G_LOOP_N), f"rbf_gram for {_G_LOOP_N} x {_G_LOOP_N} points")
        wrapped = no_rbf_reference(rbf_gram, what=what)
        t_loop = _l05_best_time(lambda: _l05_loop_gram(X, Z, 1.5), 1)
        ratio = 0.0
        for _ in range(3):  # a busy machine slows both; keep the best of three tries
            t_student = _l05_best_time(lambda: wrapped(X, Z, 1.5), 3)
            ratio = max(ratio, t_loop / max(t_student, 1e-9))
            if ratio >= 10:
                break
        if ratio < 10:
            problems.append(
                f"rbf_gram took {1000 * t_student:.0f} ms for {_G_LOOP_N} x {_G_LOOP_N} points, only "
                f"{ratio:.1f} times faster than a double Python loop over the pairs "
                f"({1000 * t_loop:.0f} ms); "
                "it should be at least 10 times faster: compute all pairs at once with NumPy")
    _fail("rbf_gram", problems)


# Probes for rbf_predict: 5 training points in 3-D (one with alpha = 0), one query.
_R_X = np.array([[0.0, 1.0, 0.5], [1.0, -1.0, 0.0], [0.5, 0.5, 0.5], [-1.0, 0.0, 1.0], [2.0, 0.0, -1.0]])
_R_Y = np.array([1, -1, 1, -1, -1])
_R_ALPHA = np.array([2, 1, 0, 3, 1])
_R_Q = np.array([0.2, 0.4, 0.3])
_R_SIGMA = 0.8


def _l05_call_predict(rbf_predict, X, y, alpha, query, sigma):
    out = _pair(_l05_call(rbf_predict, "the RBF prediction", X.copy(), y.copy(), alpha.copy(),
                          query.copy(), sigma), "rbf_predict", ("score", "label"))
    score, label = out
    if np.ndim(score) != 0:
        raise AssertionError(f"the score returned by rbf_predict should be one number, got shape "
                             f"{np.shape(score)} (sum the weighted kernel values)")
    if np.ndim(label) != 0:
        raise AssertionError(f"the label returned by rbf_predict should be one number, got shape "
                             f"{np.shape(label)}")
    try:
        return float(score), label
    except (TypeError, ValueError):
        raise AssertionError(f"the score should be a number, got {type(score).__name__}") from None


def diagnose_rbf_predict(rbf_predict, aspect="all"):
    """Probe ``rbf_predict(X, y, alpha, query, sigma) -> (score, label)`` and name the mistake.

    The score is Σᵢ αᵢ yᵢ exp(-‖xᵢ − q‖² / (2σ²)) (no bias, as in the MSDN article).
    Aspects: ``"score"`` (the score on a 5-point probe; named mistakes: labels or counts
    ignored, σ instead of σ², the missing factor 2, γ instead of σ, the distance instead of
    its square) and ``"label"`` (+1 for a positive score, −1 otherwise — a score of exactly
    0 included —, a ``ValueError`` when y, alpha or query do not match X).

    Raises
    ------
    AssertionError
        Listing every problem found.
    """
    problems = []
    X, y, alpha, q, s = _R_X, _R_Y, _R_ALPHA, _R_Q, _R_SIGMA
    d2 = ((X - q) ** 2).sum(1)
    k = np.exp(-d2 / (2.0 * s * s))
    if aspect in ("all", "score"):
        score, _ = _l05_call_predict(rbf_predict, X, y, alpha, q, s)
        ref = float(np.sum(alpha * y * k))
        if not np.isclose(score, ref, rtol=1e-9, atol=1e-12):
            weights = [("your score ignores the labels y: it is Σ αᵢ yᵢ k(xᵢ, q)", alpha * k),
                       ("your score ignores the mistake counts alpha: it is Σ αᵢ yᵢ k(xᵢ, q)", y * k),
                       ("your score is a plain sum of kernel values: it is Σ αᵢ yᵢ k(xᵢ, q)", k)]
            named = [m for m, v in weights if np.isclose(score, v.sum(), rtol=1e-9, atol=1e-12)]
            if not named:
                for message, kv in _l05_variants(d2, s):
                    if np.isclose(score, float(np.sum(alpha * y * kv)), rtol=1e-9, atol=1e-12):
                        named.append(message)
                        break
            problems.append(named[0] if named else
                            f"rbf_predict(X={_fmt(X)}, y={_fmt(y)}, alpha={_fmt(alpha)}, query={_fmt(q)}, "
                            f"sigma={s:g}) gave the score {_fmt(score)}: not Σ αᵢ yᵢ exp(-‖xᵢ − q‖² / (2σ²))")
    if aspect in ("all", "label"):
        checked = []
        for sign in (1, -1):
            score, label = _l05_call_predict(rbf_predict, X, sign * y, alpha, q, s)
            checked.append((score, label))
        # two points at the same distance from q, opposite labels, same count: the score is exactly 0
        Xz, yz, az, qz = np.array([[0.0, 1.0], [0.0, -1.0]]), np.array([1, -1]), np.array([2, 2]), np.zeros(2)
        score0, label0 = _l05_call_predict(rbf_predict, Xz, yz, az, qz, 1.0)
        for score, label in checked:
            if isinstance(label, (bool, np.bool_)):
                problems.append("the label is True/False; return the number +1 or -1")
                break
            if label not in (-1, 1):
                problems.append(f"the label should be +1 or -1, got {_fmt(label)}")
                break
            if score != 0 and label != (1 if score > 0 else -1):
                problems.append(f"for the score {_fmt(score)} you returned the label {_fmt(label)}: "
                                "a positive score predicts +1, any other score -1")
                break
        if not problems and score0 == 0:  # judged only when their own score is exactly 0
            if label0 == 0:
                problems.append("a score of exactly 0 gave the label 0 (np.sign(0) is 0): a score that is "
                                "not positive predicts -1")
            elif label0 == 1:
                problems.append("a score of exactly 0 gave +1: only a positive score predicts +1")
        for args, why in (((X, y[:4], alpha, q, s), "y has 4 labels for 5 points"),
                          ((X, y, alpha[:3], q, s), "alpha has 3 counts for 5 points"),
                          ((X, y, alpha, q[:2], s), "query has 2 coordinates but the points have 3")):
            found = _l05_raises(rbf_predict, "the RBF prediction", tuple(a.copy() if hasattr(a, "copy") else a
                                                                         for a in args), why)
            if found:
                problems.append(found)
    _fail("rbf_predict", problems)


# Probes for choose_sigma: a noisy ring inside a ring, a grid from far too narrow to far too wide.
_C_SIGMAS = (0.003, 0.03, 0.3, 3.0, 30.0)
_C_MAX_EPOCHS = 10
_C_TOL = 0.05
_L05_REFERENCE = {}


def _l05_rings(n_train, n_val, random_state):
    from .datasets import circles

    X, y = circles(n_train + n_val, noise=0.1, factor=0.5, random_state=random_state)
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def sigma_errors(X_train, y_train, X_val, y_val, sigmas, max_epochs=_C_MAX_EPOCHS):
    """Training and validation error rates of ``KernelPerceptron(kernel="rbf", sigma=s)`` per σ.

    The reference of assignment 05, Exercise 3: ``max_epochs=10, random_state=0`` on the CPU.

    Returns
    -------
    train, val : ndarray of shape (len(sigmas),)
    """
    from .perceptron import KernelPerceptron

    train, val = [], []
    for s in sigmas:
        model = KernelPerceptron(kernel="rbf", sigma=s, max_epochs=max_epochs, random_state=0,
                                 device="cpu").fit(X_train, y_train)
        train.append(np.mean(model.predict(X_train) != y_train))
        val.append(np.mean(model.predict(X_val) != y_val))
    return np.array(train), np.array(val)


def _l05_call_choose(choose_sigma, X_train, y_train, X_val, y_val, sigmas):
    out = _pair(_l05_call(choose_sigma, "the choice of σ", X_train.copy(), y_train.copy(), X_val.copy(),
                          y_val.copy(), tuple(sigmas), forbidden=()),
                "choose_sigma", ("best_sigma", "errors"))
    best, errors = out
    return best, errors


def check_sigma_choice(best, sigmas, val_errors, train_errors=None, name="choose_sigma", tol=_C_TOL):
    """Check that ``best`` is a σ of the grid whose reference validation error is within ``tol`` of the best.

    Raises
    ------
    AssertionError
        Naming the mistake: an index instead of a value, a σ outside the grid, the choice by
        the training error, the largest error, or a choice that is clearly worse.
    """
    sigmas = [float(s) for s in sigmas]
    if isinstance(best, (bool, np.bool_)) or np.ndim(best) != 0:
        raise AssertionError(f"{name} should return the chosen σ as one number, got {_fmt(best)}")
    b = float(best)
    if not any(np.isclose(b, s, rtol=1e-12, atol=0) for s in sigmas):
        if float(b).is_integer() and 0 <= b < len(sigmas):
            raise AssertionError(f"{name} returned {_fmt(best)}, which looks like an index into sigmas: "
                                 "return the value σ itself (sigmas[i])")
        raise AssertionError(f"{name} returned {_fmt(best)}, which is not one of "
                             f"sigmas={_fmt(np.array(sigmas))}")
    i = int(np.argmin([abs(b - s) for s in sigmas]))
    val_errors = np.asarray(val_errors, float)
    if val_errors[i] <= val_errors.min() + tol:
        return
    if train_errors is not None and i == int(np.argmin(train_errors)):
        raise AssertionError(
            f"{name} chose σ = {sigmas[i]:g} by the training error: a narrow RBF fits every training "
            "point (training error 0) and says little about new points; choose by the validation error")
    if i == int(np.argmax(val_errors)):
        raise AssertionError(f"{name} chose σ = {sigmas[i]:g}, the largest validation error: "
                             "pick the smallest")
    raise AssertionError(
        f"{name} chose σ = {sigmas[i]:g}, whose validation error is {val_errors[i]:.3f}; "
        "another σ of the grid "
        "does clearly better: pick the σ with the smallest validation error")


def diagnose_choose_sigma(choose_sigma, aspect="all"):
    """Probe ``choose_sigma(X_train, y_train, X_val, y_val, sigmas) -> (best_sigma, errors)``.

    On a ring-inside-a-ring probe with σ ∈ (0.003, 0.03, 0.3, 3, 30). Aspects:
    ``"errors"`` (one validation error rate per σ, within 0.05 of
    ``KernelPerceptron(kernel="rbf", sigma=σ, max_epochs=10, random_state=0)``; named
    mistakes: counts, accuracies, training errors) and ``"choice"`` (the σ returned has a
    validation error within 0.05 of the best of the grid; named mistakes: an index, the
    choice by the training error, the largest error). ``KernelPerceptron`` may be used.

    Raises
    ------
    AssertionError
        Listing every problem found.
    """
    problems = []
    Xt, yt, Xv, yv = _l05_rings(150, 100, random_state=3)
    best, errors = _l05_call_choose(choose_sigma, Xt, yt, Xv, yv, _C_SIGMAS)
    if "probe" not in _L05_REFERENCE:  # the same for every call: computed once per session
        _L05_REFERENCE["probe"] = sigma_errors(Xt, yt, Xv, yv, _C_SIGMAS)
    ref_train, ref_val = _L05_REFERENCE["probe"]
    if aspect in ("all", "errors"):
        check_shape(errors, (len(_C_SIGMAS),), f"the errors returned for {len(_C_SIGMAS)} values of sigma")
        try:
            err = np.asarray(errors, dtype=float)
        except (TypeError, ValueError):
            raise AssertionError("the errors should be numbers, one error rate per σ") from None
        if not np.allclose(err, ref_val, rtol=0, atol=0.05):
            if np.any(err > 1):
                problems.append("the errors should be fractions of the validation set (between 0 and 1), "
                                "not counts: divide by len(y_val)")
            elif np.allclose(err, 1 - ref_val, rtol=0, atol=0.05):
                problems.append("you returned accuracies; return error rates (the fraction of validation "
                                "points misclassified)")
            elif np.allclose(err, ref_train, rtol=0, atol=0.05):
                problems.append("these are training errors: measure each model on X_val, y_val")
            else:
                i = int(np.argmax(np.abs(err - ref_val)))
                problems.append(
                    f"on a probe with sigmas={_fmt(np.array(_C_SIGMAS))} your validation error for σ = "
                    f"{_C_SIGMAS[i]:g} is {err[i]:.3f}, far from what "
                    "KernelPerceptron(kernel='rbf', sigma=σ, "
                    "max_epochs=10, random_state=0) trained on X_train makes on X_val")
    if aspect in ("all", "choice"):
        try:
            check_sigma_choice(best, _C_SIGMAS, ref_val, ref_train)
        except AssertionError as exc:
            problems.append(str(exc))
    _fail("choose_sigma", problems)


# ---- lesson 01 checks
# Lesson 01 (similarity and exemplars): the vectorised cosine similarity, the shared-word
# kernel and its normalised form, and the 1-nearest-neighbour rule on a similarity matrix.
# guarded() runs a student's function with the references of its exercise blocked in their
# modules (reference_blocked) and watched by a profile hook, so that a reference called
# through a name imported before the test (``from kpcourse.kernels import cosine``) is
# caught too. The hook watches the *unwrapped* functions: scikit-learn's public functions
# share one decorator wrapper, whose code would match every decorated call (e.g.
# sklearn.preprocessing.normalize, which a student may use).


__all__ += [
    "COSINE_FORBIDDEN",
    "SHARED_WORDS_FORBIDDEN",
    "NEAREST_NEIGHBOUR_FORBIDDEN",
    "guarded",
    "check_against_reference",
    "diagnose_cosine",
    "diagnose_shared_words",
    "diagnose_normalised_shared_words",
    "diagnose_nearest_neighbour",
]

#: What cosine_similarity may not call: the package's cosine and Gram helpers, scikit-learn's and
#: SciPy's.
COSINE_FORBIDDEN = (
    "kpcourse.kernels.cosine",
    "kpcourse.gram.gram_matrix",
    "sklearn.metrics.pairwise.cosine_similarity",
    "sklearn.metrics.pairwise.cosine_distances",
    "sklearn.metrics.pairwise.pairwise_kernels",
    "scipy.spatial.distance.cdist",
)
#: What shared_word_count and its normalised form may not call.
SHARED_WORDS_FORBIDDEN = ("kpcourse.kernels.shared_words",)
#: What nearest_neighbour_predict may not call.
NEAREST_NEIGHBOUR_FORBIDDEN = (
    "sklearn.neighbors.KNeighborsClassifier",
    "sklearn.neighbors.NearestNeighbors",
)

_WHAT01 = {
    "cosine": ("the cosine similarity", COSINE_FORBIDDEN),
    "shared": ("the shared-word count", SHARED_WORDS_FORBIDDEN),
    "normalised": ("the normalised shared-word kernel", SHARED_WORDS_FORBIDDEN),
    "nn": ("the nearest-neighbour rule", NEAREST_NEIGHBOUR_FORBIDDEN),
}


def guarded(func, kind, *, time_limit=5.0):
    """Wrap a student's function of lesson 01: no reference calls, a time limit, friendly errors.

    The wrapper runs ``func`` under :func:`no_reference` (references of the exercise
    replaced in their modules, ``NotImplementedError`` and endless loops reported) and
    also notices a reference called through a name imported earlier; either way the
    check fails with "... calling <reference> gets no credit".

    Parameters
    ----------
    func : callable
    kind : {"cosine", "shared", "normalised", "nn"}
        The exercise, which fixes the forbidden references (``COSINE_FORBIDDEN``, ...).
    time_limit : float, default=5.0
        Seconds.

    Returns
    -------
    wrapper : callable
        Same signature as ``func``.

    Lesson 01 (similarity).
    """
    what, forbidden = _WHAT01[kind]
    return no_reference_calls(func, what=what, forbidden=forbidden, time_limit=time_limit)


def _call01(func, kind, *args):
    """Call a student's function under :func:`guarded`; its errors become check failures."""
    fname = getattr(func, "__name__", "your function")
    try:
        return guarded(func, kind)(*args)
    except _CheckFailure:
        raise
    except Exception as exc:
        shown = ", ".join(_fmt(a) for a in args)
        raise _CheckFailure(f"{fname}({shown}) raised {type(exc).__name__}: {exc}") from exc


def _raises01(func, kind, exception, *args, why):
    """None if ``func(*args)`` raises ``exception``, else the problem (str)."""
    fname = getattr(func, "__name__", "your function")
    try:
        guarded(func, kind)(*args)
    except exception:
        return None
    except _CheckFailure:
        raise
    except Exception as exc:
        return f"{fname} should raise {exception.__name__} when {why}; it raised {type(exc).__name__}: {exc}"
    return f"{fname} should raise {exception.__name__} when {why}; it returned normally"


def check_against_reference(func, reference, *args, name, kind, rtol=1e-7, atol=1e-9, hint=None):
    """Compare a student's function with a reference on the same inputs, without showing the answer.

    The reference runs first, unwatched; then ``func(*args)`` runs with the references of
    its exercise blocked (``kind``: ``"cosine"``, ``"shared"``, ``"normalised"`` or
    ``"nn"``), and :func:`check_close` compares the two.

    Raises
    ------
    AssertionError
        The student's function called a reference, raised, or returned other values.

    Lesson 01 (hidden tests).
    """
    expected = reference(*args)
    got = _call01(func, kind, *args)
    check_close(got, expected, name, hint=hint, rtol=rtol, atol=atol)


# ------------------------------------------------------------ cosine similarity
# Probes: n = 4, m = 2, d = 3 (all different, so that a wrong axis or a transpose shows), rows
# of different lengths (so that a missing normalisation shows).
_C_A = np.array([[3.0, 4.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 2.0], [-1.0, 2.0, 2.0]])
_C_B = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 5.0]])


def _unit01(X, axis=1, power=1):
    norms = np.linalg.norm(X, axis=axis, keepdims=True) ** power
    return X / np.where(norms == 0, 1.0, norms)


def _cosine_variants(A, B):
    """(message, result) for common mistakes."""
    An, Bn = _unit01(A), _unit01(B)
    return [
        ("only the rows of A are normalised: divide the rows of B by their lengths too", An @ B.T),
        ("only the rows of B are normalised: divide the rows of A by their lengths too", A @ Bn.T),
        ("no normalisation: A @ B.T is the dot product (linear kernel); divide each row of A and of B "
         "by its length first", A @ B.T),
        ("you normalised by the wrong axis: np.linalg.norm(A, axis=0) gives the length of each column; "
         "each row (sample) must be divided by its own length (axis=1)",
         _unit01(A, axis=0) @ _unit01(B, axis=0).T),
        ("you divided by the squared lengths: the cosine divides x·z by |x| |z|, not |x|² |z|²",
         _unit01(A, power=2) @ _unit01(B, power=2).T),
        ("you returned 1 - cosine (the cosine distance); return the similarity itself", 1.0 - An @ Bn.T),
    ]


def diagnose_cosine(cosine_similarity, aspect="all"):
    """Probe ``cosine_similarity(A, B) -> (n, m)`` and name the mistake.

    Aspects: ``"values"`` (shape (n, m) and values on rows of different lengths, n, m
    and d all different) and ``"interface"`` (``ValueError`` for a column mismatch or an
    input that is not 2-D; a row of zeros gives 0; uint8 pixels such as MNIST's do not
    overflow; lists are accepted).

    Raises
    ------
    AssertionError
        Listing every problem found, e.g. "only the rows of A are normalised" or "you
        normalised by the wrong axis".

    Lesson 01 (similarity).
    """
    problems, name = [], "cosine_similarity"
    if aspect in ("all", "values"):
        got = _call01(cosine_similarity, "cosine", _C_A.copy(), _C_B.copy())
        shape = np.shape(got)
        if shape == (2, 4):
            problems.append("cosine_similarity(A, B) for A of shape (4, 3) and B of shape (2, 3) returned "
                            "shape (2, 4): row i, column j must hold the similarity of A[i] and B[j], "
                            "shape (n, m) = (4, 2) (A @ B.T, not B @ A.T)")
        else:
            check_shape(got, (4, 2), "cosine_similarity(A, B) for A of shape (4, 3) and B of shape (2, 3)")
            arr = np.asarray(got, dtype=float)
            right = _unit01(_C_A) @ _unit01(_C_B).T
            if not np.allclose(arr, right):
                named = [m for m, v in _cosine_variants(_C_A, _C_B) if np.allclose(arr, v)]
                if named:
                    problems.append(named[0])
                elif not np.all(np.isfinite(arr)):
                    problems.append(f"your result contains NaN or infinite values: {_fmt(arr)}")
                elif np.any(np.abs(arr) > 1 + 1e-9):
                    problems.append(f"a cosine lies between -1 and 1; you returned {_fmt(arr)}: are both "
                                    "sides divided by their row lengths?")
                else:
                    try:
                        check_close(arr, right, f"cosine_similarity(A={_fmt(_C_A)}, B={_fmt(_C_B)})",
                                    hint="each entry is A[i]·B[j] / (|A[i]| |B[j]|)")
                    except AssertionError as exc:
                        problems.append(str(exc))
    if aspect in ("all", "interface"):
        for A, B, why in ((np.ones((2, 3)), np.ones((2, 4)), "A has 3 columns but B has 4"),
                          (np.ones(3), np.ones((2, 3)), "A is 1-D (shape (3,)), not a 2-D array of rows")):
            found = _raises01(cosine_similarity, "cosine", ValueError, A, B, why=why)
            if found:
                problems.append(found)
        zero = np.array([[0.0, 0.0, 0.0], [1.0, 2.0, 2.0]])
        got = np.asarray(_call01(cosine_similarity, "cosine", zero, _C_B.copy()), dtype=float)
        if got.shape == (2, 2) and not (np.all(np.isfinite(got[0])) and np.allclose(got[0], 0.0)):
            problems.append(f"a row of zeros has no direction: its similarity with every row is 0 by "
                            f"convention (you returned {_fmt(got[0])}); divide by 1 instead of by a zero "
                            "length")
        pixels = np.array([[200, 100, 0, 30], [255, 255, 255, 0]], dtype=np.uint8)
        other = np.array([[180, 90, 10, 0], [0, 0, 255, 255], [255, 255, 255, 255]], dtype=np.uint8)
        right = _unit01(pixels.astype(float)) @ _unit01(other.astype(float)).T
        got = np.asarray(_call01(cosine_similarity, "cosine", pixels, other))
        if got.shape == right.shape and not np.allclose(got.astype(float), right):
            as_float = _call01(cosine_similarity, "cosine", pixels.astype(float), other.astype(float))
            if np.shape(as_float) == right.shape and np.allclose(np.asarray(as_float, dtype=float), right):
                problems.append("on uint8 images (MNIST's pixel type) your result differs from the one on "
                                "the same values as floats: products of uint8 numbers wrap around at 256 "
                                "(200·200 does not fit); convert A and B to float first")
        got = _call01(cosine_similarity, "cosine", [[3, 4], [0, 1]], [[1, 0]])
        if not isinstance(got, np.ndarray) or got.shape != (2, 1):
            problems.append(f"for lists A=[[3, 4], [0, 1]] and B=[[1, 0]] cosine_similarity should return an "
                            f"ndarray of shape (2, 1), got {type(got).__name__} of shape {np.shape(got)}")
    _fail(name, problems)


# ------------------------------------------------------------ shared words
_S_A = ["whale", "whale", "ship", "ocean", "harpoon"]      # 4 distinct words, "whale" twice
_S_B = ["whale", "whale", "whale", "ship", "sea"]           # 3 distinct words, "whale" three times
_S_B2 = ["whale", "whale", "ship", "sea"]                   # for the normalised kernel: len 4, 3 distinct


def _word_variants(a, b):
    """(message, count) for common mistakes of the shared-word count."""
    from collections import Counter

    ca, cb = Counter(a), Counter(b)
    rep = ("repeated words are counted: a word that occurs several times in a sentence counts once "
           "(compare sets of distinct words)")
    return [
        (rep, sum(w in cb for w in a)),
        (rep, sum(w in ca for w in b)),
        (rep, sum((ca & cb).values())),
        (rep, sum(ca[w] * cb[w] for w in ca)),
        ("you counted the words of either sentence (the union); count only the words they share "
         "(the intersection)", len(set(a) | set(b))),
    ]


def _is_integer(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def diagnose_shared_words(shared_word_count, aspect="all"):
    """Probe ``shared_word_count(a, b) -> int`` (distinct shared words) and name the mistake.

    Aspects: ``"count"`` (repeated words count once; the intersection, not the union) and
    ``"input"`` (lists, tuples and sets accepted, an integer returned, 0 for an empty
    collection, ``TypeError`` for a string).

    Lesson 01 (string kernels).
    """
    problems, name = [], "shared_word_count"
    if aspect in ("all", "count"):
        got = _call01(shared_word_count, "shared", list(_S_A), list(_S_B))
        right = len(set(_S_A) & set(_S_B))
        if np.ndim(got) != 0:
            problems.append(f"shared_word_count should return one number, got shape {np.shape(got)}")
        elif float(got) != right:
            named = [m for m, v in _word_variants(_S_A, _S_B) if float(got) == v]
            problems.append(named[0] if named else
                            f"shared_word_count(a={_S_A}, b={_S_B}) returned {_fmt(got)}: count the distinct "
                            "words that occur in both")
        else:
            got = _call01(shared_word_count, "shared", ["sea", "sea"], ["whale"])
            if np.ndim(got) != 0 or float(got) != 0:
                problems.append(f"two sentences without a common word share 0 words; for ['sea', 'sea'] and "
                                f"['whale'] you returned {_fmt(got)}")
    if aspect in ("all", "input"):
        for a, b in ((("ship", "sea", "whale"), {"whale", "harpoon"}), ([], ["whale"])):
            got = _call01(shared_word_count, "shared", a, b)
            if not _is_integer(got):
                problems.append(f"shared_word_count should return an integer (int), got "
                                f"{type(got).__name__}: {_fmt(got)}")
                break
        got = _call01(shared_word_count, "shared", [], ["whale"])
        if np.ndim(got) == 0 and float(got) != 0:
            problems.append(f"an empty collection shares no word: you returned {_fmt(got)}")
        for a, b, why in (("whale", "whales", "a and b are strings (set('whale') is a set of letters, not "
                                              "of words): pass lists of words"),
                          (["whale"], "whale ship", "b is a string, not a collection of words")):
            found = _raises01(shared_word_count, "shared", TypeError, a, b, why=why)
            if found:
                problems.append(found)
    _fail(name, problems)


def _normalised_variants(a, b):
    """(message, value) for common mistakes of the normalised shared-word kernel."""
    sa, sb = set(a), set(b)
    k, na, nb = len(sa & sb), len(sa), len(sb)
    rep = sum(w in sb for w in a)
    return [
        ("that is the Jaccard index |W(a) ∩ W(b)| / |W(a) ∪ W(b)|; the normalised kernel divides by "
         "sqrt(k(a, a) k(b, b))", k / len(sa | sb)),
        ("the square root is missing: divide by sqrt(k(a, a) k(b, b)), the geometric mean of the lengths",
         k / (na * nb)),
        ("you divided by the average length (that is the Dice coefficient); the normalised kernel divides "
         "by the geometric mean sqrt(k(a, a) k(b, b))", 2 * k / (na + nb)),
        ("k(a, a) is the number of *distinct* words of a: you used len(a), which counts repeated words",
         k / np.sqrt(len(a) * len(b))),
        ("repeated words are counted in k(a, b): a word that occurs several times counts once",
         rep / np.sqrt(na * nb)),
        ("you divided by the length of one sentence only; divide by sqrt(k(a, a) k(b, b))", k / na),
        ("you divided by the length of one sentence only; divide by sqrt(k(a, a) k(b, b))", k / nb),
        ("the result is not normalised: divide k(a, b) by sqrt(k(a, a) k(b, b))", float(k)),
    ]


def diagnose_normalised_shared_words(normalised_shared_word_count, aspect="all"):
    """Probe ``normalised_shared_word_count(a, b) -> float`` and name the mistake.

    Aspects: ``"values"`` (k(a, b) / sqrt(k(a, a) k(b, b)) with distinct words, against the
    Jaccard index, the Dice coefficient, a missing square root, repeated words) and
    ``"edge"`` (0.0 for an empty collection without a division error, 1.0 for the same
    words, symmetric, a float, ``TypeError`` for a string).

    Lesson 01 (string kernels).
    """
    f, problems, name = normalised_shared_word_count, [], "normalised_shared_word_count"
    if aspect in ("all", "values"):
        got = _call01(f, "normalised", list(_S_A), list(_S_B2))
        right = 2 / np.sqrt(4 * 3)
        if np.ndim(got) != 0:
            problems.append(f"{name} should return one number, got shape {np.shape(got)}")
        elif not np.isclose(float(got), right):
            named = [m for m, v in _normalised_variants(_S_A, _S_B2) if np.isclose(float(got), v)]
            problems.append(named[0] if named else
                            f"{name}(a={_S_A}, b={_S_B2}) returned {_fmt(got)}: the kernel is "
                            "|W(a) ∩ W(b)| / sqrt(|W(a)| |W(b)|) over distinct words")
    if aspect in ("all", "edge"):
        try:
            got = guarded(f, "normalised")([], ["whale"])
        except _CheckFailure:
            raise
        except (ZeroDivisionError, FloatingPointError, ValueError) as exc:
            problems.append(f"a sentence without words must give 0.0, not {type(exc).__name__} ({exc}): "
                            "check for an empty collection before dividing")
        except Exception as exc:
            problems.append(f"{name}([], ['whale']) raised {type(exc).__name__}: {exc}")
        else:
            if np.ndim(got) != 0 or not np.isfinite(float(got)) or float(got) != 0:
                problems.append(f"a sentence without words has similarity 0.0 with everything; {name}([], "
                                f"['whale']) returned {_fmt(got)} (NaN comes from 0 / 0)")
        same = _call01(f, "normalised", ["whale", "ship"], ("ship", "whale"))
        if np.ndim(same) != 0 or not np.isclose(float(same), 1.0):
            problems.append(f"two sentences with the same words have similarity 1; for ['whale', 'ship'] and "
                            f"('ship', 'whale') you returned {_fmt(same)}")
        ab = _call01(f, "normalised", ["whale", "sea"], ["sea", "ship", "harpoon"])
        ba = _call01(f, "normalised", ["sea", "ship", "harpoon"], ["whale", "sea"])
        if np.ndim(ab) == 0 and np.ndim(ba) == 0 and not np.isclose(float(ab), float(ba)):
            problems.append(f"a kernel is symmetric, k(a, b) = k(b, a); you returned {_fmt(ab)} and "
                            f"{_fmt(ba)}")
        if np.ndim(ab) == 0 and not isinstance(ab, (float, np.floating)):
            problems.append(f"{name} should return a float, got {type(ab).__name__}: {_fmt(ab)}")
        found = _raises01(f, "normalised", TypeError, "whale", "whales",
                          why="a and b are strings, not collections of words")
        if found:
            problems.append(found)
    _fail(name, problems)


# ------------------------------------------------------------ 1-nearest neighbour
# 3 test x 4 training examples, one clear maximum per row; labels all different.
_N_K = np.array([[0.1, 0.9, 0.3, 0.2], [0.8, 0.1, 0.5, 0.7], [0.2, 0.3, 0.4, 0.6]])
_N_Y = np.array([7, 2, 9, 4])
# Ties: the first of the tied maxima wins (np.argmax).
_N_KT = np.array([[0.5, 0.9, 0.9, 0.1], [0.3, 0.3, 0.2, 0.3]])


def diagnose_nearest_neighbour(nearest_neighbour_predict, aspect="all"):
    """Probe ``nearest_neighbour_predict(K_test_train, y_train) -> labels`` and name the mistake.

    Aspects: ``"values"`` (the label of the most similar training example: argmax, not
    argmin, over each row, the first one on a tie; labels, not indices) and
    ``"interface"`` (``ValueError`` when K is not 2-D or its columns do not match y_train;
    an array of shape (n_test,) holding labels of y_train, strings included; lists
    accepted).

    Lesson 01 (similarity).
    """
    f, problems, name = nearest_neighbour_predict, [], "nearest_neighbour_predict"
    if aspect in ("all", "values"):
        got = _call01(f, "nn", _N_K.copy(), _N_Y.copy())
        arr = np.asarray(got)
        right = _N_Y[_N_K.argmax(axis=1)]
        where = f"for K_test_train={_fmt(_N_K)} and y_train={_fmt(_N_Y)}"
        if arr.shape == (4,) and np.array_equal(arr, _N_Y[_N_K.argmax(axis=0)]):
            problems.append(f"{where} you returned 4 labels: the argmax must run over each row (axis=1, "
                            "the training examples), one label per test example; axis=0 runs over the test "
                            "examples")
        elif arr.shape != (3,):
            problems.append(f"{where} you returned shape {arr.shape}: one label per test example (row of K) "
                            "is expected, shape (3,)")
        elif not np.array_equal(arr, right):
            if np.array_equal(arr, _N_Y[_N_K.argmin(axis=1)]):
                problems.append("you took the argmin: K holds similarities, so the nearest neighbour is the "
                                "training example with the LARGEST value (argmax), not the smallest")
            elif np.array_equal(arr, _N_K.argmax(axis=1)):
                problems.append("you returned the index of the most similar training example; return its "
                                "label y_train[index]")
            else:
                problems.append(f"{where} you returned {_fmt(arr)}: "
                                f"{int((arr != right).sum())} of 3 labels are not those of the most similar "
                                "training example")
        else:
            got = np.asarray(_call01(f, "nn", _N_KT.copy(), _N_Y.copy()))
            if got.shape != (2,) or not np.array_equal(got, _N_Y[_N_KT.argmax(axis=1)]):
                problems.append(f"on a tie (K_test_train={_fmt(_N_KT)}) the first of the most similar "
                                f"training examples must win, as np.argmax does; you returned {_fmt(got)}")
    if aspect in ("all", "interface"):
        for K, y, why in ((np.ones((2, 4)), np.array([1, 2, 3]), "K_test_train has 4 columns but y_train has "
                                                                 "3 labels"),
                          (np.ones(3), np.array([1, 2, 3]), "K_test_train is 1-D, not (n_test, n_train)")):
            found = _raises01(f, "nn", ValueError, K, y, why=why)
            if found:
                problems.append(found)
        books = ["moby_dick", "pride_and_prejudice", "moby_dick"]
        got = _call01(f, "nn", [[0.1, 0.2, 0.9], [0.0, 0.6, 0.1]], books)
        if not isinstance(got, np.ndarray) or got.shape != (2,):
            problems.append(f"for a (2, 3) similarity matrix given as lists, {name} should return an ndarray "
                            f"of shape (2,), got {type(got).__name__} of shape {np.shape(got)}")
        elif not all(v in set(books) for v in got.tolist()):
            problems.append(f"with y_train={books} you returned {got.tolist()}: the predictions must be "
                            "labels taken from y_train (any type: strings too), not indices or numbers")
    _fail(name, problems)


# ---- lesson 06 checks
# Lesson 06 (Gram matrices at scale): a tiled RBF Gram matrix under a memory budget, whose
# working set is measured with tracemalloc, and dual training that updates the decision
# values of every training point on each mistake (the exact online trick).

import tracemalloc as _tracemalloc  # noqa: E402  (lesson sections are appended: imports for this section)

__all__ += [
    "GRAM_FORBIDDEN",
    "peak_memory",
    "diagnose_tiled_gram",
    "diagnose_incremental",
]

#: What a tiled Gram routine may not call: the package's and scikit-learn's RBF Gram matrices.
GRAM_FORBIDDEN = (
    "kpcourse.gram.gram_matrix",
    "kpcourse.kernels.rbf",
    "sklearn.metrics.pairwise.rbf_kernel",
)


def peak_memory(func, *args, **kwargs):
    """Call ``func(*args, **kwargs)``; return its result and the peak of new memory it allocated.

    Measured with :mod:`tracemalloc`, which sees NumPy's (and Python's) allocations
    but not torch's: the peak, during the call, of traced memory above what was
    allocated before it — including the returned array.

    Returns
    -------
    result : object
    peak : int
        Bytes.

    Lesson 06 (Gram matrices at scale).
    """
    started = not _tracemalloc.is_tracing()
    if started:
        _tracemalloc.start()
    try:
        before, _ = _tracemalloc.get_traced_memory()
        _tracemalloc.reset_peak()
        result = func(*args, **kwargs)
        _, peak = _tracemalloc.get_traced_memory()
    finally:
        if started:
            _tracemalloc.stop()
    return result, max(0, peak - before)


def _rbf_exact(X, Z, sigma):
    """RBF Gram from explicit differences (no cancellation; small inputs only)."""
    d2 = ((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
    return np.exp(-d2 / (2.0 * sigma ** 2))


_TG_X = np.array([[0.0, 1.0, 2.0], [1.0, -1.0, 0.5], [2.0, 0.0, 0.0], [-1.0, 0.5, 1.5],
                 [0.5, 0.5, -0.5], [3.0, 1.0, -1.0], [0.0, 0.0, 0.0]])
_TG_Z = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 2.0], [-2.0, 1.0, 0.0], [0.5, -0.5, 1.0], [1.0, 1.0, 1.0]])
_TG_SIGMA = 1.5


def _call_tiled(tiled, X, Z, sigma, max_bytes, *, memory=False):
    what = "the tiled Gram matrix"
    args = (X.copy(), Z.copy(), sigma, max_bytes)
    if memory:
        wrapped = no_reference_calls(tiled, what=what, forbidden=GRAM_FORBIDDEN, time_limit=10.0)
        try:
            K, peak = peak_memory(wrapped, *args)
        except _CheckFailure:
            raise
        except Exception as exc:
            raise _CheckFailure(f"tiled_rbf_gram on X of shape {X.shape}, Z of shape {Z.shape} raised "
                                f"{type(exc).__name__}: {exc}") from exc
    else:
        K, peak = _run04(tiled, what, GRAM_FORBIDDEN, *args), None
    check_shape(K, (len(X), len(Z)), f"tiled_rbf_gram for X of shape {X.shape} and Z of shape {Z.shape}")
    try:
        K = np.asarray(K, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError("tiled_rbf_gram should return an array of numbers") from None
    return K, peak


def _gram_problem(K, X, Z, sigma, max_bytes):
    """Name what is wrong with K (None when it is right)."""
    ref = _rbf_exact(X, Z, sigma)
    if np.allclose(K, ref, rtol=1e-9, atol=1e-12):
        return None
    d2 = np.maximum(((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1), 0.0)
    variants = (
        (np.exp(-d2 / sigma ** 2), "your exponent is -‖x − z‖²/σ²; the RBF kernel divides by 2σ²"),
        (np.exp(-d2 * sigma), "you used sigma as γ: K = exp(-‖x − z‖² / (2σ²))"),
        (np.exp(-d2 / (2.0 * sigma)), "you divided by 2σ instead of 2σ²: K = exp(-‖x − z‖² / (2σ²))"),
        (np.exp(-np.sqrt(d2) / (2.0 * sigma ** 2)), "you used the distance ‖x − z‖, not its square"),
        (np.exp(-np.abs((X * X).sum(1)[:, None] + 2.0 * X @ Z.T + (Z * Z).sum(1)[None, :]) / (2.0 * sigma ** 2)),
         "the cross term has the wrong sign: ‖x − z‖² = ‖x‖² − 2 x·z + ‖z‖²"),
        (d2, "you returned the squared distances; K = exp(-‖x − z‖² / (2σ²))"),
    )
    for value, message in variants:
        if value.shape == K.shape and np.allclose(K, value, rtol=1e-9, atol=1e-12):
            return message
    bad_rows = np.flatnonzero(~np.isclose(K, ref, rtol=1e-9, atol=1e-12).all(1))
    if len(bad_rows) and bad_rows[0] > 0 and np.array_equal(bad_rows, np.arange(bad_rows[0], len(X))):
        return (f"rows {bad_rows[0]} to {len(X) - 1} of K are wrong (max_bytes={max_bytes}): does your "
                "loop cover the last, shorter block of rows, and write each block to its own rows?")
    try:
        check_close(K, ref, f"tiled_rbf_gram(X={_fmt(X)}, Z={_fmt(Z)}, sigma={sigma:g}, max_bytes={max_bytes})",
                    rtol=1e-9, atol=1e-12)
    except AssertionError as exc:
        return str(exc)
    return None


def diagnose_tiled_gram(tiled, aspect="all"):
    """Probe ``tiled_rbf_gram(X, Z, sigma, max_bytes) -> K`` and name the mistake.

    K[i, j] = exp(-‖X[i] − Z[j]‖² / (2σ²)) computed a block of rows at a time, with
    ``block_rows = max_bytes // (4 * 8 * m)`` (room for four float64 temporaries of
    shape (block_rows, m)). Aspects: ``"values"`` (shape and values for budgets from one
    row to all rows, a wrong exponent or a lost last block named; a ``ValueError`` when
    X and Z have different numbers of columns or max_bytes cannot hold one row),
    ``"clamp"`` (nearly identical points far from the origin: no value above 1, the
    squared distances clamped at 0) and ``"memory"`` (the memory allocated besides the
    result K and copies of X and Z, measured with tracemalloc, stays under max_bytes).

    Raises
    ------
    AssertionError
        Listing every problem found.

    Lesson 06 (Gram matrices at scale).
    """
    problems = []
    if aspect in ("all", "values"):
        m = len(_TG_Z)
        for max_bytes in (4 * 8 * m, 3 * 4 * 8 * m, 10 ** 6):  # 1 row, 3 rows, everything at once
            K, _ = _call_tiled(tiled, _TG_X, _TG_Z, _TG_SIGMA, max_bytes)
            problem = _gram_problem(K, _TG_X, _TG_Z, _TG_SIGMA, max_bytes)
            if problem:
                problems.append(problem)
                break
        for args, why in (((_TG_X, _TG_Z[:, :2], _TG_SIGMA, 10 ** 6), "X has 3 columns and Z has 2"),
                          ((_TG_X, _TG_Z, _TG_SIGMA, 4 * 8 * m - 1),
                           f"max_bytes={4 * 8 * m - 1} cannot hold one row of temporaries (4 * 8 * m = {4 * 8 * m} "
                           f"bytes for m={m})")):
            problem = _raises04(tiled, "the tiled Gram matrix", GRAM_FORBIDDEN, ValueError,
                                args[0].copy(), args[1].copy(), *args[2:], why=why)
            if problem:
                problems.append(problem)
    if aspect in ("all", "clamp"):
        rng = np.random.default_rng(6)
        far = 1e4 + rng.normal(size=(40, 30))
        X = np.vstack([far, far[:20] + 1e-3 * rng.normal(size=(20, 30))])
        Z = far.copy()
        sigma = 0.01
        K, _ = _call_tiled(tiled, X, Z, sigma, 10 ** 6)
        if not np.all(np.isfinite(K)):
            problems.append("K contains NaN or infinite values for points far from the origin")
        elif K.max() > 1.0:
            problems.append(f"K has values above 1 (the largest is {K.max():.12g}) for nearly identical points "
                            "far from the origin: ‖x‖² − 2 x·z + ‖z‖² can come out slightly negative by "
                            "rounding, and exp of a positive number exceeds 1; clamp the squared distances at 0")
        elif K.min() < 0:
            problems.append("K has negative values: exp(...) is never negative")
    if aspect in ("all", "memory"):
        rng = np.random.default_rng(16)
        n, m, d = 1500, 1400, 20
        X, Z = rng.normal(size=(n, d)), rng.normal(size=(m, d))
        sigma = 4.0
        rows = np.array([0, 1, n // 2, n - 2, n - 1])
        for max_bytes in (1_000_000, 300_000):
            K, peak = _call_tiled(tiled, X, Z, sigma, max_bytes, memory=True)
            extra = peak - K.nbytes
            allowed = max_bytes + 8 * (n + m) * (d + 4) + 65536  # copies of X, Z and the norms
            if not np.allclose(K[rows], _rbf_exact(X[rows], Z, sigma), rtol=1e-7, atol=1e-9):
                problems.append("the values of K are wrong (see the values test); the memory test needs them right")
                break
            if extra > allowed:
                problems.append(
                    f"with max_bytes={max_bytes:,} your function allocated {extra:,} bytes besides the result K "
                    f"({K.nbytes:,} bytes) for X of shape {X.shape} and Z of shape {Z.shape}: over the budget. "
                    "Compute K block by block (block_rows = max_bytes // (4 * 8 * m) rows of X at a time) and "
                    "write each block into a K you allocated once")
                break
    _fail("tiled_rbf_gram", problems)


def _incremental(K, y, max_epochs, *, variant="right"):
    """Dual training with decision values F updated per mistake, and common variants."""
    n = len(y)
    alpha, b, F = np.zeros(n), 0.0, np.zeros(n)
    for _ in range(max_epochs):
        made = 0
        for i in range(n):
            s = y[i] * F[i]
            if (s < 0) if variant == "zero" else (s <= 0):
                alpha[i] += 1
                b += y[i]
                made += 1
                if variant == "only_current":
                    F[i] += y[i] * (K[i, i] + 1.0)
                elif variant == "no_bias":
                    F += y[i] * K[:, i]
                elif variant == "row":
                    F += y[i] * (K[i, :] + 1.0)
                else:
                    F += y[i] * (K[:, i] + 1.0)
        if made == 0:
            break
    return alpha, (0.0 if variant == "no_bias_b" else b)


def _call_incremental(train, K, y, max_epochs, name="train_incremental"):
    Kc, yc = K.copy(), y.copy()
    out = _pair(_run04(train, "the incremental training", DEFAULT_FORBIDDEN, Kc, yc, max_epochs),
                name, ("alpha", "b"))
    alpha, b = out
    check_shape(alpha, (len(y),), f"the alpha returned by {name}")
    if np.ndim(b) != 0:
        raise AssertionError(f"the b returned by {name} should be a number, got shape {np.shape(b)}")
    try:
        alpha = np.asarray(alpha, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError("alpha should be an array of numbers (mistake counts)") from None
    changed = not (np.array_equal(Kc, K) and np.array_equal(yc, y))
    return alpha, float(b), changed


# Far from the origin and separable through it: the bias never decides a mistake.
_I_XC = 10.0 * np.array([[1.0, 3.0], [2.0, 3.0], [-2.0, -1.0], [-2.0, -2.0], [-2.0, 3.0], [0.0, 2.0]])
_I_YC = np.array([1, 1, -1, -1, -1, 1])
# The bias matters here (lesson 03's probe), and a non-symmetric "Gram" matrix tells rows from columns.
_I_XB = np.array([[2.0, 3.0], [0.0, 1.0], [0.0, 3.0], [0.0, 0.0], [1.0, 1.0]])
_I_YB = np.array([1, -1, 1, -1, -1])


def diagnose_incremental(train, aspect="all"):
    """Probe ``train_incremental(K, y, max_epochs) -> (alpha, b)`` and name the mistake.

    The rule: keep the decision values F of all n training points (F = 0 at the start);
    visit 0..n-1; if y_i F_i <= 0, then alpha_i += 1, b += y_i and F += y_i (K[:, i] + 1)
    — every point's value moves, by column i of K plus the bias step. Aspects:
    ``"counts"`` (alpha on a Gram matrix where the bias never decides; updating only
    F_i is named; a ``ValueError`` for a K that is not (n, n)), ``"bias"`` (alpha and b
    where the bias matters; a bias left out of F is named) and ``"first"`` (one epoch:
    alpha in {0, 1} with alpha_0 = 1 since a score of 0 is a mistake; inputs unchanged).

    Raises
    ------
    AssertionError
        Listing every problem found.

    Lesson 06 (Gram matrices at scale).
    """
    problems = []
    only_current = ("you updated only the decision value of the sample that was misclassified: a mistake on "
                    "sample i changes the score of every training point j, F[j] += y_i (K[j, i] + 1)")
    if aspect in ("all", "counts"):
        K, y = _I_XC @ _I_XC.T, _I_YC
        alpha, _, _ = _call_incremental(train, K, y, 20)
        ra, _ = _incremental(K, y, 20)
        if not np.allclose(alpha, ra):
            if np.allclose(alpha, _incremental(K, y, 20, variant="only_current")[0]):
                problems.append(only_current)
            elif np.all(alpha == 0) or np.allclose(alpha, _incremental(K, y, 20, variant="zero")[0]):
                problems.append("sign(0) must count as a mistake: F starts at 0, so the first visit "
                                "(y_0 F_0 = 0) is a mistake")
            else:
                try:
                    check_close(alpha, ra, "alpha on a Gram matrix of 6 samples",
                                hint="visit 0..n-1 in order; on y_i F_i <= 0 add 1 to alpha_i and "
                                     "y_i (K[:, i] + 1) to F")
                except AssertionError as exc:
                    problems.append(str(exc))
        problem = _raises04(train, "the incremental training", DEFAULT_FORBIDDEN, ValueError, np.ones((3, 4)),
                            np.array([1, -1, 1]), 5, why="K has shape (3, 4), not (n, n) for n = len(y) = 3")
        if problem:
            problems.append(problem)
    if aspect in ("all", "bias"):
        K, y = _I_XB @ _I_XB.T, _I_YB
        alpha, b, _ = _call_incremental(train, K, y, 20)
        ra, rb = _incremental(K, y, 20)
        if not (np.allclose(alpha, ra) and np.isclose(b, rb)):
            if np.allclose(alpha, _incremental(K, y, 20, variant="only_current")[0]):
                problems.append(only_current)
            elif np.allclose(alpha, _incremental(K, y, 20, variant="no_bias")[0]):
                problems.append("your decision values ignore the bias: on a mistake b grows by y_i, so every "
                                "score grows by y_i too — F += y_i (K[:, i] + 1), not y_i K[:, i]")
            elif np.allclose(alpha, ra) and b == 0:
                problems.append("alpha is right but b stays 0: return the bias, which grows by y_i on each "
                                "mistake")
            elif np.allclose(alpha, ra) and np.isclose(b, -rb):
                problems.append(f"alpha is right but b = {_fmt(b)} has the wrong sign: b += y_i")
            else:
                problems.append(f"on K = X Xᵀ for X={_fmt(_I_XB)}, y={_fmt(y)} you returned alpha={_fmt(alpha)}, "
                                f"b={_fmt(b)}: check the mistake counts and the bias (on a mistake b += y_i "
                                "and F += y_i (K[:, i] + 1))")
    if aspect in ("all", "first"):
        K, y = _I_XB @ _I_XB.T, _I_YB
        alpha, _, changed = _call_incremental(train, K, y, 1)
        if changed:
            problems.append("train_incremental changed the K or y passed in (work on your own arrays)")
        if alpha[0] != 1:
            problems.append(f"after one epoch alpha[0] is {_fmt(alpha[0])}: F starts at 0 and a score of exactly 0 "
                            "is a mistake, so the first sample is always corrected once")
        elif not np.all(np.isin(alpha, (0, 1))):
            problems.append(f"with max_epochs=1 each sample is visited once, so alpha holds 0 or 1; you returned "
                            f"{_fmt(alpha)}: run at most max_epochs epochs")
    _fail("train_incremental", problems)


# ---- lesson 07 checks
# Lesson 07 (MNIST on the GPU): the one-vs-rest prediction from per-class dual
# coefficients, and the three fixes of the lecture's GPU trainer — the online update rule,
# the kernel precision and the label mapping.

__all__ += [
    "POLY_FORBIDDEN",
    "ovr_train",
    "diagnose_ovr_predict",
    "diagnose_fixed_update",
    "diagnose_fixed_kernel",
    "diagnose_label_mapping",
]

#: What a polynomial kernel in a safe precision may not call.
POLY_FORBIDDEN = (
    "kpcourse.kernels.polynomial",
    "kpcourse.gram.gram_matrix",
    "sklearn.metrics.pairwise.polynomial_kernel",
)


def ovr_train(K, Y, max_epochs, *, batch=False, bias=True, only_current=False):
    """One-vs-rest dual perceptron from a Gram matrix: every class trained online, 0..n-1.

    The reference for lesson 07 (equal to ``KernelPerceptron(kernel="precomputed",
    shuffle=False)``), and its common variants: ``batch`` updates every point that is
    misclassified at the start of an epoch at once (the lecture's GPU code).

    Parameters
    ----------
    K : ndarray of shape (n, n)
    Y : ndarray of shape (n, C)
        +1 where sample i belongs to class c, else -1.
    max_epochs : int

    Returns
    -------
    alpha : ndarray of shape (C, n)
    b : ndarray of shape (C,)

    Lesson 07 (MNIST on the GPU).
    """
    K, Y = np.asarray(K, dtype=float), np.asarray(Y, dtype=float)
    n, C = Y.shape
    alpha, b, F = np.zeros((C, n)), np.zeros(C), np.zeros((n, C))
    step = 1.0 if bias else 0.0
    for _ in range(max_epochs):
        if batch:
            wrong = Y * F <= 0
            if not wrong.any():
                break
            alpha += wrong.T
            delta = (wrong * Y).sum(0) * step
            b += delta
            F = K @ (alpha * Y.T).T + b
            continue
        made = 0
        for i in range(n):
            wrong = Y[i] * F[i] <= 0
            if wrong.any():
                alpha[wrong, i] += 1
                b += wrong * Y[i] * step
                if only_current:
                    F[i] += (K[i, i] + step) * wrong * Y[i]
                else:
                    F += np.outer(K[:, i] + step, wrong * Y[i])
                made += 1
        if made == 0:
            break
    return alpha, b


# Probes for ovr_predict: 4 training points, classes (3, 5, 8), 6 test points. Every
# variant below (argmin, indices, no bias, no labels Y) gives different labels.
_O_CLASSES = np.array([3, 5, 8])
_O_ALPHA = np.array([[3, 2, 1, 0], [2, 3, 0, 2], [1, 0, 2, 3]])
_O_Y = np.array([[-1, -1, 1], [1, -1, -1], [-1, -1, 1], [-1, 1, -1]])
_O_B = np.array([1.0, 2.0, 0.0])
_O_K = np.array([[2.0, 3.0, 1.0, 2.5], [0.5, 1.0, 2.0, 2.0], [0.5, 2.0, 2.0, 3.0],
                 [2.0, 3.0, 3.0, 0.0], [0.0, 1.5, 1.5, 1.5], [2.5, 1.0, 0.5, 2.0]])


def _ovr_scores(K, alpha, Y, b):
    return K @ (alpha * Y.T).T + b


def diagnose_ovr_predict(predict, aspect="all"):
    """Probe ``ovr_predict(K_test_train, alpha, Y_pm, b, classes) -> labels`` and name the mistake.

    The scores are S[t, c] = Σ_j alpha[c, j] Y_pm[j, c] K_test_train[t, j] + b[c] and the
    label of test point t is ``classes[argmax_c S[t, c]]``. Aspects: ``"basic"`` (shape,
    labels taken from ``classes``, argmax not argmin, a ``ValueError`` when the columns of
    K_test_train do not match alpha) and ``"scores"`` (the labels Y_pm and the bias b enter
    the scores; judged with the student's own choice of argmax or argmin, so that one
    mistake fails one cell).

    Raises
    ------
    AssertionError
        Listing every problem found.

    Lesson 07 (MNIST on the GPU).
    """
    problems, what = [], "the one-vs-rest prediction"
    S = _ovr_scores(_O_K, _O_ALPHA, _O_Y, _O_B)
    right, lowest = _O_CLASSES[S.argmax(1)], _O_CLASSES[S.argmin(1)]
    got = _run04(predict, what, DEFAULT_FORBIDDEN, _O_K.copy(), _O_ALPHA.copy(), _O_Y.copy(), _O_B.copy(),
                 _O_CLASSES.copy())
    check_shape(got, (len(_O_K),), "ovr_predict for 6 test points")
    arr = np.asarray(got)
    if aspect in ("all", "basic"):
        if not np.all(np.isin(arr, _O_CLASSES)):
            if np.array_equal(arr, S.argmax(1)) or np.all(np.isin(arr, np.arange(3))):
                problems.append("you returned column indices 0..C-1; return the labels classes[index]")
            else:
                problems.append(f"ovr_predict returned {_fmt(arr)}, not labels from classes={_fmt(_O_CLASSES)}")
        elif np.array_equal(arr, lowest):
            problems.append("you picked the class with the lowest score (argmin): one-vs-rest predicts the "
                            "class whose scorer is most confident, the largest score (argmax)")
        elif not np.array_equal(arr, right):
            problems.append(f"ovr_predict(K_test_train={_fmt(_O_K)}, alpha={_fmt(_O_ALPHA)}, Y_pm={_fmt(_O_Y)}, "
                            f"b={_fmt(_O_B)}, classes={_fmt(_O_CLASSES)}) gave {_fmt(arr)}: "
                            f"{int((arr != right).sum())} label(s) are wrong")
        problem = _raises04(predict, what, DEFAULT_FORBIDDEN, ValueError, np.ones((2, 5)), _O_ALPHA.copy(),
                            _O_Y.copy(), _O_B.copy(), _O_CLASSES.copy(),
                            why="K_test_train has 5 columns but alpha has 4 (one per training point)")
        if problem:
            problems.append(problem)
    if aspect in ("all", "scores"):
        pick = np.argmin if np.array_equal(arr, lowest) and not np.array_equal(arr, right) else np.argmax
        ok = _O_CLASSES[pick(S, axis=1)]
        if not np.array_equal(arr, ok):
            variants = (
                (_ovr_scores(_O_K, _O_ALPHA, np.ones_like(_O_Y), _O_B),
                 "your scores ignore the labels Y_pm: S[t, c] = Σ_j alpha[c, j] Y_pm[j, c] K[t, j] + b[c]"),
                (_ovr_scores(_O_K, _O_ALPHA, _O_Y, 0 * _O_B),
                 "your scores ignore the bias b: S[t, c] = Σ_j alpha[c, j] Y_pm[j, c] K[t, j] + b[c]"),
                (_ovr_scores(_O_K, np.ones_like(_O_ALPHA), _O_Y, _O_B),
                 "your scores ignore the mistake counts alpha: S[t, c] = Σ_j alpha[c, j] Y_pm[j, c] K[t, j] + b[c]"),
            )
            named = [m for V, m in variants if np.array_equal(arr, _O_CLASSES[pick(V, axis=1)])]
            problems.append(named[0] if named else
                            f"the scores behind your labels {_fmt(arr)} are not "
                            "S[t, c] = Σ_j alpha[c, j] Y_pm[j, c] K_test_train[t, j] + b[c]")
    _fail("ovr_predict", problems)


def _call_fixed_update(update, K, Y, max_epochs):
    Kc, Yc = K.copy(), Y.copy()
    out = _pair(_run04(update, "the online update rule", DEFAULT_FORBIDDEN, Kc, Yc, max_epochs),
                "fixed_update_rule", ("alpha", "b"))
    alpha, b = out
    n, C = Y.shape
    check_shape(alpha, (C, n), "the alpha returned by fixed_update_rule (one row per class)")
    check_shape(b, (C,), "the b returned by fixed_update_rule (one bias per class)")
    try:
        return np.asarray(alpha, dtype=float), np.asarray(b, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError("alpha and b should hold numbers") from None


def _one_hot_pm(y, C):
    return np.where(np.asarray(y)[:, None] == np.arange(C)[None, :], 1.0, -1.0)


# Three classes in the plane, each needing several corrections.
_U_X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0], [2.0, 0.5], [0.5, 2.0], [-2.0, -0.5],
                 [1.5, -0.5], [-0.5, 1.5], [-1.0, -2.0]])
_U_Y = _one_hot_pm([0, 1, 2, 0, 1, 2, 0, 1, 2], 3)


def diagnose_fixed_update(update, aspect="all"):
    """Probe ``fixed_update_rule(K, Y, max_epochs) -> (alpha, b)`` and name the mistake.

    One-vs-rest, online: visit 0..n-1; for every class c with Y[i, c] F[i, c] <= 0,
    alpha[c, i] += 1, b[c] += Y[i, c] and F[:, c] += Y[i, c] (K[:, i] + 1). Aspects:
    ``"online"`` (alpha on a small three-class problem; the batch update of the lecture's
    code and updating only F[i] are named; a ``ValueError`` when K is not (n, n)) and
    ``"bias"`` (b per class, and stopping after max_epochs).

    Raises
    ------
    AssertionError
        Listing every problem found.

    Lesson 07 (MNIST on the GPU).
    """
    problems = []
    K, Y = (_U_X @ _U_X.T), _U_Y
    if aspect in ("all", "online"):
        alpha, b = _call_fixed_update(update, K, Y, 20)
        ra, rb = ovr_train(K, Y, 20)
        if not np.allclose(alpha, ra):
            if np.allclose(alpha, ovr_train(K, Y, 20, batch=True)[0]):
                problems.append("you still update every misclassified point of the epoch at once (the batch "
                                "update of the lecture's code): the perceptron corrects one sample at a time and "
                                "the next sample is judged by the corrected scores")
            elif np.allclose(alpha, ovr_train(K, Y, 20, only_current=True)[0]):
                problems.append("you updated only the decision values of the sample that was misclassified: a "
                                "mistake on sample i changes the scores of every training point, "
                                "F[:, c] += Y[i, c] (K[:, i] + 1)")
            elif np.all(alpha == 0):
                problems.append("all your alpha are 0: the first visit has score 0, which is a mistake for "
                                "every class")
            else:
                try:
                    check_close(alpha, ra, "alpha on a three-class problem of 9 points",
                                hint="visit 0..n-1; for each class whose score has the wrong sign (or is 0), "
                                     "add 1 to alpha[c, i] and update that class's scores right away")
                except AssertionError as exc:
                    problems.append(str(exc))
        problem = _raises04(update, "the online update rule", DEFAULT_FORBIDDEN, ValueError, np.ones((3, 4)),
                            _one_hot_pm([0, 1, 1], 2), 5, why="K has shape (3, 4), not (n, n) for Y with 3 rows")
        if problem:
            problems.append(problem)
    if aspect in ("all", "bias"):
        alpha, b = _call_fixed_update(update, K, Y, 20)
        ra, rb = ovr_train(K, Y, 20)
        pa, pb = ovr_train(K, Y, 20, batch=True)
        if not (np.allclose(b, rb) or (np.allclose(alpha, pa) and np.allclose(b, pb))):
            if np.allclose(b, 0):
                problems.append("b stays 0: each class's bias grows by Y[i, c] on each of its mistakes, "
                                "and enters its scores")
            elif np.allclose(alpha, ra) and np.allclose(b, -rb):
                problems.append("b has the wrong sign: b[c] += Y[i, c] on a mistake")
            elif np.allclose(alpha, ovr_train(K, Y, 20, bias=False)[0]):
                problems.append("your scores ignore the bias: a mistake moves b[c] by Y[i, c], so every score "
                                "of class c moves by Y[i, c] too")
            else:
                problems.append(f"b = {_fmt(b)} is not the per-class bias (b[c] += Y[i, c] on each mistake of "
                                "class c)")
        Xs = np.array([[1.0, 0.5], [1.0, 0.5]])
        for epochs in (1, 3):
            alpha, _ = _call_fixed_update(update, Xs @ Xs.T, _one_hot_pm([0, 1], 2), epochs)
            if not np.allclose(alpha, epochs):
                problems.append(f"on two copies of one point with different classes every visit is a mistake for "
                                f"both classes, so with max_epochs={epochs} each alpha should count {epochs}; "
                                f"you returned {_fmt(alpha)}: run at most max_epochs epochs")
                break
    _fail("fixed_update_rule", problems)


def _poly64(X, Z, degree, gamma, coef0):
    return (gamma * (np.asarray(X, float) @ np.asarray(Z, float).T) + coef0) ** degree


def diagnose_fixed_kernel(kernel, aspect="all", X=None, Z=None):
    """Probe ``fixed_kernel_precision(X, Z, degree, gamma, coef0) -> K`` and name the mistake.

    K = (γ X Zᵀ + coef0)^degree, shape (n, m), computed in a precision that holds the
    values. Aspects: ``"overflow"`` (on inputs whose kernel values pass 65 504, the
    largest float16, K is finite and not stored in float16) and ``"accuracy"`` (K equals
    the float64 kernel to a relative 1e-4: float32 or float64 arithmetic, not bfloat16).
    ``X`` and ``Z`` default to rows scaled like MNIST pixels in [0, 1].

    Raises
    ------
    AssertionError
        Listing every problem found.

    Lesson 07 (MNIST on the GPU).
    """
    problems = []
    rng = np.random.default_rng(7)
    if X is None:
        X = np.where(rng.random((12, 784)) < 0.3, rng.uniform(0.5, 1.0, (12, 784)), 0.0)
        Z = np.where(rng.random((9, 784)) < 0.3, rng.uniform(0.5, 1.0, (9, 784)), 0.0)
    ref = _poly64(X, Z, 4, 1.0, 1.0)
    got = _run04(kernel, "the kernel in a safe precision", POLY_FORBIDDEN, X.copy(), Z.copy(), 4, 1.0, 1.0)
    dtype = str(getattr(got, "dtype", ""))
    check_shape(got, ref.shape, f"fixed_kernel_precision for X of shape {X.shape} and Z of shape {Z.shape}")
    try:
        K = np.asarray(got.float() if hasattr(got, "float") and "16" in dtype else got, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError("fixed_kernel_precision should return an array of numbers") from None
    if aspect in ("all", "overflow"):
        if not np.all(np.isfinite(K)):
            problems.append(f"K holds {int((~np.isfinite(K)).sum())} infinite or NaN values of {K.size}: kernel "
                            f"values here reach {ref.max():.3g}, above 65 504, the largest float16 — compute and "
                            "store the kernel in float32 or float64")
        elif "float16" in dtype and "bfloat16" not in dtype:
            problems.append(f"K is stored as {dtype}: its values overflow float16; return float32 or float64")
    if aspect in ("all", "accuracy") and not np.all(np.isfinite(K)):
        problems.append("K holds infinite or NaN values, so it cannot be accurate (see the overflow test): "
                        "compute (γ x·z + coef0)^degree in float32 or float64")
    elif aspect in ("all", "accuracy"):
        rel = np.max(np.abs(K - ref) / np.abs(ref))
        if rel > 1e-4:
            hint = (" — bfloat16 keeps only 8 bits of mantissa" if "bfloat16" in dtype or rel > 1e-3 else "")
            problems.append(f"K differs from the exact kernel by a relative {rel:.2g}{hint}: compute "
                            "(γ x·z + coef0)^degree in float32 or float64")
        other = _run04(kernel, "the kernel in a safe precision", POLY_FORBIDDEN, X[:3].copy(), Z[:2].copy(), 2,
                       0.5, 2.0)
        other = np.asarray(other.float() if hasattr(other, "float") else other, dtype=float)
        if not np.allclose(other, _poly64(X[:3], Z[:2], 2, 0.5, 2.0), rtol=1e-4):
            problems.append("with degree=2, gamma=0.5, coef0=2 your K is wrong: use the arguments, "
                            "K = (gamma * X Zᵀ + coef0) ** degree")
    _fail("fixed_kernel_precision", problems)


def diagnose_label_mapping(mapping, aspect="all"):
    """Probe ``fixed_label_mapping(y, classes) -> Y_pm`` and name the mistake.

    Y_pm has shape (n, C), +1 where ``y[i] == classes[c]`` and -1 elsewhere. Aspects:
    ``"zero"`` (digit labels 0-9: the class 0 gets its +1s, the lecture's 0 → -1 mapping
    is named) and ``"general"`` (any labels — negative, unordered, strings — one +1 per
    row, and the y passed in unchanged).

    Raises
    ------
    AssertionError
        Listing every problem found.

    Lesson 07 (MNIST on the GPU).
    """
    problems, what = [], "the label mapping"

    def call(y, classes):
        yc = np.array(y, copy=True)
        got = _run04(mapping, what, DEFAULT_FORBIDDEN, yc, np.array(classes, copy=True))
        check_shape(got, (len(y), len(classes)), f"fixed_label_mapping for {len(y)} labels and {len(classes)} classes")
        try:
            arr = np.asarray(got, dtype=float)
        except (TypeError, ValueError):
            raise AssertionError("fixed_label_mapping should return numbers -1 and +1") from None
        return arr, not np.array_equal(yc, np.asarray(y))

    if aspect in ("all", "zero"):
        y = np.array([0, 3, 1, 0, 9, 2, 0, 7])
        classes = np.arange(10)
        Y, _ = call(y, classes)
        right = np.where(y[:, None] == classes[None, :], 1.0, -1.0)
        if not np.array_equal(Y, right):
            if np.array_equal(Y[:, 1:], right[:, 1:]) and np.all(Y[:, 0] == -1):
                problems.append("digit 0 never gets a +1 (its column is all -1): the mapping 0 → -1 was written "
                                "for labels {0, 1}; with digit labels it turns the class 0 into -1, which is not "
                                "a class. Compare y with classes[c] directly")
            elif np.array_equal(Y, -right):
                problems.append("your signs are flipped: +1 where y[i] == classes[c]")
            elif np.isin(Y, (0, 1)).all():
                problems.append("Y_pm holds 0/1; the perceptron needs -1 and +1")
            else:
                problems.append(f"for y={_fmt(y)} and classes 0..9 your Y_pm is wrong in "
                                f"{int((Y != right).sum())} entries")
    if aspect in ("all", "general"):
        for y, classes in ((np.array([-1, 2, 7, 2, -1]), np.array([-1, 2, 7])),
                           (np.array([1, 0, 1, 1]), np.array([0, 1])),
                           (np.array(["dog", "cat", "dog"]), np.array(["cat", "dog"]))):
            Y, changed = call(y, classes)
            right = np.where(y[:, None] == classes[None, :], 1.0, -1.0)
            if changed:
                problems.append("fixed_label_mapping changed the y passed in (in place); build a new array")
                break
            if not np.array_equal(Y, right):
                problems.append(f"for y={list(y)} and classes={list(classes)} your Y_pm is wrong in "
                                f"{int((Y != right).sum())} entries: +1 exactly where y[i] == classes[c], "
                                "-1 elsewhere (one +1 per row)")
                break
    _fail("fixed_label_mapping", problems)
