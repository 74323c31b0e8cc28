"""Lesson 04's checks on hand-written mistakes (tests/test_exercises.py iterates the declared ones).

The right functions are the solution cells of ``source/04-kernel-trick`` (executed here);
each wrong one below makes a single common mistake. Messages must name the mistake and
never contain the expected numbers. The checks hold data (``kpcourse/checks/data/lesson04.json``):
it must equal what the grader's references compute, the references must agree with the
package's, and the grader's cells must pass the solution and fail the mistakes.
"""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from kpcourse import kernels
from kpcourse.checks import _core
from kpcourse.checks import lesson04 as checks
from kpcourse.grading import policy
from kpcourse.grading.spec import Cell
from kpcourse.grading.trusted import load_grader

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "source" / "04-kernel-trick"
GRADER = load_grader(SOURCE / "grader.py")
NAMES = ("phi", "identity_gap", "kernel_perceptron_train", "kernel_perceptron_predict", "count_features")


ASPECTS = {"phi": ("ex1-phi-tests-", ("shape", "values")), "gap": ("ex2-gap-tests-", ("values", "errors")),
           "train": ("ex3-train-tests-", ("basic", "rule", "stop")),
           "predict": ("ex4-predict-tests-", ("basic", "details")), "count": ("ex5-count-tests-", ("basic", "values"))}


def _diagnose(exercise, func, aspect="all", **helpers):
    """The visible tests of one aspect (a test cell) of an exercise, or of all its cells."""
    __tracebackhide__ = True
    prefix, aspects = ASPECTS[exercise]
    for a in aspects if aspect == "all" else (aspect,):
        checks.test(prefix + a, func, **helpers)


def diagnose_phi(func, aspect="all"):
    _diagnose("phi", func, aspect)


def diagnose_identity_gap(func, aspect="all"):
    _diagnose("gap", func, aspect, **checks.FEATURE_MAPS)


def diagnose_kernel_train(func, aspect="all"):
    _diagnose("train", func, aspect)


def diagnose_kernel_predict(func, aspect="all"):
    _diagnose("predict", func, aspect)


def diagnose_count_features(func, aspect="all"):
    _diagnose("count", func, aspect)


def _cells(kind):
    """grade_id -> source of the source notebook's solution cells, or of its given (locked, ungraded) code cells."""
    nb = json.loads((SOURCE / "04-kernel-trick.ipynb").read_text())
    out = {}
    for c in nb["cells"]:
        md = c["metadata"].get("nbgrader", {})
        if c["cell_type"] != "code" or not md:
            continue
        if (kind == "solution" and md.get("solution")) or \
                (kind == "given" and md.get("locked") and not md.get("grade")):
            code = "".join(c["source"])
            out[md["grade_id"]] = "\n".join(ln for ln in code.splitlines() if "### " not in ln)
    return out


def _solution():
    """The source's solutions, executed after the given (locked) cells, as a student's kernel would."""
    ns = {}
    for code in [*_cells("given").values(), *_cells("solution").values()]:
        exec(code, ns)
    return ns


SOLUTION = _solution()
SOLUTION_FUNCTIONS = {n: SOLUTION[n] for n in NAMES}


# --------------------------------------------------------------------------- #
# Common mistakes
# --------------------------------------------------------------------------- #

SQRT2 = np.sqrt(2.0)


def make_phi(cross=SQRT2, order=(0, 1, 2), check=True, in_place=False):
    def phi(X):
        if in_place:
            X[:, 0] = X[:, 0] ** 2
            X[:, 0] = np.sqrt(X[:, 0]) * np.sign(X[:, 0])
        X = np.asarray(X, dtype=float)
        if check and (X.ndim != 2 or X.shape[1] != 2):
            raise ValueError(f"X must have shape (n, 2), got {X.shape}")
        cols = [X[:, 0] ** 2, X[:, 1] ** 2, cross * X[:, 0] * X[:, 1]]
        return np.column_stack([cols[i] for i in order])
    return phi


