"""kpcourse.grading.sandbox.limits and the grader's reading of what a sandbox wrote: caps, links, sizes."""

import json
import os

import numpy as np
import pytest

from kpcourse.checks import _core
from kpcourse.grading.judge import trusted
from kpcourse.grading.sandbox.limits import Limits, cap_outputs, describe, limits_hit


def test_limits_are_validated_and_travel_as_json():
    limits = Limits(memory_bytes=2**30)
    assert Limits.from_json(limits.to_json()) == limits
    for bad in ({"memory_bytes": 0}, {"processes": 4}, {"output_bytes": 1.5}, {"file_bytes": True}):
        with pytest.raises(ValueError, match="nbgrader_config.py|at least 16"):
            Limits(**bad)
    assert describe(2 * 2**30) == "2 GiB" and describe(2**20) == "1 MiB" and describe(1536) == "1.5 KiB"


def test_outputs_are_cut_past_the_limit_errors_kept():
    outs = [{"output_type": "stream", "name": "stdout", "text": "a" * 600},
            {"output_type": "stream", "name": "stdout", "text": "b" * 600},
            {"output_type": "error", "ename": "ValueError", "evalue": "v" * 5000, "traceback": ["t"] * 50}]
    kept, cut = cap_outputs(outs, 1000)
    assert cut and kept[0]["text"] == "a" * 600 and kept[1]["text"].startswith("[output cut:")
    assert kept[2]["ename"] == "ValueError" and len(kept[2]["evalue"]) == 500 and len(kept[2]["traceback"]) == 5
    assert cap_outputs(outs[:1], 1000) == (outs[:1], False)
    assert limits_hit(kept) == ["output"]
    assert limits_hit([{"output_type": "error", "ename": "MemoryError", "evalue": ""},
                       {"output_type": "error", "ename": "BlockingIOError", "evalue": "[Errno 11] Resource"},
                       {"output_type": "error", "ename": "OSError", "evalue": "[Errno 27] File too large"}]) == \
        ["memory", "processes", "file size"]


def test_reading_what_the_sandbox_wrote_follows_no_link(tmp_path):
    (tmp_path / "out").mkdir()
    secret = tmp_path / "instructor.ipynb"
    secret.write_text("solutions")
    (tmp_path / "out" / "ok.json").write_text("[1]")
    assert trusted.read_untrusted(tmp_path, ("out", "ok.json"), 100) == b"[1]"
    assert trusted.read_untrusted(tmp_path, ("out", "ok.json"), 2) is None  # too large
    os.symlink(secret, tmp_path / "out" / "link.json")
    assert trusted.read_untrusted(tmp_path, ("out", "link.json"), 100) is None
    os.mkfifo(tmp_path / "out" / "fifo.json")
    assert trusted.read_untrusted(tmp_path, ("out", "fifo.json"), 100) is None  # never blocks
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "ok.json").write_text("[2]")
    os.symlink(tmp_path / "elsewhere", tmp_path / "answers")  # a folder replaced by a link
    assert trusted.read_untrusted(tmp_path, ("answers", "ok.json"), 100) is None
    assert trusted.read_untrusted(tmp_path, ("missing", "x.json"), 100) is None


def test_a_short_answer_cannot_make_the_grader_allocate():
    for data in ({"__ndarray__": "<U125000000", "shape": [1], "list": ["a"]},
                 {"__ndarray__": "<f8", "shape": [2**40], "list": [1.0]},
                 {"__ndarray__": "<f8", "shape": [2**20] * 3, "b64": ""},
                 {"__ndarray__": "<U10", "shape": [10**6], "list": ["a"]}):
        assert isinstance(_core.decode(data), _core.Opaque), data
    assert np.array_equal(_core.decode(_core.encode(np.array(["ab", "c"]))), np.array(["ab", "c"]))


def _cell():
    from kpcourse.grading.judge.policy import Program
    from kpcourse.grading.judge.spec import Cell

    def judge(answers):
        value = answers[0].get()
        if not _core.same(value, [1.0, 2.0]):
            raise AssertionError("f is not correct")

    cell = Cell("ex1", "f", [_core.Test([_core.Call("f", 1)], judge)])
    return cell, Program(["def f(x):\n    return [1.0, 2.0]"])


def test_verdict_reads_answers_safely(tmp_path):
    cell, program = _cell()
    answers = tmp_path / "answers"
    answers.mkdir()
    good = [[_core.call(lambda x: [1.0, 2.0], cell.tests[0].calls[0]).to_data()]]
    (answers / "t.json").write_text(json.dumps(good))
    assert trusted.verdict(cell, program, ("kpcourse",), answers / "t.json", []) is None
    # an answer that names a huge array is judged (and fails), it is never allocated
    (answers / "t.json").write_text(json.dumps([[{"value": {"__ndarray__": "<U125000000", "shape": [1],
                                                            "list": ["a"]}, "error": None}]]))
    assert "not correct" in trusted.verdict(cell, program, ("kpcourse",), answers / "t.json", [])
    # an answers file past the limit, or a link, earns nothing and says why
    (answers / "t.json").write_text(json.dumps(good) + " " * 2000)
    assert "larger than 1 KiB" in trusted.verdict(cell, program, (), answers / "t.json", [], answer_bytes=1024)
    (answers / "t.json").unlink()
    os.symlink(tmp_path / "elsewhere.json", answers / "t.json")
    (tmp_path / "elsewhere.json").write_text(json.dumps(good))
    assert "no answer" in trusted.verdict(cell, program, (), answers / "t.json", [])
    assert "more than 2 GiB of memory" in trusted.verdict(
        cell, program, (), tmp_path / "none" / "t.json", [],
        stopped="your notebook was stopped while it was graded: it used more than 2 GiB of memory")
