"""Lesson 07's checks: every diagnosis passes the model solution and names each common mistake.

The right functions are the solution cells of ``source/07-mnist-gpu`` (executed here); each
wrong one makes a single common mistake or keeps one flaw of the trainer the assignment hands
out. Messages must name the behaviour and never the expected values. The checks hold data
(``kpcourse/checks/data/lesson07.json``): it must equal what the grader's references compute,
and the grader's cells must pass the solution and fail the mistakes — each kept flaw failing
the cells of its own behaviour and no other — on answers round-tripped through JSON as in
grading.
"""

from pathlib import Path

import numpy as np
import pytest
import torch
from giveaway import solution as source_solution

from kpcourse.checks import _core
from kpcourse.checks import lesson07 as checks
from kpcourse.grading.judge.trusted import load_grader

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENT = "07-mnist-gpu"
GRADER = load_grader(ROOT / "source" / ASSIGNMENT / "grader.py")


SOLUTION = source_solution(ASSIGNMENT)
FUNCTIONS = {name: SOLUTION[name] for name in ("ovr_predict", "fixed_train", "fixed_predict")}
CELLS = GRADER.cells()


def _passes(cell, functions):
    try:
        cell.judge_here(functions)
    except AssertionError:
        return False
    return True


def _with(**replaced):
    return {**FUNCTIONS, **replaced}


# --------------------------------------------------------------------------- #
# Data, references, the module itself
# --------------------------------------------------------------------------- #

def test_reference_is_the_package_kernel_perceptron():
    from kpcourse.perceptron import KernelPerceptron

    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(80, 5)), rng.integers(0, 3, 80)
    K = (X @ X.T + 1.0) ** 2
    m = KernelPerceptron(kernel="precomputed", shuffle=False, max_epochs=7, device="cpu").fit(K, y)
    alpha, b = GRADER.ovr_train(K, GRADER.ovr_labels(y, np.arange(3)), 7)
    np.testing.assert_array_equal(alpha, m.alpha_)
    np.testing.assert_array_equal(b, m.intercept_)
    Xq = rng.normal(size=(20, 5))
    Kq = (Xq @ X.T + 1.0) ** 2
    labels = GRADER.predict(Xq, X, alpha, GRADER.ovr_labels(y, np.arange(3)), b, np.arange(3), 2, 1.0, 1.0)
    np.testing.assert_array_equal(labels, m.predict(Kq))


def test_the_handed_out_trainer_is_the_reference_with_every_flaw():
    """buggy_train / buggy_predict of the notebook = the grader's references with all flaws on."""
    X, y = checks._points("new")
    with np.errstate(invalid="ignore"):
        got = SOLUTION["buggy_train"](X, y, np.array([0, 1, 2]), max_epochs=5)
    want = GRADER.fit(X, y, np.array([0, 1, 2]), 5, 4, 1.0, 1.0, flaws=GRADER.FLAWS)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    args = checks.PROBES["predict_four"]
    np.testing.assert_array_equal(SOLUTION["buggy_predict"](*args), GRADER.predict(*args, flaws=GRADER.FLAWS))


def test_online_probes_are_exact_in_float16():
    """On the "online" probes every precision gives the same kernel: only the training is judged."""
    for X, *_, degree, gamma, coef0 in checks.PROBES["online"].values():
        exact = GRADER.poly(X, X, degree, gamma, coef0)
        for dtype in ("float16", "bfloat16"):
            np.testing.assert_array_equal(GRADER.poly(X, X, degree, gamma, coef0, dtype), exact)
    for seed in range(5):  # the hidden ones too, whatever the seed
        for probe in GRADER.HIDDEN["ex2-train-tests-online"](np.random.default_rng(seed)):
            X, k = probe.args[0], probe.kwargs
            for dtype in ("float16", "bfloat16"):
                np.testing.assert_array_equal(GRADER.poly(X, X, k["degree"], k["gamma"], k["coef0"], dtype),
                                              GRADER.poly(X, X, k["degree"], k["gamma"], k["coef0"]))


