"""Grader of assignment 07 (MNIST on the GPU): hidden tests and references.

Grader-only; the exercises are declared in ``kpcourse.checks.lesson07``. The debugging exercise
is graded on behaviour: ``fixed_train`` must return what the one-vs-rest kernel perceptron returns
(online updates, exact enough kernel values, one-vs-rest labels for any labels), the handed-out
trainer's flaws (alone and together) are named mistakes, and ``fixed_predict`` must return what
its scores predict.
"""

import functools

import numpy as np

from kpcourse.checks import lesson07 as visible
from kpcourse.checks.exercise import Probe
from kpcourse.grading.judge import declared
from kpcourse.grading.judge.testdata import new_seed

FORBIDDEN = ("kpcourse", "sklearn", "scipy")

#: The flaws of the handed-out trainer, as switches of the references below.
FLAWS = ("labels", "precision", "online")


# ----------------------------------------------------------------- references
def poly(X, Z, degree, gamma, coef0, dtype="float64"):
    """(gamma X Zᵀ + coef0)^degree as float64; other dtypes computed by torch in that dtype.

    ``dtype="float16"`` is what the handed-out trainer does (values above 65 504 become inf).
    """
    if dtype == "float64":
        return (gamma * (np.asarray(X, float) @ np.asarray(Z, float).T) + coef0) ** degree
    import torch

    t = getattr(torch, dtype)
    A, B = torch.tensor(np.asarray(X, float), dtype=t), torch.tensor(np.asarray(Z, float), dtype=t)
    return ((gamma * (A @ B.T) + coef0) ** degree).double().numpy()


def ovr_labels(y, classes, *, zero=False):
    """Y_pm (n, C); ``zero`` keeps the handed-out trainer's mapping of the label 0 to -1."""
    y = np.asarray(y)
    if zero:
        y = np.where(y == 0, -1, y)
    return np.where(y[:, None] == np.asarray(classes)[None, :], 1.0, -1.0)


def ovr_train(K, Y, max_epochs, *, batch=False, bias=True, only_current=False, strict=False):
    """One-vs-rest dual perceptron from a Gram matrix: every class trained online, 0..n-1.

    Equal to ``KernelPerceptron(kernel="precomputed", shuffle=False)`` (a unit test checks
    it). ``batch`` updates every point misclassified at the start of an epoch at once
    (the handed-out trainer); ``only_current``, ``bias=False`` (the bias left out of the
    running scores) and ``strict`` (a score of 0 is no mistake) are common slips.
    """
    K, Y = np.asarray(K, dtype=float), np.asarray(Y, dtype=float)
    n, C = Y.shape
    alpha, b, F = np.zeros((C, n)), np.zeros(C), np.zeros((n, C))
    step = 1.0 if bias else 0.0
    with np.errstate(invalid="ignore", over="ignore"):
        for _ in range(max_epochs):
            if batch:
                wrong = Y * (K @ (alpha * Y.T).T + b) <= 0
                if not wrong.any():
                    break
                alpha += wrong.T
                b += (wrong * Y).sum(0)
                continue
            made = 0
            for i in range(n):
                s = Y[i] * F[i]
                wrong = s < 0 if strict else s <= 0
                if wrong.any():
                    alpha[wrong, i] += 1
                    b += wrong * Y[i]
                    if only_current:
                        F[i] += (K[i, i] + step) * wrong * Y[i]
                    else:
                        F += np.outer(K[:, i] + step, wrong * Y[i])
                    made += 1
            if made == 0:
                break
    return alpha, b


def fit(X, y, classes, max_epochs, degree, gamma, coef0, *, flaws=(), dtype=None, **slips):
    """``(alpha, b, Y_pm)`` of ``fixed_train``; ``flaws`` keeps some of the handed-out trainer's."""
    Y = ovr_labels(y, classes, zero="labels" in flaws)
    K = poly(X, X, degree, gamma, coef0, dtype or ("float16" if "precision" in flaws else "float64"))
    alpha, b = ovr_train(K, Y, max_epochs, batch="online" in flaws, **slips)
    return alpha, b, Y


def scores(K, alpha, Y, b):
    with np.errstate(invalid="ignore", over="ignore"):
        return K @ (np.asarray(alpha, float) * np.asarray(Y, float).T).T + np.asarray(b, float)


def predict(X_new, X, alpha, Y, b, classes, degree, gamma, coef0, *, flaws=(), pick=np.argmax):
    """Labels of ``fixed_predict``; ``flaws`` keeps the handed-out predictor's ("labels": -1 -> 0)."""
    K = poly(X_new, X, degree, gamma, coef0, "float16" if "precision" in flaws else "float64")
    labels = np.asarray(classes)[pick(scores(K, alpha, Y, b), axis=1)]
    return np.where(labels == -1, 0, labels) if "labels" in flaws else labels


