"""Golden submissions of the capstone (lesson 09): common mistakes, choices made in advance, the test part
used, labels typed in, an attack with the public tables, the course's nearest code and reference calls.

Each case is the release with every solution cell filled in from the source, except the
cells in ``replace`` (grade_id -> the whole cell as a student would have typed it).
``expect``: scores of the graded cells listed (every other autograded cell gets full
marks); ``message``: what the failing visible test must say (for a reference call: what the
grader says).
"""

_KERNEL = '''def kernel(A, B, params):
    if params["kernel"] == "linear":
        return A @ B.T + 1.0
    squared = (A ** 2).sum(axis=1)[:, None] + (B ** 2).sum(axis=1)[None, :] - 2 * A @ B.T
    return np.exp(-np.maximum(squared, 0.0) / (2 * params["sigma"] ** 2)) + 1.0


'''

_FIT = '''def fit(X, y, params):
    X, y = np.array(X, dtype=float), np.asarray(y)
    classes, target = np.unique(y, return_inverse=True)
    K = kernel(X, X, params)
    alpha = np.zeros((len(classes), len(y)))
    for _ in range(int(params.get("epochs", 50))):
        mistakes = 0
        for i in range(len(y)):
            scores = alpha @ K[:, i]
            rival = np.argmax(np.where(np.arange(len(classes)) == target[i], -np.inf, scores))
            if scores[target[i]] <= scores[rival]:
                alpha[target[i], i] += 1
                alpha[rival, i] -= 1
                mistakes += 1
        if mistakes == 0:
            break
    return {"classes": classes, "X": X, "alpha": alpha, "params": dict(params)}


'''

_SCORES = '''def _scores(model, X):
    X = np.array(X, dtype=float)
    if "mean" in model:
        X = (X - model["mean"]) / model["scale"]
    return kernel(X, model["X"], model["params"]) @ model["alpha"].T


'''

_SELECT = '''def select(X, y, grid, n_folds, seed):
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    if not 2 <= n_folds <= len(y):
        raise ValueError("2 <= n_folds <= n")
    folds = np.array_split(np.random.default_rng(seed).permutation(len(y)), n_folds)
    table = np.zeros((len(grid), n_folds))
    for f, held in enumerate(folds):
        train = np.setdiff1d(np.arange(len(y)), held)
        for g, params in enumerate(grid):
            table[g, f] = np.mean(predict(fit(X[train], y[train], params), X[held]) != y[held])
    return grid[int(np.argmin(table.mean(axis=1)))], table, folds


'''

_GRID = '''    width = np.sqrt(X.shape[1])
    grid = [{"kernel": "linear", "epochs": 50}] + [
        {"kernel": "rbf", "sigma": c * width, "epochs": 50} for c in (0.25, 0.5, 1.0, 2.0)]
'''

_STANDARDISED = '''def pipeline(X, y, seed):
    X, y = np.array(X, dtype=float), np.asarray(y)
    mean, scale = X.mean(axis=0), X.std(axis=0)
    scale[scale == 0] = 1.0
    Z = (X - mean) / scale
'''

_PIPELINE = _STANDARDISED + _GRID + '''    model = fit(Z, y, select(Z, y, grid, 5, seed)[0])
    model.update(mean=mean, scale=scale)
    return model
'''

_NO_LABELS = {"ex1-model-tests-labels": 0, "ex1-model-tests-separable": 0, "ex1-model-tests-bias": 0,
              "ex1-model-tests-memorise": 0, "ex2-pipeline-tests-near": 0, "ex2-pipeline-tests-close": 0}
_NO_PIPELINE = {"ex2-pipeline-tests-near": 0, "ex2-pipeline-tests-close": 0}

