"""kpcourse.checks._core: the one way to call a student's function, and answers as plain data."""

import json
import os
import time

import numpy as np
import pytest

from kpcourse.checks import _core
from kpcourse.checks._core import Answer, Call, Ref, Test


@pytest.mark.parametrize("value", [
    None, True, 3, -2**70, 2.5, float("inf"), "text", (1, 2.0, "a"), [1, [2, (3,)]], {"a": 1, 2: (3,)},
    {1, 2}, np.arange(6).reshape(2, 3), np.array([[1.5, np.nan]], dtype=np.float32), np.array(["a", "bc"]),
    np.int64(7), np.float16(0.5), np.array([True, False]), np.zeros((0, 3)),
])
def test_encode_decode_round_trip(value):
    back = _core.loads(json.dumps(_core.encode(value)))
    if isinstance(value, np.ndarray):
        assert isinstance(back, np.ndarray) and back.dtype == value.dtype and back.shape == value.shape
        np.testing.assert_array_equal(back, value)
    elif isinstance(value, float) and np.isnan(value):
        assert np.isnan(back)
    else:
        assert back == value and type(back) is type(value)
    readable = _core.decode(json.loads(json.dumps(_core.encode(value, readable=True))))
    assert type(readable) is type(back)


def test_objects_become_opaque_and_nothing_executes():
    class Evil:
        def __reduce__(self):  # would run on unpickling: never unpickled
            return (os.system, ("echo pwned",))

    for value in (Evil(), lambda: 1, np.array([Evil()], dtype=object)):
        back = _core.loads(json.dumps(_core.encode(value)))
        assert isinstance(back, _core.Opaque)
    # crafted data: object dtype, wrong sizes, unknown markers
    for data in ({"__ndarray__": "|O", "shape": [1], "b64": "AAAAAAAAAAA="},
                 {"__ndarray__": "<f8", "shape": [3], "b64": "AAAA"},
                 {"__ndarray__": "<f8", "shape": [-1], "b64": ""},
                 {"__pickle__": "gASVBQAAAAAAAACMAXiULg=="}, {"__npscalar__": {"__opaque__": "x"}}):
        assert isinstance(_core.decode(data), _core.Opaque)
    with pytest.raises(ValueError, match="too large"):
        _core.loads(" " * (_core.MAX_ANSWER_BYTES + 1))


def test_call_copies_arguments_and_reports_mutation():
    w = np.ones(3)

    def in_place(w, x):
        w += x
        return w

    answer = _core.call(in_place, Call("update", w, np.ones(3)))
    assert answer.mutated == [0] and np.array_equal(w, np.ones(3))  # the probe's own data is untouched
    assert _core.call(lambda w, x: w + x, Call("update", w, 1.0)).mutated == []


def test_call_turns_errors_into_answers(message):
    def unwritten(x):
        raise NotImplementedError()

    def endless(x):
        while True:
            try:
                time.sleep(0.01)
            except Exception:
                pass

    assert "not written yet" in message(_core.call(unwritten, Call("f", 1)).get)
    start = time.monotonic()
    answer = _core.call(endless, Call("f", 1), time_limit=0.3)
    assert answer.error == "TimeUp" and time.monotonic() - start < 5
    assert "ran for more than 0.3 s" in message(answer.get)
    assert "is not defined" in message(_core.call(None, Call("train", 1)).get)
    msg = message(_core.call(lambda x: 1 / 0, Call("f", np.arange(3))).get)
    assert "raised ZeroDivisionError" in msg and msg.startswith("f(")


def test_refs_pass_the_students_own_functions():
    test = Test([Call("gap", Ref("phi"), np.ones((2, 2)))], lambda answers: None)
    answers = test.answers({"gap": lambda f, X: f(X).sum(), "phi": lambda X: 2 * X})
    assert answers[0].value == 8.0


def test_answers_survive_json_as_data():
    call_ = Call.measured("f", np.ones(2))
    answer = _core.call(lambda x: (x * 2, 3), call_)
    back = Answer.from_data(call_, json.loads(json.dumps(answer.to_data())))
    assert isinstance(back.value, tuple) and np.array_equal(back.value[0], [2.0, 2.0])
    assert back.peak_bytes is not None and back.peak_bytes >= 0
    assert Answer.from_data(call_, "garbage").error == "NoAnswer"