def make_gap(how="max", check=True, square=True):
    def identity_gap(feature_map, X, Z):
        X, Z = np.asarray(X, dtype=float), np.asarray(Z, dtype=float)
        if check and X.shape[1] != Z.shape[1]:
            raise ValueError("X and Z must have the same number of columns")
        D = feature_map(X) @ feature_map(Z).T - (X @ Z.T) ** (2 if square else 1)
        if how == "table":
            return np.abs(D)
        return float({"max": np.abs(D).max(), "signed": D.max(), "flipped": (-D).max(),
                      "mean": np.abs(D).mean(), "sum": np.abs(D).sum()}[how])
    return identity_gap


def make_train(kernel="quadratic", zero_is_mistake=True, bias=True, step="one", epochs_extra=0,
               early_stop=True, bias_in_score=True):
    def kernel_perceptron_train(X, y, max_epochs):
        X, y = np.asarray(X, dtype=float), np.asarray(y)
        if X.ndim != 2 or len(y) != len(X):
            raise ValueError("X must be (n, d) and y must hold n labels")
        G = X @ X.T
        K = {"quadratic": (1 + G) ** 2, "homogeneous": G ** 2, "linear": G}[kernel]
        alpha, b = np.zeros(len(y), dtype=int), 0.0
        for _ in range(max_epochs + epochs_extra):
            mistakes = 0
            for i in range(len(y)):
                s = y[i] * ((alpha * y) @ K[:, i] + (b if bias_in_score else 0))
                if (s <= 0) if zero_is_mistake else (s < 0):
                    alpha[i] = alpha[i] + 1 if step == "one" else 1
                    b += y[i] if bias else 0
                    mistakes += 1
            if mistakes == 0 and early_stop:
                break
        return alpha, b
    return kernel_perceptron_train


def make_predict(kernel="quadratic", use_y=True, use_b=True, zero=-1, scores=False):
    def kernel_perceptron_predict(X_train, y_train, alpha, b, X_new):
        X_train, X_new = np.asarray(X_train, dtype=float), np.asarray(X_new, dtype=float)
        if X_new.shape[1] != X_train.shape[1]:
            raise ValueError("X_new and X_train must have the same number of columns")
        G = X_new @ X_train.T
        K = {"quadratic": (1 + G) ** 2, "homogeneous": G ** 2, "linear": G}[kernel]
        f = K @ (np.asarray(alpha) * (np.asarray(y_train) if use_y else 1)) + (b if use_b else 0)
        if scores:
            return f
        return np.where(f > 0, 1, np.where(f < 0, -1, zero))
    return kernel_perceptron_predict


def make_count(kind="right", check=True):
    def count_features(d, degree):
        if check and (d < 1 or degree < 1):
            raise ValueError("d and degree must be at least 1")
        return {"right": lambda: math.comb(d + degree, degree),
                "exact": lambda: math.comb(d + degree - 1, degree),
                "float": lambda: math.factorial(d + degree) / (math.factorial(d) * math.factorial(degree)),
                "int64": lambda: int(np.int64(math.comb(min(d, 100) + degree, degree))),
                "ordered": lambda: (d + 1) ** degree,
                "no_constant": lambda: math.comb(d + degree, degree) - 1}[kind]()
    return count_features


# --------------------------------------------------------------------------- #
# Data, references and the lesson module
# --------------------------------------------------------------------------- #

def _disc(seed, n=40):
    X = np.round(np.random.default_rng(seed).uniform(-2, 2, size=(n, 2)) * 8) / 8
    return X, np.where(np.linalg.norm(X, axis=1) < 1, -1, 1)