def test_probe_variants_differ():
    d = checks.LESSON.data
    online = d["ex2-train-tests-online"]
    for key, m in online["mistaken"][0].items():  # on the first probe, where the mistakes are named
        assert not _core.same(m[:2], online["expected"][0][:2]), key
    basic, scores = checks.LESSON.data["ex1-ovr-tests"], checks.LESSON.data["ex1-ovr-tests-scores"]
    labels, argmin = basic["expected"][0], basic["mistaken"][0]["argmin"]
    assert len(np.unique(labels)) == 3 and not np.array_equal(labels, argmin)
    assert np.array_equal(scores["expected"][0], labels)
    for key, wrong in scores["mistaken"][0].items():  # neither pick of the extreme score accepts a mistake
        assert not np.array_equal(wrong, labels) and not np.array_equal(wrong, argmin), key
    new = d["ex2-train-tests-new"]
    flawed = new["mistaken"][0]
    for key in flawed:  # every combination of flaws is told apart from the others
        assert not _core.same(flawed[key], new["expected"][0]), key
        assert not [k for k in flawed if k != key and _core.same(flawed[k], flawed[key])], key
    precision = d["ex2-train-tests-precision"]
    assert not _core.same(precision["mistaken"][0]["batch"][:2], precision["expected"][0][:2])
    X_new, X = checks._points("predict_precision")[:2]
    X_train = checks._points("precision")[0]
    assert GRADER.poly(X_train, X_train, 4, 1.0, 1.0).max() > 1e8 and GRADER.poly(X_new, X, 4, 1.0, 1.0).max() > 1e6
    precision = checks.LESSON.data["ex3-predict-tests-precision"]
    assert len(np.unique(precision["expected"][0])) == 3
    assert not np.array_equal(precision["mistaken"][0]["precision"], precision["expected"][0])
    labels_data = checks.LESSON.data["ex3-predict-tests-labels"]
    for labels, key in zip(labels_data["expected"], ("predict_four", "predict_three"), strict=True):
        assert set(labels.tolist()) == set(checks.PROBES[key][5].tolist())  # every class is predicted


# --------------------------------------------------------------------------- #
# Student-like variants: the solution with one flaw kept or one slip made
# --------------------------------------------------------------------------- #

def make_train(flaws=(), dtype="float64", only_current=False, no_bias=False, strict=False, in_place=False):
    def fixed_train(X, y, classes, max_epochs=5, degree=4, gamma=1.0, coef0=1.0):
        if in_place:
            y[0] = y[-1]  # writes into the caller's array
        y = np.asarray(y)
        if "labels" in flaws:
            y = np.where(y == 0, -1, y)
        Y = np.where(y[:, None] == np.asarray(classes)[None, :], 1.0, -1.0)
        t = torch.float16 if "precision" in flaws else getattr(torch, dtype)
        A = torch.tensor(np.asarray(X, dtype=float), dtype=t)
        K = ((gamma * (A @ A.T) + coef0) ** degree).double().numpy()
        n, C = Y.shape
        alpha, b, F = np.zeros((C, n)), np.zeros(C), np.zeros((n, C))
        with np.errstate(invalid="ignore"):
            for _ in range(max_epochs):
                if "online" in flaws:
                    wrong = Y * (K @ (alpha * Y.T).T + b) <= 0
                    if not wrong.any():
                        break
                    alpha += wrong.T
                    b += (wrong * Y).sum(axis=0)
                    continue
                made = 0
                for i in range(n):
                    wrong = Y[i] * F[i] < 0 if strict else Y[i] * F[i] <= 0
                    if wrong.any():
                        step = wrong * Y[i]
                        alpha[wrong, i] += 1
                        b += step
                        extra = 0.0 if no_bias else 1.0
                        if only_current:
                            F[i] += (K[i, i] + extra) * step
                        else:
                            F += np.outer(K[:, i] + extra, step)
                        made += 1
                if made == 0:
                    break
        return alpha, b, Y
    return fixed_train


def make_predict(flaws=(), dtype="float64", pick=np.argmax):
    def fixed_predict(X_new, X, alpha, Y_pm, b, classes, degree=4, gamma=1.0, coef0=1.0):
        t = torch.float16 if "precision" in flaws else getattr(torch, dtype)
        A, N = torch.tensor(np.asarray(X, dtype=float), dtype=t), torch.tensor(np.asarray(X_new, dtype=float), dtype=t)
        K = ((gamma * (N @ A.T) + coef0) ** degree).double().numpy()
        with np.errstate(invalid="ignore"):
            labels = np.asarray(classes)[pick(K @ (np.asarray(alpha) * np.asarray(Y_pm).T).T + b, axis=1)]
        return np.where(labels == -1, 0, labels) if "labels" in flaws else labels
    return fixed_predict


TRAIN_CELLS = ("online", "labels", "precision", "new")


def _diagnose(func, aspect=None):
    """The visible tests of Exercise 2, of one cell or of every cell: the first failure raises."""
    for a in (aspect,) if aspect else TRAIN_CELLS:
        checks.test(f"ex2-train-tests-{a}", func)


def _train_cells_passed(func):
    return {a for a in TRAIN_CELLS if _passes(CELLS[f"ex2-train-tests-{a}"], _with(fixed_train=func))}


