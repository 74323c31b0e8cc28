"""Grade every golden submission with other seeds of the hidden probes: points must not depend on them.

``make autograde`` draws a fresh secret seed for every notebook it grades (``hidden_seed = -1``),
and the pipeline test grades each golden case once, most of them with the grader's default seed
(:func:`kpcourse.grading.judge.local.judge`). A case whose points depend on the seed (a near-tie, a
probe where a mistake happens to give the right answer) is a flaky test there and an unfair
point for a student. This sweep judges every golden case of ``tests/golden`` (and each
assignment's solution; not the cases marked ``"autograde"``, whose points only the real
path decides) locally with ``--seeds`` other seeds and prints each case whose points
differ from what it expects. Not part of ``make test`` (about two minutes per seed on two
cores); run it after changing a grader's hidden probes: ``make sweep-seeds``.

    python tests/sweep_seeds.py [--seeds 1 2 3] [--only 08-margins-and-svm]
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_pipeline import ASSIGNMENTS, ROOT, TIMEOUT, Assignment, autograde_only, golden_cases  # noqa: E402

from kpcourse.grading.judge import local  # noqa: E402


def sweep(names, seeds, jobs=2):
    """``[(seed, assignment, case, {grade_id: (got, expected)})]`` for every case whose points differ."""
    with ThreadPoolExecutor(max_workers=jobs) as pool:  # one local shell (a process) per assignment
        return [f for found in pool.map(lambda n: _sweep_one(n, seeds), names) for f in found]


def _sweep_one(name, seeds):
    failures = []
    a = Assignment(name, ROOT)
    cases = {"solution": (a.submission(), {})}
    golden = golden_cases(name)
    cases.update({case: (a.submission(replace=spec["replace"]), spec.get("expect", {}))
                  for case, spec in golden.items() if not autograde_only(spec)})
    for seed in seeds:
        start = time.monotonic()
        judged = local.judge(ROOT / "source" / name, {c: nb for c, (nb, _) in cases.items()}, TIMEOUT,
                             seed=seed)
        for case, (_, expect) in cases.items():
            got, want = local.points(a.source, judged[case]["verdicts"]), a.points(expect)
            if got != want:
                diff = {g: (got.get(g), want[g]) for g in want if got.get(g) != want[g]}
                failures.append((seed, name, case, diff))
                print(f"seed {seed} {name} {case}: (got, expected) {diff}", flush=True)
        print(f"seed {seed} {name}: {len(cases)} cases in {time.monotonic() - start:.0f} s", flush=True)
    return failures


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python tests/sweep_seeds.py", description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--only", nargs="+", default=ASSIGNMENTS)
    parser.add_argument("--jobs", type=int, default=2, help="assignments judged at once (default 2)")
    args = parser.parse_args(argv)
    failures = sweep(args.only, args.seeds, args.jobs)
    print(f"{len(failures)} case(s) whose points depend on the seed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