@pytest.mark.parametrize("seed", [0, 1])
def test_grader_references_are_the_package_ones(seed):
    from kpcourse.perceptron import KernelPerceptron

    for X, y, epochs in [(checks.TRAIN_X, checks.TRAIN_Y, 20), (*_disc(seed), 2),
                         (*_disc(seed), 30)]:
        ref = KernelPerceptron(kernel="poly", degree=2, coef0=1.0, shuffle=False, max_epochs=epochs,
                               device="cpu").fit(X, y)
        alpha, b = GRADER.kernel_train(X, y, epochs)
        np.testing.assert_array_equal(alpha, ref.alpha_)
        assert b == ref.intercept_
        new = np.random.default_rng(seed).uniform(-2, 2, size=(30, 2))
        np.testing.assert_array_equal(GRADER.kernel_perceptron_predict(X, y, alpha, b, new), ref.predict(new))
    A = np.random.default_rng(seed).normal(size=(20, 2))
    np.testing.assert_allclose(GRADER.phi(A), kernels.quadratic_features(A))
    for d in (1, 2, 10, 784):
        for n in (1, 2, 3, 5):
            assert GRADER.count(d, n) == kernels.n_polynomial_features(d, n)


def test_probe_of_train_exercises_repeated_mistakes():
    alpha, _ = GRADER.kernel_train(checks.TRAIN_X, checks.TRAIN_Y, 20)
    assert alpha.max() >= 2


def test_probes_separate_every_mistake():
    d = checks.LESSON.data
    rule = d["ex3-train-tests-rule"]
    results = [(tuple(rule["expected"][0][0]), rule["expected"][0][1])]
    results += [(tuple(m[0]), m[1]) for m in rule["mistaken"][0].values()]
    assert len(set(results)) == len(results)
    basic, details = d["ex4-predict-tests-basic"], d["ex4-predict-tests-details"]
    right = tuple(basic["expected"][0])
    labels = [right, *(tuple(basic["mistaken"][0][k]) for k in ("no_y", "no_b")),
              *(tuple(details["mistaken"][0][k]) for k in ("homogeneous", "linear"))]
    assert len(set(labels)) == len(labels) and tuple(-np.asarray(right)) not in labels
    gap = d["ex2-gap-tests-values"]
    for k in (1, 2):
        values = [gap["expected"][k], *gap["mistaken"][k].values()]
        assert len({round(v, 9) for v in values}) == len(values) - 1  # one of signed/flipped is max
    assert gap["mistaken"][1]["signed"] != gap["expected"][1]
    assert gap["mistaken"][2]["flipped"] != gap["expected"][2]


def test_given_maps_are_the_notebook_cell():
    code = _cells("given")["ex2-maps"]
    ns = {"np": np}
    exec(code, ns)
    rng = np.random.default_rng(0)
    for name, func in checks.FEATURE_MAPS.items():
        for d in ((2,) if name == "phi_without_root" else (1, 2, 3, 5)):
            A = rng.normal(size=(7, d))
            np.testing.assert_array_equal(ns[name](A), func(A))
    A, Z = rng.normal(size=(9, 4)), rng.normal(size=(6, 4))
    F = checks.all_ordered_products
    np.testing.assert_allclose(F(A) @ F(Z).T, (A @ Z.T) ** 2, rtol=1e-12, atol=1e-12)


# --------------------------------------------------------------------------- #
# The grader's cells: pass the solution, fail each mistake, on answers as data
# --------------------------------------------------------------------------- #

def _roundtrip(data):
    return json.loads(json.dumps(data, allow_nan=True))


def test_feature_maps_reach_the_sandbox_by_name():
    for test in GRADER.cells()["ex2-gap-tests-values"].tests:
        for c in test.calls:
            sent = _core.Call.from_data(_roundtrip(c.to_data()))
            assert isinstance(sent.args[0], _core.Ref) and sent.args[0].name in checks.FEATURE_MAPS


def _with(**changed):
    return {**SOLUTION_FUNCTIONS, **checks.FEATURE_MAPS, **changed}


