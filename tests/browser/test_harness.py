"""The checks of this suite can fail: a broken widget and a raising cell are caught.

A throw-away notebook (written into the server's folder, never into the repo)
displays a widget view whose model does not exist, the way a widget looks when
its front end cannot build it; JupyterLab shows "Error displaying widget: model
not found" in its place. Its second cell raises. ``widget_problems`` and
``cell_problems`` must report both.
"""

import json

from labpage import cell_problems

BROKEN = {
    "cells": [
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": (
            "from IPython.display import display\n"
            "view = {'model_id': '00000000deadbeef', 'version_major': 2, 'version_minor': 0}\n"
            "display({'application/vnd.jupyter.widget-view+json': view, 'text/plain': 'a widget'}, raw=True)")},
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
         "source": "raise ValueError('a cell that fails on purpose')"},
    ],
    "metadata": {"kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python",
                                "name": "python3"}},
    "nbformat": 4, "nbformat_minor": 5,
}


def test_broken_widget_and_error_are_reported(lab, course_root):
    path = course_root / "harness" / "broken-widget.ipynb"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(BROKEN))
    lab.open("harness/broken-widget.ipynb")
    try:
        nb = lab.run_everything()
        widget_problems, _ = lab.widget_problems(nb)
        errors = cell_problems(nb)
    finally:
        lab.screenshot()
    assert any("Error displaying widget" in p for p in widget_problems), widget_problems
    assert any("ValueError: a cell that fails on purpose" in p for p in errors), errors
