"""A class on one machine for the exchange test: the exchange, the course, a JupyterLab per person.

``Classroom`` builds, in temporary folders:

- the **exchange** (``Exchange.root``), created world-writable (``chmod 777``) as nbgrader's
  docs ask; ``nbgrader release_assignment`` then makes ``<exchange>/kpcourse/{outbound,inbound}``;
- the **course root**: ``source/`` and ``nbgrader_config.py`` copied from the repository (the
  release is generated there, as ``make release`` does, so that it is in the gradebook);
- one **instructor** JupyterLab (root and working directory: the course root, so that the
  formgrader reads the course's ``nbgrader_config.py``) and one per **student** (root: the
  student's own empty ``HOME``), each with its own Jupyter config folder holding a
  ``nbgrader_config.py`` with ``Exchange.root`` and the course id (on JupyterHub these live
  in ``/etc/jupyter`` or ``~/.jupyter``). Students get the formgrader and the Create Assignment
  tool switched off, as nbgrader's installation guide describes for student accounts.

Every server runs as this test's user. nbgrader names a submission after the login name, which
would be the same for all three students here: each student's config sets
``CourseDirectory.student_id`` to their id instead (a JupyterHub gives each its own account).

``AssignmentsTab`` and ``Formgrader`` drive nbgrader's two user interfaces: the *Assignments*
tab of a student's JupyterLab (the ``assignment_list`` extension) and the instructor's
formgrader pages, through their own elements (ids and classes of nbgrader 0.9).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

from labpage import REPO, SCREENSHOTS, LabPage, LabServer

from kpcourse.grading.course.exchange import SealedSubmit
from kpcourse.grading.paths import copy_source

COURSE = "kpcourse"
ASSIGNMENT = "02-perceptron-by-hand"
NOTEBOOK = ASSIGNMENT  # the assignment's one notebook
MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")
#: The students' submit, as a Jupyter config names it (the hub test's global config uses it too).
SEALED_SUBMIT = f"{SealedSubmit.__module__}.{SealedSubmit.__qualname__}"
LIST_ID = re.sub(r"[^A-Za-z0-9\-_]", "", f"nbgrader-{COURSE}-{ASSIGNMENT}".replace(" ", "_"))
ACTION_S = 180   # one nbgrader action from a browser button (validate runs the notebook)
PAGE_S = 120     # JupyterLab's page to load on busy cores


def _text(source):
    return "".join(source) if isinstance(source, list) else source


def nbgrader_cells(nb):
    """``{grade_id: cell}`` of a notebook (nbformat dict)."""
    return {c["metadata"]["nbgrader"]["grade_id"]: c for c in nb["cells"]
            if "grade_id" in c.get("metadata", {}).get("nbgrader", {})}


def source_notebook():
    return json.loads((REPO / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb").read_text())


def solutions():
    """What a student who solved everything writes: ``{grade_id: cell source}``.

    Code solution cells without the ``### BEGIN/END SOLUTION`` lines; the written answer
    (a markdown solution cell, replaced whole in the release) as the source has it.
    """
    out = {}
    for gid, cell in nbgrader_cells(source_notebook()).items():
        if cell["metadata"]["nbgrader"].get("solution"):
            lines = _text(cell["source"]).splitlines(keepends=True)
            out[gid] = "".join(ln for ln in lines if ln.strip() not in MARKERS)
    return out


def points():
    """``(auto, written)``: ``{grade_id: points}`` of the autograded test cells and of the written answers."""
    auto, written = {}, {}
    for gid, cell in nbgrader_cells(source_notebook()).items():
        meta = cell["metadata"]["nbgrader"]
        if meta.get("grade"):
            (written if meta.get("solution") else auto)[gid] = float(meta["points"])
    return auto, written


def feedback_header(score):
    """The title line of a feedback file: ``NN-slug (Score: 11.0 / 14.0)`` (written answers count in the total)."""
    auto, written = points()
    return f"{NOTEBOOK} (Score: {score:.1f} / {sum(auto.values()) + sum(written.values()):.1f})"


def page_text(context, url, screenshot):
    """The text of the page at ``url`` (a fetched feedback file), opened in a tab of its own.

    ``screenshot(page)`` is called before the tab closes.
    """
    view = context.new_page()
    try:
        view.goto(url)
        view.locator("h4").first.wait_for()
        text = view.locator("body").inner_text()
        screenshot(view)
    finally:
        view.close()
    return text


def load_from_tests(relative, name):
    """A module of ``tests/`` loaded by its path (``tests/`` is not on this folder's import path)."""
    spec = importlib.util.spec_from_file_location(name, REPO / "tests" / relative)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def golden_case(name):
    """One common mistake of ``tests/golden/02-perceptron-by-hand.py`` (``replace``, ``expect``, ``message``)."""
    return load_from_tests(f"golden/{ASSIGNMENT}.py", "golden_02_for_exchange").CASES[name]


def _env_path():
    return str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")


# ---------------------------------------------------------------- the class
class Person:
    """One user: ``name``, ``home``, Jupyter ``config`` folder, ``server`` (a LabServer)."""

    def __init__(self, name, base):
        self.name = name
        self.base = base / name
        self.home = self.base / "home"
        self.jupyter = self.base / "jupyter"
        self.config = self.jupyter / "config"
        for d in (self.home, self.config):
            d.mkdir(parents=True)
        self.server = None


class Classroom:
    """The exchange, the course root and everyone's JupyterLab; ``stop()`` ends the servers."""

    def __init__(self, base, students):
        self.base = Path(base)
        self.exchange = self.base / "exchange"
        self.exchange.mkdir()
        self.exchange.chmod(0o777)  # nbgrader's docs: readable and writable by every user
        self.course = self.base / "course"
        copy_source(REPO, self.course, ASSIGNMENT, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
        shutil.copy2(REPO / "nbgrader_config.py", self.course / "nbgrader_config.py")
        self.instructor = Person("instructor", self.base / "people")
        self.students = {s: Person(s, self.base / "people") for s in students}
        self._write_configs()

    # -- configuration
    def _write_configs(self):
        (self.instructor.config / "nbgrader_config.py").write_text(
            "c = get_config()  # noqa: F821\n"
            f"c.Exchange.root = {str(self.exchange)!r}\n"
            "# every server of this test runs as one Unix user, which the course's collect refuses\n"
            "c.OwnerCheckedCollect.check_owner = False\n")
        for s, p in self.students.items():
            (p.config / "nbgrader_config.py").write_text(
                "c = get_config()  # noqa: F821\n"
                f"c.Exchange.root = {str(self.exchange)!r}\n"
                f"c.CourseDirectory.course_id = {COURSE!r}\n"
                f"c.ExchangeFactory.submit = {SEALED_SUBMIT!r}\n"
                "# One login name for every server of this test: give each student their id.\n"
                f"c.CourseDirectory.student_id = {s!r}\n")
            # students: no formgrader, no Create Assignment (nbgrader's installation guide)
            (p.config / "jupyter_server_config.json").write_text(json.dumps(
                {"ServerApp": {"jpserver_extensions": {"nbgrader.server_extensions.formgrader": False}}}))
            (p.config / "labconfig").mkdir()
            (p.config / "labconfig" / "page_config.json").write_text(json.dumps(
                {"disabledExtensions": {"@jupyter/nbgrader:formgrader": True,
                                        "@jupyter/nbgrader:create-assignment": True}}))

    def instructor_env(self):
        """Environment of the instructor's commands: the venv first on PATH, their Jupyter config."""
        env = dict(os.environ, PATH=_env_path(), JUPYTER_CONFIG_DIR=str(self.instructor.config))
        env.pop("MPLBACKEND", None)
        return env

    # -- the course
    def generate(self):
        """``make release`` in the course root: release/ and the gradebook entry of the assignment."""
        return self.run([sys.executable, "-m", "kpcourse.grading", "release", ASSIGNMENT])

    def run(self, cmd, timeout=600, env=None, check=True):
        """A command in the course root as the instructor; raises with its output on failure."""
        proc = subprocess.run(cmd, cwd=self.course, env=env or self.instructor_env(), capture_output=True,
                              text=True, timeout=timeout)
        if check and proc.returncode != 0:
            raise AssertionError(f"`{' '.join(map(str, cmd))}` exited with {proc.returncode}:\n"
                                 f"{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}")
        return proc

    # -- servers
    def start(self):
        """Start every JupyterLab at once (they boot in parallel), then wait for each."""
        self.instructor.server = LabServer(self.course, self.instructor.jupyter)
        for s, p in self.students.items():
            p.server = LabServer(p.home, p.jupyter, extra_env={"HOME": str(p.home), "USER": s})
        for p in self.people():
            p.server.wait_ready()

    def people(self):
        return [self.instructor, *self.students.values()]

    def stop(self):
        SCREENSHOTS.mkdir(exist_ok=True)
        for p in self.people():
            if p.server is not None:
                p.server.stop()
                shutil.copy2(p.server.log, SCREENSHOTS / f"exchange__{p.name}__server.log")

    # -- what the exchange holds
    def outbound(self):
        return self.exchange / COURSE / "outbound" / ASSIGNMENT

    def inbound(self):
        return sorted((self.exchange / COURSE / "inbound").glob(f"*+{ASSIGNMENT}+*"))

    def released_feedback(self):
        return sorted((self.exchange / COURSE / "feedback").glob("*.html"))


def mode(path):
    """Permission bits of ``path`` as an octal string, e.g. ``'2733'``."""
    return oct(stat.S_IMODE(os.stat(path).st_mode))[2:]


# ------------------------------------------------------------ the two UIs
def open_lab(page, server, name):
    """JupyterLab's default workspace, reset, once its menu bar is there.

    Not a named workspace (``/lab/workspaces/<name>``, what ``LabPage.open`` uses): the
    Assignments tab's links are ``href="#..."`` anchors, and a URL change there makes
    JupyterLab restore the named workspace, which can close the tab.
    """
    lab = LabPage(page, server, name)
    page.goto(f"{server.url}/lab?reset&token={server.token}")
    page.locator("#jp-menu-panel .lm-MenuBar-itemLabel", has_text=re.compile("^Nbgrader$")).wait_for(
        timeout=PAGE_S * 1000)
    return lab


class AssignmentsTab:
    """nbgrader's *Assignments* tab in a student's JupyterLab."""

    def __init__(self, lab: LabPage):
        self.lab, self.page = lab, lab.page

    def open(self):
        self.lab.menu("Nbgrader", "Assignment List")
        self.page.locator("#jp-main-dock-panel .lm-TabBar-tabLabel", has_text=re.compile("^Assignments$")).wait_for()
        self.wait_loaded()

    def show(self):
        """Bring the tab to the front (after a notebook was opened over it)."""
        self.page.locator("#jp-main-dock-panel .lm-TabBar-tab", has_text=re.compile("^Assignments$")).click()
        self.page.locator("#released_assignments_list").wait_for(state="visible")

    def wait_loaded(self, timeout=ACTION_S):
        """Wait until the three lists stopped loading; raise with the tab's error text if it shows one."""
        for name in ("released", "fetched", "submitted"):
            self.page.locator(f"#{name}_assignments_list_loading").wait_for(state="hidden", timeout=timeout * 1000)
        error = self.page.locator("#released_assignments_list_error")
        if error.is_visible():
            raise AssertionError(f"the Assignments tab shows an error: {error.inner_text()[:2000]}")

    def refresh(self):
        self.page.locator("#refresh_assignments_list").click()
        self.wait_loaded()

    def rows(self, name):
        """The assignment rows of one list (``released``, ``fetched``, ``submitted``)."""
        return self.page.locator(f"#{name}_assignments_list > .list_item")

    def row(self, name):
        """The row of our assignment in one list, once it is there."""
        row = self.rows(name).filter(has=self.page.locator(".item_name", has_text=ASSIGNMENT))
        row.first.wait_for(timeout=ACTION_S * 1000)
        return row.first

    def button(self, row):
        """The assignment-level button of a row (not the Validate buttons of its notebooks)."""
        return row.locator(":scope > .col-md-12 > .item_status button")

    def fetch(self):
        row = self.row("released")
        self.button(row).click()
        return self.row("fetched")

    def open_notebook(self):
        """Open the fetched notebook from the file browser (double-click the folder, then the notebook).

        Not through the tab's own links: they are ``href="#..."`` anchors, and the URL change
        makes JupyterLab restore its saved workspace, which may close the tab on a fresh page.
        """
        self.lab.command("filebrowser:activate")
        self.lab.command("filebrowser:refresh")  # the folder Fetch just made
        listing = self.page.locator(".jp-FileBrowser .jp-DirListing-content")
        listing.get_by_text(ASSIGNMENT, exact=True).dblclick()
        listing.get_by_text(f"{NOTEBOOK}.ipynb", exact=True).dblclick()
        self.page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook").wait_for(timeout=PAGE_S * 1000)

    def close_dialog(self):
        self.page.locator(".jp-Dialog .jp-Dialog-button.jp-mod-accept").click()
        self.page.locator(".jp-Dialog").wait_for(state="detached")

    def submit(self):
        """Click *Submit*; return the timestamps listed under the submitted assignment."""
        button = self.button(self.row("fetched"))
        assert button.inner_text().strip() == "Submit", f"the fetched assignment's button says {button.inner_text()!r}"
        before = self.submissions()
        button.click()
        done = self.page.locator(f"#{LIST_ID}-submissions > .list_item:nth-child({len(before) + 2}), "
                                 ".nbgrader-ErrorDialog")
        done.first.wait_for(timeout=ACTION_S * 1000)
        error = self.page.locator(".nbgrader-ErrorDialog")
        if error.count():
            raise AssertionError(f"Submit failed: {error.inner_text()[:3000]}")
        return self.submissions()

    def submissions(self):
        """Text of each submission row (timestamp, feedback state) of our assignment."""
        rows = self.page.locator(f"#{LIST_ID}-submissions > .list_item")
        return [t.strip() for t in rows.all_inner_texts()][1:]  # the first row is an empty header

    def fetch_feedback(self):
        row = self.row("submitted")
        button = self.button(row)
        assert button.inner_text().strip() == "Fetch Feedback", button.inner_text()
        button.click()
        link = self.page.locator(f"#{LIST_ID}-submissions a", has_text="view feedback")
        link.first.wait_for(timeout=ACTION_S * 1000)
        return link.first


class Formgrader:
    """The instructor's formgrader pages (``/formgrader/...`` of their JupyterLab server)."""

    def __init__(self, page, server):
        self.page, self.server = page, server

    def goto(self, path):
        sep = "&" if "?" in path else "?"
        self.page.goto(f"{self.server.url}/formgrader/{path}{sep}token={self.server.token}")

    def manage_assignments(self):
        self.goto("manage_assignments")
        return self.assignment_row()

    def assignment_row(self):
        row = self.page.locator("tr", has=self.page.locator("td.name", has_text=ASSIGNMENT))
        row.first.wait_for(timeout=PAGE_S * 1000)
        return row.first

    def action(self, column):
        """Click the assignment's button in ``column`` (``release``, ``collect``, ``generate-feedback``,
        ``release-feedback``); wait for nbgrader's success or error box; return its text."""
        self.manage_assignments()
        self.assignment_row().locator(f"td.{column} a").click()
        modal = self.page.locator("#success-modal, #error-modal")
        modal.first.wait_for(state="visible", timeout=ACTION_S * 1000)
        text = modal.first.inner_text()
        ok = modal.first.get_attribute("id") == "success-modal"
        return ok, text

    def close_modal(self):
        modal = self.page.locator(".modal.in, .modal.show").first
        modal.locator("button[data-dismiss=modal]").last.click()
        self.page.locator(".modal").first.wait_for(state="detached")

    def gradebook(self):
        """The notebook's page in the gradebook: one row per submission; ``{student: row text}``."""
        self.goto(f"gradebook/{ASSIGNMENT}/{NOTEBOOK}")
        self.page.locator("td.score").first.wait_for(timeout=PAGE_S * 1000)
        self.page.locator("#toggle_names").click()  # show the students' ids instead of "Submission #n"
        out = {}
        for row in self.page.locator("tbody tr").all():
            name = row.locator("a.name-shown").inner_text().strip()
            out[name] = " | ".join(t.strip() for t in row.locator("td").all_inner_texts())
        return out

    def open_submission(self, student):
        """The formgrade page of ``student``'s notebook (through the gradebook's link)."""
        self.goto(f"gradebook/{ASSIGNMENT}/{NOTEBOOK}")
        link = self.page.locator("a.name-shown", has_text=re.compile(f"^{re.escape(student)}$"))
        link.wait_for(state="attached", timeout=PAGE_S * 1000)
        self.page.goto(f"{self.server.url}{link.get_attribute('href')}")
        self.page.locator("input.score").first.wait_for(timeout=PAGE_S * 1000)
        # the score and comment boxes save themselves once the page has loaded their grades and comments
        self.page.wait_for_function("() => window.formgrader && formgrader.grades && formgrader.grades.loaded"
                                    " && formgrader.comments && formgrader.comments.loaded", timeout=PAGE_S * 1000)

    def grade(self, grade_id, score, comment):
        """Type a score and a comment for one manually graded cell; wait until both are saved."""
        with self.page.expect_response(lambda r: "/formgrader/api/grade/" in r.url
                                       and r.request.method == "PUT") as resp:
            score_box = self.page.locator(f"input.score#{grade_id}")
            score_box.fill(str(score))
            score_box.press("Tab")  # the change event saves it
        assert resp.value.ok, f"saving the score of {grade_id}: HTTP {resp.value.status}"
        with self.page.expect_response(lambda r: "/formgrader/api/comment/" in r.url
                                       and r.request.method == "PUT") as resp:
            box = self.page.locator(f"textarea#{grade_id}-comment")
            box.fill(comment)
            box.press("Tab")
        assert resp.value.ok, f"saving the comment of {grade_id}: HTTP {resp.value.status}"
