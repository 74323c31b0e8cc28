"""Lesson 07's references, against the source's solutions and against independent computations.

``tests/test_exercises.py`` runs every declared mistake through every check that names it, and
``tests/test_lessons.py`` every source solution through every cell; here: the grader's references
agree with the solution cells of ``source/07-mnist-gpu`` and with other ways of computing the same
(one-vs-one with two classes is the binary perceptron, blocks of one visit are the online rule and a
block of n the lecture's batch rule), the constructed data pass their checks for every size the
tests use, and the copies of course code that each exercise was designed against fail it.
"""

import os
from pathlib import Path

import numpy as np
import pytest
from giveaway import solution
from judging import failing

from kpcourse.checks import lesson07 as checks
from kpcourse.grading.judge.trusted import load_grader

ROOT = Path(__file__).resolve().parents[1]
GRADER = load_grader(ROOT / "source" / "07-mnist-gpu" / "grader.py")
# The notebook's setup cell reads MNIST: the data folder as the shared_data fixture finds it (skipped
# without it, a failure under CI=true).
_DATA = Path(os.environ.get("KPCOURSE_DATA") or ROOT.parent / "shared" / "data")
if not _DATA.is_dir():
    if os.environ.get("CI") == "true":
        raise RuntimeError(f"data folder {_DATA} not found; set KPCOURSE_DATA to the course's data folder")
    pytest.skip(f"data folder {_DATA} not found; set KPCOURSE_DATA", allow_module_level=True)
os.environ.setdefault("KPCOURSE_DATA", str(_DATA))
SOLUTION = solution("07-mnist-gpu")
REF = GRADER.REFERENCES


def _online_ovr(K, y, classes, max_epochs):
    """One binary dual perceptron per class, visit by visit, all stopping together."""
    Y = np.where(np.asarray(y)[None, :] == np.asarray(classes)[:, None], 1.0, -1.0)
    alpha, b = np.zeros(Y.shape), np.zeros(len(classes))
    for _ in range(max_epochs):
        made = 0
        for i in range(len(y)):
            for c in range(len(classes)):
                if Y[c, i] * ((alpha[c] * Y[c]) @ K[:, i] + b[c]) <= 0:
                    alpha[c, i] += 1
                    b[c] += Y[c, i]
                    made += 1
        if made == 0:
            break
    return alpha, b


def _lecture_fit(K, Y, max_epochs):
    """Lecture 07 cell 46's lecture_fit with bias=True, in NumPy: alpha (n, C), b (C,)."""
    alpha, b = np.zeros(Y.shape), np.zeros(Y.shape[1])
    for _ in range(max_epochs):
        wrong = Y * (K @ (alpha * Y) + b) <= 0
        if not wrong.any():
            break
        alpha += wrong
        b += (wrong * Y).sum(0)
    return alpha, b


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_references_match_the_solutions_and_other_computations(seed):
    rng = np.random.default_rng(seed)
    # exercise 1: the solution, and argmax wherever the threshold is 0
    for probe in (*GRADER._reject_labels(rng), GRADER._reject_edges(rng)[0]):
        assert SOLUTION["predict_with_reject"](*probe.args) == REF["predict_with_reject"](*probe.args)
    S, classes, _, _ = GRADER._reject_edges(rng)[0].args
    assert REF["predict_with_reject"](S, classes, 0.0, "?") == classes[S.argmax(1)].tolist()

    # exercise 2: the solution; with two classes, the binary perceptron's signs
    for probe in (*GRADER._ovo_votes(rng), GRADER._ovo_ties(rng)[0]):
        got, want = SOLUTION["ovo_predict"](*probe.args), REF["ovo_predict"](*probe.args)
        assert got[0].tolist() == want[0].tolist() and np.array_equal(got[1], want[1])
    X, labels, Xt = GRADER._classified(rng, 20, 2)
    K, Kt, two = X @ X.T, Xt @ X.T, np.array(["no", "yes"])
    alpha, b = GRADER._shared.dual_perceptron(K, np.where(labels == 0, 1.0, -1.0), 10)
    f = Kt @ (alpha * np.where(labels == 0, 1.0, -1.0)) + b
    assert REF["ovo_predict"](K, two[labels], Kt, two, 10)[0].tolist() == np.where(f > 0, "no", "yes").tolist()

    # exercise 3: the solution; a block of one is the online rule, a block of n the lecture's batch rule
    for probe in (*GRADER._minibatch_blocks(rng), *GRADER._minibatch_ends(rng)[:3]):
        for got, want in zip(SOLUTION["minibatch_ovr"](*probe.args), REF["minibatch_ovr"](*probe.args), strict=True):
            np.testing.assert_array_equal(got, want)
    K, y, classes, _, epochs = GRADER._minibatch_ends(rng)[0].args
    for got, want in zip(REF["minibatch_ovr"](K, y, classes, 1, epochs), _online_ovr(K, y, classes, epochs),
                         strict=True):
        np.testing.assert_array_equal(got, want)
    Y = np.where(y[:, None] == classes[None, :], 1.0, -1.0)
    alpha, b = _lecture_fit(K, Y, epochs)
    got = REF["minibatch_ovr"](K, y, classes, len(y), epochs)
    np.testing.assert_array_equal(got[0], alpha.T)
    np.testing.assert_array_equal(got[1], b)


