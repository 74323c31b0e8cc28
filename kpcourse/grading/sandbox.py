"""The operating-system boundary around a submission's code: bubblewrap.

:func:`run_notebook` executes a notebook with :mod:`kpcourse.grading.inside` in a
bubblewrap sandbox that sees only what Python needs, read-only: ``/usr``, ``/etc``,
the Python installation and its packages, the ``kpcourse`` package (no grader file in
it), and the course data. It sees nothing of the course root (``source/``,
``gradebook.db``, other submissions, grader files), of ``/tmp`` or of ``$HOME``; it
has no network, its own process namespace, no capabilities, an empty ``HOME``, and one
writable folder: its own work folder. It is killed when its time budget is over.

Where bubblewrap is missing or cannot run, the notebook still runs, without the
boundary, and the result says ``isolated: False`` so that the grader can say so
loudly; with ``KPCOURSE_ISOLATION=require`` that is an error instead.
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

__all__ = ["available", "run_notebook", "IsolationUnavailable"]

INSIDE = "/grading"  # the work folder's path inside the sandbox


class IsolationUnavailable(RuntimeError):
    """bubblewrap is required (``KPCOURSE_ISOLATION=require``) but cannot run here."""


@functools.lru_cache(maxsize=1)
def available():
    """``(True, "")`` when bubblewrap can start a sandbox here, else ``(False, why)``."""
    bwrap = shutil.which("bwrap")
    if not bwrap:
        return False, "bubblewrap (bwrap) is not installed: apt-get install bubblewrap"
    try:
        proc = subprocess.run([bwrap, "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent",
                               "--cap-drop", "ALL", "true"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"bubblewrap failed to start: {exc}"
    if proc.returncode != 0:
        return False, f"bubblewrap cannot create a sandbox here: {proc.stderr.strip()[:300]}"
    return True, ""


def _data_dirs():
    dirs = []
    for var in ("KPCOURSE_DATA", "NLTK_DATA"):
        for p in os.environ.get(var, "").split(os.pathsep):
            if p and Path(p).is_dir():
                dirs.append(str(Path(p).resolve()))
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "kpcourse"
    if cache.is_dir():
        dirs.append(str(cache.resolve()))
    return dirs


def _python_dirs():
    import kpcourse

    dirs = {str(Path(sys.prefix).resolve()), str(Path(sys.base_prefix).resolve()),
            str(Path(sys.executable).resolve().parent.parent), str(Path(kpcourse.__file__).resolve().parent)}
    for p in sys.path:  # site-packages outside the prefixes (e.g. a user site)
        if p and Path(p).is_dir() and "site-packages" in p:
            dirs.add(str(Path(p).resolve()))
    return sorted(dirs)


def _env(workdir_inside, probes, timeout_threads=1):
    """The sandbox's whole environment (nothing else of the grader's is passed on)."""
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
        "HOME": "/tmp/home", "LANG": "C.UTF-8", "MPLBACKEND": "Agg", "PYTHONDONTWRITEBYTECODE": "1",
        "JUPYTER_RUNTIME_DIR": "/tmp/jupyter-runtime", "IPYTHONDIR": "/tmp/ipython",
        "MPLCONFIGDIR": "/tmp/mpl", "OMP_NUM_THREADS": str(timeout_threads),
        "OPENBLAS_NUM_THREADS": str(timeout_threads), "MKL_NUM_THREADS": str(timeout_threads),
        "KPCOURSE_PROBES": probes, "KPCOURSE_ANSWERS": f"{workdir_inside}/answers",
        "NBGRADER_EXECUTION": "autograde", "VIRTUAL_ENV": sys.prefix,
    }
    for var in ("KPCOURSE_DATA", "NLTK_DATA", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "CUDA_VISIBLE_DEVICES",
                "PYTHONPATH"):  # PYTHONPATH: where the grader found kpcourse (its folder is mounted)
        if os.environ.get(var):
            env[var] = os.environ[var]
    if not os.environ.get("KPCOURSE_DATA"):
        cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "kpcourse"
        if cache.is_dir():
            env["KPCOURSE_DATA"] = str(cache.resolve())
    return env


def bwrap_command(workdir, argv, env):
    """The bubblewrap command line that runs ``argv`` with ``workdir`` as its only writable folder."""
    cmd = [shutil.which("bwrap"), "--die-with-parent", "--new-session", "--unshare-all",
           "--cap-drop", "ALL", "--hostname", "grading", "--clearenv"]
    for top in ("/usr", "/etc", "/bin", "/lib", "/lib64", "/lib32", "/sbin", "/opt/conda"):
        p = Path(top)
        if p.is_symlink():
            cmd += ["--symlink", os.readlink(p), top]
        elif p.is_dir():
            cmd += ["--ro-bind", top, top]
    cmd += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--dir", "/tmp/home"]
    for d in _python_dirs() + _data_dirs():
        cmd += ["--ro-bind", d, d]
    # the kernel's working folder (first on its sys.path) is read-only: no module can be written
    # there and then imported unread by the grader's source analysis
    cmd += ["--bind", str(workdir), INSIDE, "--ro-bind", str(Path(workdir) / "in"), f"{INSIDE}/in",
            "--ro-bind", str(Path(workdir) / "run"), f"{INSIDE}/run", "--chdir", f"{INSIDE}/run"]
    for k, v in env.items():
        cmd += ["--setenv", k, v]
    return cmd + list(argv)


def run_notebook(path_in, workdir, timeout, budget):
    """Execute ``workdir/in/<notebook>`` into ``workdir/out/executed.ipynb``.

    Parameters
    ----------
    path_in : str
        File name of the notebook inside ``workdir/in``.
    workdir : pathlib.Path
        Holds ``in/`` (notebook and probes, read-only inside), ``run/`` (the working
        folder of the kernel) and ``out/``.
    timeout : int
        Per-cell limit (s).
    budget : float
        Wall-clock limit for the whole notebook (s); the sandbox is killed after it.

    Returns
    -------
    dict
        ``isolated`` (bool), ``why`` (when not isolated), ``returncode``, ``log``,
        ``killed`` (budget exceeded).
    """
    workdir = Path(workdir)
    (workdir / "out").mkdir(exist_ok=True)
    mode = os.environ.get("KPCOURSE_ISOLATION", "auto")
    ok, why = available()
    if not ok and mode == "require":
        raise IsolationUnavailable(f"KPCOURSE_ISOLATION=require but {why}")
    if ok:
        inside = INSIDE
        env = _env(inside, f"{inside}/in/probes.json")
        argv = [sys.executable, "-m", "kpcourse.grading.inside", f"{inside}/in/{path_in}",
                f"{inside}/out/executed.ipynb", "--timeout", str(timeout)]
        cmd, cwd = bwrap_command(workdir, argv, env), None
        run_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    else:
        env = _env(str(workdir), str(workdir / "in" / "probes.json"))
        env["HOME"] = str(workdir / "home")
        (workdir / "home").mkdir(exist_ok=True)
        for k in ("JUPYTER_RUNTIME_DIR", "IPYTHONDIR", "MPLCONFIGDIR"):
            env[k] = str(workdir / "home" / k.lower())
        cmd = [sys.executable, "-m", "kpcourse.grading.inside", str(workdir / "in" / path_in),
               str(workdir / "out" / "executed.ipynb"), "--timeout", str(timeout)]
        cwd, run_env = workdir / "run", env
    proc = subprocess.Popen(cmd, cwd=cwd, env=run_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)
    killed = False
    try:
        log, _ = proc.communicate(timeout=budget)
    except subprocess.TimeoutExpired:
        killed = True
        _kill_group(proc)
        log, _ = proc.communicate()
    finally:
        if proc.poll() is None:
            _kill_group(proc)
    return {"isolated": ok, "why": why, "returncode": proc.returncode, "log": (log or "")[-6000:],
            "killed": killed}


def _kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()
