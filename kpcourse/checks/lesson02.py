"""Checks of assignment 02 (the perceptron by hand): predict, update, train.

Each ``diagnose_*`` runs fixed probes on the student's function and names the likely
mistake; ``*_tests(aspect)`` returns the same probes as :class:`~._core.Test` objects,
which the grader replays on the student's answers. The expected outputs and the
outputs of common mistakes are data (``data/lesson02.json``, written from the
grader's references); no perceptron lives here.
"""

from __future__ import annotations

import functools

import numpy as np

from kpcourse.checks._core import (
    Call,
    Test,
    check_shape,
    expect_raises,
    fail,
    fmt,
    load_data,
    problem,
    run,
    same,
    unpack,
)

__all__ = ["diagnose_predict", "diagnose_update", "diagnose_trace", "check_trace", "check_stopping",
           "predict_tests", "update_tests", "train_tests"]

TRACE_COLUMNS = ("epoch", "index", "mistake", "intercept")

#: The probes (inputs only). Scores of predict_X: 1.5, -1.5, -1.5, 5.5, 0.4 (-0.1 without b);
#: of predict_X0: 0, 2.5, 0, 0.
PROBES = {
    "predict_w": np.array([2.0, -1.0]), "predict_b": 0.5,
    "predict_X": np.array([[1.0, 1.0], [0.0, 2.0], [-1.0, 0.0], [3.0, 1.0], [0.2, 0.5]]),
    "predict_X0": np.array([[0.25, 1.0], [1.0, 0.0], [1.0, 2.5], [-1.0, -1.5]]),
    "update": {  # (w, b, x, y, learning_rate); the score y(w·x + b) in the comment
        "plus": (np.array([1.0, -2.0]), 0.5, np.array([1.0, 2.0]), 1, 0.625),     # -2.5: mistake
        "minus": (np.array([1.0, -2.0]), 0.5, np.array([2.0, 0.5]), -1, 1.5),     # -1.5: mistake
        "ok_plus": (np.array([1.0, -2.0]), 0.5, np.array([2.0, 1.0]), 1, 0.75),   # 0.5: correct
        "ok_minus": (np.array([1.0, -2.0]), 0.5, np.array([1.0, 2.0]), -1, 0.75),  # 2.5: correct
        "zero_plus": (np.array([1.0, -1.0]), 0.0, np.array([3.0, 3.0]), 1, 0.5),  # 0
        "zero_minus": (np.array([1.0, 1.0]), -3.0, np.array([1.0, 2.0]), -1, 0.5),  # 0
    },
    "train_X": np.array([[3.0, 2.0], [2.0, 2.0], [-1.0, 3.0], [-3.0, -3.0], [-1.0, 0.0]]),
    "train_y": np.array([-1, -1, 1, -1, -1]), "train_lr": 0.5, "train_epochs": 20,
    "xor_X": np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]]),
    "xor_y": np.array([1, 1, -1, -1]),
}

@functools.cache
def _data():
    return load_data("lesson02")


# ------------------------------------------------------------------- predict
def predict_tests(aspect="all"):
    """Tests of ``predict(w, b, X)``: ``"basic"`` (labels, shape, bias, ValueError), ``"zero"``."""
    P, tests = PROBES, []
    w, b = P["predict_w"], P["predict_b"]
    if aspect in ("all", "basic"):
        calls = [Call("predict", w, b, P["predict_X"]), Call("predict", w, b, P["predict_X"][:1]),
                 Call("predict", w, b, np.ones((3, 3)))]
        tests.append(Test(calls, _judge_predict_basic))
    if aspect in ("all", "zero"):
        tests.append(Test([Call("predict", w, b, P["predict_X0"])], _judge_predict_zero))
    return tests


def _judge_predict_basic(answers):
    __tracebackhide__ = True
    d, problems = _data()["predict"], []
    got = answers[0].get()
    arr = np.asarray(got) if not isinstance(got, (str, type(None))) else np.asarray([])
    if arr.shape == (5,) and arr.dtype.kind in "fiu" and not np.isin(arr, (-1, 1)).all() \
            and same(arr, d["scores"]):
        problems.append("predict returned the scores w·x + b; return their labels -1/+1")
    else:
        from kpcourse.checks._core import check_labels

        check_labels(got, 5, f"predict(w={fmt(PROBES['predict_w'])}, b=0.5, X with 5 rows)")
        if np.array_equal(arr, -d["labels"]):
            problems.append("your labels are flipped: a positive score w·x + b predicts +1")
        elif np.array_equal(arr, d["no_bias"]):
            problems.append("your prediction ignores the bias b: the score is w·x + b")
        elif not np.array_equal(arr, d["labels"]):
            problems.append(f"predict(w={fmt(PROBES['predict_w'])}, b=0.5, X={fmt(PROBES['predict_X'])}) "
                            f"gave {fmt(arr)}: {int((arr != d['labels']).sum())} label(s) are wrong")
    one = answers[1].get()
    if np.shape(one) != (1,):
        problems.append(f"for X with one row (shape (1, 2)) predict should return shape (1,), got {np.shape(one)}")
    problems.append(problem(expect_raises, answers[2], "ValueError", "X has 3 columns but w has 2 entries"))
    fail("predict", problems)


