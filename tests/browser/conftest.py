"""The student's view: every notebook opened and run in JupyterLab, in headless Chromium.

nbval runs the notebooks in a kernel; these tests run them where students meet
them. A widget whose front end is missing or out of step with ipywidgets, or a
nbgrader *Validate* button that fails on a notebook that passes on the command
line, only shows up here.

Run with ``make test-browser`` (it sets ``KPCOURSE_BROWSER=1``; without it every
test here is skipped, so a plain ``pytest tests`` never starts a browser). Needs
Debian's ``chromium`` (``apt-get install -y chromium``; never ``playwright
install``) and Playwright's Python package. A missing ``chromium`` skips the
tests, except under ``CI=true`` where it fails them.

One JupyterLab server serves the whole session: ``jupyter lab`` on 127.0.0.1, a
free port, a random token, ``--allow-root`` as root, its root a temporary copy of
``notebooks/``, ``release/``, ``source/`` and ``nbgrader_config.py`` (the server
runs in that folder, where nbgrader's Validate handler looks for its config). An
assignment missing from ``release/`` is generated there from ``source/``. The
news pop-up, autosave and windowed rendering are switched off through
``overrides.json`` (beside this file) in a temporary app settings folder; user
settings, workspaces, Jupyter config and runtime files live in temporary folders
too, so the tests neither read nor touch the user's. The server (its process
group) is stopped at the end of the session even when tests fail.

Each test gets a fresh page on its own JupyterLab workspace (``LabPage``). PNG
screenshots go to ``tests/browser/screenshots/`` with the server log.

``test_exchange.py`` (nbgrader's exchange, release to feedback) starts its own servers, one per
person, from ``exchange.py``; it shares only the browser with the other tests.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
from pathlib import Path

import pytest
from labpage import (
    CHROMIUM_ARGS,
    REPO,
    SCREENSHOTS,
    VIEWPORT,
    LabPage,
    LabServer,
    assignments,
    generate_release,
    lecture_notebooks,
    release_notebooks,
    started,
)

HERE = Path(__file__).resolve().parent
ENABLED = os.environ.get("KPCOURSE_BROWSER") == "1"
ON_CI = os.environ.get("CI") == "true"


# ------------------------------------------------------------------ collection
def pytest_configure(config):
    if ENABLED:  # a SIGTERM (CI's timeout) stops the servers first, so that none is left behind
        signal.signal(signal.SIGTERM, _terminate)


def _terminate(signum, frame):
    for server in list(LabServer.running):
        server.stop()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def pytest_generate_tests(metafunc):
    if "notebook" in metafunc.fixturenames:
        nbs = lecture_notebooks() + release_notebooks()
        metafunc.parametrize("notebook", nbs, ids=[n.replace("/", ":") for n in nbs])


def pytest_collection_modifyitems(config, items):
    if ENABLED:
        return
    skip = pytest.mark.skip(reason="browser tests: set KPCOURSE_BROWSER=1 (make test-browser)")
    for item in items:
        if HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(skip)


# -------------------------------------------------------------------- fixtures
@pytest.fixture(scope="session", autouse=True)
def fresh_screenshots():
    """Remove the previous run's screenshots and server log, so that what is there is from this run."""
    for old in [*SCREENSHOTS.glob("*.png"), SCREENSHOTS / "jupyter-server.log"]:
        old.unlink(missing_ok=True)


@pytest.fixture(scope="session")
def course_root(tmp_path_factory):
    """A temporary course folder: the server's root and working directory."""
    root = tmp_path_factory.mktemp("course")
    ignore = shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__")
    for name in ("notebooks", "release", "source"):
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, root / name, ignore=ignore)
    shutil.copy2(REPO / "nbgrader_config.py", root / "nbgrader_config.py")
    missing = [a for a in assignments() if not list((root / "release" / a).glob("*.ipynb"))]
    if missing:  # not committed yet: the student's version is what source/ generates
        try:
            generate_release(root, missing)
        except RuntimeError as exc:
            pytest.fail(str(exc), pytrace=False)
    return root


@pytest.fixture(scope="session")
def lab_server(course_root, tmp_path_factory):
    """The session's ``jupyter lab``; stopped (process group) at the end, whatever happened."""
    server = LabServer(course_root, tmp_path_factory.mktemp("jupyter"))
    try:
        with started(server):
            yield server
    finally:
        SCREENSHOTS.mkdir(exist_ok=True)
        shutil.copy2(server.log, SCREENSHOTS / "jupyter-server.log")


@pytest.fixture(scope="session")
def chromium():
    """Path of Debian's chromium (env ``CHROMIUM`` overrides ``which chromium``)."""
    path = os.environ.get("CHROMIUM") or shutil.which("chromium")
    if not path:
        message = "chromium not found: apt-get install -y chromium (or set CHROMIUM to its path)"
        if ON_CI:
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return path


@pytest.fixture(scope="session")
def browser(chromium):
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        message = "Playwright's Python package is missing: pip install playwright (never `playwright install`)"
        if ON_CI:
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def browser_context(browser):
    """One context for the session: JupyterLab's scripts come from its cache after the first page."""
    context = browser.new_context(viewport=VIEWPORT)
    yield context
    context.close()


@pytest.fixture
def lab(browser_context, lab_server, request):
    """A ``LabPage`` on a new page; afterwards the page is closed and every kernel shut down."""
    page = browser_context.new_page()
    page.set_default_timeout(30_000)
    yield LabPage(page, lab_server, re.sub(r"[^\w.-]+", "_", request.node.name))
    page.close()
    try:  # each notebook's kernel ends with its test: 2 cores, and torch in every kernel
        for session in lab_server.api("sessions"):
            lab_server.api(f"sessions/{session['id']}", method="DELETE")
    except Exception:  # the server's own fixture reports a broken server
        pass
