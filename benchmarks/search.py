"""Hyper-parameter search for full MNIST on a validation split of the training set (never the test set).

Run: ``python -m benchmarks.search`` (``--n-train 50000`` for the full-size split). Each setting
is trained on the first ``--n-train`` training digits and scored on the *last* ``--n-val``
training digits (disjoint from them); the test set is not read. One fit per setting gives the
validation error after every epoch, for the last and the averaged predictor
(``staged_decision_function``), so the number of epochs and the predictor are chosen too.
Writes the table to benchmarks/RESULTS.md (section "search").

``--grid augment`` searches the virtual examples instead (``KernelPerceptron(augment=...)``:
shifted / rotated copies of the digits the first training erred on) with the kernel chosen
above, and writes section "search-augment"; its best row is ``mnist_full``'s "best".
"""

import argparse
import time

import numpy as np

from benchmarks.common import git_rev, load, machine, mnist, table, write_section
from kpcourse.perceptron import KernelPerceptron, VirtualExamples

GRID = [  # (deskew, kernel parameters)
    (False, {"kernel": "poly", "degree": 4, "gamma": 0.02, "coef0": 1.0}),  # lesson 07's setting
    (True, {"kernel": "poly", "degree": 4, "gamma": 0.02, "coef0": 1.0}),
    (True, {"kernel": "poly", "degree": 4, "gamma": 0.04, "coef0": 1.0}),
    (True, {"kernel": "poly", "degree": 4, "gamma": 0.06, "coef0": 1.0}),
    (True, {"kernel": "poly", "degree": 4, "gamma": 0.1, "coef0": 1.0}),
    (True, {"kernel": "poly", "degree": 3, "gamma": 0.04, "coef0": 1.0}),
    (True, {"kernel": "poly", "degree": 5, "gamma": 0.02, "coef0": 1.0}),
    (True, {"kernel": "poly", "degree": 5, "gamma": 0.04, "coef0": 1.0}),
    (True, {"kernel": "rbf", "gamma": 0.02}),
    (True, {"kernel": "rbf", "gamma": 0.03}),
]


BEST = {"kernel": "poly", "degree": 4, "gamma": 0.04, "coef0": 1.0}  # chosen by GRID (RESULTS.md section 6)
AUGMENT = [  # (deskew, kernel parameters, VirtualExamples arguments): the virtual examples searched
    (True, BEST, None),
    (True, BEST, {"shifts": (1,), "first_epochs": 4}),
    (True, BEST, {"shifts": (1,), "diagonal": True, "first_epochs": 4}),
    (True, BEST, {"shifts": (1, 2), "diagonal": True, "copies": 8, "first_epochs": 4}),
    (True, BEST, {"shifts": (1,), "diagonal": True, "rotations": (10,), "first_epochs": 4}),
    # four copies per erring digit, as many as the four shifts: the same memory at full size
    (True, BEST, {"shifts": (1,), "diagonal": True, "copies": 4, "first_epochs": 4}),
    (True, BEST, {"shifts": (1,), "diagonal": True, "rotations": (10,), "copies": 4, "first_epochs": 4}),
]
GRIDS = {"kernel": [(d, p, None) for d, p in GRID], "augment": AUGMENT}


def describe(augment):
    """A short text for a VirtualExamples argument dict (``None``: no virtual examples)."""
    if augment is None:
        return "none"
    return ", ".join(f"{k}={v}" for k, v in augment.items())