def _judge_predict_zero(answers):
    __tracebackhide__ = True
    got = answers[0].get()
    check_shape(got, (4,), "predict(...) for 4 points")
    arr = np.asarray(got, dtype=float)
    problems, zero = [], arr[[0, 2, 3]]
    if np.any(zero == 0):
        problems.append("a score of exactly 0 gave 0 (np.sign(0) is 0): a point whose score is "
                        "not positive is labelled -1")
    elif np.any(zero == 1):
        problems.append("a score of exactly 0 gave +1: only a positive score predicts +1 "
                        "(a point on the boundary is not counted as positive)")
    elif not same(arr, _data()["predict"]["zero_labels"]):
        problems.append(f"for a positive score predict gave {fmt(arr[1])}")
    fail("predict", problems)


def diagnose_predict(predict, aspect="all"):
    """Probe ``predict(w, b, X)`` and name the mistake (aspects ``"basic"``, ``"zero"``, ``"all"``).

    Raises
    ------
    AssertionError
        Listing every problem found.
    """
    __tracebackhide__ = True
    run(predict_tests(aspect), predict=predict)


# -------------------------------------------------------------------- update
def _probe_text(case):
    w, b, x, y, lr = case
    return f"w={fmt(w)}, b={fmt(b)}, x={fmt(x)}, y={y:+d}, learning_rate={fmt(lr)}"


def unpack_update(answer):
    """``(w, b)`` from an answer of ``update``, with clear failures for the wrong kind of result."""
    __tracebackhide__ = True
    w, b = unpack(answer.get(), "update", ("w", "b"))
    n = len(answer.call.args[0]) if answer.call.args else None
    check_shape(w, (n,), "the new w returned by update")
    if np.ndim(b) != 0:
        raise AssertionError(f"the new b returned by update should be a number, got shape {np.shape(b)}")
    return np.asarray(w, float), float(b)


def update_tests(aspect="all"):
    """Tests of ``update(w, b, x, y, learning_rate)``: ``"weights"``, ``"zero"``, ``"bias"``."""
    U = PROBES["update"]
    keys = {"weights": ("plus", "minus", "ok_plus", "ok_minus"), "zero": ("zero_plus", "zero_minus"),
            "bias": ("plus", "minus", "ok_plus", "ok_minus")}
    tests = []
    for name in ("weights", "zero", "bias"):
        if aspect not in ("all", name):
            continue
        calls = [Call("update", *U[k]) for k in keys[name]]
        if name == "weights":
            w, b, x, _, lr = U["plus"]
            calls.append(Call("update", w, b, x, 0, lr))
        tests.append(Test(calls, _UPDATE_JUDGES[name]))
    return tests


def _judge_update_weights(answers):
    __tracebackhide__ = True
    U, d, problems = PROBES["update"], _data()["update"], []
    plus_right = True
    for a, key in zip(answers[:2], ("plus", "minus"), strict=True):
        w = U[key][0]
        nw, _ = unpack_update(a)
        if a.mutated and key == "plus":
            problems.append("your update changed the arrays passed in (in place, e.g. w += ...): "
                            "build a new array (w = w + ...) so earlier trace rows keep their values")
        e = d[key]
        if same(nw, e["w"]):
            continue
        plus_right = plus_right and key != "plus"
        where = f"on the misclassified point ({_probe_text(U[key])}) your update returned w={fmt(nw)}"
        if same(nw, w):
            problems.append(f"{where}, unchanged: update when y(w·x + b) <= 0")
        elif plus_right and same(nw, e["no_y"]):
            problems.append(f"{where}: your update ignores the label y (the step is learning_rate·y·x)")
        elif same(nw, e["minus"]):
            problems.append(f"{where}: the step has the wrong sign; a mistake moves w towards y·x")
        elif same(nw, e["no_lr"]):
            problems.append(f"{where}: the learning rate is not applied (the step is learning_rate·y·x)")
        elif same(nw, e["lr_on_w"]) or same(nw, e["lr_on_w2"]):
            problems.append(f"{where}: the learning rate is applied to the wrong thing; "
                            "it scales the step y·x only, not w")
        else:
            problems.append(f"{where}, not w + learning_rate·y·x")
    for a, key in zip(answers[2:4], ("ok_plus", "ok_minus"), strict=True):
        nw, _ = unpack_update(a)
        if not same(nw, U[key][0]):
            problems.append(f"your update changed w on a correctly classified point "
                            f"({_probe_text(U[key])}, y(w·x + b) > 0): update only on a mistake")
            break
    problems.append(problem(expect_raises, answers[4], "ValueError", "y is 0 (labels are -1 or +1)"))
    fail("update", problems)


