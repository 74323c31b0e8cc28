"""The README's ``make lab``, in a browser, as a student meets it.

The command is the one ``make -n lab`` prints (:func:`labpage.make_lab_command`), started in the
repository itself with the test's port, token and settings folders added. In headless Chromium: the
front page opens the start page by itself; the file browser, at the repository's top, lists the
lectures and the assignments and not the instructor's ``source/``; a double click on ``release/``, an
assignment's folder and its notebook opens the assignment. (``tests/test_lab.py`` checks the same server
through its API, without a browser, in ``make test``.)
"""

from __future__ import annotations

import re
import shutil

import pytest
from labpage import KERNEL_IDLE_S, REPO, SCREENSHOTS, LabServer, make_lab_command, started

ASSIGNMENT = "02-perceptron-by-hand"


def _checkpoints():
    return {*REPO.glob("notebooks/**/.ipynb_checkpoints"), *REPO.glob("release/**/.ipynb_checkpoints")}


@pytest.fixture(scope="module")
def student_lab(tmp_path_factory):
    """The server of ``make lab``, in the repository; the checkpoint folders opening a notebook makes, removed."""
    before = _checkpoints()
    try:
        with started(LabServer(REPO, tmp_path_factory.mktemp("make-lab"), program=make_lab_command())) as server:
            yield server
    finally:
        for folder in _checkpoints() - before:
            shutil.rmtree(folder, ignore_errors=True)


def _top_listing(page, showing):
    """The names the file browser lists at the top folder, once it lists ``showing`` (three tries).

    The browser opens the start page in ``notebooks/`` and follows it there, sometimes only after a
    first click on the home crumb has gone to the top; and after a click the listing is redrawn a
    moment later. So: click, wait up to 20 s for ``showing``, again if it is not there.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    names = page.locator(".jp-FileBrowser .jp-DirListing-content .jp-DirListing-itemText")
    for _ in range(3):
        page.locator(".jp-FileBrowser .jp-BreadCrumbs-home").click()
        try:
            names.filter(has_text=re.compile(f"^{re.escape(showing)}$")).first.wait_for(timeout=20_000)
            break
        except PlaywrightTimeout:
            continue  # the caller's assertion shows what is listed instead
    return [t.strip() for t in names.all_inner_texts()]


def test_a_student_opens_the_start_page_then_an_assignment_from_the_file_browser(browser_context, student_lab):
    page = browser_context.new_page()
    page.set_default_timeout(60_000)
    try:
        page.goto(f"{student_lab.url}/?token={student_lab.token}")
        start = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-RenderedMarkdown h1").first
        start.wait_for(timeout=KERNEL_IDLE_S * 1000)  # a cold server's first page
        assert "Start here" in start.inner_text(), "make lab's front page should open the start page"
        if not page.locator(".jp-FileBrowser").is_visible():  # its tab in the left bar (a click on it when open
            page.locator(".lm-TabBar-tab[data-id='filebrowser']").click()  # would close it)
        top = _top_listing(page, showing="release")
        assert {"notebooks", "release"} <= set(top), top
        assert "source" not in top and "tests" not in top, f"the instructor's folders are listed: {top}"
        listing = page.locator(".jp-FileBrowser .jp-DirListing-content")
        listing.get_by_text("release", exact=True).dblclick()
        listing.get_by_text(ASSIGNMENT, exact=True).dblclick()
        listing.get_by_text(f"{ASSIGNMENT}.ipynb", exact=True).dblclick()
        tab = page.locator(".lm-TabBar-tab.lm-mod-current .lm-TabBar-tabLabel", has_text=f"{ASSIGNMENT}.ipynb")
        tab.first.wait_for()
        opened = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-RenderedMarkdown h1").first
        assert "perceptron" in opened.inner_text().lower(), opened.inner_text()
        SCREENSHOTS.mkdir(exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "make-lab__assignment.png"))
    finally:
        page.close()
        for session in student_lab.api("sessions"):  # the kernels the two notebooks started
            student_lab.api(f"sessions/{session['id']}", method="DELETE")
