"""Lesson 05's checks: every check passes the model solution and names each common mistake.

The right functions are the model solutions of assignment 05 (executed from the source
notebook's solution cells); each wrong one makes a single common mistake. Messages must name
the mistake and never contain the expected numbers. The checks hold data
(``kpcourse/checks/data/lesson05.json``): it must equal what the grader's references compute,
and the grader's cells must pass the solution and fail the mistakes. Loops are found in the
source (never by timing); reference calls are the source policy's business (tests/golden).
"""

from pathlib import Path

import numpy as np
import pytest
from giveaway import solution as source_solution

from kpcourse import kernels
from kpcourse.checks import _core
from kpcourse.checks import lesson05 as checks
from kpcourse.grading import policy
from kpcourse.grading.spec import Cell
from kpcourse.grading.trusted import load_grader
from kpcourse.perceptron import KernelPerceptron

ROOT = Path(__file__).resolve().parents[1]
NAME = "05-rbf-kernel"
GRADER = load_grader(ROOT / "source" / NAME / "grader.py")


SOLUTION = {n: f for n, f in source_solution(NAME).items() if n in ("rbf_gram", "rbf_predict", "choose_sigma")}


def _cells(function):
    """The test cells of one exercise."""
    return [gid for gid, (ex, _) in checks.LESSON.cells.items() if ex.function == function]


# --------------------------------------------------------------------------- #
# The data and the module
# --------------------------------------------------------------------------- #

def test_grader_references_agree_with_the_package():
    rng = np.random.default_rng(0)
    X, Z = rng.normal(size=(7, 3)), rng.normal(size=(5, 3))
    np.testing.assert_allclose(GRADER.rbf(X, Z, 0.8), kernels.rbf(X, Z, sigma=0.8), rtol=0, atol=1e-12)
    y, alpha, q = rng.choice([-1, 1], size=7), rng.integers(0, 4, size=7), rng.normal(size=3)
    ref = float(np.sum(alpha * y * kernels.rbf(X, q[None], sigma=1.2)[:, 0]))
    assert GRADER.rbf_score(X, y, alpha, q, 1.2) == pytest.approx(ref, rel=1e-12)


def test_the_cells_say_what_each_exercise_may_call():
    """(Graded cells = grader cells, no written answer, no legacy or hidden tests: tests/test_lessons.py.)"""
    assert CELLS["ex1-rbf-gram-tests-loop-free"].loop_free == ("rbf_gram",)
    assert GRADER.FORBIDDEN == ("kpcourse", "sklearn", "scipy")
    assert all(CELLS[g].allow == ("kpcourse.perceptron.KernelPerceptron",) for g in CELLS if g.startswith("ex3"))
    assert all(CELLS[g].allow == () for g in CELLS if not g.startswith("ex3"))


# --------------------------------------------------------------------------- #
# The grader's cells: pass the solution, fail each mistake, on answers as data
# --------------------------------------------------------------------------- #

CELLS = GRADER.cells()


def _with(**wrong):
    return {**SOLUTION, **wrong}


@pytest.mark.parametrize("gid,wrong,expected", [
    ("ex1-rbf-gram-tests-values", {"rbf_gram": "sigma"}, "σ instead of σ²"),
    ("ex1-rbf-gram-tests-values", {"rbf_gram": "no2"}, "the factor 2 is missing"),
    ("ex1-rbf-gram-tests-shape", {"rbf_gram": "unchecked"}, "should raise ValueError when sigma is 0"),
    ("ex2-rbf-predict-tests-score", {"rbf_predict": "no_y"}, "ignores the labels y"),
    ("ex2-rbf-predict-tests-label", {"rbf_predict": "sign"}, "gave the label 0"),
    ("ex3-choose-sigma-tests-errors", {"choose_sigma": "accuracy"}, "accuracies"),
    ("ex3-choose-sigma-tests-choice", {"choose_sigma": "train"}, "by the training error"),
])
def test_cells_fail_common_mistakes_with_their_hint(gid, wrong, expected, message):
    (fname, kind), = wrong.items()
    make = {"rbf_gram": make_gram, "rbf_predict": make_predict, "choose_sigma": make_choose}[fname]
    wrong_fn = make_gram(check=False) if kind == "unchecked" else make(kind)
    assert expected in message(Cell.judge_here, CELLS[gid], _with(**{fname: wrong_fn}))


