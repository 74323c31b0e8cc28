"""Hyper-parameter search for full MNIST on a validation split of the training set (never the test set).

Run: ``python -m benchmarks.search`` (``--n-train 50000`` for the full-size split). Each setting
is trained on the first ``--n-train`` training digits and scored on the *last* ``--n-val``
training digits (disjoint from them); the test set is not read. One fit per setting gives the
validation error after every epoch, for the last and the averaged predictor
(``staged_decision_function``), so the number of epochs and the predictor are chosen too.
Writes the table to benchmarks/RESULTS.md (section "search").
"""

import argparse
import time

import numpy as np

from benchmarks.common import git_rev, load, machine, mnist, table, write_section
from kpcourse.perceptron import KernelPerceptron

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


def evaluate(deskew, params, data, epochs):
    Xtr, Xval, ytr, yval = data[deskew]
    t0 = time.perf_counter()
    model = KernelPerceptron(max_epochs=epochs, random_state=0, device="cpu", **params).fit(Xtr, ytr)
    fit = time.perf_counter() - t0
    curves = {m: [float(np.mean(model.classes_[np.argmax(s, axis=1)] != yval))
                  for s in model.staged_decision_function(Xval, mode=m)] for m in ("last", "averaged")}
    best = min((e, m, k + 1) for m, c in curves.items() for k, e in enumerate(c))
    return {"deskew": deskew, "params": params, "curves": curves, "best": best, "fit": fit,
            "columns": model.columns_computed_, "history": model.history_}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n-train", type=int, default=20_000)
    parser.add_argument("--n-val", type=int, default=10_000)
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--only", default=None, help="comma-separated indices into the grid")
    args = parser.parse_args(argv)
    before = load()
    grid = GRID if args.only is None else [GRID[int(i)] for i in args.only.split(",")]
    data = {d: mnist(args.n_train, args.n_val, deskew=d, split="validation") for d in {d for d, _ in grid}}
    results = []
    for deskew, params in grid:
        r = evaluate(deskew, params, data, args.epochs)
        print(r["best"], deskew, params, f"{r['fit']:.0f} s", flush=True)
        results.append(r)
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


if __name__ == "__main__":
    main()
