"""Grader of the capstone (lesson 09): references and hidden data.

The capstone's tables are public, so none of their rows reaches a graded call as it is: for every
notebook the grader standardises a table, rotates it by a random orthogonal matrix, rescales and
offsets each feature, shuffles the features, adds a little noise and renames the classes, then
splits it at random; one set is drawn from Gaussians the grader fits to a transformed table, so it
exists nowhere else. The student's ``pipeline`` learns from one part; its labels for the other part
are judged against labels that stay here (``Probe.held``), in bands below the accuracy of this
file's own pipeline on the same split.
"""

import itertools

import numpy as np

from kpcourse.checks import lesson09 as visible
from kpcourse.checks._core import Via
from kpcourse.checks.exercise import Probe
from kpcourse.datasets import lines, load_table, rings, stripes
from kpcourse.grading.judge import declared

#: kpcourse (its perceptrons), scikit-learn and SciPy.
FORBIDDEN = ("kpcourse", "sklearn", "scipy")
#: Locked cells that the grader's own run (where every hidden call is made) leaves out: the development
#: rows do not exist there, so a function that reads them instead of its arguments (tuning on the test
#: part, say) fails every hidden test.
NOT_IN_GRADERS_RUN = ("data",)


# ----------------------------------------------------------------- references
def _kernel(A, B, params):
    bias = 0.0 if params.get("bias") is False else 1.0  # (no bias: the named mistake)
    if params["kernel"] == "linear":
        return A @ B.T + bias
    if params["kernel"] == "rbf":
        sq = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2 * A @ B.T
        return np.exp(-np.maximum(sq, 0) / (2 * params["sigma"] ** 2)) + bias
    raise ValueError(f"unknown kernel {params['kernel']!r}")


def fit(X, y, params):
    """One-vs-rest kernel perceptrons (a constant added to the kernel), until an epoch is clean."""
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    classes, index = np.unique(y, return_inverse=True)
    Y = np.where(index[None, :] == np.arange(len(classes))[:, None], 1.0, -1.0)
    K = _kernel(X, X, params)
    alpha = np.zeros((len(classes), len(y)))
    for _ in range(int(params.get("epochs", 50))):
        clean = True
        for i in range(len(y)):
            wrong = Y[:, i] * ((alpha * Y) @ K[:, i]) <= 0
            if wrong.any():
                alpha[wrong, i] += 1
                clean = False
        if clean:
            break
    return {"classes": classes, "X": X, "y": y, "coef": alpha * Y, "params": dict(params)}


_CALLS = itertools.count()  # (the not_deterministic mistake: another answer at every call)


def predict(model, X, mistake=None):
    """The class of the largest score (the labels fit was given)."""
    X = np.asarray(X, dtype=float)
    if "mean" in model:
        X = (X - model["mean"]) / model["scale"]
    if mistake == "batch_statistics":  # each batch moved to the training rows' mean and spread
        X = (X - X.mean(axis=0)) / (X.std(axis=0) + 1e-12) * model["X"].std(axis=0) + model["X"].mean(axis=0)
    if mistake in ("not_separating", "not_memorised"):  # nothing learned: the first class everywhere
        return np.repeat(model["classes"][:1], len(X))
    if mistake == "no_bias":
        model = fit(model["X"], model["y"], {**model["params"], "bias": False})
    scores = _kernel(X, model["X"], model["params"]) @ model["coef"].T
    best = np.argmax(scores, axis=1)
    if mistake == "not_deterministic":
        best = (best + next(_CALLS)) % len(model["classes"])
    return best if mistake == "label_codes" else model["classes"][best]


def select(X, y, grid, n_folds, seed, mistake=None):
    """Cross-validation with the folds of the stated rule: (best, table, folds)."""
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    if not 2 <= n_folds <= len(y):
        raise ValueError(f"n_folds must be between 2 and {len(y)}")
    permutation = np.random.default_rng(seed + (1 if mistake == "fold_rule" else 0)).permutation(len(y))
    folds = np.array_split(permutation, n_folds)
    table = np.zeros((len(grid), n_folds))
    for f, fold in enumerate(folds):
        rest = np.arange(len(y)) if mistake == "leaky" else np.setdiff1d(np.arange(len(y)), fold)
        for g, params in enumerate(grid):
            table[g, f] = np.mean(predict(fit(X[rest], y[rest], params), X[fold]) != y[fold])
    means = table.mean(axis=1)
    best = int(np.argmax(means)) if mistake == "not_argmin" else int(np.argmin(means))
    return grid[best], table, folds