def test_hidden_tests_catch_what_the_visible_probes_miss(message):
    # right on the visible 4 x 3 probe, wrong elsewhere: only the hidden values test sees it
    def probe_only(X, Z, sigma):
        K = SOLUTION["rbf_gram"](X, Z, sigma)
        return K if K.shape in ((4, 3), (4, 4)) else K * 0.5

    checks.test("ex1-rbf-gram-tests-values", probe_only)
    msg = message(Cell.judge_here, CELLS["ex1-rbf-gram-tests-values"], _with(rbf_gram=probe_only))
    assert "rbf_gram on new data" in msg

    def choose_first(X_train, y_train, X_val, y_val, sigmas):  # right errors, wrong choice on new data
        best, errors = SOLUTION["choose_sigma"](X_train, y_train, X_val, y_val, sigmas)
        return (best if sigmas[0] == 0.003 else sigmas[-1]), errors

    msg = message(Cell.judge_here, CELLS["ex3-choose-sigma-tests-choice"], _with(choose_sigma=choose_first))
    assert "choose_sigma on new data chose σ = 20" in msg


def test_hidden_messages_hide_the_expected_values(message):
    def probe_only(X, y, alpha, query, sigma):  # right on the visible probes only
        score, label = SOLUTION["rbf_predict"](X, y, alpha, query, sigma)
        return (score if np.shape(X) in ((5, 3), (2, 2)) else 0.5 * score), label

    for gid in ("ex2-rbf-predict-tests-score", "ex2-rbf-predict-tests-label"):
        checks.test(gid, probe_only)
    msg = message(Cell.judge_here, CELLS["ex2-rbf-predict-tests-score"], _with(rbf_predict=probe_only))
    assert "rbf_predict on new data gave the score" in msg
    assert "1.9175" not in msg and "1.91750" not in msg


def test_slow_loop_free_gram_gets_its_points():
    """No point depends on speed: a loop-free function that makes a Python call per pair passes."""
    cell = CELLS["ex1-rbf-gram-tests-loop-free"]
    program = policy.Program([_source(gram_vectorize)])
    assert program.loops(cell.loop_free) == []
    assert max(t.time_limit for t in cell.tests) >= 60
    checks.test("ex1-rbf-gram-tests-loop-free", gram_vectorize)


# --------------------------------------------------------------------------- #
# Exercise 1: rbf_gram
# --------------------------------------------------------------------------- #

def make_gram(kind="right", check=True):
    def rbf_gram(X, Z, sigma):
        X, Z = np.asarray(X, dtype=float), np.asarray(Z, dtype=float)
        if check and (X.shape[1] != Z.shape[1] or not sigma > 0):
            raise ValueError("X and Z must have the same columns and sigma > 0")
        d2 = np.maximum((X ** 2).sum(1)[:, None] - 2.0 * X @ Z.T + (Z ** 2).sum(1)[None, :], 0.0)
        denominator = {"right": 2.0 * sigma ** 2, "sigma": 2.0 * sigma, "no2": sigma ** 2}[kind]
        with np.errstate(divide="ignore", invalid="ignore"):  # sigma = 0 when check=False
            return np.exp(-d2 / denominator)
    return rbf_gram


