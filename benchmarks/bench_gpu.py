"""The GPU run, ready to go: Gram vs cuBLAS SGEMM, full MNIST, lesson 07 executed on the GPU.

Run: ``python -m benchmarks.bench_gpu`` (``make bench-gpu``) on a CUDA machine; about 3 to 5
minutes on one recent GPU. Three parts, each timed, each written to benchmarks/RESULTS.md:

1. ``gram_matrix`` (RBF and poly, fp32) against cuBLAS SGEMM ``A @ Aᵀ`` on the same shapes
   (N = 10,000 to 40,000 digits, d = 784), and both as a fraction of the peak measured on
   this GPU (a large square SGEMM) — section "gpu-gram";
2. full MNIST with the setting chosen on the validation split (``benchmarks.mnist_full
   --kernels best``): test error and end-to-end time — section "mnist_full-cuda";
3. ``notebooks/07-mnist-gpu.ipynb`` executed on the GPU in a temporary copy (the notebook
   itself is never written): wall time, cells run, the first error if any — section
   "gpu-notebook".

Without CUDA it says so and exits with status 2, writing nothing (``--device cpu`` runs every
part on the CPU with small shapes and ``--no-write``-style printing only: a dry run of the
logic, what the tests use).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import git_rev, load, machine, table, write_section

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "07-mnist-gpu.ipynb"
GPU_SIZES = (10_000, 20_000, 40_000)
CPU_SIZES = (500, 1_000)
PEAK_SIDE = {"cuda": 8192, "cpu": 512}


def select_device(requested="auto"):
    """"cuda" when asked for or available, "cpu" only when asked for, else ``None`` (no GPU).

    ``"auto"`` means the GPU run: without CUDA it returns ``None`` (the caller exits);
    ``"cuda"`` without CUDA raises ``SystemExit`` with what is missing.
    """
    import torch

    if requested not in ("auto", "cpu", "cuda"):
        raise ValueError(f"device must be 'auto', 'cpu' or 'cuda', got {requested!r}.")
    if requested == "cpu":
        return "cpu"
    if torch.cuda.is_available():
        return "cuda"
    if requested == "cuda":
        raise SystemExit("bench-gpu: --device cuda, but torch sees no CUDA device "
                         f"(torch {torch.__version__}, CUDA build {torch.version.cuda}).")
    return None


def _sync(device):
    import torch

    if device == "cuda":
        torch.cuda.synchronize()


def _time(fn, device, repeat=3):
    """Best of ``repeat`` timed calls after one warm-up (seconds)."""
    fn()
    _sync(device)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        _sync(device)
        best = min(best, time.perf_counter() - t0)
    return best


def measured_peak(device, side=None):
    """fp32 multiply-add rate of a square SGEMM (FLOP/s): the peak this device reaches."""
    import torch

    side = side or PEAK_SIDE[device]
    A = torch.randn(side, side, device=device)
    B = torch.randn(side, side, device=device)
    t = _time(lambda: A @ B, device)
    return 2 * side**3 / t


def gram_vs_sgemm(device, sizes, d=784, peak=None, seed=0):
    """Rows of (N, kernel, gram s, SGEMM s, ratio, gram fraction of peak, SGEMM fraction of peak)."""
    import torch

    from kpcourse.gram import gram_matrix

    torch.backends.cuda.matmul.allow_tf32 = False  # the SGEMM the course compares with: plain fp32
    peak = peak or measured_peak(device)
    gen = torch.Generator().manual_seed(seed)
    rows = []
    for N in sizes:
        A = torch.rand(N, d, generator=gen).to(device)
        flops = 2 * N * N * d
        t_mm = _time(lambda A=A: A @ A.T, device)
        for name, kw in (("RBF γ=0.02", {"kernel": "rbf", "gamma": 0.02}),
                         ("poly deg 4", {"kernel": "poly", "degree": 4, "gamma": 0.02, "coef0": 1.0})):
            t_g = _time(lambda A=A, kw=kw: gram_matrix(A, device=device, dtype="float32", **kw), device)
            rows.append({"N": N, "kernel": name, "gram": t_g, "sgemm": t_mm, "ratio": t_g / t_mm,
                         "gram_peak": flops / t_g / peak, "sgemm_peak": flops / t_mm / peak})
        del A
    return peak, rows


def gram_section(device, peak, rows, seconds):
    body = table(["N", "kernel", "gram_matrix", "SGEMM A @ Aᵀ", "÷ SGEMM", "gram, fraction of peak",
                  "SGEMM, fraction of peak"],
                 [[f"{r['N']:,}", r["kernel"], f"{r['gram'] * 1e3:.1f} ms", f"{r['sgemm'] * 1e3:.1f} ms",
                   f"**{r['ratio']:.2f}**", f"{100 * r['gram_peak']:.0f} %", f"{100 * r['sgemm_peak']:.0f} %"]
                  for r in rows])
    return (f"## 8. Gram matrices on the GPU vs cuBLAS SGEMM\n\n{_head(device)} Part took {seconds:.0f} s.\n"
            f"Measured peak (square SGEMM, fp32, TF32 off): {peak / 1e12:.1f} TFLOP/s; d = 784, "
            f"fp32 inputs and outputs, best of 3 after a warm-up.\n\n{body}")


def run_mnist(device, n_train, n_test, epochs):
    """Full MNIST with the chosen setting (``benchmarks.mnist_full``'s "best"): its result dict."""
    from benchmarks import mnist_full

    return mnist_full.run("best", (n_train, n_test), device, epochs, None, False)


def run_notebook(path, timeout=600, kernel_name="python3"):
    """Execute a temporary copy of the notebook at ``path``; the original is left untouched.

    Returns a dict: seconds, code cells run, the first error (``None`` if every cell ran).
    """
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    path = Path(path)
    with tempfile.TemporaryDirectory(prefix="kpcourse-bench-gpu-") as tmp:
        copy = Path(tmp) / path.name
        shutil.copyfile(path, copy)
        nb = nbformat.read(copy, as_version=4)
        client = NotebookClient(nb, timeout=timeout, kernel_name=kernel_name,
                                resources={"metadata": {"path": str(path.parent)}})
        t0 = time.perf_counter()
        error = None
        try:
            client.execute()
        except CellExecutionError as exc:
            error = str(exc).strip().splitlines()[-1] if str(exc).strip() else repr(exc)
        seconds = time.perf_counter() - t0
        nbformat.write(nb, copy)  # the executed copy, in the temporary folder only
    cells = sum(1 for c in nb.cells if c.cell_type == "code" and c.get("execution_count"))
    return {"seconds": seconds, "cells": cells, "error": error}


def notebook_section(device, result):
    status = "every code cell ran" if result["error"] is None else f"**failed**: {result['error']}"
    body = table(["notebook", "device", "wall time", "code cells run", "result"],
                 [[f"`{NOTEBOOK.relative_to(NOTEBOOK.parent.parent)}` (a temporary copy)", device,
                   f"**{result['seconds']:.0f} s**", result["cells"], status]])
    return f"## 10. Lesson 07 executed on the GPU\n\n{_head(device)}\n\n{body}"


def _head(device):
    return (f"Machine: {machine()} (device {_device_name(device)}). Commit {git_rev()}, "
            f"{time.strftime('%Y-%m-%d %H:%M')}.\nCommand: `python -m benchmarks.bench_gpu` (`make bench-gpu`). "
            f"Machine load: {load()}.")


def _device_name(device):
    import torch

    return torch.cuda.get_device_name(0) if device == "cuda" else "CPU"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"],
                        help="auto/cuda: the GPU run; cpu: a dry run with small shapes, printed only")
    parser.add_argument("--parts", default="gram,mnist,notebook", help="comma-separated: gram, mnist, notebook")
    parser.add_argument("--epochs", type=int, default=None, help="default: the chosen setting's own")
    args = parser.parse_args(argv)
    device = select_device(args.device)
    if device is None:
        print("bench-gpu: no CUDA device here; nothing measured, RESULTS.md left as it is. "
              "Run it on a CUDA machine (or --device cpu for a dry run of the logic).", file=sys.stderr)
        return 2
    dry = device == "cpu"
    parts = args.parts.split(",")
    unknown = set(parts) - {"gram", "mnist", "notebook"}
    if unknown:
        parser.error(f"unknown parts {sorted(unknown)}; choose among gram, mnist, notebook")
    start = time.perf_counter()
    out = {}
    if "gram" in parts:
        t0 = time.perf_counter()
        peak, rows = gram_vs_sgemm(device, CPU_SIZES if dry else GPU_SIZES)
        out["gram"] = gram_section(device, peak, rows, time.perf_counter() - t0)
    if "mnist" in parts:
        from benchmarks import mnist_full

        n_train, n_test = (2_000, 500) if dry else (60_000, 10_000)
        before = load()
        r = run_mnist(device, n_train, n_test, 2 if dry else args.epochs)
        ns = argparse.Namespace(device=device, epochs=2 if dry else args.epochs, kernels="best",
                                n_train=n_train, n_test=n_test)
        out["mnist_full-cuda"] = mnist_full.report([r], ns, _device_name(device), before)
    if "notebook" in parts:
        out["notebook"] = notebook_section(device, run_notebook(NOTEBOOK))
    total = time.perf_counter() - start
    for name, text in out.items():
        print(text, "\n", flush=True)
        if not dry:
            write_section({"gram": "gpu-gram", "notebook": "gpu-notebook"}.get(name, name), text)
    print(f"bench-gpu: {total:.0f} s in all" + (" (dry run on the CPU: nothing written)" if dry else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
