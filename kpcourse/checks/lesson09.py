"""Checks of the capstone (lesson 09): the student's own multi-class kernel perceptron — ``fit`` and
``predict`` for labels of any type — and a ``pipeline`` that standardises, chooses its settings and
refits, scored on rows it never saw.

Nearest course code, and the probe that defeats a copy of it:

* ``fit`` / ``predict`` (ex1): appendix 07 cell 5's multi-class perceptron takes a precomputed
  Gram matrix and labels 0..C-1, and lecture 07's one-vs-rest trains on precomputed scores; the
  probes pass raw rows and labels that are strings, numbers other than 0..C-1 and floats, and ask
  for the same labels back. The locked helpers of assignments 07 and 08 are binary.
* ``pipeline`` (ex2): lecture 08's cells tagged ``optimism`` and ``gridsearch`` choose σ with
  scikit-learn (absent while grading). The hidden rows are the capstone's tables, transformed afresh
  for every notebook (a random rotation, scales, offsets, the features shuffled, jitter), and rows
  drawn from Gaussians the grader fits: no row is a public row, so no public label helps; the true
  labels never reach the student's code (:attr:`~kpcourse.checks.exercise.Probe.held`), and each
  accuracy is judged against the grader's own pipeline on the same split.
"""

from __future__ import annotations

import numpy as np

from kpcourse.checks._core import Via, _type_name, fmt, load_mistakes
from kpcourse.checks.exercise import Check, Exercise, Lesson, Probe, comparison
from kpcourse.datasets import lines, rings, stripes

__all__ = ["LESSON", "test", "LINEAR", "rbf", "GRID"]

#: The named mistakes, key -> hint (``data/lesson09.mistakes.toml``).
MISTAKES = load_mistakes("lesson09")

#: The settings every ``fit`` understands: a linear kernel, and a Gaussian one of width sigma.
LINEAR = {"kernel": "linear", "epochs": 200}


def rbf(sigma, epochs=50):
    """The settings of a Gaussian kernel of width ``sigma``."""
    return {"kernel": "rbf", "sigma": float(sigma), "epochs": int(epochs)}


_R = np.random.default_rng(900)

# Three well-separated groups in 4-D (10 rows each) and one query near the middle of each group.
_CENTRES = np.array([[4.0, 0, 0, 0], [0, 4.0, 0, 0], [0, 0, 4.0, 0]])
XB = np.round(np.repeat(_CENTRES, 10, axis=0) + _R.normal(scale=0.5, size=(30, 4)), 2)
_GROUP = np.repeat(np.arange(3), 10)
XB_NEW = np.round(_CENTRES + _R.normal(scale=0.2, size=(3, 4)), 2)
NAMES = np.array(["ash", "birch", "cedar"])
CODES = np.array([10, 20, 30])
LEVELS = np.array([-1.5, 0.5, 2.5])

# Three overlapping groups in 3-D (60 rows), twelve new rows: a model with mistakes on its own rows.
XO = np.round(_R.normal(size=(60, 3)) + np.repeat(np.eye(3) * 1.2, 20, axis=0), 2)
YO = np.repeat(NAMES, 20)
XO_NEW = np.round(_R.normal(size=(12, 3)) * 1.5, 2)
FAR = np.full((4, 3), 1000.0)

# Five groups at the corners of a pentagon (8 rows each, 2-D): separable by lines, not through 0.
_ANGLE = 2 * np.pi * np.arange(5) / 5
XP = np.round(np.repeat(np.c_[np.cos(_ANGLE), np.sin(_ANGLE)] * 4 + 1.5, 8, axis=0)
              + _R.uniform(-0.6, 0.6, size=(40, 2)), 2)
YP = np.repeat(np.array(["p0", "p1", "p2", "p3", "p4"]), 8)
# Two classes on the same side of the origin (x_0 below 2.5 or above 3.5): separable only with a bias.
# Two rows on one ray from the origin, one of each class: no line through 0 separates them.
XS = np.round(np.c_[np.r_[_R.uniform(1.0, 2.5, size=8), 2.0, _R.uniform(3.5, 5.0, size=8), 4.0],
                    np.r_[_R.uniform(-1, 1, size=8), 0.0, _R.uniform(-1, 1, size=8), 0.0]], 2)
YS = np.repeat(np.array([-1, 1]), 9)

# Thirty distinct points in 5-D with labels drawn at random: a narrow Gaussian kernel memorises them.
XM = np.round(_R.uniform(-1, 1, size=(30, 5)), 2)
YM = NAMES[_R.integers(0, 3, size=30)]

# Cross-validation: the overlapping groups, three settings of few epochs.
GRID = [{"kernel": "linear", "epochs": 20}, rbf(0.5, 20), rbf(2.0, 20)]
FOLDS, SEED = 4, 5
#: (setting, fold) of the visible table entries recomputed with the student's own fit and predict.
ENTRIES = ((1, 0), (2, 3))


