"""Benchmarks of the kernel perceptron engine; writes benchmarks/RESULTS.md and scale.png.

Run: ``make bench`` (= ``python -m benchmarks.bench``). Every ratio is measured side by side
in this one run, on the same data (median of ``--repeat`` runs unless said otherwise):

1. whole fits vs a faithful naive implementation of the lecture (``benchmarks/naive.py``), same α
   (interleaved: before each naive run, the median of our fits over about 0.2 s);
2. training alone on a precomputed Gram matrix vs the per-sample NumPy loop, same α;
3. RBF and polynomial Gram matrices, N = 2,000 … 20,000, d = 784, fp32, CPU, vs scikit-learn
   and NumPy's symmetric product A @ Aᵀ;
4. against scikit-learn SVC: fit time and test accuracy;
5. scale: fit time, kernel columns computed and peak memory for N = 1,000 … 60,000 MNIST digits.
The full-MNIST runs are ``python -m benchmarks.mnist_full`` (``make bench-mnist-full``) and the
hyper-parameter search ``python -m benchmarks.search``.
"""

import argparse
import json
import statistics
import subprocess
import sys
import time

import numpy as np

from benchmarks import naive
from benchmarks.common import banknote_split, git_rev, load, machine, mnist, table, timed, write_section
from kpcourse.perceptron import KernelPerceptron

POLY = {"kernel": "poly", "degree": 4, "gamma": 0.02, "coef0": 1.0}
RBF_BANKNOTE = {"kernel": "rbf", "sigma": 1.0}


def vs_naive(repeat):
    rows = []
    Xb, _, yb, _ = banknote_split()
    Xm, _, ym, _ = mnist(5000, 10)
    cases = [("banknote (1,097 × 4), RBF σ=1, 20 epochs", Xb, yb, RBF_BANKNOTE, naive.rbf(0.5), 20, repeat),
             ("MNIST 5,000 × 784, poly deg 4, 5 epochs", Xm, ym, POLY, naive.poly(4, 0.02, 1.0), 5, 1)]
    for name, X, y, params, kern, epochs, naive_repeat in cases:
        model = KernelPerceptron(max_epochs=epochs, random_state=0, device="cpu", **params)
        model.fit(X, y)  # warm-up
        # side by side: before each naive run, the median of enough of our fits to last 0.2 s
        # (a fit of a few ms timed alone follows the machine's load more than the code)
        batch = max(repeat, int(0.2 / max(timed(lambda: model.fit(X, y), repeat)[0], 1e-6)))  # noqa: B023
        ours, naives = [], []
        for _ in range(naive_repeat):
            ours.append(timed(lambda: model.fit(X, y), batch)[0])  # noqa: B023
            t, alpha = timed(lambda: naive.fit(X, y, kern, epochs, 0), 1)  # noqa: B023
            naives.append(t)
        t_ours, t_naive = statistics.median(ours), statistics.median(naives)
        same = np.array_equal(np.atleast_2d(model.alpha_), alpha)
        assert same, f"{name}: α differs from the naive loop"
        n = len(y)
        ours_text = f"{1000 * t_ours:.1f} ms" if t_ours < 0.1 else f"{t_ours:.3f} s"
        rows.append([name, f"{t_naive:.2f} s" + ("" if naive_repeat > 1 else " (1 run)"), ours_text,
                     f"**{t_naive / t_ours:.0f}×**", f"{model.columns_computed_:,} of {n:,} "
                     f"({100 * model.columns_computed_ / n:.0f} %)", "identical" if same else "DIFFERENT"])
    return table(["data", "naive (Python Gram loop, per-sample sums)", "kpcourse", "speed-up",
                  "kernel columns computed", "α"], rows)


