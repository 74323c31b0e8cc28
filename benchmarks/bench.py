"""Benchmarks of the kernel perceptron engine; writes benchmarks/RESULTS.md and scale.png.

Run: ``make bench`` (= ``python -m benchmarks.bench``). Every figure is measured side by
side in this run on the same data (median of ``--repeat`` runs unless said otherwise).

1. training vs a faithful naive implementation (``benchmarks/naive.py``), same α;
2. RBF and polynomial Gram, N = 10,000, d = 784, fp32, CPU, vs scikit-learn and X @ Xᵀ;
3. against scikit-learn SVC: fit time and test accuracy;
4. scale: training time and peak memory for N = 1k … 20k MNIST digits.
The full-MNIST run is ``python -m benchmarks.mnist_full`` (``make bench-mnist-full``).
"""

import argparse
import json
import subprocess
import sys
import time

import numpy as np

from benchmarks import naive
from benchmarks.common import banknote_split, git_rev, machine, mnist, table, timed, write_section
from kpcourse.perceptron import KernelPerceptron

POLY = {"kernel": "poly", "degree": 4, "gamma": 0.02, "coef0": 1.0}
RBF_BANKNOTE = {"kernel": "rbf", "sigma": 1.0}


def vs_naive(repeat):
    rows = []
    cases = [("banknote (1,097 × 4), RBF σ=1", banknote_split()[0], banknote_split()[2], RBF_BANKNOTE,
              naive.rbf(0.5), 20, repeat),
             ("MNIST 5,000 × 784, poly deg 4", *mnist(5000, 10)[::2], POLY, naive.poly(4, 0.02, 1.0), 5, 1)]
    for name, X, y, params, kern, epochs, naive_repeat in cases:
        model = KernelPerceptron(max_epochs=epochs, random_state=0, device="cpu", **params)
        t_ours, _ = timed(lambda: model.fit(X, y), repeat)  # noqa: B023
        t_naive, alpha = timed(lambda: naive.fit(X, y, kern, epochs, 0), naive_repeat)  # noqa: B023
        same = np.array_equal(np.atleast_2d(model.alpha_), alpha)
        assert same, f"{name}: α differs from the naive loop"
        rows.append([name, f"{t_naive:.2f} s" + ("" if naive_repeat > 1 else " (1 run)"), f"{t_ours:.3f} s",
                     f"**{t_naive / t_ours:.0f}×**", "identical" if same else "DIFFERENT"])
    return table(["data", "naive (Python Gram loop, per-sample sums)", "kpcourse", "speed-up", "α"], rows)


def gram_bench(repeat, n=10_000):
    import torch
    from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel

    from kpcourse.gram import gram_matrix

    X = mnist(n, 10)[0].astype(np.float32)
    Xt = torch.from_numpy(X)
    t_bare, _ = timed(lambda: Xt @ Xt.T, repeat)
    rows = []
    for name, ours, ref in [
        ("RBF γ=0.02", lambda: gram_matrix(X, kernel="rbf", gamma=0.02, device="cpu"),
         lambda: rbf_kernel(X, gamma=0.02)),
        ("poly deg 4", lambda: gram_matrix(X, kernel="poly", degree=4, gamma=0.02, coef0=1.0, device="cpu"),
         lambda: polynomial_kernel(X, degree=4, gamma=0.02, coef0=1.0)),
    ]:
        t_ours, K = timed(ours, repeat)
        t_ref, R = timed(ref, repeat)
        err = float(np.abs(K - R).max())
        rows.append([name, f"{t_ours:.2f} s", f"{t_ref:.2f} s", f"{t_bare:.2f} s", f"{t_ours / t_ref:.2f}",
                     f"{t_ours / t_bare:.2f}", f"{err:.1e}"])
        del K, R
    return table(["kernel", "kpcourse gram_matrix", "sklearn", "bare X @ Xᵀ", "÷ sklearn (goal ≤ 0.7)",
                  "÷ bare (goal ≤ 1.3)", "max |diff|"], rows)


def vs_svc(repeat):
    from sklearn.svm import SVC

    rows = []
    Xb, Xbt, yb, ybt = banknote_split()
    Xm, Xmt, ym, ymt = mnist(5000, 10_000)
    cases = [("banknote", Xb, Xbt, yb, ybt, RBF_BANKNOTE, {"kernel": "rbf", "gamma": 0.5}, 20),
             ("MNIST-5k", Xm, Xmt, ym, ymt, POLY, {"kernel": "poly", "degree": 4, "gamma": 0.02, "coef0": 1.0}, 5)]
    for name, X, Xt, y, yt, ours_p, svc_p, epochs in cases:
        for mode in ("last", "averaged"):
            m = KernelPerceptron(max_epochs=epochs, random_state=0, device="cpu", mode=mode, **ours_p)
            t, _ = timed(lambda: m.fit(X, y), repeat)  # noqa: B023
            rows.append([name, f"kernel perceptron ({mode}, {epochs} epochs)", f"{t:.2f} s",
                         f"{100 * m.score(Xt, yt):.2f} %"])
        svc = SVC(**svc_p, C=10.0)
        t, _ = timed(lambda: svc.fit(X, y), repeat)  # noqa: B023
        args = ", ".join(f"{k}={v}" for k, v in svc_p.items())
        rows.append([name, f"SVC({args}, C=10)", f"{t:.2f} s", f"{100 * svc.score(Xt, yt):.2f} %"])
    return table(["data", "model", "fit time", "test accuracy"], rows)