def _fold_rows(n, k, seed, f):
    """Rows of fold ``f`` and of the other folds (in their order in the data), by the rule the notebook states."""
    folds = np.array_split(np.random.default_rng(seed).permutation(n), k)
    return np.setdiff1d(np.arange(n), folds[f]), folds[f]


def _entry(X, y, grid, k, seed, g, f):
    """A probe of the table entry (g, f): predict on fold f with fit on the other folds, grid[g]."""
    rest, fold = _fold_rows(len(y), k, seed, f)
    return Probe((Via("fit", X[rest], y[rest], grid[g]), X[fold]), function="predict", like=0,
                 compare="capstone_entry", held={"entry": (g, f), "labels": y[fold]}, mistake="leaky",
                 label=f"the table's entry for grid[{g}] and fold {f}, recomputed with your fit and predict")


# The pipeline: three Gaussian classes in 8-D, 150 rows to learn from, 150 new rows.
_MEANS = _R.normal(scale=1.0, size=(3, 8))
_SCALE = np.round(_R.uniform(0.4, 7.0, size=8), 2)  # features on different scales: standardising matters
_CLASS = np.tile(np.arange(3), 100)
XG = np.round((_MEANS[_CLASS] + _R.normal(size=(300, 8))) * _SCALE + 50, 3)
YG = NAMES[_CLASS]
XG_FIT, YG_FIT, XG_NEW, YG_NEW = XG[:150], YG[:150], XG[150:], YG[150:]

# Three sets whose best kernels differ (kpcourse.datasets' rings, lines and stripes; the grader draws new ones
# for every notebook): any one setting chosen in advance falls far short on one of them. 150 rows of each to
# learn from and 150 new rows, classes 10, 20, 30.
_SETS = np.random.default_rng(901)
XR, YR = rings(300, 3, random_state=_SETS)
XL, YL = lines(300, 30, random_state=_SETS)
XT, YT = stripes(300, 3, random_state=_SETS)
XR, XL, XT = np.round(XR, 3), np.round(XL, 3), np.round(XT, 3)
YR, YL, YT = CODES[YR], CODES[YL], CODES[YT]
#: What the messages call each set.
RINGS = "rings that no line separates"
LINES = "classes split by lines in many features, which a narrow Gaussian kernel misses"
STRIPES = "stripes that only a narrow Gaussian kernel follows"


def _model(X, y, params):
    return Via("fit", X, y, params)


# ------------------------------------------------------------------ comparisons
def _label_array(value, like, name, given="fit"):
    """``value`` as an array of one label per entry of ``like`` (the true labels), strings where they are
    strings and numbers where they are numbers (unless ``given`` is None), or an ``AssertionError`` that says
    what came back."""
    try:
        arr = np.asarray(value) if isinstance(value, (list, tuple, np.ndarray)) else None
    except Exception:  # noqa: BLE001 - something odd came back
        arr = None
    if arr is None or arr.shape != np.shape(like):
        raise AssertionError(f"{name} should return {len(like)} labels (one per row), got {_type_name(value)} "
                             f"{fmt(value)}")
    if given and (arr.dtype.kind in "US") != (np.asarray(like).dtype.kind in "US"):
        kind = "strings" if np.asarray(like).dtype.kind in "US" else "numbers"
        raise AssertionError(f"{name} should return labels like the ones {given} was given ({kind}), got "
                             f"{fmt(value)}")
    return arr


@comparison("capstone_labels")
def _labels(value, expected, name, check, probe, answer):
    """The same labels as the training labels' type (strings stay strings), entry by entry."""
    want = np.asarray(expected)
    arr = _label_array(value, want, name)
    if not np.array_equal(arr, want):
        raise AssertionError(f"{name} gave {int((arr != want).sum())} wrong label(s) of {len(want)}: {fmt(value)}")


@comparison("capstone_head")
def _head(value, expected, name, check, probe, answer):
    """One label per new row, and the rows it shares with another call labelled alike."""
    n = len(probe.args[1])
    arr = np.asarray(value) if isinstance(value, (list, tuple, np.ndarray)) else None
    if arr is None or arr.shape != (n,):
        raise AssertionError(f"{name} should return {n} labels (one per row), got {fmt(value)}")
    m = min(n, len(expected))
    if not np.array_equal(arr[:m], np.asarray(expected)[:m]):
        raise AssertionError(f"{name} labels the same rows differently")