def _judge_update_zero(answers):
    __tracebackhide__ = True
    U, missed = PROBES["update"], []
    for a, key in zip(answers, ("zero_plus", "zero_minus"), strict=True):
        nw, nb = unpack_update(a)
        if same(nw, U[key][0]) and nb == U[key][1]:
            missed.append(key)
    if missed:
        extra = ""
        if missed == ["zero_minus"]:
            extra = (" — here for y = -1: comparing a prediction with y treats a score of 0 as "
                     "correct for the label -1; test y(w·x + b) <= 0 instead")
        elif missed == ["zero_plus"]:
            extra = " — here for y = +1"
        fail("update", ["sign(0) must count as a mistake: a point with score exactly 0 (on the boundary) "
                        f"must be updated, e.g. {_probe_text(U[missed[0]])} was left unchanged{extra}"])


def _judge_update_bias(answers):
    __tracebackhide__ = True
    U, d, problems = PROBES["update"], _data()["update"], []
    for a, key in zip(answers[:2], ("plus", "minus"), strict=True):
        b = U[key][1]
        _, nb = unpack_update(a)
        e = d[key]
        if np.isclose(nb, e["b"]):
            continue
        where = f"on the misclassified point ({_probe_text(U[key])}) b became {fmt(nb)}"
        if nb == b:
            problems.append(f"your update ignores the bias: {where}, unchanged; on a mistake "
                            "b moves too (b + learning_rate·y)")
        elif np.isclose(nb, e["b_no_lr"]):
            problems.append(f"{where}: the learning rate must scale the bias step too (b + learning_rate·y)")
        elif np.isclose(nb, e["b_minus"]):
            problems.append(f"{where}: the bias step has the wrong sign (b + learning_rate·y)")
        else:
            problems.append(f"{where}, not b + learning_rate·y")
        break
    for a, key in zip(answers[2:4], ("ok_plus", "ok_minus"), strict=True):
        _, nb = unpack_update(a)
        if nb != U[key][1]:
            problems.append(f"your update changed b on a correctly classified point ({_probe_text(U[key])}): "
                            "update only on a mistake")
            break
    fail("update", problems)


_UPDATE_JUDGES = {"weights": _judge_update_weights, "zero": _judge_update_zero, "bias": _judge_update_bias}


def diagnose_update(update, aspect="all"):
    """Probe ``update(w, b, x, y, learning_rate) -> (w, b)`` and name the mistake.

    Aspects: ``"weights"`` (w moves by learning_rate·y·x on a mistake, stays on a
    correct point; the arrays passed in are not modified), ``"zero"`` (a score of
    exactly 0 is a mistake, for both labels) and ``"bias"`` (b moves by
    learning_rate·y on a mistake only).
    """
    __tracebackhide__ = True
    run(update_tests(aspect), update=update)