def test_expect_raises(message):
    ok = _core.call(lambda X: (_ for _ in ()).throw(ValueError("bad")), Call("f", 1))
    _core.expect_raises(ok, "ValueError", "X is bad")
    msg = message(_core.expect_raises, _core.call(lambda X: X, Call("f", 1)), "ValueError", "X is bad")
    assert "should raise ValueError when X is bad; it returned normally" in msg
    msg = message(_core.expect_raises, _core.call(lambda X: 1 / 0, Call("f", 1)), "ValueError", "X is bad")
    assert "it raised ZeroDivisionError" in msg


def test_generic_checks_never_show_the_reference(message):
    ref = np.array([0.123456, 7.65, 3.5])
    _core.check_close(ref + 1e-12, ref, "w")
    msg = message(_core.check_close, [0.123456, 9.25, 3.5], ref, "w", hint="check the bias")
    assert "1 of 3 values differ" in msg and "9.25" in msg and "check the bias" in msg and "7.65" not in msg
    msg = message(_core.check_close, 2.75, -0.8125, "b")
    assert "2.75" in msg and "0.8125" not in msg
    assert "NaN" in message(_core.check_close, [np.nan, 1, 2], ref, "w")
    msg = message(_core.check_shape, np.zeros((4, 1)), (4,), "w")
    assert "shape (4,) expected, got (4, 1)" in msg and "column vector" in msg
    assert "transposed" in message(_core.check_shape, np.zeros((3, 2)), (2, 3), "K")
    assert "True/False" in message(_core.check_labels, np.array([True, False]), 2, "pred")
    assert "contains 0" in message(_core.check_labels, np.array([1, 0]), 2, "pred")
    assert "should return one number, got shape (2,)" in message(_core.one_number, [1, 2], "gap")
    assert _core.one_number(np.float32(0.5), "gap") == 0.5
    assert "should be an array, got Evil" in message(_core.check_shape, _core.Opaque("Evil"), (2,), "w")


def test_produce_writes_answers_for_the_grader(tmp_path, monkeypatch):
    probes = {"cell-1": {"tests": [{"calls": [Call("double", np.arange(3)).to_data(),
                                               Call("missing", 1).to_data()], "time_limit": 5}]}}
    (tmp_path / "probes.json").write_text(json.dumps(probes))
    monkeypatch.setenv(_core.PROBES_ENV, str(tmp_path / "probes.json"))
    monkeypatch.setenv(_core.ANSWERS_ENV, str(tmp_path / "answers"))
    _core.produce("cell-1", {"double": lambda x: 2 * x})
    raw = json.loads((tmp_path / "answers" / "cell-1.json").read_text())
    first = Answer.from_data(Call("double"), raw[0][0])
    assert np.array_equal(first.value, [0, 2, 4])
    assert Answer.from_data(Call("missing"), raw[0][1]).error == "NameError"


def test_loop_free(message):
    def vectorised(X):
        return X @ X.T

    def looped(X):
        return [x for x in X]

    _core.check_loop_free(vectorised)
    assert "uses a Python loop" in message(_core.check_loop_free, looped)


@pytest.mark.parametrize("value,text", [
    ((np.array(["a", "b"]), 0.0), "(array"),  # ragged: an array and a number
    ([[1, 2], [3]], "[[1, 2], [3]]"), (2.5, "2.5"), (np.float32(0.25), "0.25"), (object(), "<object"),
])
def test_fmt_says_something_for_anything(value, text):
    assert _core.fmt(value).startswith(text)


def test_fmt_writes_an_array_on_one_line():
    """A report lists the lines of a message as separate hints: a probe's label and a returned array stay on one."""
    from kpcourse.checks._core import fmt

    text = fmt(np.arange(6.0).reshape(3, 2))
    assert text == "[[0., 1.], [2., 3.], [4., 5.]]"
    assert "\n" not in fmt(np.arange(60.0).reshape(20, 3)) and "\n" not in fmt(np.zeros((2, 2, 2)))


def test_same_compares_arrays_of_string_labels():
    """A mistake's output of string labels is named like one of numbers (assignment 01's vote)."""
    from kpcourse.checks._core import same

    assert same(np.array(["sea", "ball"]), np.array(["sea", "ball"]))
    assert not same(np.array(["sea", "ball"]), np.array(["ball", "sea"]))
    assert not same(np.array(["sea"]), np.array(["sea", "sea"])) and not same(np.array([{}]), np.array(["sea"]))
