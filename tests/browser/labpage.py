"""Driving JupyterLab for the browser tests: the server, the page, what a student sees.

``LabServer`` starts ``jupyter lab`` in a course folder and stops its process group;
``LabPage`` opens a notebook on a fresh workspace, runs it through the menus, reads
the notebook back from the front end, moves widgets and clicks Validate;
``cell_problems`` lists cells that did not run or show an error. The fixtures that
put them together are in ``conftest.py`` (read its docstring first).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SCREENSHOTS = HERE / "screenshots"

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
VIEWPORT = {"width": 1400, "height": 1000}
SERVER_START_S = 180      # a cold server on 2 busy cores: usually about 10 s
KERNEL_IDLE_S = 180       # opening a notebook until its kernel is idle
RUN_S = 600               # one "run all": lecture 06 takes about 2 min on 2 busy cores
WIDGET_S = 60             # a widget to render, a figure to redraw after a key press
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


# ------------------------------------------------------------------ collection
def lecture_notebooks():
    """``notebooks/*.ipynb``, relative to the repository."""
    return sorted(p.relative_to(REPO).as_posix() for p in (REPO / "notebooks").glob("*.ipynb"))


def assignments():
    """Assignment names: folders of ``source/`` or ``release/`` holding a notebook."""
    names = set()
    for top in ("source", "release"):
        if (REPO / top).is_dir():
            names |= {p.parent.name for p in (REPO / top).glob("*/*.ipynb")}
    return sorted(names)


def release_notebooks():
    """``release/<a>/<nb>.ipynb`` for every assignment (generated later when not committed)."""
    paths = set()
    for a in assignments():
        committed = list((REPO / "release" / a).glob("*.ipynb"))
        names = [p.name for p in committed] or [p.name for p in (REPO / "source" / a).glob("*.ipynb")]
        paths |= {f"release/{a}/{n}" for n in names}
    return sorted(paths)


# ------------------------------------------------------------- course and server
def generate_release(root, names):
    """nbgrader generate_assignment (through kpcourse.grading) for ``names`` inside ``root``."""
    env = dict(os.environ, PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    cmd = [sys.executable, "-m", "kpcourse.grading", "--root", str(root), "release", *names]
    proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"could not generate release/ for {names} in {root}:\n{proc.stdout[-2000:]}\n"
                           f"{proc.stderr[-4000:]}")


@contextlib.contextmanager
def started(server):
    """``server`` once it answers (the test fails with its log if it does not); stopped afterwards, whatever
    happened."""
    import pytest

    try:
        try:
            server.wait_ready()
        except RuntimeError as exc:
            pytest.fail(str(exc), pytrace=False)
        yield server
    finally:
        server.stop()


