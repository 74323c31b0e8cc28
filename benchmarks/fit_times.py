"""Fit time of KernelPerceptron on the banknote training split (RBF) and 5,000 MNIST digits.

Run: ``python -m benchmarks.fit_times`` (reads KPCOURSE_DATA or downloads the data).
Prints one line per data set: fit time (median of --repeat runs), epochs, mistakes,
support vectors and test accuracy.
"""

import argparse
import platform
import time

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from kpcourse.datasets import load_banknote, load_mnist
from kpcourse.perceptron import KernelPerceptron


def banknote():
    X, y = load_banknote()
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
    scaler = StandardScaler().fit(Xtr)
    return scaler.transform(Xtr), scaler.transform(Xte), ytr, yte


def mnist(n_train, n_test=2000):
    Xtr, ytr = load_mnist("train", n_train)
    Xte, yte = load_mnist("test", n_test)
    return (Xtr.reshape(len(Xtr), -1) / 255.0, Xte.reshape(len(Xte), -1) / 255.0, ytr, yte)


def measure(name, model, data, repeat):
    Xtr, Xte, ytr, yte = data
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        model.fit(Xtr, ytr)
        times.append(time.perf_counter() - t0)
    acc = model.score(Xte, yte)
    print(f"{name:<28} n={len(Xtr):>5}  fit {np.median(times):7.3f} s (median of {repeat})  "
          f"epochs {model.n_epochs_:>2}  mistakes {sum(model.history_):>6}  "
          f"support {len(model.support_):>5}  test accuracy {acc:.4f}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--mnist", type=int, default=5000, help="MNIST training digits")
    args = parser.parse_args(argv)
    print(f"# {platform.processor() or platform.machine()}, {platform.python_version()}")
    measure("banknote RBF (sigma=1)", KernelPerceptron(kernel="rbf", sigma=1.0, max_epochs=20, random_state=0),
            banknote(), args.repeat)
    measure("MNIST poly deg 4 (gamma=0.02)",
            KernelPerceptron(kernel="poly", degree=4, gamma=0.02, coef0=1.0, max_epochs=10, random_state=0),
            mnist(args.mnist), args.repeat)
    measure("MNIST RBF (scale)", KernelPerceptron(kernel="rbf", max_epochs=10, random_state=0),
            mnist(args.mnist), args.repeat)


if __name__ == "__main__":
    main()
