"""benchmarks.bench_gpu on the CPU: device selection, the no-GPU exit, a dry run of every part."""

import json

import pytest

from benchmarks import bench_gpu, common


def test_device_selection(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)  # the one CUDA call mocked
    assert bench_gpu.select_device("auto") is None
    assert bench_gpu.select_device("cpu") == "cpu"
    with pytest.raises(SystemExit, match="no CUDA device"):
        bench_gpu.select_device("cuda")
    with pytest.raises(ValueError, match="device must be"):
        bench_gpu.select_device("tpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert bench_gpu.select_device("auto") == "cuda" and bench_gpu.select_device("cuda") == "cuda"


def test_no_gpu_exits_2_and_writes_nothing(monkeypatch, tmp_path, capsys):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(common, "RESULTS", tmp_path / "RESULTS.md")
    assert bench_gpu.main([]) == 2
    assert "no CUDA device" in capsys.readouterr().err
    assert not (tmp_path / "RESULTS.md").exists()


def test_gram_part_on_the_cpu():
    peak, rows = bench_gpu.gram_vs_sgemm("cpu", (200,), d=50, peak=None)
    assert peak > 0 and len(rows) == 2
    for r in rows:
        assert r["gram"] > 0 and r["sgemm"] > 0 and r["ratio"] == pytest.approx(r["gram"] / r["sgemm"])
    text = bench_gpu.gram_section("cpu", peak, rows, 1.0)
    assert "÷ SGEMM" in text and "| 200 |" in text


def test_notebook_runs_in_a_temporary_copy(tmp_path):
    nb = {"cells": [{"cell_type": "code", "id": "one", "metadata": {}, "outputs": [], "execution_count": None,
                     "source": "x = 1 + 1"},
                    {"cell_type": "code", "id": "two", "metadata": {}, "outputs": [], "execution_count": None,
                     "source": "raise RuntimeError('boom')"}],
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "t.ipynb"
    path.write_text(json.dumps(nb))
    before = path.read_text()
    r = bench_gpu.run_notebook(path, timeout=60)
    assert path.read_text() == before  # never written in place
    assert r["cells"] == 2 and "boom" in r["error"] and r["seconds"] > 0
    assert "failed" in bench_gpu.notebook_section("cpu", r)


def test_unknown_part_named(monkeypatch):
    with pytest.raises(SystemExit):
        bench_gpu.main(["--device", "cpu", "--parts", "gram,bogus"])
