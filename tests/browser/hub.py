"""A JupyterHub with real Unix users for ``test_hub.py`` (``make test-hub``); needs root.

``Hub`` builds, in a fresh folder ``/tmp/kpcourse-hub-XXXX`` (mode 755), and removes again:

- **users** ``kph-instr`` (the instructor), ``kph-alice``, ``kph-bob``, ``kph-carol`` (students) and
  ``kph-grader`` (the course's shared grader account: nobody logs in as it), made with ``useradd -m``
  in a home folder under the test folder, each home ``chmod 700``; a course group ``kph-class``
  holds all five;
- **a Python the users can run**: a venv whose ``.pth`` file adds the repository venv's
  ``site-packages``, with the venv's ``share/`` and ``etc/`` linked in (JupyterLab's assets, the
  server extensions) and an ``alembic`` script (nbgrader runs it by name). It is made from the
  repository venv's own interpreter build when every user may run it; where that lives under
  ``/root`` (pyenv, mode 700 here) from a copy of it in the test folder (the interpreter, its
  ``libpython`` and standard library; its library run path made ``$ORIGIN/../lib``). Not
  Debian's ``/usr/bin/python3.11``: another patch release than the packages were installed with
  (3.11.2: ``soupsieve`` cannot parse nbconvert's ``img:not([alt])``, so *Generate Feedback*
  failed in the instructor's server);
- **the exchange** ``srv/exchange/``: root's, mode ``1777`` (nbgrader wants ``777``; the sticky bit
  keeps anyone but its owner from renaming or removing the course folder the instructor's release
  makes in it), inside ``srv/`` (``root:kph-class``, ``750``: class members only). A global Jupyter
  config (``etc/jupyter/nbgrader_config.py``, on every server's ``JUPYTER_CONFIG_PATH``) names it and
  the course id, and the students' submit (``SealedSubmit``: each submission folder ``770``, the
  grader's group). ``KPCOURSE_HUB_EXCHANGE_MODE=777`` (octal) makes it without the sticky bit, to see
  the test fail;
- **the course** in the grader account's home (``~kph-grader/course``: ``source/02-...``,
  ``nbgrader_config.py``), owned by it; everyone's own server (the instructor's too) has the
  formgrader and Create Assignment switched off in their ``~/.jupyter``;
- **the hub**, run as root: ``DummyAuthenticator`` with one password and the four people allowed,
  ``LocalProcessSpawner`` (each server started as its user), the pip ``configurable-http-proxy``
  (Python, no Node), all on 127.0.0.1 with free ports; **the formgrader as a hub service**
  (``/services/kpcourse/``, nbgrader's "Using nbgrader with JupyterHub"): a JupyterLab server the
  hub starts as ``kph-grader`` in the course root, where the formgrader reads the course's
  ``nbgrader_config.py``; the hub group ``formgrade-kpcourse`` (the instructor) has the role that
  may open it (``access:services!service=kpcourse``), nobody else.

``as_user(name, code)`` runs Python as one user (``runuser``) with the users' interpreter.
"""

from __future__ import annotations

import grp
import json
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.request
from pathlib import Path

from exchange import SEALED_SUBMIT
from labpage import REPO, _free_port

from kpcourse.grading.paths import copy_source

COURSE = "kpcourse"
#: ``KPCOURSE_HUB_NBGRADER_EXCHANGE=1``: students submit and the course releases with nbgrader's own
#: classes (submission folders ``777``, ``inbound/`` without its sticky bit), to see the test fail
NBGRADER_EXCHANGE = os.environ.get("KPCOURSE_HUB_NBGRADER_EXCHANGE") == "1"
ASSIGNMENT = "02-perceptron-by-hand"
GROUP = "kph-class"
INSTRUCTOR = "kph-instr"
GRADER = "kph-grader"  # the course's shared grader account, the formgrader service runs as it
SERVICE = COURSE  # the formgrader service: /services/kpcourse/
STUDENTS = ("kph-alice", "kph-bob", "kph-carol")
START_S = 180


