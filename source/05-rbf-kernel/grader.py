"""Grader of assignment 05 (the Gaussian kernel): references and hidden probes.

Grader-only; the exercises are declared in ``kpcourse.checks.lesson05``. Exercises 1 and 2 ask
for the RBF kernel written with NumPy: a graded function that reaches anything in kpcourse,
scikit-learn or SciPy gets no credit. Exercise 3 trains models with
``kpcourse.perceptron.KernelPerceptron`` (allowed); the choice of σ is the student's.
"""

import numpy as np

from kpcourse import datasets
from kpcourse.checks import lesson05 as visible
from kpcourse.checks.exercise import Probe
from kpcourse.grading import declared
from kpcourse.grading.testdata import new_seed
from kpcourse.perceptron import KernelPerceptron

_shared = declared.shared(__file__)
kept, rbf = _shared.kept, _shared.rbf

FORBIDDEN = ("kpcourse", "sklearn", "scipy")
#: What choose_sigma may use although FORBIDDEN covers it: the model is not the exercise.
CHOOSE_ALLOW = ("kpcourse.perceptron.KernelPerceptron",)
#: What the sandbox holds besides the checks, data and plots: the model (and scikit-learn, which it
#: builds on).
SANDBOX_ALLOW = ("kpcourse.perceptron", "sklearn", "scipy")
#: The reference model of Exercise 3.
MAX_EPOCHS = 10
OPTIONS = {"ex1-rbf-gram-tests-loop-free": {"answer_bytes": 16 * 2**20},  # 1200 x 900 floats: 8.6 MB
           "ex3-choose-sigma-tests-errors": {"allow": CHOOSE_ALLOW},
           "ex3-choose-sigma-tests-choice": {"allow": CHOOSE_ALLOW}}


# ----------------------------------------------------------------- references
def rbf_gram(X, Z, sigma, mistake=None):
    """The kernel, or what a slip of ``RBF_FORMULA`` (checks.exercise) computes (``references.RBF_SLIPS``)."""
    X, Z = np.asarray(X, float), np.asarray(Z, float)
    if X.ndim != 2 or Z.ndim != 2 or X.shape[1] != Z.shape[1] or not sigma > 0:
        raise ValueError("X and Z must be 2-D with the same columns, and sigma > 0")
    return rbf(X, Z, sigma, mistake)


def rbf_score(X, y, alpha, query, sigma):
    """Σᵢ αᵢ yᵢ exp(-‖xᵢ − q‖² / (2σ²)) (no bias)."""
    return float(np.sum(np.asarray(alpha) * np.asarray(y) * rbf(X, np.asarray(query)[None], sigma)[:, 0]))


def rbf_predict(X, y, alpha, query, sigma, mistake=None):
    X, query = np.asarray(X, float), np.asarray(query, float)
    y, alpha = np.asarray(y), np.asarray(alpha)
    if len(y) != len(X) or len(alpha) != len(X) or query.shape != (X.shape[1],):
        raise ValueError("y, alpha and query must match X")
    k = rbf(X, query[None], sigma, mistake)[:, 0]
    weights = {"no_y": alpha, "no_alpha": y, "plain": np.ones(len(X))}.get(mistake, alpha * y)
    score = float(np.sum(weights * k))
    return score, declared.sign_labels(score, mistake)


@kept
def sigma_errors(X_train, y_train, X_val, y_val, sigmas, max_epochs=MAX_EPOCHS):
    """Training and validation error rates (``train, val``, one per σ) of
    ``KernelPerceptron(kernel="rbf", sigma=s)``: the reference of Exercise 3, ``max_epochs=10,
    random_state=0`` on the CPU (kept per input, since each named mistake asks again).
    """
    train, val = [], []
    for s in sigmas:
        model = KernelPerceptron(kernel="rbf", sigma=s, max_epochs=max_epochs, random_state=0,
                                 device="cpu").fit(X_train, y_train)
        train.append(np.mean(model.predict(X_train) != y_train))
        val.append(np.mean(model.predict(X_val) != y_val))
    return np.array(train), np.array(val)


def choose_sigma(X_train, y_train, X_val, y_val, sigmas, mistake=None):
    train, val = sigma_errors(X_train, y_train, X_val, y_val, sigmas)
    errors = {"counts": val * len(y_val), "accuracy": 1 - val, "train_errors": train}.get(mistake, val)
    return sigmas[int(np.argmin(train if mistake == "train" else val))], errors


