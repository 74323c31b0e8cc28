"""The sandbox a submission runs in: bubblewrap, control groups, limits, what it holds.

- :mod:`.bwrap`: the bubblewrap boundary (run_notebook, run_python, read_untrusted);
- :mod:`kpcourse.grading.sandbox.cgroup`: a control group per sandbox (memory, processes);
- :mod:`kpcourse.grading.sandbox.limits`: the grading limits and how they are applied;
- :mod:`kpcourse.grading.sandbox.allowed`: the trimmed package and the absent packages;
- :mod:`kpcourse.grading.sandbox.inside`: what runs first inside the sandbox;
- :mod:`kpcourse.grading.sandbox.executor`: RestartingExecute (inside the sandbox).
"""