def precomputed(repeat):
    from kpcourse.gram import gram_matrix

    X, _, y, _ = mnist(5000, 10)
    yb = np.where(y >= 5, 1, -1)
    K = gram_matrix(X, kernel="poly", degree=4, gamma=0.02, coef0=1.0, device="cpu")
    rng = np.random.default_rng(0)
    orders = [rng.permutation(len(y)) for _ in range(5)]
    t_loop, (alpha, _) = timed(lambda: naive.train_binary(K, yb.astype(float), orders), 1)
    model = KernelPerceptron(kernel="precomputed", max_epochs=5, random_state=0, device="cpu")
    t_ours, _ = timed(lambda: model.fit(K, yb), repeat, warmup=True)
    same = np.array_equal(model.alpha_, alpha)
    assert same, "precomputed: α differs from the per-sample loop"
    return table(["data", "per-sample NumPy loop (1 run)", "KernelPerceptron(kernel='precomputed').fit",
                  "speed-up (goal ≥ 10)", "mistakes", "α"],
                 [["MNIST 5,000, digits 0–4 vs 5–9, poly deg 4, 5 epochs, float64 Gram (200 MB, C order)",
                   f"{t_loop:.2f} s", f"{t_ours:.3f} s", f"**{t_loop / t_ours:.0f}×**", sum(model.history_),
                   "identical" if same else "DIFFERENT"]])


def gram_bench(repeat, sizes):
    from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel

    from kpcourse.gram import gram_matrix

    Xall = mnist(max(sizes), 10)[0].astype(np.float32)
    rows = []
    for n in sizes:
        X = Xall[:n]
        t_bare, _ = timed(lambda: X @ X.T, repeat, warmup=True)  # noqa: B023
        for name, ours, ref in [
            ("RBF γ=0.02", lambda: gram_matrix(X, kernel="rbf", gamma=0.02, device="cpu"),  # noqa: B023
             lambda: rbf_kernel(X, gamma=0.02)),  # noqa: B023
            ("poly deg 4", lambda: gram_matrix(X, kernel="poly", degree=4, gamma=0.02, coef0=1.0,  # noqa: B023
                                               device="cpu"),
             lambda: polynomial_kernel(X, degree=4, gamma=0.02, coef0=1.0)),  # noqa: B023
        ]:
            t_ours, K = timed(ours, repeat, warmup=True)
            t_ref, R = timed(ref, repeat)
            err = float(np.abs(K - R).max() / np.abs(R).max())
            rows.append([f"{n:,}", name, f"{t_ours:.3f} s", f"{t_ref:.3f} s", f"{t_bare:.3f} s",
                         f"**{t_ours / t_ref:.2f}**", f"**{t_ours / t_bare:.2f}**", f"{err:.1e}"])
            del K, R
    return table(["N", "kernel", "kpcourse gram_matrix", "sklearn", "NumPy X @ Xᵀ", "÷ sklearn (goal ≤ 0.7)",
                  "÷ NumPy (goal ≤ 1.3)", "max |diff| / max |K|"], rows)


