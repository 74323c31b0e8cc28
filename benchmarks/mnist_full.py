"""Full MNIST (60,000 train / 10,000 test) with the one-vs-rest kernel perceptron.

Run: ``python -m benchmarks.mnist_full --device cpu|cuda`` (``make bench-mnist-full``); the
setting chosen on a validation split by ``python -m benchmarks.search`` is the default
(``--kernels best``). For each kernel it reports the test error of the last and of the
averaged perceptron after every epoch, the wall time split into kernel columns / rest of
training / prediction, and the end-to-end time of the chosen predictor (data, deskewing, fit,
one prediction of the test set), then writes them to benchmarks/RESULTS.md (section
"mnist_full-<device>").
"""

import argparse
import time

import numpy as np

from benchmarks.common import git_rev, load, machine, mnist, table, write_section
from kpcourse.perceptron import KernelPerceptron

KERNELS = {
    # chosen on the validation split (benchmarks/search.py, RESULTS.md section 6)
    "best": ({"kernel": "poly", "degree": 4, "gamma": 0.04, "coef0": 1.0}, "averaged", True),
    # the settings of lesson 07 (raw pixels)
    "poly": ({"kernel": "poly", "degree": 4, "gamma": 0.02, "coef0": 1.0}, "averaged", False),
    "rbf": ({"kernel": "rbf", "gamma": 0.03}, "averaged", False),
}


def run(name, data_args, device, epochs, max_memory, verbose):
    params, mode, deskew = KERNELS[name]
    t_start = time.perf_counter()
    Xtr, Xte, ytr, yte = mnist(*data_args, dtype=np.float32, deskew=deskew)
    t_data = time.perf_counter() - t_start
    t0 = time.perf_counter()
    model = KernelPerceptron(max_epochs=epochs, random_state=0, device=device, max_memory=max_memory,
                             verbose=verbose, mode=mode, **params).fit(Xtr, ytr)
    fit = time.perf_counter() - t0
    t1 = time.perf_counter()
    final = float(np.mean(model.predict(Xte) != yte))
    predict = time.perf_counter() - t1
    errors = {m: [float(np.mean(model.classes_[np.argmax(s, axis=1)] != yte))
                  for s in model.staged_decision_function(Xte, mode=m)] for m in ("last", "averaged")}
    return {"name": name, "params": params, "mode": mode, "deskew": deskew, "errors": errors, "final": final,
            "data": t_data, "fit": fit, "predict": predict, "gram": model.timings_["gram"],
            "train": model.timings_["train"], "history": model.history_, "support": len(model.support_),
            "precision": model.precision_, "columns": model.columns_computed_, "n": len(ytr),
            "evaluations": model.kernel_evaluations_}


def report(results, args, device_name, before):
    rows = []
    for r in results:
        rows.append([r["name"], ", ".join(f"{k}={v}" for k, v in r["params"].items() if k != "kernel")
                     + (", deskewed" if r["deskew"] else ", raw pixels"),
                     " / ".join(f"{100 * e:.2f}" for e in r["errors"]["last"]),
                     " / ".join(f"{100 * e:.2f}" for e in r["errors"]["averaged"]),
                     f"**{100 * r['final']:.2f} %** ({r['mode']})", f"{r['gram']:.0f} s", f"{r['train']:.0f} s",
                     f"{r['predict']:.0f} s", f"**{r['data'] + r['fit'] + r['predict']:.0f} s**",
                     f"{r['support']:,}", f"{r['columns']:,} of {r['n']:,}", r["precision"]])
    head = (f"Machine: {machine()} (device {device_name}). Commit {git_rev()}, {time.strftime('%Y-%m-%d %H:%M')}.\n"
            f"Command: `python -m benchmarks.mnist_full --device {args.device} --epochs {args.epochs}"
            f" --kernels {args.kernels} --n-train {args.n_train}`. Machine load before / after: "
            f"{before} / {load()}.")
    body = table(["setting", "parameters", "test error % per epoch (last)", "test error % per epoch (averaged)",
                  "test error of the model", "kernel columns", "rest of training", "prediction (10,000)",
                  "end to end (data, deskew, fit, prediction)", "support vectors", "kernel columns computed",
                  "column precision"], rows)
    notes = "\n".join(f"- {r['name']}: mistakes per epoch {r['history']}; kernel evaluations "
                      f"{r['evaluations'] / (r['n'] * r['support']):.3f} × N × (distinct erring samples)"
                      for r in results)
    return (f"## 7. Full MNIST ({args.n_train:,} / {args.n_test:,}), {device_name}\n\n{head}\n\n{body}\n\n{notes}")


def main(argv=None):
    import torch

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--kernels", default="best", help="comma-separated: " + ", ".join(KERNELS))
    parser.add_argument("--n-train", type=int, default=60_000)
    parser.add_argument("--n-test", type=int, default=10_000)
    parser.add_argument("--max-memory", type=float, default=None,
                        help="GiB for the kernel columns (default: the package's, 40%% of RAM / 50%% of GPU)")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--no-write", action="store_true", help="print only, leave RESULTS.md alone")
    args = parser.parse_args(argv)
    device = args.device if args.device != "auto" else ("cuda" if torch.cuda.is_available() else "cpu")
    max_memory = None if args.max_memory is None else int(args.max_memory * 2**30)
    before = load()
    results = []
    for name in args.kernels.split(","):
        r = run(name, (args.n_train, args.n_test), device, args.epochs, max_memory, not args.quiet)
        print(f"{name}: final {r['final']:.4f} last {r['errors']['last']} averaged {r['errors']['averaged']} "
              f"columns {r['gram']:.1f}s train {r['train']:.1f}s predict {r['predict']:.1f}s", flush=True)
        results.append(r)
    text = report(results, args, torch.cuda.get_device_name(0) if device == "cuda" else "CPU", before)
    print(text)
    if not args.no_write:
        write_section(f"mnist_full-{device}", text)


if __name__ == "__main__":
    main()