# --------------------------------------------------------------------- train
def unpack_train(answer, n_features):
    """``(w, b, trace)`` from an answer of ``train``, with clear failures."""
    __tracebackhide__ = True
    w, b, trace = unpack(answer.get(), "train", ("w", "b", "trace"))
    check_shape(w, (n_features,), "the w returned by train")
    if np.ndim(b) != 0:
        raise AssertionError(f"the b returned by train should be a number, got shape {np.shape(b)}")
    try:
        trace = np.asarray(trace, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError("the trace should be an array of numbers (one row per step)") from None
    check_shape(trace, (None, 4 + n_features), "the trace (rows: epoch, index, mistake, b, w_1, w_2, ...)")
    return np.asarray(w, float), float(b), trace


_TRAIN_HINTS = {  # common mistakes (data/lesson02.json holds their outputs), most specific first
    "epochs": "the epochs in the trace are numbered from 1 (the first epoch is epoch 1)",
    "index": "the index column holds the sample's row in X, from 0",
    "columns": "the columns are epoch, index, mistake, intercept, then the weights: the intercept comes before w",
    "before": "a trace row holds b and w after that step, not before",
    "only_mistakes": "the trace needs one row per visited sample, mistakes or not",
    "no_stop": "your loop must stop after the first epoch without a mistake",
    "sign0": "sign(0) must count as a mistake: the first point (score 0, since w and b start at 0) "
             "must be updated",
    "no_bias": "your training ignores the bias: b must move by learning_rate·y on each mistake",
    "bias_no_lr": "the learning rate must scale the bias step too (b + learning_rate·y)",
    "no_lr": "the learning rate is not applied: each step is learning_rate·y·x (and learning_rate·y for b)",
}
_RESULT_MISTAKES = ("no_stop", "sign0", "no_bias", "bias_no_lr", "no_lr")


def train_tests(aspect="all"):
    """Tests of ``train(X, y, learning_rate, max_epochs)``: ``"trace"``, ``"result"``, ``"stop"``."""
    P, tests = PROBES, []
    main = Call("train", P["train_X"], P["train_y"], P["train_lr"], P["train_epochs"])
    if aspect in ("all", "trace", "result"):
        tests.append(Test([main], lambda answers: _judge_train(answers, aspect)))
    if aspect in ("all", "stop"):
        calls = [Call("train", P["xor_X"], P["xor_y"], 1.0, 3), main,
                 Call("train", P["train_X"], P["train_y"][:-1], P["train_lr"], P["train_epochs"])]
        tests.append(Test(calls, _judge_stop))
    return tests


def _judge_train(answers, aspect):
    __tracebackhide__ = True
    P, d, problems = PROBES, _data()["train"], []
    X, y, lr = P["train_X"], P["train_y"], P["train_lr"]
    w, b, trace = unpack_train(answers[0], X.shape[1])
    if aspect in ("all", "trace") and not same(trace, d["trace"]):
        named = [_TRAIN_HINTS[k] for k, m in d["mistakes"].items() if same(trace, m["trace"])]
        if named:
            problems.append(named[0])
        else:
            problems.append(problem(check_trace, trace, d["trace"],
                                    f"your trace on X={fmt(X)}, y={fmt(y)}, learning_rate={lr:g}"))
    if aspect in ("all", "trace") and len(trace) and not same(trace[-1, 3:], [b, *w]):
        problems.append("the w and b you return must be those of the last trace row")
    if aspect in ("all", "result") and not (same(w, d["w"]) and np.isclose(b, d["b"])):
        named = [_TRAIN_HINTS[k] for k in _RESULT_MISTAKES
                 if same(w, d["mistakes"][k]["w"]) and np.isclose(b, d["mistakes"][k]["b"])]
        problems.append(named[0] if named else
                        f"on X={fmt(X)}, y={fmt(y)}, learning_rate={lr:g} you returned "
                        f"w={fmt(w)}, b={fmt(b)}: not the final weights of the perceptron")
    fail("train", problems)


def _judge_stop(answers):
    __tracebackhide__ = True
    P, problems = PROBES, []
    for a, n, E in ((answers[0], len(P["xor_y"]), 3), (answers[1], len(P["train_y"]), P["train_epochs"])):
        _, _, t = unpack_train(a, 2)
        found = _stop_problems(t, n, E)
        if found:
            problems += found
            break
    problems.append(problem(expect_raises, answers[2], "ValueError",
                            f"X has {len(P['train_X'])} rows but y has {len(P['train_y']) - 1} labels"))
    fail("train", problems)


def diagnose_trace(train, aspect="all"):
    """Probe ``train(X, y, learning_rate, max_epochs) -> (w, b, trace)`` and name the mistake.

    Aspects: ``"trace"`` (every row of the trace on a small data set, and the returned
    w, b equal to the last row), ``"result"`` (the final w and b) and ``"stop"`` (one
    row per visited sample, stop after the first epoch without a mistake or after
    ``max_epochs``; judged by the student's own mistake column).
    """
    __tracebackhide__ = True
    run(train_tests(aspect), train=train)


def check_trace(trace, reference, name="trace"):
    """Compare a trace row by row with a reference trace (data), without showing it.

    Rows are (epoch, index, mistake, intercept, coef_1, ...).
    """
    __tracebackhide__ = True
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
            f"{name} differs from step {r + 1} on (epoch {fmt(arr[r, 0])}, sample {fmt(arr[r, 1])}): "
            f"your {col} there is {fmt(arr[r, c])}")


def check_stopping(trace, n_samples, max_epochs, name="train"):
    """Check when a training loop stopped, judged by its own trace (not by the rule)."""
    __tracebackhide__ = True
    fail(name, _stop_problems(np.asarray(trace, dtype=float), n_samples, max_epochs))


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
