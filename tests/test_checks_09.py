"""The capstone's references and hidden data, against the source's solution and against what they promise.

``tests/test_exercises.py`` runs every declared mistake through every check that names it, and
``tests/test_lessons.py`` every source solution through every cell; here: the grader's reference
reaches what the probes ask (every row it learned, on separable groups and with a narrow kernel),
the transformed tables share no row with the public ones and keep the classes' sizes, the solution's
pipeline stays inside the accuracy bands over several seeds (a different multi-class scheme than the
grader's), the numbers the notebook states, and the copies of course code that the capstone was
designed against fail it.
"""

import dataclasses
import os
from pathlib import Path

import numpy as np
import pytest
from giveaway import solution
from judging import failing

from kpcourse.checks import lesson09 as checks
from kpcourse.grading.judge.declared import argument, hidden_probes
from kpcourse.grading.judge.trusted import load_grader

ROOT = Path(__file__).resolve().parents[1]
GRADER = load_grader(ROOT / "source" / "09-capstone" / "grader.py")
REF = GRADER.REFERENCES


@pytest.fixture(scope="module")
def own():
    """The source's solution (its setup cell reads wine through the data cache)."""
    return solution("09-capstone")


def _labels_of(functions, probe):
    """What ``functions`` (the grader's references or the solution's) predict on ``probe``."""
    return functions["predict"](*[argument(a, functions) for a in probe.args])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_reference_learns_what_the_probes_ask(seed):
    """Separable groups and a narrow kernel: every learned row back; a row near each group's centre: its label."""
    for cell in ("ex1-model-tests-separable", "ex1-model-tests-bias", "ex1-model-tests-memorise",
                 "ex1-model-tests-labels"):
        for probe in [*checks.LESSON.check(cell)[1].probes, *hidden_probes(cell, GRADER.HIDDEN[cell], seed)]:
            got = _labels_of(REF, probe)
            y = np.asarray(probe.args[0].args[1])
            if cell == "ex1-model-tests-labels":
                groups = list(dict.fromkeys(y.tolist()))  # one query near each group's centre, in their order
                assert got.tolist() == groups[: len(got)], (cell, got)
            else:
                assert np.array_equal(got, y), cell


@pytest.mark.parametrize("seed", [0, 1])
def test_no_hidden_row_is_a_public_row(seed):
    """The transformed tables: far from every public row, the classes' sizes kept, the names renamed."""
    from kpcourse.datasets import load_table

    rng = np.random.default_rng(seed)
    for name in ("wine", "breast_cancer"):
        X, y = load_table(name)
        Z, z = GRADER._transformed(rng, name)
        assert Z.shape == X.shape
        assert sorted(np.unique(z, return_counts=True)[1]) == sorted(np.unique(y, return_counts=True)[1])
        assert not set(np.unique(z).tolist()) & set(np.unique(y).tolist())
        gap = np.abs(Z[:, None, :] - X[None, :, :]).max(axis=2).min()
        assert gap > 1.0, name


@pytest.mark.skipif(os.environ.get("KPCOURSE_SLOW_SEEDS") is None and os.environ.get("CI") != "true",
                    reason="the solution against the bands on five seeds: CI, or KPCOURSE_SLOW_SEEDS=1")
@pytest.mark.parametrize("seed", range(5))
def test_the_solution_stays_inside_the_bands(own, seed):
    """The solution (one score per class) against the grader (one-vs-rest): within every band, with room."""
    for cell, below in (("ex2-pipeline-tests-near", 0.10), ("ex2-pipeline-tests-close", 0.05)):
        for probe in hidden_probes(cell, GRADER.HIDDEN[cell], seed):
            held = probe.held if isinstance(probe.held, dict) else {"labels": probe.held}
            mine = np.mean(_labels_of(own, probe) == held["labels"])
            course = np.mean(_labels_of(REF, probe) == held["labels"])
            assert mine >= course - held.get("below", below), (cell, seed, mine, course)


def test_the_numbers_the_written_answer_states(own):
    """Part 3's table and test accuracy, from the source's solution on the development split."""
    from kpcourse.datasets import load_table

    X_all, y_all = load_table("wine")
    order = np.random.default_rng(9).permutation(len(y_all))
    X, y, X_test, y_test = X_all[order[:124]], y_all[order[:124]], X_all[order[124:]], y_all[order[124:]]
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    width = np.sqrt(X.shape[1])
    grid = [{"kernel": "linear", "epochs": 50}] + [{"kernel": "rbf", "sigma": c * width, "epochs": 50}
                                                    for c in (0.25, 0.5, 1.0, 2.0)]
    best, table, folds = own["select"](Z, y, grid, 5, 0)
    assert table.mean(axis=1) == pytest.approx([0.032, 0.057, 0.064, 0.049, 0.049], abs=5e-4)
    assert best["kernel"] == "linear"
    assert sorted(np.concatenate(folds).tolist()) == list(range(124))
    accuracy = np.mean(own["predict"](own["pipeline"](X, y, 0), X_test) == y_test)
    assert accuracy == pytest.approx(0.944, abs=5e-4)