CASES = {
    # ------------------------------------------------------------ common mistakes
    # The position of the class with the largest score, not the class.
    "label-codes": {
        "replace": {"ex1-model": _KERNEL + _FIT + _SCORES + '''def predict(model, X):
    return np.argmax(_scores(model, X), axis=1)
'''},
        "expect": _NO_LABELS,
        "message": "not the class itself",
    },
    # Each batch of new rows standardised with its own mean and spread.
    "batch-statistics": {
        "replace": {"ex1-model": _KERNEL + _FIT + '''def predict(model, X):
    X = np.array(X, dtype=float)
    if "mean" in model:
        X = (X - model["mean"]) / model["scale"]
    X = (X - X.mean(axis=0)) / (X.std(axis=0) + 1e-12) * model["X"].std(axis=0) + model["X"].mean(axis=0)
    return model["classes"][np.argmax(kernel(X, model["X"], model["params"]) @ model["alpha"].T, axis=1)]
'''},
        "expect": {"ex1-model-tests-contract": 0},
        "message": "a row's label depends on the other rows predicted with it",
    },
    # Every entry of the table from a model fitted on all the rows, the fold included (the pipeline chooses
    # with a right cross-validation of its own, so that only select's cells are at stake).
    "select-leaky": {
        "replace": {"ex2-pipeline": _SELECT.replace("        train = np.setdiff1d(np.arange(len(y)), held)\n",
                                                    "        train = np.arange(len(y))\n")
                    + _SELECT.replace("def select(", "def _choose(") + _PIPELINE.replace("select(Z", "_choose(Z")},
        "expect": {"ex2-select-tests-table": 0},
        "message": "fit on those rows only",
    },
    # The first setting, whatever the table says: the pipeline, which chooses with it, is then linear and
    # falls short on the rings and the stripes.
    "select-fixed": {
        "replace": {"ex2-pipeline": _SELECT.replace("grid[int(np.argmin(table.mean(axis=1)))]", "grid[0]")
                    + _PIPELINE},
        "expect": {"ex2-select-tests-folds": 0, **_NO_PIPELINE},
        "message": "the smallest mean",
    },
    # ------------------------------------------------------------ a choice made in advance
    # Standardise, then a linear kernel whatever the data: no choice. The rings and the stripes (visible and
    # hidden, in both accuracy tests) need a Gaussian kernel.
    "no-choice": {
        "replace": {"ex2-pipeline": _SELECT + _STANDARDISED
                    + '''    model = fit(Z, y, {"kernel": "linear", "epochs": 50})
    model.update(mean=mean, scale=scale)
    return model
'''},
        "expect": _NO_PIPELINE,
        "message": "rings that no line separates",
    },
    # A Gaussian kernel of width sqrt(d) on the standardised rows, whatever the data: a good guess on the tables,
    # the rings and the lines, too wide for the stripes.
    "fixed-width": {
        "replace": {"ex2-pipeline": _SELECT + _STANDARDISED
                    + '''    model = fit(Z, y, {"kernel": "rbf", "sigma": np.sqrt(X.shape[1]), "epochs": 50})
    model.update(mean=mean, scale=scale)
    return model
'''},
        "expect": _NO_PIPELINE,
        "message": "stripes that only a narrow Gaussian kernel follows",
    },
    # ------------------------------------------------------------ the development test part
    # The setting whose model, fitted on every development row, makes the fewest mistakes on the test part
    # (the setup cell's X_test and y_test): tuned on the test part. The grader's own run has no development
    # rows (NOT_IN_GRADERS_RUN), so every hidden call of the pipeline fails (NameError); select, honest, keeps
    # its points.
    "tunes-on-test": {
        "replace": {"ex2-pipeline": _SELECT + _STANDARDISED + _GRID
                    + '''    models = [fit(Z, y, params) for params in grid]
    for model in models:
        model.update(mean=mean, scale=scale)
    return min(models, key=lambda model: np.mean(predict(model, X_test) != y_test))
'''},
        "expect": _NO_PIPELINE,
        "message": "in pipeline:",  # (its visible tests fail too: a table with other features than X_test's)
    },
    # ------------------------------------------------------------ data written into the code
    # A table of 178 labels typed into the notebook, which the pipeline keeps beside its model (a lookup the
    # rows' order would serve): the literals' cap (MAX_LITERALS) refuses the pipeline's cells with a message.
    "embedded-labels": {
        "replace": {"ex2-pipeline": "_LABELS = [" + ", ".join(str(i % 3) for i in range(178)) + "]\n\n\n"
                    + _SELECT + _PIPELINE.replace("    model.update(mean=mean, scale=scale)\n",
                                                  "    model.update(mean=mean, scale=scale, table=_LABELS)\n")},
        "expect": _NO_PIPELINE,
        "message": "data written into the code",
    },
    # ------------------------------------------------------------ the public tables
    # The public tables read from the data cache; each new row gets the class of its nearest public row,
    # renamed by the majority of the training rows that match that class: perfect on untransformed rows.
    # Here the source policy stops it first (it reaches the files through os); without the policy the
    # transformed rows defeat it too (tests/test_checks_09.py, test_a_lookup_of_the_public_rows_earns_nothing).
    "public-rows": {
        "replace": {"ex2-pipeline": _SELECT + _SCORES + '''def _public(d):
    import glob
    import os

    for path in glob.glob(os.path.join(os.environ.get("KPCOURSE_CACHE", ""), "tables", "*.csv")) + \\
            glob.glob(os.path.expanduser("~/.cache/kpcourse/tables/*.csv")):
        rows = np.loadtxt(path, delimiter=",", skiprows=1)
        if rows.shape[1] == d + 1:
            return rows[:, :d], rows[:, d]
    raise FileNotFoundError("no public table")


def pipeline(X, y, seed):
    X, y = np.array(X, dtype=float), np.asarray(y)
    P, c = _public(X.shape[1])
    Z = (P - P.mean(axis=0)) / P.std(axis=0)
    near = c[np.argmin(((((X - X.mean(axis=0)) / X.std(axis=0))[:, None] - Z[None]) ** 2).sum(-1), axis=1)]
    rename = {k: y[near == k][np.argmax(np.unique(y[near == k], return_counts=True)[1])] if (near == k).any()
              else y[0] for k in np.unique(c)}
    rename = {k: [v for v in np.unique(y) if v == rename[k]][0] for k in rename}
    return {"public": (Z, c, X.mean(axis=0), X.std(axis=0), rename)}


def predict(model, X):
    if "public" not in model:
        return model["classes"][np.argmax(_scores(model, X), axis=1)]
    Z, c, mean, scale, rename = model["public"]
    near = c[np.argmin(((((np.asarray(X, dtype=float) - mean) / scale)[:, None] - Z[None]) ** 2).sum(-1), axis=1)]
    return np.array([rename[k] for k in near])
'''},
        "expect": _NO_PIPELINE,
        "message": "no exec/eval/getattr/importlib/open/sys/os",
    },
    # ------------------------------------------------------------ the course's nearest code
    # Appendix 07 cell 5's multi-class perceptron pasted as fit, its kernel computed from the rows: it needs
    # labels 0..C-1 and gives them back, so every test with labels of another type fails (strings index
    # nothing; -1 and +1 share a row of the coefficients), and with it select and the pipeline.
    "pasted-trainer": {
        "replace": {"ex1-model": '''def kernel(A, B, params):
    if params["kernel"] == "linear":
        return A @ B.T
    return np.exp(-((A[:, None] - B[None]) ** 2).sum(-1) / (2 * params["sigma"] ** 2))


def fit(X, y, params):
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    K, n_classes = kernel(X, X, params), len(np.unique(y))
    A = np.zeros((n_classes, len(y)))
    for _ in range(params["epochs"]):
        for i in range(len(y)):
            scores = A @ K[:, i]
            r = int(np.argmax(np.where(np.arange(n_classes) == y[i], -np.inf, scores)))
            if scores[y[i]] <= scores[r]:
                A[y[i], i] += 1
                A[r, i] -= 1
    return {"X": X, "A": A, "params": params}


def predict(model, X):
    X = np.asarray(X, dtype=float)
    if "mean" in model:
        X = (X - model["mean"]) / model["scale"]
    return np.argmax(kernel(X, model["X"], model["params"]) @ model["A"].T, axis=1)
'''},
        "expect": {gid: 0 for gid in ("ex1-model-tests-labels", "ex1-model-tests-contract",
                                      "ex1-model-tests-separable", "ex1-model-tests-bias", "ex1-model-tests-memorise",
                                      "ex2-select-tests-folds", "ex2-select-tests-table", *_NO_PIPELINE)},
        "message": "in fit: only integers",  # (a string label used as an index)
    },
    # ------------------------------------------------------------ reference calls
    # scikit-learn's KFold for the folds of select.
    "reference-call": {
        "replace": {"ex2-pipeline": "from sklearn.model_selection import KFold\n\n\n" + _SELECT.replace(
            "    folds = np.array_split(np.random.default_rng(seed).permutation(len(y)), n_folds)\n",
            "    folds = [test for _, test in KFold(n_folds, shuffle=True, random_state=seed).split(X)]\n")
            + _PIPELINE},
        "expect": {"ex2-select-tests-folds": 0, "ex2-select-tests-table": 0, **_NO_PIPELINE},
        "message": "calling sklearn.model_selection.KFold gets no credit",
    },
}