def ovr_predict(K_test_train, alpha, Y_pm, b, classes, mistake=None):
    """Labels of the largest one-vs-rest scores; ``mistake`` one of lesson07's named ones."""
    K, alpha, Y = np.asarray(K_test_train, float), np.asarray(alpha, float), np.asarray(Y_pm, float)
    if K.shape[1] != alpha.shape[1]:
        raise ValueError("K_test_train has one column per training point, as alpha")
    S = scores(K, np.ones_like(alpha) if mistake == "no_alpha" else alpha,
               np.ones_like(Y) if mistake == "no_y" else Y, 0 * np.asarray(b, float) if mistake == "no_b" else b)
    index = S.argmin(1) if mistake == "argmin" else S.argmax(1)
    return index if mistake == "indices" else np.asarray(classes)[index]


#: Mistakes of ``fixed_train`` that keep flaws of the handed-out trainer; any other "labels+online" keeps those.
_KEPT = {"batch": ("online",), "zero": ("labels",), "overflow": ("precision",),
         "overflow_batch": ("precision", "online")}
_SLIPS = {"only_current": {"only_current": True}, "no_bias": {"bias": False}, "strict": {"strict": True}}


def fixed_train(X, y, classes, max_epochs=5, degree=4, gamma=1.0, coef0=1.0, mistake=None):
    """``fit``; ``mistake`` one of lesson07's named ones (kept flaws, slips, Y_pm flipped or 0/1, an extra epoch)."""
    if mistake in ("flipped", "zero_one"):
        alpha, b, Y = fit(X, y, classes, max_epochs, degree, gamma, coef0)
        return alpha, b, -Y if mistake == "flipped" else (Y + 1) / 2
    kept = _KEPT.get(mistake, () if mistake in (None, "epochs", *_SLIPS) else tuple(mistake.split("+")))
    return fit(X, y, classes, max_epochs + (mistake == "epochs"), degree, gamma, coef0, flaws=kept,
               **_SLIPS.get(mistake, {}))


def fixed_predict(X_new, X, alpha, Y_pm, b, classes, degree=4, gamma=1.0, coef0=1.0, mistake=None):
    """The labels of ``predict``; ``mistake`` is "argmin" or one of the handed-out predictor's flaws."""
    flaws, pick = ((), np.argmin) if mistake == "argmin" else (() if mistake is None else (mistake,), np.argmax)
    return predict(X_new, X, alpha, Y_pm, b, classes, degree, gamma, coef0, flaws=flaws, pick=pick)


REFERENCES = {"ovr_predict": ovr_predict, "fixed_train": fixed_train, "fixed_predict": fixed_predict}


# ------------------------------------------------------------- test data
@functools.cache
def mnist():
    """New digits for the hidden tests: the first 600 of MNIST's test set, pixels in [0, 1].

    The notebook works on the first 800 training digits; these are not among them.
    """
    from kpcourse.datasets import load_mnist

    images, labels = load_mnist("test", n=600)
    return images.reshape(len(images), -1) / 255.0, labels


def shuffled_mnist(rng):
    """:func:`mnist` in a new order drawn from ``rng``: ``(X, y)``."""
    X, y = mnist()
    order = rng.permutation(len(X))
    return X[order], y[order]


def small_classes(n, n_classes, seed, labels):
    """Points with whole coordinates in [-2, 2]^3, labelled by the nearest of random centres.

    Their kernels (x·z + 1)^2 are whole numbers up to 169: exact in every precision
    (bfloat16 included), so these probes judge the training alone.
    """
    rng = np.random.default_rng(seed)
    X = rng.integers(-2, 3, (n, 3)).astype(float)
    centres = rng.normal(scale=2.0, size=(n_classes, 3))
    y = np.asarray(labels)[np.argmin(((X[:, None, :] - centres[None]) ** 2).sum(-1), axis=1)]
    return X, y


# ------------------------------------------------------------- hidden tests
def _ovr_new_digits(rng):
    """300 training digits, 200 new ones, the degree-4 kernel: the labels of the trained scorers."""
    X, y = shuffled_mnist(rng)
    Xt, yt, Xq = X[:300], y[:300], X[300:500]
    classes = np.unique(yt)
    Y = ovr_labels(yt, classes)
    alpha, b = ovr_train(poly(Xt, Xt, 4, 0.02, 1.0), Y, 3)
    return [Probe((poly(Xq, Xt, 4, 0.02, 1.0), alpha, Y, b, classes))]


