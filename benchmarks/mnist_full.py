"""Full MNIST (60,000 train / 10,000 test) with the one-vs-rest kernel perceptron.

Run: ``python -m benchmarks.mnist_full --device cpu|cuda`` (``make bench-mnist-full``).
For each kernel it reports the test error of the last and of the averaged perceptron
after every epoch, and the wall time split into Gram / training / prediction, then
writes them to benchmarks/RESULTS.md (section "mnist_full-<device>").
"""

import argparse
import time

import numpy as np

from benchmarks.common import git_rev, machine, mnist, table, write_section
from kpcourse.perceptron import KernelPerceptron

KERNELS = {
    "poly": {"kernel": "poly", "degree": 4, "gamma": 0.02, "coef0": 1.0},
    "rbf": {"kernel": "rbf", "gamma": 0.03},
}


def run(name, params, data, device, epochs, max_memory, verbose):
    Xtr, Xte, ytr, yte = data
    t0 = time.perf_counter()
    model = KernelPerceptron(max_epochs=epochs, random_state=0, device=device, max_memory=max_memory,
                             verbose=verbose, **params).fit(Xtr, ytr)
    fit = time.perf_counter() - t0
    t1 = time.perf_counter()
    errors = {}
    for mode in ("last", "averaged"):
        errors[mode] = [float(np.mean(model.classes_[np.argmax(s, axis=1)] != yte))
                        for s in model.staged_decision_function(Xte, mode=mode)]
    predict = time.perf_counter() - t1
    return {"name": name, "params": params, "errors": errors, "fit": fit, "predict": predict,
            "gram": model.timings_["gram"], "train": model.timings_["train"], "history": model.history_,
            "support": len(model.support_), "precision": model.precision_,
            "columns": model.columns_computed_, "n": len(ytr)}


def report(results, args, device_name):
    rows = []
    for r in results:
        best_avg = min(r["errors"]["averaged"])
        rows.append([r["name"], ", ".join(f"{k}={v}" for k, v in r["params"].items() if k != "kernel"),
                     " / ".join(f"{100 * e:.2f}" for e in r["errors"]["last"]),
                     " / ".join(f"{100 * e:.2f}" for e in r["errors"]["averaged"]),
                     f"{100 * best_avg:.2f} %", f"{r['gram']:.0f} s", f"{r['train']:.0f} s", f"{r['predict']:.0f} s",
                     f"{r['fit'] + r['predict']:.0f} s", r["support"], r["precision"]])
    head = (f"Machine: {machine()} (device {device_name}). Commit {git_rev()}, {time.strftime('%Y-%m-%d')}.\n"
            f"Command: `python -m benchmarks.mnist_full --device {args.device} --epochs {args.epochs}"
            f" --n-train {args.n_train}`.")
    body = table(["kernel", "parameters", "test error % per epoch (last)", "test error % per epoch (averaged)",
                  "best averaged", "Gram", "training", "prediction (all epochs, both modes)", "total",
                  "support vectors", "Gram storage"], rows)
    mistakes = "\n".join(f"- {r['name']}: mistakes per epoch {r['history']}, kernel columns computed "
                         f"{r['columns']:,} of {r['n']:,}" for r in results)
    return f"## 5. Full MNIST ({args.n_train:,} / {args.n_test:,}), {device_name}\n\n{head}\n\n{body}\n\n{mistakes}"


def main(argv=None):
    import torch

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--kernels", default="poly,rbf")
    parser.add_argument("--n-train", type=int, default=60_000)
    parser.add_argument("--n-test", type=int, default=10_000)
    parser.add_argument("--max-memory", type=float, default=8.0, help="GiB for the training Gram matrix")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--no-write", action="store_true", help="print only, leave RESULTS.md alone")
    args = parser.parse_args(argv)
    device = args.device if args.device != "auto" else ("cuda" if torch.cuda.is_available() else "cpu")
    data = mnist(args.n_train, args.n_test, dtype=np.float32)
    results = []
    for name in args.kernels.split(","):
        r = run(name, KERNELS[name], data, device, args.epochs, int(args.max_memory * 2**30), not args.quiet)
        print(f"{name}: last {r['errors']['last']} averaged {r['errors']['averaged']} gram {r['gram']:.1f}s "
              f"train {r['train']:.1f}s predict {r['predict']:.1f}s", flush=True)
        results.append(r)
    text = report(results, args, torch.cuda.get_device_name(0) if device == "cuda" else "CPU")
    print(text)
    if not args.no_write:
        write_section(f"mnist_full-{device}", text)


if __name__ == "__main__":
    main()