# --------------------------------------------------------------------------- #
# Exercise 1: ovr_predict
# --------------------------------------------------------------------------- #

def make_ovr(pick=np.argmax, use_y=True, use_b=True, indices=False, check=True):
    def ovr_predict(K_test_train, alpha, Y_pm, b, classes):
        K, alpha, Y = np.asarray(K_test_train, float), np.asarray(alpha, float), np.asarray(Y_pm, float)
        if check and K.shape[1] != alpha.shape[1]:
            raise ValueError("K_test_train does not match alpha")
        coef = alpha * Y.T if use_y else alpha
        S = K @ coef.T + (np.asarray(b) if use_b else 0.0)
        idx = pick(S, axis=1)
        return idx if indices else np.asarray(classes)[idx]
    return ovr_predict


def test_ovr_solution_passes_visible_and_hidden():
    for gid in ("ex1-ovr-tests", "ex1-ovr-tests-scores"):
        checks.test(gid, FUNCTIONS["ovr_predict"])
        checks.test(gid, make_ovr())
    for gid in ("ex1-ovr-tests", "ex1-ovr-tests-scores"):
        CELLS[gid].judge_here(FUNCTIONS)


def test_ovr_argmin_fails_only_the_basic_cell(message):
    f = make_ovr(pick=np.argmin)
    checks.test("ex1-ovr-tests-scores", f)
    assert "lowest score (argmin)" in message(checks.test, "ex1-ovr-tests", f)
    assert not _passes(CELLS["ex1-ovr-tests"], _with(ovr_predict=f))
    assert _passes(CELLS["ex1-ovr-tests-scores"], _with(ovr_predict=f))


def test_ovr_names_score_mistakes(message):
    assert "ignore the bias" in message(checks.test, "ex1-ovr-tests-scores", make_ovr(use_b=False))
    assert "ignore the labels Y_pm" in message(checks.test, "ex1-ovr-tests-scores", make_ovr(use_y=False))
    assert "column indices" in message(checks.test, "ex1-ovr-tests", make_ovr(indices=True))
    checks.test("ex1-ovr-tests", make_ovr(check=False))  # numpy's matmul raises ValueError
    assert not _passes(CELLS["ex1-ovr-tests-scores"], _with(ovr_predict=make_ovr(use_b=False)))


# --------------------------------------------------------------------------- #
# Exercise 2: fixed_train
# --------------------------------------------------------------------------- #

def test_train_solution_passes_visible_and_hidden():
    _diagnose(FUNCTIONS["fixed_train"])
    _diagnose(make_train())
    assert _train_cells_passed(FUNCTIONS["fixed_train"]) == set(TRAIN_CELLS)


def test_train_in_float32_passes_everything():
    assert _train_cells_passed(make_train(dtype="float32")) == set(TRAIN_CELLS)


@pytest.mark.parametrize("flaw", ["online", "labels", "precision"])
def test_each_kept_flaw_fails_its_own_cell_and_the_whole(flaw):
    assert _train_cells_passed(make_train(flaws=(flaw,))) == set(TRAIN_CELLS) - {flaw, "new"}


def test_the_handed_out_trainer_fails_every_cell():
    def fixed_train(X, y, classes, max_epochs=5, degree=4, gamma=1.0, coef0=1.0):
        with np.errstate(invalid="ignore"):
            return SOLUTION["buggy_train"](X, y, classes, max_epochs, degree, gamma, coef0)
    assert _train_cells_passed(fixed_train) == set()
    assert _train_cells_passed(make_train(flaws=GRADER.FLAWS)) == set()


def test_bfloat16_fails_on_real_digits():
    assert _train_cells_passed(make_train(dtype="bfloat16")) == {"online", "labels"}


def test_kept_flaws_are_named_without_naming_the_fix(message):
    msg = message(_diagnose, make_train(flaws=("online",)), aspect="online")
    assert "trainer as it was handed out" in msg and "Experiment 1" in msg
    msg = message(_diagnose, make_train(flaws=("labels",)), aspect="labels")
    assert "the column of the class 0 holds no +1" in msg
    msg = message(_diagnose, make_train(flaws=("precision",)), aspect="precision")
    assert "scores are not numbers (inf or NaN)" in msg
    msg_batch = message(_diagnose, make_train(flaws=("precision", "online")), aspect="precision")
    assert "scores are not numbers (inf or NaN)" in msg_batch
    for flaws in (("online",), ("labels",), ("precision",), ("labels", "online")):
        msg = message(_diagnose, make_train(flaws=flaws), aspect="new")
        assert ("in the way" if len(flaws) == 1 else f"wrong in {len(flaws)} ways") in msg, msg
    every = [message(_diagnose, make_train(flaws=(f,)), aspect=a) for f in GRADER.FLAWS for a in (f, "new")]
    for text in every:  # the fixes themselves are never spelled out
        for fix in ("float64", "float32", "one sample at a time", "np.where(y == 0", "batch"):
            assert fix not in text, (fix, text)