def _ovr_scores_new_digits(rng):
    """Classes 2, 5, 9, the linear kernel, fractional coefficients (as averaged ones are)."""
    X, y = shuffled_mnist(rng)
    keep, Xq = np.isin(y[:300], (2, 5, 9)), X[300:500]
    Xt, yt = X[:300][keep], y[:300][keep]
    classes = np.array([2, 5, 9])
    Y = ovr_labels(yt, classes)
    alpha, b = ovr_train(Xt @ Xt.T, Y, 4)
    alpha, b = alpha * rng.uniform(0.2, 1.0, alpha.shape), b * 0.7
    K = Xq @ Xt.T
    return [visible.OvrProbe((K, alpha, Y, b, classes), argmin=classes[scores(K, alpha, Y, b).argmin(1)])]


def _train_online_new_data(rng):
    """New small data sets, labels without 0: whole-number kernel values, exact in every precision."""
    return [visible._train_probe(*small_classes(40, 4, new_seed(rng), [1, 2, 3, 4]), np.array([1, 2, 3, 4]),
                                 10, 2, 1.0, 1.0),
            visible._train_probe(*small_classes(30, 3, new_seed(rng), [-1, 5, 7]), np.array([7, -1, 5]),
                                 10, 1, 1.0, 0.0)]


def _train_labels_new(rng):
    """60 MNIST labels with the digits as classes, and small label sets with 0 and negative labels, shuffled."""
    _, y = mnist()
    cases = [(rng.choice(y, 60), np.arange(10)), (np.array([5, -3, 0, 5, 12, 0]), np.array([12, 0, -3, 5])),
             (np.array([0, 0, 1, 0]), np.array([1, 0]))]
    return [visible._train_probe(rng.integers(0, 3, (len(yy), 2)).astype(float), rng.permutation(yy),
                                 rng.permutation(c), 1, 1, 1.0, 0.0) for yy, c in cases]


def _train_precision_new_digits(rng):
    """150 new digits without a 0 among the labels (the label mapping does not matter here), gamma 1."""
    X, y = mnist()
    keep = rng.choice(np.flatnonzero(y != 0), 150, replace=False)
    return [visible._train_probe(X[keep], y[keep], np.arange(1, 10), 4, 4, 1.0, 1.0)]


def _train_new_digits(rng):
    """300 and 200 new digits, labels 0 to 9: every flaw matters."""
    X, y = shuffled_mnist(rng)
    return [visible._train_probe(X[:300], y[:300], np.arange(10), 4, 4, 1.0, 1.0),
            visible._train_probe(X[300:500], y[300:500], np.arange(10), 3, 3, 0.5, 2.0)]


def _predict_labels_new(rng):
    """Small whole-coordinate points, classes with -1 and 0 (and -1 and 1), trained by the reference."""
    probes = []
    for labels, classes in (([-1, 0, 3], np.array([3, -1, 0])), ([-1, 1], np.array([-1, 1]))):
        X, y = small_classes(40, len(labels), new_seed(rng), labels)
        alpha, b, Y = fit(X[:30], y[:30], classes, 5, 2, 1.0, 1.0)
        probes.append(visible._predict_probe(X[30:], X[:30], alpha, Y, b, classes, 2, 1.0, 1.0))
    return probes


def _predict_precision_new_digits(rng):
    """100 new digits scored by perceptrons trained on 300 and 200 others (gamma 1 and 0.5)."""
    X, y = shuffled_mnist(rng)
    probes, classes = [], np.arange(10)
    for (lo, hi), kernel in (((0, 300), (4, 1.0, 1.0)), ((300, 500), (3, 0.5, 2.0))):
        alpha, b, Y = fit(X[lo:hi], y[lo:hi], classes, 3, *kernel)
        probes.append(visible._predict_probe(X[500:600], X[lo:hi], alpha, Y, b, classes, *kernel))
    return probes


HIDDEN = {"ex1-ovr-tests": _ovr_new_digits, "ex1-ovr-tests-scores": _ovr_scores_new_digits,
          "ex2-train-tests-online": _train_online_new_data, "ex2-train-tests-labels": _train_labels_new,
          "ex2-train-tests-precision": _train_precision_new_digits, "ex2-train-tests-new": _train_new_digits,
          "ex3-predict-tests-labels": _predict_labels_new,
          "ex3-predict-tests-precision": _predict_precision_new_digits}

visible_data, cells = declared.grader(visible.LESSON, REFERENCES, HIDDEN)