SCALE_CHILD = """
import json, sys, time
import torch  # imported before timing: the figures are the fit alone
from benchmarks.common import mnist
from kpcourse.perceptron import KernelPerceptron

def rss(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) / 1024
n = int(sys.argv[1])
X, _, y, _ = mnist(n, 10)
KernelPerceptron(kernel="poly", max_epochs=1, device="cpu").fit(X[:50], y[:50])  # warm up
before = rss("VmRSS")
open("/proc/self/clear_refs", "w").write("5")  # reset the peak (VmHWM) to the current RSS
t0 = time.perf_counter()
m = KernelPerceptron(kernel="poly", degree=4, gamma=0.02, coef0=1.0, max_epochs=5, random_state=0,
                     device="cpu").fit(X, y)
t = time.perf_counter() - t0
print(json.dumps({"n": n, "seconds": t, "gram": m.timings_["gram"], "train": m.timings_["train"],
                  "peak_mib": rss("VmHWM") - before, "precision": m.precision_, "mistakes": sum(m.history_)}))
"""


def scale(sizes):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = []
    for n in sizes:
        out = subprocess.run([sys.executable, "-c", SCALE_CHILD, str(n)], capture_output=True, text=True,
                             check=True)
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    n = np.array([r["n"] for r in runs], float)
    t = np.array([r["seconds"] for r in runs])
    mem = np.array([max(r["peak_mib"], 1.0) for r in runs])
    k_t = np.polyfit(np.log(n), np.log(t), 1)[0]
    k_m = np.polyfit(np.log(n[n >= 5000]), np.log(mem[n >= 5000]), 1)[0] if (n >= 5000).sum() >= 2 else float("nan")
    fig, ax = plt.subplots(1, 2, figsize=(9, 3.6), layout="constrained")
    ax[0].loglog(n, t, "o-", color="#0072B2", label=f"fit time (slope {k_t:.2f})")
    ax[0].set(xlabel="training digits N", ylabel="seconds", title="Training time (5 epochs, poly deg 4)")
    ax[1].loglog(n, mem, "s-", color="#D55E00", label=f"peak memory growth (slope {k_m:.2f})")
    ax[1].set(xlabel="training digits N", ylabel="MiB", title="Peak memory of the fit")
    for a in ax:
        a.legend()
        a.grid(True, which="both", alpha=0.3)
    fig.savefig("benchmarks/scale.png", dpi=100)
    rows = [[int(r["n"]), f"{r['seconds']:.2f} s", f"{r['gram']:.2f} s", f"{r['train']:.2f} s", r["mistakes"],
             f"{r['peak_mib']:.0f} MiB", r["precision"]] for r in runs]
    return (table(["N", "fit", "of which Gram", "training", "mistakes", "peak memory of the fit (RSS growth)",
                   "Gram precision"], rows)
            + f"\n\nFitted exponents (log-log): time ∝ N^{k_t:.2f}, peak memory ∝ N^{k_m:.2f} (N ≥ 5,000)."
            + "\n\n![scale](scale.png)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", default="1000,2000,5000,10000,20000")
    parser.add_argument("--only", default="naive,gram,svc,scale")
    args = parser.parse_args(argv)
    only = args.only.split(",")
    head = (f"Machine: {machine()}. Commit {git_rev()}, {time.strftime('%Y-%m-%d')}.\n"
            f"Command: `python -m benchmarks.bench --repeat {args.repeat}` (`make bench`).")
    write_section("header", head)
    steps = [("naive", "1. Training vs the naive lecture algorithm", lambda: vs_naive(args.repeat)),
             ("gram", "2. Gram matrix, N = 10,000, d = 784, fp32, CPU", lambda: gram_bench(args.repeat)),
             ("svc", "3. Against scikit-learn SVC", lambda: vs_svc(args.repeat)),
             ("scale", "4. Scale", lambda: scale([int(s) for s in args.sizes.split(",")]))]
    for key, title, run in steps:
        if key in only:
            t0 = time.perf_counter()
            body = run()
            print(f"## {title}\n{body}\n({time.perf_counter() - t0:.0f} s)\n", flush=True)
            write_section(key, f"## {title}\n\n{head}\n\n{body}")


if __name__ == "__main__":
    main()
