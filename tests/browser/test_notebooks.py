"""Every lecture and release notebook, opened and run in JupyterLab as a student would.

For each notebook: open it, wait for an idle kernel, Run → Run All Cells (and go on
after a cell that raised), then check that

- no cell shows an error (in ``release/`` only the ``NotImplementedError`` of an
  unfilled exercise, or a test cell reporting one);
- every widget the kernel displayed is rendered (no "Loading widget..." or
  "Error displaying widget" in its place);
- a key press on a widget's slider changes the figure it controls (or its text,
  for a widget without a figure); where every slider is disabled, or there is only
  a dropdown, the dropdown's next option first.

A screenshot of the whole notebook, and of each widget, lands in
``tests/browser/screenshots/``. Select notebooks with ``-k``, e.g.
``make test-browser PYTEST_FLAGS="-k 05-rbf"``.
"""

from labpage import cell_problems


def test_notebook_runs_in_jupyterlab(lab, notebook):
    is_release = notebook.startswith("release/")
    lab.open(notebook)
    try:
        nb = lab.run_everything()
        problems = cell_problems(nb, allow_not_implemented=is_release)
        widget_problems, widgets = lab.widget_problems(nb)
        problems += widget_problems
        assert not problems, "\n".join(problems + [f"console: {e}" for e in lab.console_errors[-10:]])
        for k, w in enumerate(widgets):
            if w["controls"]:
                assert lab.exercise_widget(k), f"widget {k}: every slider and dropdown is disabled"
            lab.screenshot(f"-widget{k}", locator=lab.widget(k))
    finally:
        lab.screenshot()