def _grid(d):
    return [visible.LINEAR, *(visible.rbf(c * np.sqrt(d)) for c in (0.25, 0.5, 1.0, 2.0))]


def pipeline(X, y, seed):
    """Standardise with the training rows' statistics, choose by 5-fold cross-validation, refit."""
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    mean, scale = X.mean(axis=0), X.std(axis=0)
    scale[scale == 0] = 1.0
    Z = (X - mean) / scale
    model = fit(Z, y, select(Z, y, _grid(X.shape[1]), 5, seed)[0])
    model.update(mean=mean, scale=scale)
    return model


REFERENCES = {"predict": predict, "fit": fit, "select": select, "pipeline": pipeline}


# --------------------------------------------------------------- hidden probes
def _names(rng, k):
    """k class labels of one random type: words, whole numbers other than 0..k-1, or floats."""
    kind = rng.integers(3)
    if kind == 0:
        return np.array([f"{w}{rng.integers(10, 99)}" for w in rng.choice(list("abcdefgh"), size=k, replace=False)])
    if kind == 1:
        return np.sort(rng.choice(np.arange(2, 60), size=k, replace=False)) * 5
    return np.round(np.sort(rng.choice(np.arange(-40, 40), size=k, replace=False)) / 4 + 0.1, 2)


def _groups(rng, k, d, per):
    centres = np.eye(d)[:k] * 4 + rng.normal(scale=0.3, size=(k, d))
    X = np.repeat(centres, per, axis=0) + rng.normal(scale=0.5, size=(k * per, d))
    return X, np.repeat(np.arange(k), per), centres + rng.normal(scale=0.2, size=(k, d))


def _labels(rng):
    probes = []
    for k, params in ((int(rng.integers(3, 6)), visible.LINEAR), (3, visible.rbf(2.0)), (2, visible.LINEAR)):
        X, group, new = _groups(rng, k, int(rng.integers(k, k + 3)), int(rng.integers(8, 14)))
        names = _names(rng, k)
        probes.append(Probe((Via("fit", X, names[group], params), new)))
    return probes


def _contract(rng):
    d = int(rng.integers(3, 6))
    X = rng.normal(size=(60, d)) + np.repeat(np.eye(d)[:3] * 1.2, 20, axis=0)
    y = np.repeat(_names(rng, 3), 20)
    new = rng.normal(size=(10, d)) * 1.5
    model = Via("fit", X, y, visible.rbf(float(rng.choice([0.7, 1.0, 1.5]))))
    return [Probe((model, new), compare="none"), Probe((model, new), like=0, mistake="not_deterministic"),
            Probe((model, new[:1]), like=0, mistake="batch_statistics"),
            Probe((model, np.r_[new, np.full((3, d), 1000.0)]), like=0, mistake="batch_statistics")]


def _separable(rng):
    k = int(rng.integers(4, 7))
    angle = 2 * np.pi * (np.arange(k) + rng.uniform(-0.1, 0.1, size=k)) / k
    corners = np.c_[np.cos(angle), np.sin(angle)] * 4 + rng.uniform(0.5, 2.0, size=2)
    X = np.repeat(corners, 8, axis=0) + rng.uniform(-0.6, 0.6, size=(8 * k, 2))
    y = np.repeat(_names(rng, k), 8)
    return [Probe((Via("fit", X, y, visible.LINEAR), X), mistake="not_separating")]


def _bias(rng):
    cut = float(rng.uniform(2, 5))
    Xs = np.c_[np.r_[rng.uniform(cut - 2, cut - 0.5, 8), cut - 1, rng.uniform(cut + 0.5, cut + 2, 8), cut + 1],
               np.r_[rng.uniform(-1, 1, 8), 0.0, rng.uniform(-1, 1, 8), 0.0]]  # two rows on one ray from 0
    ys = np.repeat(_names(rng, 2), 9)
    return [Probe((Via("fit", Xs, ys, visible.LINEAR), Xs), mistake="no_bias")]