@pytest.mark.parametrize("gid,changed,expected", [
    ("ex1-phi-tests-values", {"phi": make_phi(cross=1.0)}, "the cross term needs the factor √2"),
    ("ex1-phi-tests-shape", {"phi": make_phi(check=False)}, "should raise ValueError"),
    ("ex1-phi-tests-shape", {"phi": make_phi(in_place=True)}, "changed the array X passed in"),
    ("ex2-gap-tests-values", {"identity_gap": make_gap("signed")}, "take np.abs"),
    ("ex2-gap-tests-values", {"identity_gap": make_gap("flipped")}, "can overshoot"),
    ("ex2-gap-tests-errors", {"identity_gap": make_gap("table")}, "should return one number"),
    ("ex3-train-tests-rule", {"kernel_perceptron_train": make_train(bias=False)}, "ignores the bias"),
    ("ex3-train-tests-basic", {"kernel_perceptron_train": make_train(zero_is_mistake=False)},
     "sign(0) must count as a mistake"),
    ("ex3-train-tests-stop", {"kernel_perceptron_train": make_train(epochs_extra=1)}, "at most max_epochs"),
    ("ex4-predict-tests-details", {"kernel_perceptron_predict": make_predict(zero=0)}, "np.sign(0) is 0"),
    ("ex4-predict-tests-basic", {"kernel_perceptron_predict": make_predict(use_b=False)}, "ignores the bias b"),
    ("ex5-count-tests-values", {"count_features": make_count("exact")}, "degree exactly"),
    ("ex5-count-tests-basic", {"count_features": make_count("float")}, "should return an int"),
])
def test_cells_fail_common_mistakes_with_their_hint(gid, changed, expected, message):
    assert expected in message(Cell.judge_here, GRADER.cells()[gid], _with(**changed))


@pytest.mark.parametrize("gid,changed,expected,secret", [
    # hidden tests alone (the visible probes pass these)
    ("ex1-phi-tests-shape", {"phi": lambda X: make_phi()(X) if np.shape(X)[0] < 6 else make_phi()(X)[:5]},
     "phi on new X: shape (6, 3) expected", None),
    ("ex3-train-tests-stop", {"kernel_perceptron_train": lambda X, y, e: make_train()(X, y, min(e, 3))},
     "on points where every visit is a mistake", None),
    ("ex5-count-tests-values", {"count_features": lambda d, n: make_count()(d, n) if n != 7 else 0},
     "count_features on other sizes returned 0", "8"),
    ("ex2-gap-tests-values", {"identity_gap": lambda f, X, Z: make_gap()(f, X, Z) if len(X) < 20 else 0.5},
     "identity_gap on new points: you returned 0.5", None),
])
def test_hidden_tests_fail_without_showing_expected_values(gid, changed, expected, secret, message):
    msg = message(Cell.judge_here, GRADER.cells()[gid], _with(**changed))
    assert expected in msg, msg
    assert secret is None or secret not in msg, msg


def test_exercise_two_is_graded_without_the_students_phi():
    """A wrong or forbidden phi costs points in exercise 1 only."""
    cells = GRADER.cells()
    for gid in ("ex2-gap-tests-values", "ex2-gap-tests-errors"):
        assert "phi" not in cells[gid].called()
        cells[gid].judge_here(_with(phi=make_phi(cross=1.0)))
    student = dict(_cells("solution"))
    student["ex1-phi"] = ("from kpcourse.kernels import quadratic_features\n\n\n"
                          "def phi(X):\n    return quadratic_features(X)\n")
    program = policy.Program(list(student.values()), list(_cells("given").values()))
    for gid, cell in cells.items():
        problems = program.verdict(cell.called(), GRADER.FORBIDDEN, cell.allow, cell.what)
        if gid.startswith("ex1-"):
            assert any("calling kpcourse.kernels.quadratic_features gets no credit" in p for p in problems)
        else:
            assert problems == [], (gid, problems)


def test_top_level_use_of_the_given_maps_is_not_an_escape():
    """Trying identity_gap on the given maps in a scratch cell costs nothing."""
    program = policy.Program([_cells("solution")["ex2-gap"],
                              "identity_gap(phi_without_root, np.ones((2, 2)), np.ones((3, 2)))\n"],
                             list(_cells("given").values()))
    cell = GRADER.cells()["ex2-gap-tests-values"]
    assert program.verdict(cell.called(), GRADER.FORBIDDEN, cell.allow, cell.what) == []