def vs_svc(repeat):
    from sklearn.svm import SVC

    rows = []
    Xb, Xbt, yb, ybt = banknote_split()
    Xm, Xmt, ym, ymt = mnist(5000, 10_000)
    cases = [("banknote", Xb, Xbt, yb, ybt, RBF_BANKNOTE, {"kernel": "rbf", "gamma": 0.5}, 20),
             ("MNIST-5k", Xm, Xmt, ym, ymt, POLY, {"kernel": "poly", "degree": 4, "gamma": 0.02, "coef0": 1.0}, 5)]
    for name, X, Xt, y, yt, ours_p, svc_p, epochs in cases:
        svc = SVC(**svc_p, C=10.0)
        t_svc, _ = timed(lambda: svc.fit(X, y), repeat, warmup=True)  # noqa: B023
        acc_svc = 100 * svc.score(Xt, yt)
        for mode in ("last", "averaged"):
            m = KernelPerceptron(max_epochs=epochs, random_state=0, device="cpu", mode=mode, **ours_p)
            t, _ = timed(lambda: m.fit(X, y), repeat, warmup=True)  # noqa: B023
            acc = 100 * m.score(Xt, yt)
            rows.append([name, f"kernel perceptron ({mode}, {epochs} epochs)", f"{t:.3f} s", f"**{t / t_svc:.2f}**",
                         f"{acc:.2f} %", f"{acc - acc_svc:+.2f}"])
        args = ", ".join(f"{k}={v}" for k, v in svc_p.items())
        rows.append([name, f"SVC({args}, C=10)", f"{t_svc:.3f} s", "1", f"{acc_svc:.2f} %", ""])
    return table(["data", "model", "fit time", "÷ SVC fit (goal ≤ 0.5)", "test accuracy", "points vs SVC"], rows)


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
                  "peak_mib": rss("VmHWM") - before, "precision": m.precision_, "mistakes": sum(m.history_),
                  "columns": m.columns_computed_, "support": len(m.support_),
                  "evaluations": m.kernel_evaluations_}))
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
        print(runs[-1], flush=True)
    n = np.array([r["n"] for r in runs], float)
    t = np.array([r["seconds"] for r in runs])
    mem = np.array([max(r["peak_mib"], 1.0) for r in runs])
    big = n >= 5000
    k_t = np.polyfit(np.log(n[big]), np.log(t[big]), 1)[0] if big.sum() >= 2 else float("nan")
    k_m = np.polyfit(np.log(n[big]), np.log(mem[big]), 1)[0] if big.sum() >= 2 else float("nan")
    fig, ax = plt.subplots(1, 2, figsize=(9, 3.6), layout="constrained")
    ax[0].loglog(n, t, "o-", color="#0072B2", label=f"fit time (slope {k_t:.2f})")
    ax[0].set(xlabel="training digits N", ylabel="seconds", title="Training time (5 epochs, poly deg 4)")
    ax[1].loglog(n, mem, "s-", color="#D55E00", label=f"peak memory growth (slope {k_m:.2f})")
    ax[1].set(xlabel="training digits N", ylabel="MiB", title="Peak memory of the fit")
    for a in ax:
        a.legend()
        a.grid(True, which="both", alpha=0.3)
    fig.savefig("benchmarks/scale.png", dpi=100)
    rows = [[f"{int(r['n']):,}", f"{r['seconds']:.2f} s", f"{r['gram']:.2f} s", f"{r['train']:.2f} s", r["mistakes"],
             f"{r['columns']:,} ({100 * r['columns'] / r['n']:.0f} %)",
             f"{r['evaluations'] / (r['n'] * r['support']):.3f}",
             f"{r['peak_mib']:.0f} MiB", r["precision"]] for r in runs]
    return (table(["N", "fit", "of which kernel columns", "rest of training", "mistakes",
                   "kernel columns computed (% of N)", "kernel evaluations ÷ (N × distinct erring samples)",
                   "peak memory of the fit (RSS growth)", "column precision"], rows)
            + f"\n\nFitted exponents (log-log, N ≥ 5,000): time ∝ N^{k_t:.2f}, peak memory ∝ N^{k_m:.2f}."
            + "\n\n![scale](scale.png)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--gram-sizes", default="2000,5000,10000,20000")
    parser.add_argument("--sizes", default="1000,2000,5000,10000,20000,60000")
    parser.add_argument("--only", default="naive,precomputed,gram,svc,scale")
    args = parser.parse_args(argv)
    only = args.only.split(",")
    command = "python -m benchmarks.bench" + "".join(
        f" {flag} {value}" for flag, value in (("--repeat", args.repeat), ("--gram-sizes", args.gram_sizes),
                                               ("--sizes", args.sizes), ("--only", args.only))
        if value != parser.get_default(flag.lstrip("-").replace("-", "_")))
    steps = [("naive", "1. Whole fits vs the naive lecture algorithm", lambda: vs_naive(args.repeat)),
             ("precomputed", "2. Training alone on a precomputed Gram matrix", lambda: precomputed(args.repeat)),
             ("gram", "3. Gram matrices, N = 2,000 to 20,000, d = 784, fp32, CPU",
              lambda: gram_bench(args.repeat, [int(s) for s in args.gram_sizes.split(",")])),
             ("svc", "4. Versus scikit-learn SVC", lambda: vs_svc(args.repeat)),
             ("scale", "5. Scale to 60,000 digits", lambda: scale([int(s) for s in args.sizes.split(",")]))]
    for key, title, run in steps:
        if key in only:
            before = load()
            t0 = time.perf_counter()
            body = run()
            head = (f"Machine: {machine()}. Commit {git_rev()}, {time.strftime('%Y-%m-%d %H:%M')}.\n"
                    f"Command: `{command}` (`make bench`). Machine load before / after this section: "
                    f"{before} / {load()}; section took {time.perf_counter() - t0:.0f} s.")
            print(f"## {title}\n{head}\n{body}\n", flush=True)
            write_section(key, f"## {title}\n\n{head}\n\n{body}")


if __name__ == "__main__":
    main()