REFERENCES = {"rbf_gram": rbf_gram, "rbf_predict": rbf_predict, "choose_sigma": choose_sigma}


# --------------------------------------------------------------- hidden probes
def _gram_values(rng):
    probes = [Probe((rng.normal(size=(n, d)), 2.0 * rng.normal(size=(m, d)), s))
              for n, m, d, s in ((13, 7, 4, 0.6), (9, 9, 1, 3.0), (25, 18, 6, 1.3))]
    A = rng.normal(size=(12, 3))
    return [*probes, Probe((A, A, 0.9))]


def _gram_shapes(rng):
    probes = [Probe((rng.normal(size=(n, d)), rng.normal(size=(m, d)), 2.0)) for n, m, d in
              ((2, 7, 4), (7, 2, 1), (1, 1, 3))]
    probes.append(Probe((rng.integers(-5, 6, size=(3, 2)), rng.integers(-5, 6, size=(5, 2)), 2.0)))  # integers
    return [*probes, Probe((np.ones((4, 5)), np.ones((4, 4)), 1.0), raises="ValueError", why="X has 5 columns "
                           "but Z has 4"),
            Probe((np.ones((2, 2)), np.ones((3, 2)), -float(rng.uniform(0.05, 2.0))), raises="ValueError",
                  why="sigma is negative")]


def _gram_large(rng):
    # a loop-free but slow function (np.vectorize) takes seconds here: the time limit only
    # stops endless loops, no point depends on speed
    return [Probe((rng.normal(size=(1200, 8)), rng.normal(size=(900, 8)), 2.5), compare="kernel_range")]


def _predict_scores(rng):
    ex = datasets.msdn_example()
    probes = [Probe((ex["X"], ex["y"], ex["alpha"], ex["query"], ex["sigma"]))]  # the article's example
    for n, d, s in ((10, 3, 0.7), (25, 5, 2.0), (1, 2, 1.0)):
        probes.append(Probe((rng.normal(size=(n, d)), rng.choice([-1, 1], size=n), rng.integers(0, 4, size=n),
                             rng.normal(size=d), s)))
    # a trained kernel perceptron without bias scores with the same formula
    Xc, yc = datasets.circles(120, noise=0.1, random_state=new_seed(rng))
    model = KernelPerceptron(kernel="rbf", sigma=0.4, fit_intercept=False, max_epochs=MAX_EPOCHS, random_state=0,
                             device="cpu").fit(Xc, yc)
    return [*probes, *(Probe((Xc, yc, model.alpha_, q, 0.4)) for q in rng.uniform(-1.3, 1.3, size=(10, 2)))]


def _predict_labels(rng):
    X, y, alpha = rng.normal(size=(15, 3)), rng.choice([-1, 1], size=15), rng.integers(0, 3, size=15)
    probes = [Probe((X, y, alpha, q, 1.1)) for q in rng.normal(size=(20, 3))]
    # opposite labels at the same distance with the same count: a score of exactly 0
    a, c = float(rng.integers(1, 4)), int(rng.integers(1, 5))
    return [*probes, Probe((np.array([[1.0, a, 0.0], [1.0, -a, 0.0]]), np.array([-1, 1]), np.array([c, c]),
                            np.array([1.0, 0.0, 5.0]), 0.5), compare="zero_label")]


def _rings(rng):
    X, y = datasets.circles(250, noise=0.1, factor=0.5, random_state=new_seed(rng))
    return X[:150], y[:150], X[150:], y[150:]


HIDDEN = {"ex1-rbf-gram-tests-values": _gram_values, "ex1-rbf-gram-tests-shape": _gram_shapes,
          "ex1-rbf-gram-tests-loop-free": _gram_large,
          "ex2-rbf-predict-tests-score": _predict_scores, "ex2-rbf-predict-tests-label": _predict_labels,
          "ex3-choose-sigma-tests-errors": lambda rng: [Probe((*_rings(rng), (0.003, 0.03, 0.3, 3.0, 30.0)))],
          "ex3-choose-sigma-tests-choice": lambda rng: [Probe((*_rings(rng), (0.002, 0.02, 0.2, 2.0, 20.0)),
                                                              compare="sigma_choice_shaped")]}


visible_data, cells = declared.grader(visible.LESSON, REFERENCES, HIDDEN, OPTIONS)