@pytest.mark.parametrize("n", range(4, 21))
def test_the_constructed_data_pass_for_every_size(n):
    """The reference's and the solution's batch traps hold for every n the tests use, with epochs = n - 2."""
    for make in (REF["batch_trap"], SOLUTION["batch_trap"]):
        X, y, u = make(n, n - 2)
        assert checks._epochs_with_mistakes("online", X, y, 3) == 1
        assert checks._epochs_with_mistakes("batch", X, y, 10 * n) >= n - 2
        assert (y * (X @ u)).min() >= checks.MARGIN and np.linalg.norm(X, axis=1).max() <= 1


def test_the_visible_facts_that_the_notebook_states():
    """The numbers of the exercises' examples."""
    animals = ["cat", "dog", "emu"]
    assert REF["predict_with_reject"]([[2.0, 0.5, 1.0]], animals, 1.0, "?") == ["cat"]
    assert REF["predict_with_reject"]([[2.0, 0.5, 1.0]], animals, 1.5, "?") == ["?"]
    votes = REF["ovo_predict"](checks.KQ, checks.ABC[checks.LAB], checks.KQT, checks.ABC, 10)[1]
    assert (votes == 1).all(axis=1).any()  # a test point whose three votes go round


def _failing(gid, functions):
    return failing(GRADER, SOLUTION, gid, functions)


def _argmax_only(S, classes, threshold, reject):
    """The package's prediction from scores (kpcourse.perceptron._common): the argmax, never rejecting."""
    return np.asarray(classes)[np.asarray(S).argmax(axis=1)].tolist()


def _one_vs_rest(K, y, K_test, classes, max_epochs=10):
    """Lecture 07's one-vs-rest with the binary helper: C perceptrons on all points, the largest score."""
    y, classes = np.asarray(y), np.asarray(classes)
    scores = []
    for c in classes:
        y_pm = np.where(y == c, 1.0, -1.0)
        alpha, b = SOLUTION["binary_dual_fit"](K, y_pm, max_epochs)
        scores.append(K_test @ (alpha * y_pm) + b)
    scores = np.array(scores).T
    return classes[scores.argmax(axis=1)], np.zeros(scores.shape, dtype=int)


def _lecture_batch(K, y, classes, batch, max_epochs=10):
    """Lecture 07 cell 46's lecture_fit (a whole epoch at once, with the bias), whatever the block size."""
    Y = np.where(np.asarray(y)[:, None] == np.asarray(classes)[None, :], 1.0, -1.0)
    alpha, b = _lecture_fit(np.asarray(K, dtype=float), Y, max_epochs)
    return alpha.T, b


def _engine_online(K, y, classes, batch, max_epochs=10):
    """The package's trainer: one visit at a time, whatever the block size."""
    return _online_ovr(np.asarray(K, dtype=float), y, classes, max_epochs)


def _separable_in_one_step(n, epochs):
    """Data both rules handle in one epoch: the lecture's picture of separable classes, far apart."""
    X = np.array([[0.5, 0.5 + 0.01 * i] for i in range(n // 2)] + [[-0.5, -0.5 - 0.01 * i] for i in range(n - n // 2)])
    return X, np.r_[np.ones(n // 2), -np.ones(n - n // 2)], np.array([1.0, 1.0]) / np.sqrt(2)


@pytest.mark.parametrize("gid,function,wrong", [
    ("ex1-reject-tests-labels", "predict_with_reject", _argmax_only),
    ("ex1-reject-tests-edges", "predict_with_reject", _argmax_only),
    ("ex2-ovo-tests-votes", "ovo_predict", _one_vs_rest),
    ("ex2-ovo-tests-ties", "ovo_predict", _one_vs_rest),
    ("ex3-minibatch-tests-blocks", "minibatch_ovr", _lecture_batch),
    ("ex3-minibatch-tests-ends", "minibatch_ovr", _lecture_batch),
    ("ex3-minibatch-tests-blocks", "minibatch_ovr", _engine_online),
    ("ex3-minibatch-tests-ends", "minibatch_ovr", _engine_online),
    ("ex4-trap-tests-small", "batch_trap", _separable_in_one_step),
    ("ex4-trap-tests-large", "batch_trap", _separable_in_one_step),
])
def test_the_nearest_course_code_fails_each_exercise(gid, function, wrong):
    """What the exercise was designed against (issue 42), copied and wrapped, fails its visible and hidden tests."""
    assert _failing(gid, {function: wrong}) == ["visible", "hidden"]
    assert _failing(gid, {}) == []