def test_the_numbers_the_report_states():
    """Part 4's learning curve, confusion matrix and paired comparison: the source's cells, run as a student's
    kernel runs them (parts 1 to 3 before), give the numbers its model answer states."""
    import contextlib

    from giveaway import _quiet, nbg, source_notebook, without_markers

    namespace = {}
    with contextlib.chdir(ROOT / "source" / "09-capstone"), _quiet():
        for c in source_notebook("09-capstone").cells:
            if c.cell_type == "code" and (nbg(c).get("grade_id") in ("setup", "data") or nbg(c).get("solution")):
                exec(compile(without_markers(c.source), nbg(c)["grade_id"], "exec"), namespace)  # noqa: S102
    curve = namespace["curve"]
    assert curve[:, 0] == pytest.approx(0.0, abs=1e-12)  # every row it learned from, at every size
    assert curve[:, 2] == pytest.approx([0.137, 0.089, 0.016, 0.056, 0.016], abs=5e-4)
    assert curve[:, 3] == pytest.approx([0.042, 0.079, 0.020, 0.041, 0.020], abs=5e-4)
    assert namespace["confusion"].tolist() == [[16, 0, 0], [1, 22, 2], [0, 0, 13]]
    assert (namespace["b"], namespace["c"]) == (4, 1) and namespace["p"] == pytest.approx(0.375, abs=5e-4)
    assert namespace["other_params"]["kernel"] == "rbf"


def test_the_intro_states_the_graders_caps():
    """What the notebook tells a student about literals is what the grader applies (MAX_LITERALS)."""
    from giveaway import source_notebook

    most, longest = GRADER.MAX_LITERALS
    intro = " ".join(source_notebook("09-capstone").cells[0].source.split())
    assert f"at most {most} literals (numbers and strings), none longer than {longest} characters" in intro


def _golden(case, cell):
    """The functions that golden case ``case`` types into ``cell`` (tests/golden/09-capstone.py), beside ``np``."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("golden09", ROOT / "tests" / "golden" / "09-capstone.py")
    golden = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(golden)
    typed = {"np": np}
    exec(golden.CASES[case]["replace"][cell], typed)  # noqa: S102 - the golden submission itself
    return typed


@pytest.mark.parametrize("gid", ["ex1-model-tests-labels", "ex1-model-tests-separable", "ex1-model-tests-bias",
                                 "ex1-model-tests-memorise"])
def test_the_nearest_course_code_fails_each_exercise(own, gid):
    """Appendix 07's multi-class perceptron, pasted as fit and predict (golden pasted-trainer), fails visible and
    hidden tests."""
    pasted = _golden("pasted-trainer", "ex1-model")
    assert failing(GRADER, own, gid, {k: pasted[k] for k in ("fit", "predict")}) == ["visible", "hidden"]
    assert failing(GRADER, own, gid, {}) == []


def test_a_lookup_of_the_public_rows_earns_nothing(own):
    """The golden ``public-rows`` attack, judged without the source policy: right on every public row as it
    is, below both bands on the grader's rows (rotated, rescaled, shifted, shuffled, renamed, drawn)."""
    from kpcourse.datasets import load_table

    attack = {**own, **_golden("public-rows", "ex2-pipeline")}
    for name in ("wine", "breast_cancer"):
        X, y = load_table(name)
        order = np.random.default_rng(3).permutation(len(y))
        fit_rows, new_rows = order[: len(y) * 6 // 10], order[len(y) * 6 // 10:]
        model = attack["pipeline"](X[fit_rows], y[fit_rows], 0)
        assert np.mean(attack["predict"](model, X[new_rows]) == y[new_rows]) >= 0.99, name
    for cell in ("ex2-pipeline-tests-near", "ex2-pipeline-tests-close"):
        judged = GRADER.cells(seed=3)[cell]
        with pytest.raises(AssertionError, match="below the course's own pipeline"):
            dataclasses.replace(judged, tests=judged.tests[1:]).judge_here(
                {k: attack[k] for k in ("fit", "predict", "pipeline")})


@pytest.mark.parametrize("seed", [0, 1])
def test_the_select_probes_tell_the_mistakes_apart(seed):
    """Every hidden select draw: one best setting, not the first; the recomputed entries change when the
    table is fitted on every row; the visible entries likewise; the table's entries are what fit and predict
    give on the stated folds."""
    for cell in ("ex2-select-tests-folds", "ex2-select-tests-table"):
        for probe in hidden_probes(cell, GRADER.HIDDEN[cell], seed):
            if probe.raises or probe.like is not None:
                continue
            means = REF["select"](*probe.args)[1].mean(axis=1)
            assert np.sum(means == means.min()) == 1 and int(np.argmin(means)) != 0, cell
    right = REF["select"](checks.XO, checks.YO, checks.GRID, checks.FOLDS, checks.SEED)[1]
    leaky = REF["select"](checks.XO, checks.YO, checks.GRID, checks.FOLDS, checks.SEED, mistake="leaky")[1]
    for g, f in checks.ENTRIES:
        assert right[g, f] != leaky[g, f]
        rest, fold = checks._fold_rows(len(checks.YO), checks.FOLDS, checks.SEED, f)
        model = REF["fit"](checks.XO[rest], checks.YO[rest], checks.GRID[g])
        assert np.mean(REF["predict"](model, checks.XO[fold]) != checks.YO[fold]) == pytest.approx(right[g, f])