def run(cmd, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if proc.returncode != 0:
        raise AssertionError(f"`{' '.join(map(str, cmd))}` exited with {proc.returncode}:\n"
                             f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc


def exists(user):
    try:
        pwd.getpwnam(user)
        return True
    except KeyError:
        return False


class Hub:
    """Users, exchange, course and a running JupyterHub; ``close()`` undoes all of it."""

    def __init__(self):
        self.base = Path(tempfile.mkdtemp(prefix="kpcourse-hub-", dir="/tmp"))
        self.base.chmod(0o755)
        self.password = secrets.token_urlsafe(12)
        self.venv = self.base / "venv"
        self.srv = self.base / "srv"
        self.exchange = self.srv / "exchange"
        self.homes = self.base / "home"
        self.proc = None
        self.log = self.base / "hub.log"
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.users = []

    # ---------------------------------------------------------------- set up
    def setup(self):
        self._users()
        self._python()
        self._exchange()
        self._course()
        self._start()

    def _users(self):
        leftovers = [u for u in (INSTRUCTOR, *STUDENTS, GRADER) if exists(u)]
        if leftovers:
            raise AssertionError(f"users of an earlier run are still there: {leftovers} (userdel -r them)")
        try:
            grp.getgrnam(GROUP)
            raise AssertionError(f"group {GROUP} of an earlier run is still there (groupdel {GROUP})")
        except KeyError:
            pass
        run(["groupadd", GROUP])
        self.homes.mkdir(mode=0o755)
        for user in (INSTRUCTOR, *STUDENTS, GRADER):
            run(["useradd", "-m", "-d", str(self.homes / user), "-s", "/bin/bash", "-G", GROUP, user])
            self.users.append(user)
            (self.homes / user).chmod(0o700)

    def _base_python(self):
        """The repository venv's interpreter build, at a path every user may run (see the module doc)."""
        exe = Path(sys.executable).resolve()
        if subprocess.run(["runuser", "-u", "nobody", "--", str(exe), "-c", "pass"],
                          capture_output=True).returncode == 0:
            return exe
        name = f"python{sys.version_info.major}.{sys.version_info.minor}"
        base, copy = Path(sys.base_prefix), self.base / "python"
        lib = base / "lib"
        old, new = str(lib).encode() + b"\0", b"$ORIGIN/../lib"
        binary = exe.read_bytes()
        if binary.count(old) > 1 or len(old) <= len(new):
            raise AssertionError(f"cannot make a copy of {exe} that runs outside {base}")
        (copy / "bin").mkdir(parents=True)
        (copy / "bin" / name).write_bytes(binary.replace(old, new.ljust(len(old), b"\0")))
        (copy / "bin" / name).chmod(0o755)
        shutil.copytree(lib / name, copy / "lib" / name, symlinks=True,
                        ignore=lambda d, names: [n for n in names if Path(d) == lib / name
                                                 and n in ("site-packages", "test", "idlelib", "tkinter")])
        (copy / "lib" / name / "site-packages").mkdir()
        for f in lib.glob("libpython*"):
            if f.is_symlink():
                (copy / "lib" / f.name).symlink_to(os.readlink(f))
            else:
                shutil.copy2(f, copy / "lib" / f.name)
        return copy / "bin" / name

    def _python(self):
        run([str(self._base_python()), "-m", "venv", "--without-pip", str(self.venv)])
        site = self.venv / "lib" / "python3.11" / "site-packages"
        repo_site = Path(sys.prefix) / "lib" / "python3.11" / "site-packages"
        (site / "kpcourse_repo_venv.pth").write_text(f"import site; site.addsitedir({str(repo_site)!r})\n")
        for name in ("share", "etc"):
            target = self.venv / name
            if target.exists():
                shutil.rmtree(target)
            target.symlink_to(Path(sys.prefix) / name)
        alembic = self.venv / "bin" / "alembic"
        alembic.write_text(f"#!{self.venv}/bin/python\nimport sys\nfrom alembic.config import main\nsys.exit(main())\n")
        alembic.chmod(0o755)
        check = self.as_user(STUDENTS[0], "import jupyterhub, nbgrader, kpcourse.grading, soupsieve\n"
                                          "soupsieve.compile('img:not([alt])')  # nbconvert's HTML\nprint('ok')")
        assert check.stdout.strip() == "ok", check

    def _exchange(self):
        self.srv.mkdir()
        os.chown(self.srv, 0, grp.getgrnam(GROUP).gr_gid)
        self.srv.chmod(0o750)
        self.exchange.mkdir()
        self.exchange.chmod(int(os.environ.get("KPCOURSE_HUB_EXCHANGE_MODE", "1777"), 8))
        etc = self.base / "etc" / "jupyter"
        etc.mkdir(parents=True)
        (etc / "nbgrader_config.py").write_text(
            "c = get_config()  # noqa: F821\n"
            f"c.Exchange.root = {str(self.exchange)!r}\n"
            f"c.CourseDirectory.course_id = {COURSE!r}\n"
            + ("" if NBGRADER_EXCHANGE else f"c.ExchangeFactory.submit = {SEALED_SUBMIT!r}\n"))

    def uid(self, user):
        return pwd.getpwnam(user).pw_uid

    def inbound(self):
        """Submissions of the assignment in the exchange's inbound folder (listed as root)."""
        return sorted((self.exchange / COURSE / "inbound").glob(f"*+{ASSIGNMENT}+*"))

    def home(self, user):
        return self.homes / user

    def course(self):
        return self.home(GRADER) / "course"

    def _course(self):
        course = self.course()
        copy_source(REPO, course, ASSIGNMENT, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
        shutil.copy2(REPO / "nbgrader_config.py", course / "nbgrader_config.py")
        if NBGRADER_EXCHANGE:
            with open(course / "nbgrader_config.py", "a") as f:
                f.write("c.ExchangeFactory.release_assignment = "
                        "'nbgrader.exchange.default.release_assignment.ExchangeReleaseAssignment'\n")
        for user in (INSTRUCTOR, *STUDENTS, GRADER):
            jupyter = self.home(user) / ".jupyter"
            jupyter.mkdir()
            server = {"LabApp": {"expose_app_in_browser": True}}  # window.jupyterapp, for LabPage's helpers
            if user == GRADER:  # the formgrader service's server
                (jupyter / "nbgrader_config.py").write_text(
                    f"c = get_config()  # noqa: F821\nc.CourseDirectory.root = {str(course)!r}\n")
            else:  # everyone's own server: no formgrader, no Create Assignment (nbgrader's installation guide)
                server["ServerApp"] = {"jpserver_extensions": {"nbgrader.server_extensions.formgrader": False}}
                (jupyter / "labconfig").mkdir()
                (jupyter / "labconfig" / "page_config.json").write_text(json.dumps(
                    {"disabledExtensions": {"@jupyter/nbgrader:formgrader": True,
                                            "@jupyter/nbgrader:create-assignment": True}}))
            (jupyter / "jupyter_server_config.json").write_text(json.dumps(server))
            settings = jupyter / "lab" / "user-settings" / "@jupyterlab" / "apputils-extension"
            settings.mkdir(parents=True)
            (settings / "notification.jupyterlab-settings").write_text(
                json.dumps({"fetchNews": "false", "checkForUpdates": False}))
            run(["chown", "-R", f"{user}:{user}", str(self.home(user))])
        # the release, as `make release` does, so that the assignment is in the gradebook
        self.as_user(GRADER, None, cmd=["-m", "kpcourse.grading", "release", ASSIGNMENT], cwd=course,
                     timeout=300)

    def env(self, user):
        return {"PATH": f"{self.venv}/bin:/usr/local/bin:/usr/bin:/bin", "HOME": str(self.home(user)),
                "USER": user, "LOGNAME": user, "JUPYTER_CONFIG_PATH": str(self.base / "etc" / "jupyter"),
                "KPCOURSE_DATA": os.environ.get("KPCOURSE_DATA", ""), "LANG": "C.UTF-8",
                "KPCOURSE_ISOLATION": os.environ.get("KPCOURSE_ISOLATION", "require")}

    def as_user(self, user, code, cmd=None, cwd=None, timeout=120, check=True):
        """Run ``python -c code`` (or ``python *cmd``) as ``user``; raise on failure when ``check``."""
        args = ["runuser", "-u", user, "--", "env", "-i",
                *[f"{k}={v}" for k, v in self.env(user).items()],
                str(self.venv / "bin" / "python"), *(cmd or ["-c", code])]
        proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout,
                              cwd=cwd or self.home(user))
        if check and proc.returncode != 0:
            raise AssertionError(f"as {user}: exited with {proc.returncode}:\n{proc.stdout[-3000:]}\n"
                                 f"{proc.stderr[-5000:]}")
        return proc

    def _config(self):
        conf = self.base / "hub"
        conf.mkdir()
        conf.chmod(0o700)
        api = _free_port()
        text = textwrap.dedent(f"""
            c = get_config()  # noqa: F821
            c.JupyterHub.ip = "127.0.0.1"
            c.JupyterHub.port = {self.port}
            c.JupyterHub.hub_ip = "127.0.0.1"
            c.JupyterHub.hub_port = {_free_port()}
            c.JupyterHub.db_url = "sqlite:///{conf}/jupyterhub.sqlite"
            c.JupyterHub.cookie_secret_file = "{conf}/cookie_secret"
            c.JupyterHub.pid_file = "{conf}/hub.pid"
            c.JupyterHub.cleanup_servers = True
            c.JupyterHub.authenticator_class = "dummy"
            c.DummyAuthenticator.password = {self.password!r}
            c.Authenticator.allowed_users = {set((INSTRUCTOR, *STUDENTS))!r}
            c.Authenticator.admin_users = set()
            c.JupyterHub.spawner_class = "localprocess"
            c.ConfigurableHTTPProxy.command = [{str(Path(sys.prefix) / "bin" / "configurable-http-proxy")!r}]
            c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api}"
            c.Spawner.cmd = [{str(self.venv / "bin" / "python")!r}, "-m", "jupyterhub.singleuser"]
            c.Spawner.default_url = "/lab"
            c.Spawner.start_timeout = {START_S}
            c.Spawner.http_timeout = {START_S}
            c.Spawner.environment = {{k: v for k, v in {self.env("x")!r}.items()
                                      if k not in ("HOME", "USER", "LOGNAME")}}

            # the formgrader as a service (nbgrader's "Using nbgrader with JupyterHub"), as the grader account
            c.JupyterHub.services = [{{
                "name": {SERVICE!r}, "url": "http://127.0.0.1:{_free_port()}", "user": {GRADER!r},
                "command": [{str(self.venv / "bin" / "python")!r}, "-m", "jupyterhub.singleuser"],
                "cwd": {str(self.course())!r}, "oauth_no_confirm": True,
                "environment": dict({self.env(GRADER)!r}, JUPYTERHUB_DEFAULT_URL="/lab"),
            }}]
            c.JupyterHub.load_groups = {{"formgrade-{SERVICE}": {{"users": [{INSTRUCTOR!r}]}}}}
            c.JupyterHub.load_roles = [{{
                "name": "formgrade-{SERVICE}", "groups": ["formgrade-{SERVICE}"],
                "scopes": ["access:services!service={SERVICE}"],
            }}]
            """)
        (conf / "jupyterhub_config.py").write_text(text)
        return conf

    def _start(self):
        conf = self._config()
        env = dict(os.environ, PATH=f"{Path(sys.prefix) / 'bin'}:{os.environ.get('PATH', '')}")
        self._log_file = open(self.log, "wb")
        self.proc = subprocess.Popen([str(Path(sys.prefix) / "bin" / "jupyterhub"), "-f",
                                      str(conf / "jupyterhub_config.py")], cwd=conf, env=env,
                                     stdout=self._log_file, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + START_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"jupyterhub exited with {self.proc.returncode}:\n{self.log.read_text()[-5000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/hub/api", timeout=5) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.5)
        raise AssertionError(f"jupyterhub did not answer in {START_S} s:\n{self.log.read_text()[-5000:]}")

    # ---------------------------------------------------------------- tear down
    def _stop_proxy(self):
        """The proxy runs in a session of its own (it outlives a hub restart by design): stop it
        by the pid file the hub wrote, once it is sure the process is that proxy."""
        pid_file = self.base / "hub" / "jupyterhub-proxy.pid"  # the hub runs in base/hub
        try:
            pid = int(pid_file.read_text().strip())
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except (OSError, ValueError):
            return
        if b"configurable-http-proxy" in cmdline:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    return
                time.sleep(1)

    def close(self, keep_logs_in=None):
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)  # the hub stops the servers it spawned
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        if self.proc is not None:
            self._log_file.close()
        self._stop_proxy()
        if keep_logs_in is not None and self.log.exists():
            keep_logs_in.mkdir(exist_ok=True)
            shutil.copy2(self.log, keep_logs_in / "hub__jupyterhub.log")
        for user in self.users:  # anything of theirs still running (servers, kernels), by process id
            pids = subprocess.run(["ps", "-u", user, "-o", "pid="], capture_output=True, text=True).stdout.split()
            for pid in pids:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (ProcessLookupError, ValueError):
                    pass
        time.sleep(0.5)
        for user in self.users:
            subprocess.run(["userdel", "-r", "-f", user], capture_output=True)
        subprocess.run(["groupdel", GROUP], capture_output=True)
        shutil.rmtree(self.base, ignore_errors=True)