def _memorise(rng):
    X = rng.uniform(-1, 1, size=(int(rng.integers(25, 40)), int(rng.integers(4, 7))))
    y = _names(rng, 3)[rng.integers(0, 3, size=len(X))]
    return [Probe((Via("fit", X, y, visible.rbf(0.05)), X), mistake="not_memorised")]


def _select_data(rng):
    """Overlapping groups (2 to 4 features, 3 classes, 30 to 45 rows), a grid of a linear and two Gaussian
    settings, 3 to 5 folds and a seed, on which the smallest mean error is one setting's alone and not the
    first's (a choice fixed in advance is caught)."""
    for _ in range(50):
        d, n = int(rng.integers(2, 5)), int(rng.integers(30, 46))
        X = rng.normal(size=(n, d)) + np.eye(d)[rng.integers(0, min(d, 3), size=n)] * 1.5
        y = _names(rng, 3)[rng.integers(0, 3, size=n)]
        X = X + (np.asarray(y == y[0], dtype=float)[:, None] * rng.normal(scale=0.8, size=d))
        grid = [{"kernel": "linear", "epochs": 20},
                *(visible.rbf(s, 20) for s in rng.choice([0.3, 0.7, 1.5, 3.0], size=2, replace=False))]
        k, seed = int(rng.integers(3, 6)), int(rng.integers(1000))
        table = select(X, y, grid, k, seed)[1]
        means = table.mean(axis=1)
        if np.sum(means <= means.min() + visible.TIE) == 1 and int(np.argmin(means)) != 0:
            break
    return (X, y, grid, k, seed), table


def _select_folds(rng):
    (X, y, grid, k, seed), _ = _select_data(rng)
    return [Probe((X, y, grid, k, seed), compare="capstone_folds", mistake="fold_rule"),
            Probe((X, y, grid, k, seed), compare="capstone_best", mistake="not_argmin"),
            Probe((X, y, grid, len(y) + 1, seed), raises="ValueError", why="n_folds is larger than the rows")]


def _select_table(rng):
    """Two entries of the table, each one that fitting on every row (the fold included) would change."""
    (X, y, grid, k, seed), right = _select_data(rng)
    leaky = select(X, y, grid, k, seed, mistake="leaky")[1]
    telling = np.argwhere(right != leaky)
    chosen = telling[rng.permutation(len(telling))[:2]] if len(telling) >= 2 else \
        np.array([[int(rng.integers(len(grid))), int(rng.integers(k))] for _ in range(2)])
    return [Probe((X, y, grid, k, seed), compare="none"),
            *(visible._entry(X, y, grid, k, seed, int(g), int(f)) for g, f in chosen)]


def _transformed(rng, name):
    """Table ``name``, transformed afresh (see the module's doc), its classes renamed."""
    X, y = load_table(name)
    d = X.shape[1]
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    Q, R = np.linalg.qr(rng.normal(size=(d, d)))
    Z = Z @ (Q * np.sign(np.diag(R)))
    Z = Z * np.exp(rng.uniform(np.log(0.5), np.log(2.0), size=d)) + rng.normal(scale=3.0, size=d)
    Z = Z[:, rng.permutation(d)] + rng.normal(scale=0.05, size=Z.shape)
    classes = np.unique(y)
    renamed = dict(zip(classes, _names(rng, len(classes)), strict=True))
    return Z, np.array([renamed[c] for c in y])


def _split(rng, X, y, n_fit, below=None, about=None):
    order = rng.permutation(len(y))
    fit_rows, new_rows = order[:n_fit], order[n_fit:]
    held = {"labels": y[new_rows], **({"below": below} if below else {}), **({"about": about} if about else {})}
    return Probe((Via("pipeline", X[fit_rows], y[fit_rows], int(rng.integers(1000))), X[new_rows]), held=held)