def make_lab_command():
    """The JupyterLab command line that ``make lab`` runs (read from ``make -n lab``), options included."""
    plan = subprocess.run(["make", "-n", "lab"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    lines = plan.replace("\\\n", " ").splitlines()
    return shlex.split(next(x for x in lines if "jupyter" in x and " lab " in f"{x} "))


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as resp:
        return resp.status, resp.read()


class LabServer:
    """A running ``jupyter lab``: ``url``, ``token``, ``root``, ``log``; ``stop()`` ends it.

    ``extra_env``: variables set for the server on top of the test's environment (e.g. a
    student's ``HOME``); ``extra_args``: more command-line options; ``program``: the command that
    starts JupyterLab with its own options (default ``python -m jupyterlab``; :func:`make_lab_command`
    for the README's ``make lab``), to which the test's port, token and settings folders are added.
    """

    running = []  # servers not stopped yet (for the SIGTERM handler in conftest.py)

    def __init__(self, root, workdir, extra_env=None, extra_args=(), program=None):
        self.root, self.token, self.port = Path(root), secrets.token_hex(16), _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        app_settings = workdir / "app-settings"
        app_settings.mkdir(parents=True)
        shutil.copy2(HERE / "overrides.json", app_settings / "overrides.json")
        env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}  # students get the inline backend
        env.update(PATH=str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", ""),
                   JUPYTER_CONFIG_DIR=str(workdir / "config"), JUPYTER_RUNTIME_DIR=str(workdir / "runtime"),
                   IPYTHONDIR=str(workdir / "ipython"))
        env.update(extra_env or {})
        cmd = [*(program or [sys.executable, "-m", "jupyterlab"]), "--no-browser", "--ip=127.0.0.1",
               f"--port={self.port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={self.token}",
               *([] if program else [f"--ServerApp.root_dir={self.root}"]),  # a program names its own
               f"--LabApp.app_settings_dir={app_settings}",
               f"--LabApp.user_settings_dir={workdir / 'user-settings'}",
               f"--LabApp.workspaces_dir={workdir / 'workspaces'}", "--LabApp.expose_app_in_browser=True",
               *extra_args]
        if hasattr(os, "getuid") and os.getuid() == 0 and "--allow-root" not in cmd:
            cmd.append("--allow-root")
        self.log = workdir / "jupyter-server.log"
        self._log_file = open(self.log, "wb")  # closed in stop()
        self.proc = subprocess.Popen(cmd, cwd=self.root, env=env, stdout=self._log_file,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        LabServer.running.append(self)
        atexit.register(self.stop)  # also when the session's finalizer never ran

    def api(self, path, method="GET"):
        req = urllib.request.Request(f"{self.url}/api/{path}", method=method,
                                     headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(req, timeout=10) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def wait_ready(self, timeout=SERVER_START_S):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"jupyter lab exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                if _get(f"{self.url}/api/status?token={self.token}")[0] == 200:
                    return
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            time.sleep(0.5)
        raise RuntimeError(f"jupyter lab did not answer within {timeout} s:\n{self.log_tail()}")

    def log_tail(self, n=4000):
        self._log_file.flush()
        return self.log.read_text(errors="replace")[-n:]

    def stop(self):
        """Shut the kernels down, then end the server's process group (SIGTERM, then SIGKILL)."""
        if self.proc.poll() is None:
            try:
                for kernel in self.api("kernels"):
                    self.api(f"kernels/{kernel['id']}", method="DELETE")
            except Exception:  # the server may be the thing that broke; stop it anyway
                pass
            for sig, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 10)):
                try:
                    os.killpg(self.proc.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    self.proc.wait(timeout=wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
            try:  # anything the server started in its group and left behind
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self._log_file.close()
        if self in LabServer.running:
            LabServer.running.remove(self)


# --------------------------------------------------------------- page driver
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _source(cell):
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _errors(cell):
    return [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]


def cell_problems(nb, allow_not_implemented=False):
    """Code cells of ``nb`` (nbformat dict) that did not run or show an error.

    With ``allow_not_implemented`` (a release notebook), an error that names
    ``NotImplementedError`` (an unfilled solution, or a test reporting one) is expected.
    """
    problems = []
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code" or not _source(cell).strip():
            continue
        if cell.get("execution_count") is None:
            problems.append(f"cell {i} did not run")
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                head = f"{out.get('ename')}: {out.get('evalue')}"
                if allow_not_implemented and "NotImplementedError" in head:
                    continue
                trace = _ANSI.sub("", "\n".join(out.get("traceback", [])))
                problems.append(f"cell {i} shows an error: {head}\n{trace[-1500:]}")
            elif out.get("output_type") == "stream" and out.get("name") == "stderr":
                text = "".join(out.get("text", ""))
                if "Traceback" in text:
                    problems.append(f"cell {i} printed a traceback:\n{text[-1500:]}")
    return problems


# Kernel status from the status bar ("Python 3 (ipykernel) | Idle") and the cells queued or running ("[*]").
_RUN_STATE_JS = """() => {
  const bar = document.querySelector('#jp-main-statusbar');
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  const prompts = panel ? Array.from(panel.querySelectorAll('.jp-CodeCell .jp-InputPrompt')) : [];
  const text = bar ? bar.innerText : '';
  const m = text.match(/\\|\\s*(Idle|Busy|Starting|Restarting|Connecting|Initializing|Unknown|Dead)/);
  const running = prompts.filter(p => p.textContent.includes('*')).length;
  return {kernel: m ? m[1] : text.slice(0, 80), running: running};
}"""

# The notebook's top-level outputs that a widget renderer owns, in document order.
_WIDGET_OUTPUTS_JS = """() => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  const outs = Array.from(panel.querySelectorAll('.jp-OutputArea-output'))
    .filter(e => !e.parentElement.closest('.jupyter-widgets'))
    .filter(e => !e.hasAttribute('data-mime-type') || e.getAttribute('data-mime-type') === 'WIDGET_MIME');
  return outs.map((e, k) => {
    e.setAttribute('data-kp-widget', String(k));
    const text = (e.childElementCount ? '' : e.textContent).trim();
    const view = e.querySelector(':scope > .jupyter-widgets');
    return {state: view && !text ? 'rendered' : (text || 'empty'),
            controls: e.querySelectorAll('.widget-slider, .widget-dropdown').length};
  });
}""".replace("WIDGET_MIME", WIDGET_MIME)


# What a widget shows besides its controls: its figures (PNG data) or, without one, its HTML and Output text.
_WIDGET_VIEW_JS = """w => { const imgs = Array.from(w.querySelectorAll('.widget-output img')).map(i => i.src);
  return imgs.length ? imgs.join('|') : Array.from(w.querySelectorAll('.widget-html-content, .widget-output'))
    .map(e => e.innerText).join('|'); }"""


class LabPage:
    """One JupyterLab page: open a notebook, run it, read what the student would see."""

    def __init__(self, page, server, name):
        self.page, self.server, self.name = page, server, name
        self.console_errors, self._t0 = [], time.monotonic()
        page.on("console", lambda m: m.type == "error" and self._console(m.text))
        page.on("pageerror", lambda e: self._console(f"page error: {e}"))

    def _console(self, text):
        if text[:300] not in self.console_errors:  # distinct browser console errors, for failure messages
            self.console_errors.append(text[:300])

    def note(self, message):
        """Print a timed step (pytest shows it for a failed test, or always with -rA / -s)."""
        print(f"[{time.monotonic() - self._t0:6.1f} s] {message}", flush=True)

    # -- opening and running
    def open(self, path, name=None):
        """Open ``path`` (relative to the server root) on a fresh workspace; wait for an idle kernel.

        ``name`` (default: the path, ``/`` as ``__``) names the screenshots.
        """
        self.name = name or path.removesuffix(".ipynb").replace("/", "__")
        workspace = f"w{secrets.token_hex(4)}"
        self.page.goto(f"{self.server.url}/lab/workspaces/{workspace}/tree/{path}?reset&token={self.server.token}")
        self.page.wait_for_selector(".jp-NotebookPanel .jp-Notebook", timeout=KERNEL_IDLE_S * 1000)
        self.note(f"opened {path}")
        self.command("application:toggle-left-area")  # more room for the notebook in screenshots
        self.wait_kernel("Idle", KERNEL_IDLE_S)
        self.note("kernel idle")
        self.page.wait_for_timeout(300)  # let the widget manager register its comm target

    def state(self):
        return self.page.evaluate(_RUN_STATE_JS)

    def wait_kernel(self, status, timeout):
        deadline, last = time.monotonic() + timeout, None
        while time.monotonic() < deadline:
            last = self.state()
            if last["kernel"] == status:
                return
            if last["kernel"] == "Dead":
                break
            self.page.wait_for_timeout(250)
        raise AssertionError(f"kernel status {last['kernel']!r}, waited {timeout} s for {status!r}\n"
                             f"server log:\n{self.server.log_tail(2000)}")

    def command(self, command_id):
        """Run a JupyterLab command (setup steps only; what is under test goes through the UI)."""
        self.page.evaluate("id => window.jupyterapp.commands.execute(id)", command_id)

    def menu(self, top, item):
        """Click ``top`` in the menu bar, then its entry whose label starts with ``item``."""
        self.page.locator("#jp-menu-panel .lm-MenuBar-itemLabel", has_text=re.compile(f"^{top}$")).click()
        self.page.get_by_role("menuitem", name=re.compile("^" + re.escape(item))).first.click()

    def wait_run(self, timeout=RUN_S):
        """Wait until no cell is queued or running and the kernel is idle (twice in a row)."""
        deadline, quiet, last = time.monotonic() + timeout, 0, None
        while time.monotonic() < deadline:
            last = self.state()
            quiet = quiet + 1 if last["kernel"] == "Idle" and last["running"] == 0 else 0
            if quiet >= 2:
                return
            if last["kernel"] == "Dead":
                break
            self.page.wait_for_timeout(250)
        raise AssertionError(f"run not finished after {timeout} s: {last}")

    def run_all(self):
        """Clear the outputs (so a number in a prompt means it ran now), then Run → Run All Cells."""
        self.command("notebook:clear-all-cell-outputs")
        self.menu("Run", "Run All Cells")
        self.wait_run()
        self.note("Run All Cells finished")

    def run_below(self, index):
        """Make cell ``index`` the only selected cell, then Run → Run Selected Cell and All Below.

        For the last cell (where JupyterLab disables that entry): Run → Run Selected Cell
        and Do not Advance.
        """
        # A click on a cell inside a multi-cell selection (what the previous run left) keeps
        # the selection, and the menu entry needs exactly one selected cell: select through the API.
        last = self.page.evaluate("i => { const nb = window.jupyterapp.shell.currentWidget.content;"
                                  " nb.activeCellIndex = i; nb.deselectAll(); return i === nb.widgets.length - 1; }",
                                  index)
        entry = "Run Selected Cell and Do not Advance" if last else "Run Selected Cell and All Below"
        self.menu("Run", entry)
        self.wait_run()
        self.note(f"{entry} (cell {index}) finished")

    def notebook_json(self):
        """The notebook as the front end holds it (nbformat dict), outputs included."""
        return self.page.evaluate("() => window.jupyterapp.shell.currentWidget.content.model.toJSON()")

    def run_everything(self):
        """Run All Cells; after a cell that raised, go on from the next cell that did not run.

        JupyterLab stops a run at the first error (a release notebook's first call of
        an unfilled exercise). Return the notebook as the front end holds it.
        """
        self.run_all()
        for _ in range(200):
            nb = self.notebook_json()
            pending = [i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code"
                       and _source(c).strip() and c.get("execution_count") is None]
            if not pending or not any(_errors(c) for c in nb["cells"][:pending[0]]):
                return nb
            self.run_below(pending[0])
        return self.notebook_json()

    # -- widgets
    def widget_problems(self, nb):
        """What is wrong with the widgets of ``nb`` in the page: missing, loading or error placeholders."""
        expected = sum(WIDGET_MIME in o.get("data", {}) for c in nb["cells"] for o in c.get("outputs", []))
        outs = self.widget_outputs(expected)
        problems = [f"widget {k}: shows {o['state']!r} instead of the widget"
                    for k, o in enumerate(outs) if o["state"] != "rendered"]
        if len(outs) != expected:
            problems.append(f"the kernel displayed {expected} widget(s), the page shows {len(outs)}"
                            + (" (JupyterLab fell back to their text form: is the widgets front end,"
                               " @jupyter-widgets/jupyterlab-manager, installed and enabled?)"
                               if len(outs) < expected else ""))
        return problems, outs

    def widget_outputs(self, expected, timeout=WIDGET_S):
        """States of the top-level widget outputs, once ``expected`` of them stopped loading."""
        deadline = time.monotonic() + timeout
        while True:
            outs = self.page.evaluate(_WIDGET_OUTPUTS_JS)
            loading = [o for o in outs if o["state"].startswith("Loading widget")]
            if (len(outs) >= expected and not loading) or time.monotonic() > deadline:
                return outs
            self.page.wait_for_timeout(500)

    def widget(self, k):
        """The ``k``-th top-level widget output (numbered by :meth:`widget_outputs`)."""
        return self.page.locator(f'.jp-NotebookPanel:not(.lm-mod-hidden) [data-kp-widget="{k}"]')

    def _view(self, widget):
        """What the widget shows besides its controls: its figures or, without one, its text."""
        return widget.evaluate(_WIDGET_VIEW_JS)

    def _wait_view_change(self, widget, old, what):
        try:
            self.page.wait_for_function(f"([w, old]) => ({_WIDGET_VIEW_JS})(w) !== old",
                                        arg=[widget.element_handle(), old], timeout=WIDGET_S * 1000)
        except Exception as exc:  # playwright's TimeoutError
            raise AssertionError(f"the widget's figure or text did not change within {WIDGET_S} s "
                                 f"after {what}") from exc

    def exercise_widget(self, k):
        """Move the widget's controls like a student; return what was done (``[]``: no control).

        The first enabled slider gets a focused ArrowRight. When no slider is enabled (a
        kernel that does not use them, or a widget with a dropdown only), the first
        dropdown moves to its next option first, which may enable a slider. After each
        action the figure (or, without one, the HTML/Output text) must change.
        """
        w = self.widget(k)
        w.scroll_into_view_if_needed()
        done = []
        enabled = w.locator(".widget-slider:has(.noUi-target:not([disabled]))")
        select = w.locator(".widget-dropdown select:not([disabled])")
        if enabled.count() == 0 and select.count() > 0:
            options = select.first.locator("option").all_inner_texts()
            choice = (select.first.evaluate("s => s.selectedIndex") + 1) % len(options)
            old = self._view(w)
            select.first.select_option(index=choice)
            self._wait_view_change(w, old, f"choosing {options[choice]!r} in the dropdown")
            done.append(f"dropdown → {options[choice]}")
            self.page.wait_for_timeout(300)
        if enabled.count():
            slider = enabled.first
            label = slider.locator(".widget-label").inner_text()
            readout = slider.locator(".widget-readout")
            before, old = readout.inner_text(), self._view(w)
            slider.locator(".noUi-handle").focus()
            self.page.keyboard.press("ArrowRight")
            self._wait_view_change(w, old, f"ArrowRight on the slider {label!r} at {before}")
            after = readout.inner_text()
            if after == before:
                raise AssertionError(f"slider {label!r}: ArrowRight left the readout at {before}")
            done.append(f"slider {label!r} {before} → {after}")
        if done:
            self.wait_run(WIDGET_S)  # let the redraw finish: caption and figure come in separate messages
            self.note(f"widget {k}: {', '.join(done)}; what it shows changed each time")
        return done

    # -- nbgrader
    def validate(self, timeout=RUN_S):
        """Click the toolbar's Validate button; return the dialog's (title, result class, text)."""
        self.page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .validate-button").click()
        dialog = self.page.locator(".jp-Dialog")
        dialog.wait_for(timeout=timeout * 1000)
        title = dialog.locator(".jp-Dialog-header").inner_text()
        result = dialog.locator("#validation-message")
        if result.count():
            return title, result.get_attribute("class") or "", result.inner_text()
        return title, "", dialog.locator(".jp-Dialog-body").inner_text()

    def close_dialog(self):
        self.page.locator(".jp-Dialog .jp-Dialog-button.jp-mod-accept").click()

    # -- screenshots
    def screenshot(self, suffix="", full=True, locator=None):
        """PNG in tests/browser/screenshots/: the whole notebook (viewport grown to fit) or one element.

        Never raises (it runs in ``finally`` blocks): a failure is printed instead.
        """
        SCREENSHOTS.mkdir(exist_ok=True)
        path = SCREENSHOTS / f"{self.name}{suffix}.png"
        try:
            if locator is not None:
                locator.screenshot(path=path)
            else:
                if full:
                    outer = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer"
                    height = self.page.evaluate(f"() => document.querySelector('{outer}')?.scrollHeight || 0")
                    height = int(min(max(height + 200, VIEWPORT["height"]), 16000))
                    self.page.set_viewport_size({"width": VIEWPORT["width"], "height": height})
                    self.page.evaluate(
                        f"() => {{ const n = document.querySelector('{outer}'); if (n) n.scrollTop = 0; }}")
                    self.page.wait_for_timeout(500)
                self.page.screenshot(path=path)
                self.page.set_viewport_size(VIEWPORT)
        except Exception as exc:  # the page may be what broke
            self.note(f"no screenshot {path.name}: {exc}")
            return None
        self.note(f"screenshot {path.relative_to(REPO)}")
        return path
