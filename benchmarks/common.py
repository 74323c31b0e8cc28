"""Shared helpers of the benchmarks: data, timing, machine description, RESULTS.md sections."""

import os
import platform
import re
import statistics
import subprocess
import time
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).with_name("RESULTS.md")


def banknote_split(random_state=0):
    """Standardised, stratified 80/20 banknote split (the lesson 05 setup)."""
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    from kpcourse.datasets import load_banknote

    X, y = load_banknote()
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, stratify=y, random_state=random_state)
    scaler = StandardScaler().fit(Xtr)
    return scaler.transform(Xtr), scaler.transform(Xte), ytr, yte


def mnist(n_train, n_test=10_000, dtype=np.float64, deskew=False, split="test"):
    """First n_train training digits and n_test digits of ``split``, pixels in [0, 1], flattened.

    ``deskew=True`` applies ``kpcourse.datasets.deskew`` first. ``split="validation"``
    takes the n_test digits from the *end* of the training set instead of the test set
    (for choosing hyper-parameters without looking at the test set): training and
    validation digits never overlap when n_train + n_test <= 60,000.
    """
    from kpcourse.datasets import deskew as deskew_images
    from kpcourse.datasets import load_mnist

    if split == "validation" and n_train + n_test > 60_000:
        raise ValueError(f"{n_train:,} training and {n_test:,} validation digits would overlap (60,000 in all)")
    Xtr, ytr = load_mnist("train", n_train)
    if split == "validation":
        Xall, yall = load_mnist("train")
        Xte, yte = Xall[-n_test:], yall[-n_test:]
    else:
        Xte, yte = load_mnist("test", n_test)
    if deskew:
        Xtr, Xte = deskew_images(Xtr), deskew_images(Xte)
    return (Xtr.reshape(len(Xtr), -1).astype(dtype) / 255, Xte.reshape(len(Xte), -1).astype(dtype) / 255,
            ytr, yte)


def timed(fn, repeat=3, warmup=False):
    """Median wall time of ``repeat`` calls and the last result (after one untimed call if ``warmup``)."""
    if warmup:
        fn()
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def machine():
    """One line describing the machine the figures come from."""
    import torch

    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU"
    return (f"{cpu}, {os.cpu_count()} cores, {mem:.0f} GiB RAM, {gpu}; Python {platform.python_version()}, "
            f"torch {torch.__version__}, numpy {np.__version__}")


def load():
    """The machine's load average (1, 5, 15 minutes), as ``uptime`` prints it."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} ({os.cpu_count()} cores)"


def git_rev():
    """The commit, with "+ uncommitted changes" when the package or the benchmarks differ from it."""
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "kpcourse", "benchmarks"], capture_output=True,
                               text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return rev + (" + uncommitted changes" if dirty else "")


def write_section(name, body):
    """Replace (or append) the section ``name`` of RESULTS.md."""
    text = RESULTS.read_text() if RESULTS.exists() else "# kpcourse benchmark results\n"
    block = f"<!-- BEGIN {name} -->\n{body.rstrip()}\n<!-- END {name} -->"
    pattern = re.compile(rf"<!-- BEGIN {re.escape(name)} -->.*?<!-- END {re.escape(name)} -->", re.S)
    text = pattern.sub(lambda _: block, text) if pattern.search(text) else text.rstrip() + "\n\n" + block + "\n"
    RESULTS.write_text(text)


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)