@comparison("capstone_accuracy")
def _accuracy(value, expected, name, check, probe, answer):
    """Accuracy on the held labels at most ``below`` under the grader's pipeline's: ``check.options["below"]``,
    or the probe's own (``held={"labels": ..., "below": ...}``, for a small test part); ``held["about"]`` says
    in the message what the rows were."""
    held = probe.held if isinstance(probe.held, dict) else {"labels": probe.held}
    truth, below = np.asarray(held["labels"]), held.get("below", check.options["below"])
    arr = _label_array(value, truth, name, given="pipeline")
    mine, course = float(np.mean(arr == truth)), float(np.mean(np.asarray(expected) == truth))
    if mine < course - below - 1e-12:
        about = f" ({held['about']})" if held.get("about") else ""
        raise AssertionError(f"{name}: accuracy {mine:.3f}, more than {below:.2f} below the course's own pipeline "
                             f"on the same rows{about} ({course:.3f})")


@comparison("capstone_folds")
def _folds(value, expected, name, check, probe, answer):
    """The folds of the stated rule, exactly (a list of arrays of row indices)."""
    try:
        folds = [np.asarray(f) for f in value[2]]
        same = len(folds) == len(expected[2]) and all(
            f.shape == np.shape(e) and np.array_equal(f, e) for f, e in zip(folds, expected[2], strict=False))
    except Exception:  # noqa: BLE001 - something odd came back
        same = False
    if not same:
        raise AssertionError(f"{name}: the folds are not np.array_split(np.random.default_rng(seed).permutation(n), "
                             "n_folds)")


#: Mean errors closer than this are a tie (error rates are multiples of 1/rows; rounding is far below it).
TIE = 1e-9


def _same_setting(value, setting):
    """``value`` is the grid's ``setting`` (a dict of parameters), whatever came back."""
    try:
        return bool(value == setting)
    except Exception:  # noqa: BLE001 - something odd came back (an array compared with a dict)
        return False


@comparison("capstone_best")
def _best(value, expected, name, check, probe, answer):
    """best is a setting of the smallest mean error in the answer's own table (ties up to rounding, :data:`TIE`)."""
    grid = probe.args[2]
    try:
        table = np.asarray(value[1], dtype=float)
        ok_shape = table.shape == (len(grid), probe.args[3]) and bool(np.all((table >= 0) & (table <= 1)))
    except Exception:  # noqa: BLE001 - something odd came back
        ok_shape = False
    if not ok_shape:
        raise AssertionError(f"{name}: the table should be an array of shape (len(grid), n_folds) = "
                             f"{(len(grid), probe.args[3])} of error rates between 0 and 1, got {fmt(value[1])}")
    means = table.mean(axis=1)
    # the smallest means, up to rounding: the same error rates summed in another order (a mean of the rows, or
    # sums over the folds) differ in their last bits, so which of two equal rows is "first" is not the check's
    smallest = np.flatnonzero(means <= means.min() + TIE)
    if not any(_same_setting(value[0], grid[g]) for g in smallest):
        raise AssertionError(f"{name}: best is {fmt(value[0])}, not a setting with the smallest mean error "
                             "in your own table")


@comparison("capstone_entry")
def _table_entry(value, expected, name, check, probe, answer):
    """The error rate of the labels predicted on one fold equals the table's entry (the like probe's answer)."""
    truth, (g, f) = np.asarray(probe.held["labels"]), probe.held["entry"]
    arr = _label_array(value, truth, name, given=None)  # (the labels' type is judged in part 1)
    try:
        entry = float(np.asarray(expected[1], dtype=float)[g, f])
    except Exception:  # noqa: BLE001 - the table's shape is judged by the other check
        raise AssertionError(f"{name}: your select's table has no entry ({g}, {f})") from None
    if abs(float(np.mean(arr != truth)) - entry) > 1e-9:
        raise AssertionError(f"{name}: your table says {entry:.4f}, your fit and predict give "
                             f"{float(np.mean(arr != truth)):.4f}")