def evaluate(deskew, params, data, epochs, augment=None):
    Xtr, Xval, ytr, yval = data[deskew]
    t0 = time.perf_counter()
    extra = {} if augment is None else {"augment": VirtualExamples(**augment)}
    model = KernelPerceptron(max_epochs=epochs, random_state=0, device="cpu", **params, **extra).fit(Xtr, ytr)
    fit = time.perf_counter() - t0
    curves = {m: [float(np.mean(model.classes_[np.argmax(s, axis=1)] != yval))
                  for s in model.staged_decision_function(Xval, mode=m)] for m in ("last", "averaged")}
    best = min((e, m, k + 1) for m, c in curves.items() for k, e in enumerate(c))
    return {"deskew": deskew, "params": params, "augment": augment, "curves": curves, "best": best, "fit": fit,
            "columns": model.columns_computed_, "history": model.history_, "support": len(model.support_),
            "virtual": model.n_virtual_}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n-train", type=int, default=20_000)
    parser.add_argument("--n-val", type=int, default=10_000)
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--only", default=None, help="comma-separated indices into the grid")
    parser.add_argument("--grid", default="kernel", choices=list(GRIDS),
                        help="kernel: kernels and deskewing (section 6); augment: virtual examples (section 6b)")
    args = parser.parse_args(argv)
    before = load()
    full = GRIDS[args.grid]
    grid = full if args.only is None else [full[int(i)] for i in args.only.split(",")]
    data = {d: mnist(args.n_train, args.n_val, deskew=d, split="validation") for d in {g[0] for g in grid}}
    results = []
    for deskew, params, augment in grid:
        r = evaluate(deskew, params, data, args.epochs, augment)
        print(r["best"], deskew, params, describe(augment), f"{r['fit']:.0f} s", flush=True)
        results.append(r)
    if args.grid == "augment":
        return write_augment(results, args, before)
    rows = []
    for r in sorted(results, key=lambda r: r["best"]):
        e, mode, epoch = r["best"]
        rows.append([", ".join(f"{k}={v}" for k, v in r["params"].items()), "yes" if r["deskew"] else "no",
                     f"**{100 * e:.2f} %** ({mode}, epoch {epoch})",
                     f"{100 * r['curves']['last'][-1]:.2f} / {100 * r['curves']['averaged'][-1]:.2f}",
                     len(r["history"]), f"{r['columns']:,}", f"{r['fit']:.0f} s"])
    head = (f"Machine: {machine()}. Commit {git_rev()}, {time.strftime('%Y-%m-%d %H:%M')}.\n"
            f"Command: `python -m benchmarks.search --n-train {args.n_train} --n-val {args.n_val} "
            f"--epochs {args.epochs}`. Machine load before / after: {before} / {load()}.\n"
            f"Trained on the first {args.n_train:,} training digits, scored on the last {args.n_val:,} training "
            "digits (the test set is not read); random_state=0.")
    body = table(["kernel", "deskewed", "best validation error (predictor, epoch)",
                  "error after the last epoch (last / averaged)", "epochs run", "kernel columns", "fit"], rows)
    text = f"## 6. Hyper-parameter search on a validation split\n\n{head}\n\n{body}"
    print(text)
    write_section("search", text)


def write_augment(results, args, before):
    """Section 6b: one row per virtual-example setting, best validation error first."""
    rows = []
    for r in sorted(results, key=lambda r: r["best"]):
        e, mode, epoch = r["best"]
        rows.append([describe(r["augment"]), f"**{100 * e:.2f} %** ({mode}, epoch {epoch})",
                     f"{100 * r['curves']['last'][-1]:.2f} / {100 * r['curves']['averaged'][-1]:.2f}",
                     f"{r['virtual']:,}", f"{r['support']:,}", f"{r['columns']:,}", f"{r['fit']:.0f} s"])
    only = f" --only {args.only}" if args.only else ""
    head = (f"Machine: {machine()}. Commit {git_rev()}, {time.strftime('%Y-%m-%d %H:%M')}.\n"
            f"Command: `python -m benchmarks.search --grid augment --n-train {args.n_train} --n-val {args.n_val} "
            f"--epochs {args.epochs}{only}`. Machine load before / after: {before} / {load()}.\n"
            f"Kernel {', '.join(f'{k}={v}' for k, v in BEST.items())}, deskewed; trained on the first "
            f"{args.n_train:,} training digits (then on them and the virtual copies of those the first training "
            f"erred on), scored on the last {args.n_val:,} training digits (the test set is not read); "
            "random_state=0. Kernel columns and fit cover both trainings.")
    body = table(["virtual examples (VirtualExamples arguments)", "best validation error (predictor, epoch)",
                  "error after the last epoch (last / averaged)", "virtual copies", "support vectors",
                  "kernel columns", "fit"], rows)
    text = f"## 6b. Virtual examples, chosen on the validation split\n\n{head}\n\n{body}"
    print(text)
    write_section("search-augment", text)


if __name__ == "__main__":
    main()
