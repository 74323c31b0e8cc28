"""Pieces of the graders' references that several graders share: grader-only, like them.

Never in the ``kpcourse`` package (which students install) and never in a sandbox: a
grader file loads it with ``declared.shared(__file__)``. Here: the dual perceptron loop
with its common slips, the label rule of the scores with its named mistakes, the Gaussian
kernel with the slips of its formula, a cache for a slow reference that each named
mistake asks again, a draw that tells the named mistakes apart, and a source notebook's
locked helper cell loaded as the grader's own.
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path

import numpy as np

from kpcourse.grading.judge.declared import sign_labels

__all__ = ["dual_perceptron", "labels_or_mistake", "kept", "squared_distances", "RBF_SLIPS", "rbf", "telling",
           "locked_cell"]


def dual_perceptron(K, y, max_epochs, lr=1.0, *, zero_is_mistake=True, bias=True, bias_lr=True, bias_in_score=True,
                    step="one"):
    """The dual perceptron on the Gram matrix ``K``: counts ``alpha`` and bias ``b`` (the defaults are right).

    Samples are visited in order; on ``y_i f(x_i) <= 0`` (``< 0`` without ``zero_is_mistake``) ``alpha_i``
    grows by 1 (is set to 1 with ``step="set"``) and ``b`` by ``lr·y_i``. The other flags are common mistakes.
    """
    n = len(y)
    alpha, b = np.zeros(n), 0.0
    for _ in range(max_epochs):
        made = 0
        for i in range(n):
            s = y[i] * (lr * np.dot(alpha * y, K[:, i]) + (b if bias_in_score else 0.0))
            if (s <= 0) if zero_is_mistake else (s < 0):
                alpha[i] = alpha[i] + 1 if step == "one" else 1.0
                b += ((lr if bias_lr else 1.0) * y[i]) if bias else 0.0
                made += 1
        if made == 0:
            break
    return alpha, b


def labels_or_mistake(scores, mistake=None):
    """Labels of ``scores`` (:func:`sign_labels`), or those of a named mistake.

    ``"scores"`` gives the scores themselves, ``"flipped"`` the labels negated, ``"np_sign"`` and
    ``"zero_plus"`` those label rules at a score of exactly 0.
    """
    if mistake == "scores":
        return scores
    labels = sign_labels(scores, mistake)
    return -labels if mistake == "flipped" else labels


def kept(func):
    """``func`` with its results kept per arguments (arrays by their bytes), a copy returned each time:
    a slow reference (models to train) that each named mistake asks again runs once per input."""
    results = {}

    @functools.wraps(func)
    def kept_func(*args):
        key = tuple(a.tobytes() if isinstance(a, np.ndarray) else a for a in args)
        if key not in results:
            results[key] = func(*args)
        return copy.deepcopy(results[key])
    return kept_func


def squared_distances(X, Z):
    """‖X[i] − Z[j]‖² by broadcasting (exact, no cancellation; small inputs only)."""
    X, Z = np.asarray(X, float), np.asarray(Z, float)
    return ((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1)


#: The Gaussian kernel exp(-d2 / (2σ²)) from squared distances d2 (key None), and the slips of its formula.
RBF_SLIPS = {
    None: lambda d2, s: np.exp(-d2 / (2.0 * s ** 2)),
    "sigma": lambda d2, s: np.exp(-d2 / (2.0 * s)),  # σ for σ²
    "no2": lambda d2, s: np.exp(-d2 / s ** 2),
    "over_sigma": lambda d2, s: np.exp(-d2 / s),
    "gamma": lambda d2, s: np.exp(-s * d2),  # σ read as scikit-learn's γ
    "times": lambda d2, s: np.exp(-d2 * 2.0 * s ** 2),
    "distance": lambda d2, s: np.exp(-np.sqrt(d2) / (2.0 * s ** 2)),
    "sign": lambda d2, s: np.exp(d2 / (2.0 * s ** 2)),
    "d2": lambda d2, s: d2,
}


def rbf(X, Z, sigma, slip=None):
    """The Gaussian kernel of all pairs from exact differences, or what ``RBF_SLIPS[slip]`` computes
    (any other ``slip``: the kernel itself)."""
    return RBF_SLIPS.get(slip, RBF_SLIPS[None])(squared_distances(X, Z), sigma)


def _same(a, b):
    """Two outputs equal entry by entry (tuples part by part)."""
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return np.array_equal(np.asarray(a), np.asarray(b))


def telling(make, reference, mistakes, tries=None):
    """A probe from ``make()`` on which each of ``mistakes`` gives another output than ``reference``: a hidden
    probe that tells them apart, so that a golden case with that mistake loses the cell on every seed.
    With ``tries``, the last probe drawn when none tells them apart by then (still fair, less telling)."""
    count = 0
    while True:
        probe = make()
        right = reference(*probe.args)
        count += 1
        if all(not _same(reference(*probe.args, mistake=m), right) for m in mistakes) or count == tries:
            return probe


def locked_cell(grader_file, grade_id, name):
    """The function ``name`` that the locked cell ``grade_id`` of the grader's source notebook defines: the
    helper the students are given, run by the grader from the same text (never a second copy)."""
    folder = Path(grader_file).resolve().parent
    nb = json.loads((folder / f"{folder.name}.ipynb").read_text())
    cell = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id)
    namespace = {"np": np}
    exec(compile("".join(cell["source"]), f"{folder.name}:{grade_id}", "exec"), namespace)  # noqa: S102
    return namespace[name]