# ----------------------------------------------------------------- the exercises
MODEL = Exercise(
    "predict", "ex1-model", "fit and predict", helpers=("fit",), time_limit=20.0, mistakes=MISTAKES["predict"],
    checks=[
        Check("ex1-model-tests-labels", compare="capstone_labels", hidden_label="new groups, labels of each type",
              mistakes=("label_codes",), whole=True, probes=[
                  Probe((_model(XB, NAMES[_GROUP], LINEAR), XB_NEW),
                        label="three groups of 10 rows in 4-D labelled 'ash', 'birch', 'cedar', a row near each"),
                  Probe((_model(XB, CODES[_GROUP], LINEAR), XB_NEW), label="the same labelled 10, 20, 30"),
                  Probe((_model(XB, LEVELS[_GROUP], rbf(2.0)), XB_NEW),
                        label="the same labelled -1.5, 0.5, 2.5, a Gaussian kernel (sigma=2)"),
                  Probe((_model(XB[:20], NAMES[_GROUP][:20], LINEAR), XB_NEW[:2]),
                        label="two of the groups ('ash', 'birch')")]),
        Check("ex1-model-tests-contract", compare="capstone_head", hidden_label="new data", pure="changes_input",
              probes=[
                  Probe((_model(XO, YO, rbf(1.0)), XO_NEW), compare="none",
                        label="three overlapping groups of 20 rows in 3-D, sigma=1, 12 new rows"),
                  Probe((_model(XO, YO, rbf(1.0)), XO_NEW), like=0, mistake="not_deterministic",
                        label="the same fit and rows again"),
                  Probe((_model(XO, YO, rbf(1.0)), XO_NEW[:1]), like=0, mistake="batch_statistics",
                        label="the first new row alone"),
                  Probe((_model(XO, YO, rbf(1.0)), np.r_[XO_NEW, FAR]), like=0, mistake="batch_statistics",
                        label="the 12 new rows and 4 far-away rows in one call")]),
        Check("ex1-model-tests-separable", compare="capstone_labels", hidden_label="new separable groups",
              probes=[
                  Probe((_model(XP, YP, LINEAR), XP), mistake="not_separating",
                        label="five groups of 8 rows at the corners of a pentagon, linear kernel, "
                              "predicted on the rows learned")]),
        Check("ex1-model-tests-bias", compare="capstone_labels", hidden_label="new groups split by a line that "
              "misses the origin", probes=[
                  Probe((_model(XS, YS, LINEAR), XS), mistake="no_bias",
                        label="two groups split by the line x_0 = 3 (labels -1, 1), two of their rows on one ray "
                              "from 0, linear kernel, predicted on the rows learned")]),
        Check("ex1-model-tests-memorise", compare="capstone_labels", hidden_label="new random points and labels",
              probes=[
                  Probe((_model(XM, YM, rbf(0.05)), XM), mistake="not_memorised",
                        label="30 random rows in 5-D with random labels, sigma=0.05, predicted on the rows "
                              "learned")]),
    ])

SELECT = Exercise(
    "select", "ex2-pipeline", "cross-validation", helpers=("fit", "predict"), time_limit=30.0,
    mistakes=MISTAKES["select"], checks=[
        Check("ex2-select-tests-folds", hidden_label="new data, grids and seeds", probes=[
            Probe((XO, YO, GRID, FOLDS, SEED), compare="capstone_folds", mistake="fold_rule",
                  label=f"the three overlapping groups, grid={GRID}, n_folds={FOLDS}, seed={SEED}: the folds"),
            Probe((XO, YO, GRID, FOLDS, SEED), compare="capstone_best", mistake="not_argmin",
                  label="the same: the table and best"),
            Probe((XO, YO, GRID, 1, SEED), raises="ValueError", why="n_folds is 1")]),
        Check("ex2-select-tests-table", hidden_label="new data, grids, seeds and entries", probes=[
            Probe((XO, YO, GRID, FOLDS, SEED), compare="none", label="the same call"),
            *(_entry(XO, YO, GRID, FOLDS, SEED, g, f) for g, f in ENTRIES)]),
    ])

PIPELINE = Exercise(
    "predict", "ex2-pipeline", "the pipeline", helpers=("pipeline", "fit"), time_limit=60.0, checks=[
        Check("ex2-pipeline-tests-near", compare="capstone_accuracy", options={"below": 0.10},
              hidden_label="new rows of the capstone's tables, transformed, rows drawn from them, and new rings, "
                           "lines and stripes",
              probes=[
                  Probe((Via("pipeline", XG_FIT, YG_FIT, 0), XG_NEW), held=YG_NEW,
                        label="three Gaussian classes in 8-D on scales from 0.4 to 7, 150 rows to learn from, "
                              "150 new rows"),
                  *(Probe((Via("pipeline", X[:150], Y[:150], 0), X[150:]),
                          held={"labels": Y[150:], "below": below, "about": about},
                          label=f"{about}, {X.shape[1]} features, 150 rows to learn from, 150 new rows")
                    for X, Y, below, about in ((XR, YR, 0.20, RINGS), (XL, YL, 0.15, LINES),
                                               (XT, YT, 0.12, STRIPES)))]),
        Check("ex2-pipeline-tests-close", compare="capstone_accuracy", options={"below": 0.05},
              hidden_label="new rows of breast cancer, transformed, and rows drawn from wine (within 0.05), and new "
                           "rings, lines and stripes (within the near test's bands)", probes=[
                  Probe((Via("pipeline", XG_FIT, YG_FIT, 1), XG_NEW), held=YG_NEW,
                        label="the same rows, seed=1")]),
    ])

LESSON = Lesson("lesson09", [MODEL, SELECT, PIPELINE])
test = LESSON.test
