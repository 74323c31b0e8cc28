"""The banknote results table of lesson 05: linear vs RBF kernel perceptron vs SVC.

Run: ``python -m benchmarks.banknote_table`` (reads KPCOURSE_DATA or downloads the data).

Same protocol as ``notebooks/05-rbf-kernel.ipynb``: labels 2y - 1 (forgery +1), stratified
80/20 split with ``random_state=0``, features standardised with the training part's mean
and standard deviation. Perceptrons train with ``shuffle=True, random_state=0,
max_epochs=20`` on the CPU; the linear baseline is the primal ``Perceptron`` (the same run as
``KernelPerceptron(kernel="linear")``). SVC is scikit-learn's ``SVC(kernel="rbf",
gamma=1/(2σ²))`` with its default C = 1 on the same split. Errors are counted on the
training and test parts; fit times are the median of ``--repeat`` fits (they are the only
numbers that change from run to run).
"""

import argparse
import platform
import time

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from kpcourse.datasets import load_banknote
from kpcourse.perceptron import KernelPerceptron, Perceptron

SEED = 0
MAX_EPOCHS = 20
SIGMAS = (0.1, 0.5, 1.0, 5.0)


def split():
    """Standardised stratified 80/20 split of the banknote data, labels in {-1, +1}."""
    X, y = load_banknote()
    y = 2 * y - 1
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, stratify=y, random_state=SEED)
    scaler = StandardScaler().fit(Xtr)
    return scaler.transform(Xtr), scaler.transform(Xte), ytr, yte


def _median_fit_time(make, Xtr, ytr, repeat):
    times, model = [], None
    for _ in range(repeat):
        model = make()
        t0 = time.perf_counter()
        model.fit(Xtr, ytr)
        times.append(time.perf_counter() - t0)
    return model, float(np.median(times))


def _errors(model, X, y):
    return int((model.predict(X) != y).sum())


def linear_epoch_errors(model, Xtr, Xte, ytr, yte):
    """Train and test errors of the primal perceptron after each epoch, read from its trace."""
    ends = model.trace_[len(ytr) - 1::len(ytr)]  # the row of the last step of every epoch
    out = []
    for row in ends:
        b, w = row[3], row[4:]
        out.append((int((np.where(Xtr @ w + b > 0, 1, -1) != ytr).sum()),
                    int((np.where(Xte @ w + b > 0, 1, -1) != yte).sum())))
    return out


def rows(repeat=3):
    """One dict per model: name, errors, sizes, support vectors, epochs, fit time."""
    Xtr, Xte, ytr, yte = split()
    out = []
    lin, t = _median_fit_time(lambda: Perceptron(max_epochs=MAX_EPOCHS, shuffle=True, random_state=SEED),
                              Xtr, ytr, repeat)
    per_epoch = linear_epoch_errors(lin, Xtr, Xte, ytr, yte)
    out.append({"model": "linear perceptron", "train": _errors(lin, Xtr, ytr), "test": _errors(lin, Xte, yte),
                "support": int((lin.alpha_ > 0).sum()), "epochs": lin.n_epochs_, "converged": lin.converged_,
                "fit_s": t, "test_range": (min(e for _, e in per_epoch), max(e for _, e in per_epoch))})
    for s in SIGMAS:
        kp, t = _median_fit_time(lambda s=s: KernelPerceptron(kernel="rbf", sigma=s, max_epochs=MAX_EPOCHS,
                                                              random_state=SEED, device="cpu"),
                                 Xtr, ytr, repeat)
        out.append({"model": f"RBF perceptron σ={s:g}", "train": _errors(kp, Xtr, ytr),
                    "test": _errors(kp, Xte, yte), "support": len(kp.support_), "epochs": kp.n_epochs_,
                    "converged": kp.converged_, "fit_s": t})
    for s in SIGMAS:
        svc, t = _median_fit_time(lambda s=s: SVC(kernel="rbf", gamma=1.0 / (2.0 * s * s)), Xtr, ytr, repeat)
        out.append({"model": f"SVC rbf σ={s:g} (γ={1 / (2 * s * s):g})", "train": _errors(svc, Xtr, ytr),
                    "test": _errors(svc, Xte, yte), "support": len(svc.support_), "epochs": None,
                    "converged": None, "fit_s": t})
    return out, (len(ytr), len(yte))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="fits per model for the median fit time")
    args = parser.parse_args(argv)
    table, (n_train, n_test) = rows(args.repeat)
    print(f"# banknote authentication: {n_train} training / {n_test} test notes; "
          f"{platform.processor() or platform.machine()}, Python {platform.python_version()}")
    head = (f"{'model':<30} {'train err':>14} {'test err':>13} {'test acc':>9} {'support':>8} "
            f"{'epochs':>6} {'converged':>9} {'fit (ms)':>9}")
    print(head)
    print("-" * len(head))
    for r in table:
        ep = "" if r["epochs"] is None else str(r["epochs"])
        conv = "" if r["converged"] is None else str(r["converged"])
        print(f"{r['model']:<30} {r['train']:>4} ({100 * r['train'] / n_train:5.2f} %) "
              f"{r['test']:>3} ({100 * r['test'] / n_test:5.2f} %) {1 - r['test'] / n_test:9.4f} "
              f"{r['support']:>8} {ep:>6} {conv:>9} {1000 * r['fit_s']:9.1f}")
    lo, hi = table[0]["test_range"]
    print(f"\nlinear perceptron, test errors after each of epochs 1..{MAX_EPOCHS}: from {lo} "
          f"({100 * lo / n_test:.2f} %) to {hi} ({100 * hi / n_test:.2f} %) — it never converges, "
          "so its error depends on the epoch where training stops.")


if __name__ == "__main__":
    main()