def test_train_slips_are_named(message):
    assert "moves only the score of sample i" in message(_diagnose, make_train(only_current=True), aspect="online")
    assert "leave the bias out" in message(_diagnose, make_train(no_bias=True), aspect="online")
    assert "exactly 0 must count as a mistake" in message(_diagnose, make_train(strict=True), aspect="online")
    assert "changed an array passed in" in message(_diagnose, make_train(in_place=True), aspect="labels")


def test_train_epochs_are_counted(message):
    def one_epoch_too_many(X, y, classes, max_epochs=5, degree=4, gamma=1.0, coef0=1.0):
        return make_train()(X, y, classes, max_epochs + 1, degree, gamma, coef0)
    assert "run at most max_epochs epochs" in message(_diagnose, one_epoch_too_many, aspect="online")


def test_train_messages_hide_the_expected_values(message):
    msg = message(_diagnose, make_train(flaws=("online",)))
    assert checks.fmt(checks.LESSON.data["ex2-train-tests-online"]["expected"][0][0]) not in msg


# --------------------------------------------------------------------------- #
# Exercise 3: fixed_predict
# --------------------------------------------------------------------------- #

def _predict_cells_passed(func):
    return {a for a in ("labels", "precision") if _passes(CELLS[f"ex3-predict-tests-{a}"], _with(fixed_predict=func))}


def test_predict_solution_passes_visible_and_hidden():
    for gid in ("ex3-predict-tests-labels", "ex3-predict-tests-precision"):
        checks.test(gid, FUNCTIONS["fixed_predict"])
        checks.test(gid, make_predict())
    assert _predict_cells_passed(FUNCTIONS["fixed_predict"]) == {"labels", "precision"}
    assert _predict_cells_passed(make_predict(dtype="float32")) == {"labels", "precision"}


@pytest.mark.parametrize("flaw,passed", [("labels", {"precision"}), ("precision", {"labels"})])
def test_each_kept_predict_flaw_fails_its_own_cell(flaw, passed):
    assert _predict_cells_passed(make_predict(flaws=(flaw,))) == passed


def test_predict_flaws_are_named(message):
    msg = message(checks.test, "ex3-predict-tests-labels", make_predict(flaws=("labels",)))
    assert "which is not one of the classes" in msg
    msg = message(checks.test, "ex3-predict-tests-precision", make_predict(flaws=("precision",)))
    assert "scores that are not numbers (inf or NaN)" in msg
    msg = message(checks.test, "ex3-predict-tests-labels", make_predict(pick=np.argmin))
    assert "lowest score (argmin)" in msg
    assert _predict_cells_passed(make_predict(pick=np.argmin)) == set()


def test_the_handed_out_predictor_fails_every_cell():
    with np.errstate(invalid="ignore"):
        assert _predict_cells_passed(SOLUTION["buggy_predict"]) == set()


@pytest.mark.parametrize("gid,functions", [
    ("ex1-ovr-tests", {"ovr_predict": make_ovr(pick=np.argmin)}),
    ("ex1-ovr-tests-scores", {"ovr_predict": make_ovr(use_b=False)}),
    ("ex2-train-tests-online", {"fixed_train": make_train(flaws=("online",))}),
    ("ex2-train-tests-labels", {"fixed_train": make_train(flaws=("labels",))}),
    ("ex2-train-tests-precision", {"fixed_train": make_train(flaws=("precision",))}),
    ("ex2-train-tests-precision", {"fixed_train": make_train(dtype="bfloat16")}),
    ("ex2-train-tests-new", {"fixed_train": make_train(flaws=("online",))}),
    ("ex2-train-tests-new", {"fixed_train": make_train(flaws=("labels",))}),
    ("ex2-train-tests-new", {"fixed_train": make_train(flaws=("precision",))}),
    ("ex3-predict-tests-labels", {"fixed_predict": make_predict(flaws=("labels",))}),
    ("ex3-predict-tests-precision", {"fixed_predict": make_predict(flaws=("precision",))}),
])
def test_hidden_tests_alone_catch_the_mistake(gid, functions):
    """A submission that special-cased the visible probes would still fail the hidden test."""
    cell = CELLS[gid]
    hidden = type(cell)(cell.exercise, cell.what, cell.tests[-1:])
    hidden.judge_here(FUNCTIONS)
    with np.errstate(invalid="ignore"):
        assert not _passes(hidden, _with(**functions))