# --------------------------------------------------------------------------- #
# phi
# --------------------------------------------------------------------------- #

def test_phi_solution_passes_every_aspect():
    for aspect in ("all", "shape", "values"):
        diagnose_phi(SOLUTION["phi"], aspect=aspect)


@pytest.mark.parametrize("wrong,aspect,needle", [
    (make_phi(cross=1.0), "values", "the cross term needs the factor √2"),
    (make_phi(cross=2.0), "values", "the factor is √2"),
    (make_phi(order=(0, 2, 1)), "values", "wrong order"),
    (make_phi(cross=1.5), "values", "each row must be (x1², x2², √2·x1·x2)"),
    (make_phi(check=False), "shape", "should raise ValueError when X has shape (4, 3)"),
    (make_phi(in_place=True), "shape", "changed the array X passed in"),
])
def test_phi_mistakes_are_named(wrong, aspect, needle, message):
    msg = message(diagnose_phi, wrong, aspect=aspect)
    assert needle in msg, msg


def test_phi_missing_sqrt2_still_passes_the_shape_aspect():
    diagnose_phi(make_phi(cross=1.0), aspect="shape")


# --------------------------------------------------------------------------- #
# identity_gap
# --------------------------------------------------------------------------- #

def test_gap_solution_passes_and_matches_the_lesson():
    gap = SOLUTION["identity_gap"]
    for aspect in ("all", "values", "errors"):
        diagnose_identity_gap(gap, aspect=aspect)
    A = np.random.default_rng(0).normal(size=(30, 2))
    assert gap(kernels.quadratic_features, A, A[:7]) < 1e-12
    assert gap(checks.phi_without_root, np.array([[1.0, 2.0]]), np.array([[3.0, 4.0]])) == 24.0  # the example


@pytest.mark.parametrize("wrong,aspect,needle", [
    (make_gap("signed"), "values", "can undershoot"),
    (make_gap("flipped"), "values", "can overshoot"),
    (make_gap("mean"), "values", "not the mean"),
    (make_gap("sum"), "values", "not the sum"),
    (make_gap(square=False), "values", "not rounding-size"),
    (make_gap("table"), "errors", "should return one number"),
])
def test_gap_mistakes_are_named(wrong, aspect, needle, message):
    msg = message(diagnose_identity_gap, wrong, aspect=aspect)
    assert needle in msg, msg


# --------------------------------------------------------------------------- #
# kernel perceptron: train
# --------------------------------------------------------------------------- #

def test_train_solution_passes():
    for aspect in ("all", "basic", "rule", "stop"):
        diagnose_kernel_train(SOLUTION["kernel_perceptron_train"], aspect=aspect)


@pytest.mark.parametrize("wrong,aspect,needle", [
    (make_train(bias=False), "rule", "ignores the bias"),
    (make_train(bias_in_score=False), "rule", "never enters the score"),
    (make_train(kernel="homogeneous"), "rule", "(x·z)², without the 1"),
    (make_train(kernel="linear"), "rule", "linear x·z"),
    (make_train(step="set"), "rule", "not just mark them with 1"),
    (make_train(zero_is_mistake=False), "basic", "sign(0) must count as a mistake"),
    (make_train(epochs_extra=1), "stop", "run at most max_epochs epochs"),
])
def test_train_mistakes_are_named(wrong, aspect, needle, message):
    msg = message(diagnose_kernel_train, wrong, aspect=aspect)
    assert needle in msg, msg


def test_train_without_bias_keeps_the_other_aspects():
    for aspect in ("basic", "stop"):
        diagnose_kernel_train(make_train(bias=False), aspect=aspect)


def test_train_that_never_stops_early_is_named(message):
    msg = message(diagnose_kernel_train, make_train(early_stop=False), aspect="stop")
    assert "ran for more than 3 s" in msg, msg  # the framework's message for a call past its time limit