def gram_broadcast(X, Z, sigma):
    X, Z = np.asarray(X, dtype=float), np.asarray(Z, dtype=float)
    if X.shape[1] != Z.shape[1] or sigma <= 0:
        raise ValueError("bad input")
    return np.exp(-((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1) / (2.0 * sigma ** 2))


def gram_row_loop(X, Z, sigma):
    X, Z = np.asarray(X, dtype=float), np.asarray(Z, dtype=float)
    if X.shape[1] != Z.shape[1] or sigma <= 0:
        raise ValueError("bad input")
    K = np.empty((len(X), len(Z)))
    for i in range(len(X)):
        K[i] = np.exp(-((X[i] - Z) ** 2).sum(1) / (2.0 * sigma ** 2))
    return K


def gram_comprehension(X, Z, sigma):
    X, Z = np.asarray(X, dtype=float), np.asarray(Z, dtype=float)
    if X.shape[1] != Z.shape[1] or sigma <= 0:
        raise ValueError("bad input")
    return np.array([np.exp(-((x - Z) ** 2).sum(1) / (2.0 * sigma ** 2)) for x in X])


def gram_vectorize(X, Z, sigma):  # no loop statement, but a Python call per pair
    X, Z = np.asarray(X, dtype=float), np.asarray(Z, dtype=float)
    if X.shape[1] != Z.shape[1] or sigma <= 0:
        raise ValueError("bad input")
    pair = np.vectorize(lambda i, j: np.exp(-np.sum((X[i] - Z[j]) ** 2) / (2.0 * sigma ** 2)))
    return pair(*np.meshgrid(np.arange(len(X)), np.arange(len(Z)), indexing="ij"))


GRAM_LOOPS = '''
def rbf_gram_row_loop(X, Z, sigma):
    K = np.empty((len(X), len(Z)))
    for i in range(len(X)):
        K[i] = np.exp(-((X[i] - Z) ** 2).sum(1) / (2.0 * sigma ** 2))
    return K


def rbf_gram_comprehension(X, Z, sigma):
    return np.array([np.exp(-((x - Z) ** 2).sum(1) / (2.0 * sigma ** 2)) for x in X])


def _rows(X, Z, sigma):
    return np.array([np.exp(-((x - Z) ** 2).sum(1) / (2.0 * sigma ** 2)) for x in X])


def rbf_gram_helper_loop(X, Z, sigma):
    return _rows(X, Z, sigma)
'''


def _source(func):
    import inspect
    import textwrap

    return textwrap.dedent(inspect.getsource(func))


def test_rbf_gram_right_passes_every_aspect():
    for f in (make_gram(), gram_broadcast, SOLUTION["rbf_gram"]):
        for gid in _cells("rbf_gram"):
            checks.test(gid, f)


@pytest.mark.parametrize("kind,phrase", [("sigma", "σ instead of σ²"), ("no2", "the factor 2 is missing")])
def test_rbf_gram_common_mistakes_fail_values_only(kind, phrase, message):
    f = make_gram(kind)
    msg = message(checks.test, "ex1-rbf-gram-tests-values", f)
    assert phrase in msg
    ref = np.round(kernels.rbf(checks.GRAM_X, checks.GRAM_Z, sigma=0.7), 4)
    assert not any(f"{v:.4f}" in msg for v in ref.ravel() if v > 1e-3)
    checks.test("ex1-rbf-gram-tests-shape", f)
    checks.test("ex1-rbf-gram-tests-loop-free", f)


@pytest.mark.parametrize("formula,phrase", [
    (lambda d2, s: np.exp(-d2 / s), "you divided by σ"),
    (lambda d2, s: np.exp(-s * d2), "not scikit-learn's γ"),
    (lambda d2, s: np.exp(-d2 * 2 * s * s), "multiplied by 2σ²"),
    (lambda d2, s: np.exp(-np.sqrt(d2) / (2 * s * s)), "squared distance"),
    (lambda d2, s: np.exp(d2 / (2 * s * s)), "must be negative"),
    (lambda d2, s: d2, "squared distances, not the kernel"),
])
def test_rbf_gram_other_named_mistakes(formula, phrase, message):
    def rbf_gram(X, Z, sigma):
        if X.shape[1] != Z.shape[1] or sigma <= 0:
            raise ValueError("bad")
        return formula(((X[:, None] - Z[None]) ** 2).sum(-1), sigma)
    assert phrase in message(checks.test, "ex1-rbf-gram-tests-values", rbf_gram)


def test_rbf_gram_transposed_wrong_diagonal_and_missing_errors(message):
    def transposed(X, Z, sigma):
        return gram_broadcast(Z, X, sigma)
    assert "transposed" in message(checks.test, "ex1-rbf-gram-tests-values", transposed)

    def off_diagonal(X, Z, sigma):
        K = gram_broadcast(X, Z, sigma)
        return K if K.shape != (4, 4) else K * 0.9
    assert "k(x, x) = 1" in message(checks.test, "ex1-rbf-gram-tests-values", off_diagonal)
    msg = message(checks.test, "ex1-rbf-gram-tests-shape", make_gram(check=False))
    assert "should raise ValueError when sigma is 0" in msg  # X @ Z.T raises for the columns itself
    assert "sigma is negative" in msg

    def in_place(X, Z, sigma):
        K = gram_broadcast(X, Z, sigma)
        X *= 2
        return K
    assert "changed the arrays passed in" in message(checks.test, "ex1-rbf-gram-tests-shape", in_place)


@pytest.mark.parametrize("f", [gram_row_loop, gram_comprehension])
def test_rbf_gram_loops_fail_loop_free_only(f, message):
    assert "rbf_gram uses a Python loop" in message(checks.test, "ex1-rbf-gram-tests-loop-free", f)
    checks.test("ex1-rbf-gram-tests-values", f)
    checks.test("ex1-rbf-gram-tests-shape", f)


def test_policy_finds_loops_in_the_function_and_its_helpers():
    program = policy.Program([GRAM_LOOPS])
    assert program.loops(("rbf_gram_row_loop",)) == ["rbf_gram_row_loop"]
    assert program.loops(("rbf_gram_comprehension",)) == ["rbf_gram_comprehension"]
    assert program.loops(("rbf_gram_helper_loop",)) == ["_rows"]
    assert policy.Program([_source(gram_broadcast)]).loops(("gram_broadcast",)) == []


def test_check_loop_free_passes_functions_without_source():
    namespace = {}
    exec("def f(x):\n    return [v for v in x]\n", namespace)  # no file: inspect cannot read it
    _core.check_loop_free(namespace["f"])
    _core.check_loop_free(len)


# --------------------------------------------------------------------------- #
# Exercise 2: rbf_predict
# --------------------------------------------------------------------------- #

def make_predict(kind="right"):
    def rbf_predict(X, y, alpha, query, sigma):
        X, query = np.asarray(X, dtype=float), np.asarray(query, dtype=float)
        if len(y) != len(X) or len(alpha) != len(X) or query.shape != (X.shape[1],):
            raise ValueError("shapes do not match")
        d2 = ((X - query) ** 2).sum(1)
        k = np.exp(-d2 / {"sigma": 2.0 * sigma, "no2": sigma ** 2}.get(kind, 2.0 * sigma ** 2))
        weights = {"no_y": np.asarray(alpha), "no_alpha": np.asarray(y)}.get(kind, np.asarray(alpha) * y)
        score = float(np.sum(weights * k)) * (0.5 if kind == "half" else 1.0)
        label = {"sign": int(np.sign(score)), "geq": 1 if score >= 0 else -1}.get(kind, 1 if score > 0 else -1)
        return score, label
    return rbf_predict


def test_rbf_predict_right_passes_and_gives_the_article_numbers():
    for f in (make_predict(), SOLUTION["rbf_predict"]):
        for gid in _cells("rbf_predict"):
            checks.test(gid, f)
    from kpcourse.datasets import msdn_example
    ex = msdn_example()
    score, label = SOLUTION["rbf_predict"](ex["X"], ex["y"], ex["alpha"], ex["query"], ex["sigma"])
    assert round(score, 4) == 1.9175 and label == 1


@pytest.mark.parametrize("kind,phrase", [("sigma", "σ instead of σ²"), ("no2", "the factor 2 is missing"),
                                         ("no_y", "ignores the labels y"),
                                         ("no_alpha", "ignores the mistake counts")])
def test_rbf_predict_score_mistakes(kind, phrase, message):
    assert phrase in message(checks.test, "ex2-rbf-predict-tests-score", make_predict(kind))


def test_rbf_predict_unnamed_mistake_hides_the_score(message):
    msg = message(checks.test, "ex2-rbf-predict-tests-score", make_predict("half"))
    assert "not Σ αᵢ yᵢ" in msg
    right = make_predict()(*checks.PREDICT)[0]
    assert f"{right:.4g}" not in msg


@pytest.mark.parametrize("kind,phrase", [("sign", "gave the label 0"), ("geq", "gave +1")])
def test_rbf_predict_zero_score_fails_label_only(kind, phrase, message):
    f = make_predict(kind)
    assert phrase in message(checks.test, "ex2-rbf-predict-tests-label", f)
    checks.test("ex2-rbf-predict-tests-score", f)


def test_rbf_predict_shapes_and_missing_value_error(message):
    def no_check(X, y, alpha, query, sigma):
        k = np.exp(-((X - query[:X.shape[1]]) ** 2).sum(1) / (2 * sigma ** 2))
        n = min(len(y), len(alpha), len(k))
        score = float(np.sum(alpha[:n] * y[:n] * k[:n]))  # hides the mismatch
        return score, 1 if score > 0 else -1
    assert "should raise ValueError when alpha has 3 counts" in message(checks.test, "ex2-rbf-predict-tests-label",
                                                                         no_check)

    def vector_score(X, y, alpha, query, sigma):
        k = np.exp(-((X - query) ** 2).sum(1) / (2 * sigma ** 2))
        return alpha * y * k, 1
    assert "should be one number" in message(checks.test, "ex2-rbf-predict-tests-score", vector_score)
    assert "tuple (score, label)" in message(checks.test, "ex2-rbf-predict-tests-score", lambda *a: 1.0)


# --------------------------------------------------------------------------- #
# Exercise 3: choose_sigma
# --------------------------------------------------------------------------- #

def make_choose(kind="right"):
    def choose_sigma(X_train, y_train, X_val, y_val, sigmas):
        val, train = [], []
        for s in sigmas:
            m = KernelPerceptron(kernel="rbf", sigma=s, max_epochs=10, random_state=0,
                                 device="cpu").fit(X_train, y_train)
            val.append(np.mean(m.predict(X_val) != y_val))
            train.append(np.mean(m.predict(X_train) != y_train))
        val, train = np.array(val), np.array(train)
        errors = {"counts": val * len(y_val), "accuracy": 1 - val, "train_errors": train}.get(kind, val)
        chosen = {"train": int(np.argmin(train)), "max": int(np.argmax(val))}.get(kind, int(np.argmin(val)))
        return (chosen if kind == "index" else sigmas[chosen]), errors
    return choose_sigma


def test_choose_sigma_right_passes():
    for f in (make_choose(), SOLUTION["choose_sigma"]):
        for gid in _cells("choose_sigma"):
            checks.test(gid, f)


@pytest.mark.parametrize("kind,phrase", [("counts", "not counts"), ("accuracy", "accuracies"),
                                         ("train_errors", "training errors")])
def test_choose_sigma_error_mistakes_fail_errors_only(kind, phrase, message):
    f = make_choose(kind)
    assert phrase in message(checks.test, "ex3-choose-sigma-tests-errors", f)
    checks.test("ex3-choose-sigma-tests-choice", f)


@pytest.mark.parametrize("kind,phrase", [("train", "by the training error"), ("index", "index"),
                                         ("max", "the largest validation error")])
def test_choose_sigma_choice_mistakes_fail_choice_only(kind, phrase, message):
    f = make_choose(kind)
    assert phrase in message(checks.test, "ex3-choose-sigma-tests-choice", f)
    checks.test("ex3-choose-sigma-tests-errors", f)


def test_grid_choice_within_tolerance(message):
    val = np.array([0.2, 0.03, 0.06, 0.5])
    grid = (0.01, 0.1, 1.0, 10.0)

    def choice(best):
        return message(_core.check_grid_choice, best, grid, val, "choose_sigma", tol=checks.SIGMA_TOL)
    _core.check_grid_choice(1.0, grid, val, "choose_sigma", tol=checks.SIGMA_TOL)  # 0.06 is within 0.05 of 0.03
    assert "not one of sigmas" in choice(0.5)
    assert "clearly better" in choice(0.01)
    assert "largest validation error" in choice(10.0)
    assert "one number" in choice("0.1")
    assert "one number" in choice([0.1])
    assert "looks like an index" in choice(2)


def test_choose_probe_errors_are_data_not_training():
    d = checks.LESSON.data["ex3-choose-sigma-tests-errors"]
    (_, val), = d["expected"]
    train = d["mistaken"][0]["train_errors"][1]
    assert val.shape == train.shape == (len(checks.CHOOSE_SIGMAS),)
    assert 0 <= val.min() and val.max() <= 1
