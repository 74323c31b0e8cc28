"""Deciding points: what the grader declares, reads, runs itself and judges.

- :mod:`kpcourse.grading.judge.spec`: Cell, what a grader file declares;
- :mod:`kpcourse.grading.judge.declared`: a grader file from a lesson's checks;
- :mod:`kpcourse.grading.judge.testdata`: random data for hidden probes;
- :mod:`kpcourse.grading.judge.policy`: wrote it or called it? (the source, parsed);
- :mod:`kpcourse.grading.judge.definitions`: the student's cells reduced to their definitions;
- :mod:`kpcourse.grading.judge.rerun`: every hidden call, made by the grader where no student statement ran;
- :mod:`kpcourse.grading.judge.trusted`: TrustedExecute (run, read, judge, report);
- :mod:`kpcourse.grading.judge.summary`: the per-notebook grading summary it writes;
- :mod:`kpcourse.grading.judge.local`: judge trusted notebooks quickly (golden submissions, for tests).
"""