def test_train_basic_mistakes(message):
    def mutating(X, y, max_epochs):
        out = make_train()(X, y, max_epochs)
        if len(y) == len(X):
            X *= 1.0
            X[0, 0] += 1.0
        return out
    assert "changed the X or y passed in" in message(diagnose_kernel_train, mutating, aspect="basic")

    def signed(X, y, max_epochs):
        alpha, b = make_train()(X, y, max_epochs)
        return alpha * np.asarray(y), b
    assert "whole numbers >= 0" in message(diagnose_kernel_train, signed, aspect="basic")
    assert "tuple (alpha, b)" in message(diagnose_kernel_train, lambda X, y, e: 1, aspect="basic")


# --------------------------------------------------------------------------- #
# kernel perceptron: predict
# --------------------------------------------------------------------------- #

def test_predict_solution_passes():
    for aspect in ("all", "basic", "details"):
        diagnose_kernel_predict(SOLUTION["kernel_perceptron_predict"], aspect=aspect)


@pytest.mark.parametrize("wrong,aspect,needle", [
    (make_predict(use_y=False), "basic", "ignores the labels y"),
    (make_predict(use_b=False), "basic", "ignores the bias b"),
    (make_predict(scores=True), "basic", "returned the scores"),
    (lambda *a: -make_predict()(*a), "basic", "flipped"),
    (make_predict(kernel="homogeneous"), "details", "(x·z)², without the 1"),
    (make_predict(kernel="linear"), "details", "linear x·z"),
    (make_predict(zero=0), "details", "np.sign(0) is 0"),
    (make_predict(zero=1), "details", "exactly 0 gave +1"),
])
def test_predict_mistakes_are_named(wrong, aspect, needle, message):
    msg = message(diagnose_kernel_predict, wrong, aspect=aspect)
    assert needle in msg, msg


# --------------------------------------------------------------------------- #
# count_features
# --------------------------------------------------------------------------- #

def test_count_solution_passes():
    for aspect in ("all", "basic", "values"):
        diagnose_count_features(SOLUTION["count_features"], aspect=aspect)


@pytest.mark.parametrize("wrong,aspect,needle", [
    (make_count("exact"), "values", "degree exactly"),
    (make_count("ordered"), "values", "ordered products"),
    (make_count("no_constant"), "values", "constant feature 1"),
    (make_count("float"), "basic", "should return an int"),
    (make_count(check=False), "basic", "should raise ValueError"),
])
def test_count_mistakes_are_named(wrong, aspect, needle, message):
    msg = message(diagnose_count_features, wrong, aspect=aspect)
    assert needle in msg, msg


def test_count_exact_degree_passes_the_basic_aspect():
    diagnose_count_features(make_count("exact"), aspect="basic")


def test_count_overflow_is_named(message):
    def count_features(d, degree):
        if d < 1 or degree < 1:
            raise ValueError("d and degree must be at least 1")
        return int(np.prod(np.arange(d + 1, d + degree + 1, dtype=np.int64)) // math.factorial(degree))
    msg = message(diagnose_count_features, count_features, aspect="values")
    assert "exceeds 64-bit" in msg, msg


# --------------------------------------------------------------------------- #
# Messages never show the expected answer
# --------------------------------------------------------------------------- #

def test_messages_do_not_show_expected_values(message):
    right_alpha = checks.LESSON.data["ex3-train-tests-rule"]["expected"][0][0]
    msg = message(diagnose_kernel_train, make_train(kernel="linear"), aspect="rule")
    assert _core.fmt(right_alpha) not in msg
    msg = message(diagnose_kernel_train, lambda X, y, e: (np.ones(len(y)), 0.0), aspect="rule")
    assert _core.fmt(right_alpha) not in msg and "not the kernel perceptron's" in msg
    msg = message(diagnose_count_features, make_count("ordered"), aspect="values")
    assert "6" not in msg
    msg = message(diagnose_phi, make_phi(cross=1.0), aspect="values")
    assert "2.8284" not in msg and "1.414" not in msg
    msg = message(diagnose_identity_gap, lambda f, X, Z: 2 * make_gap()(f, X, Z), aspect="values")
    assert "you returned 6" in msg and "3" not in msg.split("returned")[-1], msg