def _drawn(rng, X, y, per):
    """Rows drawn from a Gaussian per class fitted to (X, y), its covariance shrunk halfway to its diagonal."""
    rows, labels = [], []
    for c in np.unique(y):
        part = X[y == c]
        cov = np.cov(part, rowvar=False)
        cov = (cov + np.diag(np.diag(cov))) / 2
        rows.append(rng.multivariate_normal(part.mean(axis=0), cov, size=per))
        labels.append(np.repeat(c, per))
    order = rng.permutation(per * len(rows))
    return np.concatenate(rows)[order], np.concatenate(labels)[order]


def _large(rng):
    """Breast cancer (300 rows to learn from, 269 new) and 600 rows drawn from Gaussians fitted to wine."""
    wine, wine_y = _transformed(rng, "wine")
    cancer, cancer_y = _transformed(rng, "breast_cancer")
    drawn, drawn_y = _drawn(rng, wine, wine_y, 200)
    return [_split(rng, cancer, cancer_y, 300), _split(rng, drawn, drawn_y, 300)]


def _built(rng):
    """New rings, lines and stripes (:func:`kpcourse.datasets.rings` and the others), 150 rows to learn
    from and 150 new each, classes renamed, each within a band of the course's pipeline. Measured over seeds
    30-69: how far at worst two honest pipelines came below the course's (tests/golden's, and one of absolute
    widths 0.3 to 10 and 3 folds), and the best a setting chosen in advance did (a line; a Gaussian of width
    sqrt(d) times 0.25, 0.5, 1, 2), with how many of the 40 draws that setting passed:

    ======= ============= ======================================================== =====
    set     honest, worst fixed, best gap (draws of 40 it passed); the others pass      band
    ======= ============= ======================================================== =====
    rings   0.07, 0.17    line 0.45 (0), 2: 0.03 (18)                              0.20
    lines   0.10, 0.10    0.25: 0.15 (1), 0.5: 0.01 (13)                           0.15
    stripes 0.05, 0.09    line 0.13 (0), 1: 0.05 (1), 2: 0.12 (1)                  0.12
    ======= ============= ======================================================== =====

    So a line fails the rings and the stripes, a narrow Gaussian the lines (a width of 0.5 sqrt(d) in a third
    of the draws), a middle or wide one the stripes."""
    probes = []
    for make, d, below, about in ((rings, rng.integers(3, 7), 0.20, visible.RINGS),
                                  (lines, rng.integers(25, 36), 0.15, visible.LINES),
                                  (stripes, rng.integers(3, 6), 0.12, visible.STRIPES)):
        X, group = make(150 + 150, int(d), random_state=rng)
        probes.append(_split(rng, X, _names(rng, 3)[group], 150, below=below, about=about))
    return probes


def _near(rng):
    """Wine itself (107 rows to learn from, 71 new: one row is 1.4 %, and two honest pipelines' choices of
    kernel differ by up to 0.10 on one split, hence a band of 0.15 there), the large sets, and the built sets."""
    wine, wine_y = _transformed(rng, "wine")
    return [_split(rng, wine, wine_y, 107, below=0.15), *_large(rng), *_built(rng)]


def _close(rng):
    """The large sets within 0.05, and new built sets: a pipeline that does not choose gets neither cell."""
    return [*_large(rng), *_built(rng)]


HIDDEN = {"ex1-model-tests-labels": _labels, "ex1-model-tests-contract": _contract,
          "ex1-model-tests-separable": _separable, "ex1-model-tests-bias": _bias,
          "ex1-model-tests-memorise": _memorise,
          "ex2-select-tests-folds": _select_folds, "ex2-select-tests-table": _select_table,
          "ex2-pipeline-tests-near": _near, "ex2-pipeline-tests-close": _close}

#: At most 150 literals (numbers, strings) in the graded functions, with their helpers and the top-level names
#: they read (the solution's hold 60), none longer than 160 characters (its longest: 50): a list of wine's 178
#: labels, or a string of them, is refused with a message. (A packed encoding fits in fewer characters; the
#: rows the grader transforms and draws afresh are what make any embedded label worthless.)
MAX_LITERALS = (150, 160)

visible_data, cells = declared.grader(visible.LESSON, REFERENCES, HIDDEN,
                                      options={gid: {"max_literals": MAX_LITERALS} for gid in HIDDEN})
