"""The operating-system boundary around a submission's code: bubblewrap.

:func:`run_notebook` executes a notebook with :mod:`kpcourse.grading.sandbox.inside` in a
bubblewrap sandbox that sees only what Python needs, read-only: ``/usr``, ``/etc``,
the Python installation and its packages, a trimmed copy of the ``kpcourse`` package
with only what the assignment allows (:mod:`kpcourse.grading.sandbox.allowed`; no grader file, no reference),
and the course data. It sees nothing of the course root (``source/``,
``gradebook.db``, other submissions, grader files), of ``/tmp`` or of ``$HOME``; it
has no network, its own process namespace, no capabilities, an empty ``HOME``, and two
writable folders of its own (``answers/`` and ``out/``). When the grader is root it runs
as an unprivileged user of its own (:func:`_user_slot`). Its resources are limited
(:mod:`kpcourse.grading.sandbox.limits`): inside, by the kernel's per-process limits; here, by a control group of
its own (:mod:`kpcourse.grading.sandbox.cgroup`: all its memory, its processes), the bytes it wrote and its time
budget; past any of them it is killed.

Where bubblewrap is missing or cannot run, the notebook still runs, without the
boundary, and the result says ``isolated: False`` so that the grader can say so
loudly; with ``KPCOURSE_ISOLATION=require`` that is an error instead (as it is when
bubblewrap can only run as root).
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import functools
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from kpcourse.grading.sandbox.cgroup import Group
from kpcourse.grading.sandbox.inside import MARK

__all__ = ["available", "run_notebook", "run_python", "read_untrusted", "IsolationUnavailable"]

INSIDE = "/grading"  # the work folder's path inside the sandbox
#: System folders mounted read-only at their own paths.
_SYSTEM = ("/usr", "/etc", "/bin", "/lib", "/lib64", "/lib32", "/sbin", "/opt/conda")


class IsolationUnavailable(RuntimeError):
    """bubblewrap is required (``KPCOURSE_ISOLATION=require``) but cannot run here."""


@functools.lru_cache(maxsize=1)
def _launch():
    """``(how, why)``: ``how`` is ``"user"`` when sandboxes can run as an unprivileged user of
    their own (or as this unprivileged user), ``"root"`` when only as root, ``None`` when not at all."""
    bwrap = shutil.which("bwrap")
    if not bwrap:
        return None, "bubblewrap (bwrap) is not installed: apt-get install bubblewrap"
    probe = [bwrap, "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "--cap-drop", "ALL",
             "--proc", "/proc", "--dev", "/dev", "true"]

    def attempt(command):
        try:
            proc = subprocess.run(command, capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"bubblewrap failed to start: {exc}"
        if proc.returncode != 0:
            return f"bubblewrap cannot create a sandbox here: {proc.stderr.strip()[:300]}"
        return None

    if os.geteuid() != 0:
        failed = attempt(probe)
        return (None, failed) if failed else ("user", "")
    uid = FIRST_UID + _SLOTS
    drop = [bwrap, "--ro-bind", "/", "/", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
            "--die-with-parent", "--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID",
            "--proc", "/proc", "--dev", "/dev", sys.executable, "-S", "-c",
            f"import os; os.setgroups([]); os.setgid({uid}); os.setuid({uid}); assert os.getuid() == {uid}"]
    failed = attempt(drop)
    if failed is None:
        return "user", ""
    if attempt(probe) is None:
        return "root", (f"sandboxes can only run as root here ({failed}); grading needs bubblewrap able "
                        "to change to an unprivileged user")
    return None, failed


def available():
    """``(True, "")`` when bubblewrap can start a sandbox here, else ``(False, why)``.

    Also ``True`` (with the reason in ``why``) where sandboxes can only run as root, which
    ``KPCOURSE_ISOLATION=require`` refuses.
    """
    how, why = _launch()
    return how is not None, why


def _data_dirs():
    dirs = []
    for var in ("KPCOURSE_DATA", "NLTK_DATA"):
        for p in os.environ.get(var, "").split(os.pathsep):
            if p and Path(p).is_dir():
                dirs.append(str(Path(p).resolve()))
    cache = _cache()
    if cache.is_dir():
        dirs.append(str(cache.resolve()))
    return dirs


def _cache():
    """The grader's data cache, found as :mod:`kpcourse.datasets` finds it: mounted read-only, and named
    to the sandbox by ``KPCOURSE_CACHE``, where its own home differs."""
    from kpcourse.datasets._files import _cache_dir

    return _cache_dir()


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
    cache = _cache()
    if cache.is_dir():
        env["KPCOURSE_CACHE"] = str(cache.resolve())
        if not os.environ.get("KPCOURSE_DATA"):
            env["KPCOURSE_DATA"] = str(cache.resolve())
    return env


def bwrap_command(workdir, argv, env, *, user=None, tmp_bytes=None, overlays=()):
    """The bubblewrap command line that runs ``argv`` with ``workdir`` as its only writable folder.

    ``user``: the unprivileged user id the submission runs as, when the grader is root. The
    sandbox is then set up as root without a user namespace (so that every folder it mounts
    can be reached, and so that the process limit counts this user's processes, as root's
    are never counted), keeping only the capabilities to change user, and ``argv`` (our
    :mod:`kpcourse.grading.sandbox.inside`) becomes ``user`` first thing, which drops those too; bubblewrap's
    ``no_new_privs`` stops any set-user-id program from giving them back. ``overlays``
    (``[(source, destination)]``) are mounted last, over what the other mounts show: the
    trimmed package and the stand-ins for absent ones (:mod:`kpcourse.grading.sandbox.allowed`).
    """
    cmd = [shutil.which("bwrap"), "--die-with-parent", "--new-session"]
    if user is None:
        cmd += ["--unshare-all", "--cap-drop", "ALL"]
    else:
        cmd += ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
                "--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    cmd += ["--hostname", "grading", "--clearenv"]
    for top in _SYSTEM:
        p = Path(top)
        if p.is_symlink():
            cmd += ["--symlink", os.readlink(p), top]
        elif p.is_dir():
            cmd += ["--ro-bind", top, top]
    cmd += ["--proc", "/proc", "--dev", "/dev"]
    if tmp_bytes:
        cmd += ["--size", str(int(tmp_bytes))]
    cmd += ["--tmpfs", "/tmp", "--dir", "/tmp/home"]
    if user is not None:
        cmd += ["--chmod", "0777", "/tmp", "--chmod", "0777", "/tmp/home"]
    # shared memory (multiprocessing's semaphores): a small tmpfs of its own, counted apart from /tmp
    cmd += ["--perms", "1777", "--size", str(64 * 2**20), "--tmpfs", "/dev/shm"]
    covered = {str(Path(dest).resolve()) for _, dest in overlays}
    binds = [d for d in _python_dirs() + _data_dirs() if d not in covered]
    cmd += _parents([*binds, *(str(dest) for _, dest in overlays)])
    for d in binds:
        cmd += ["--ro-bind", d, d]
    # the kernel's working folder (first on its sys.path) is read-only: no module can be written
    # there and then imported unread by the grader's source analysis
    cmd += ["--bind", str(workdir), INSIDE, "--ro-bind", str(Path(workdir) / "in"), f"{INSIDE}/in",
            "--ro-bind", str(Path(workdir) / "run"), f"{INSIDE}/run"]
    for source, dest in overlays:
        cmd += ["--ro-bind", str(source), str(dest)]
    cmd += ["--chdir", f"{INSIDE}/run"]
    for k, v in env.items():
        cmd += ["--setenv", k, v]
    return cmd + list(argv)


def _parents(destinations):
    """``--dir`` options that create the folders above ``destinations`` readable by everyone
    (bubblewrap, run as root, would create them for root only), except folders that a
    mount of its own already provides."""
    mounted = {*_SYSTEM, INSIDE, *destinations}  # mounts that bring their folders with them
    wanted = set()
    for dest in destinations:
        for parent in Path(dest).parents:
            if str(parent) in ("/", "/tmp"):  # /tmp is an empty tmpfs: folders below it are made here
                continue
            if any(str(parent) == m or str(parent).startswith(m.rstrip("/") + "/") for m in mounted):
                continue
            wanted.add(str(parent))
    out = []
    for d in sorted(wanted, key=lambda p: (p.count("/"), p)):
        out += ["--perms", "0755", "--dir", d]
    return out


def run_notebook(path_in, workdir, timeout, budget, limits=None, allowed=None):
    """Execute ``workdir/in/<notebook>`` into ``workdir/out/executed.ipynb``.

    Parameters
    ----------
    path_in : str
        File name of the notebook inside ``workdir/in``.
    workdir : pathlib.Path
        Holds ``in/`` (notebook and probes, read-only inside), ``run/`` (the working
        folder of the kernel, read-only), ``answers/`` and ``out/`` (writable).
    timeout : int
        Per-cell limit (s).
    budget : float
        Wall-clock limit for the whole notebook (s); the sandbox is killed after it.
    limits : kpcourse.grading.sandbox.limits.Limits, optional
        Memory, processes, disk and output of the submission (default: ``Limits()``).
    allowed : kpcourse.grading.sandbox.allowed.Allowed, optional
        What the kernel can import (default: everything installed).

    Returns
    -------
    dict
        ``isolated`` (bool), ``why`` (when not isolated), ``uid`` (the user the submission
        ran as, measured: :func:`measured_uid`), ``returncode``, ``log``, ``killed`` (budget exceeded),
        ``limit`` (``None``, or the limit that stopped the whole sandbox: ``"memory"`` or ``"disk"``).
    """
    return run_python("kpcourse.grading.sandbox.inside",
                      lambda root: [f"{root}/in/{path_in}", f"{root}/out/executed.ipynb", "--timeout", str(timeout)],
                      workdir, budget, limits, allowed)


def run_python(module, arguments, workdir, budget, limits=None, allowed=None):
    """Run ``python -m module *arguments(root)`` in the sandbox over ``workdir`` (see :func:`run_notebook`).

    ``arguments(root)`` gives the module's arguments for the work folder's path ``root``
    (inside the sandbox, or ``workdir`` itself without one); ``--limits`` and, when the
    grader is root, ``--user`` are added: the module must apply both before anything
    else runs (:func:`kpcourse.grading.sandbox.inside.enter`).
    """
    from kpcourse.grading.sandbox.limits import Limits

    limits = limits or Limits()
    workdir = Path(workdir)
    for sub in ("in", "run", "answers", "out"):
        (workdir / sub).mkdir(exist_ok=True)
    mode = os.environ.get("KPCOURSE_ISOLATION", "auto")
    ok, why = available()
    if not ok and mode == "require":
        raise IsolationUnavailable(f"KPCOURSE_ISOLATION=require but {why}")
    if ok and mode == "require" and _launch()[0] == "root":
        raise IsolationUnavailable(f"KPCOURSE_ISOLATION=require but {why}")
    with contextlib.ExitStack() as stack:
        user, group, group_why = None, None, "no sandbox"
        if ok:
            user = stack.enter_context(_user_slot()) if _launch()[0] == "user" else None
            _grant(workdir, user)
            overlays = allowed.overlays(stack.enter_context(_scratch("kpcourse-lib-"))) if allowed else []
            env = _env(INSIDE, f"{INSIDE}/in/probes.json")
            argv = [sys.executable, "-m", module, *arguments(INSIDE), "--limits", limits.to_json()]
            if user is not None:
                argv += ["--user", str(user)]
            cmd = bwrap_command(workdir, argv, env, user=user, tmp_bytes=limits.tmp_bytes, overlays=overlays)
            group, group_why = Group.create(limits.memory_bytes, limits.processes)
            if group is not None:  # every page and process of the sandbox counted, whatever its user
                stack.callback(group.close)
                cmd = group.wrap(cmd)
            cwd, run_env = None, {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        else:
            env = _env(str(workdir), str(workdir / "in" / "probes.json"))
            env["HOME"] = str(workdir / "home")
            (workdir / "home").mkdir(exist_ok=True)
            for k in ("JUPYTER_RUNTIME_DIR", "IPYTHONDIR", "MPLCONFIGDIR"):
                env[k] = str(workdir / "home" / k.lower())
            # no sandbox: no process limit either (it would count every process of this user)
            unsandboxed = dataclasses.replace(limits, processes=2**20)
            cmd = [sys.executable, "-m", module, *arguments(str(workdir)), "--limits", unsandboxed.to_json()]
            cwd, run_env = workdir / "run", env
        proc = subprocess.Popen(cmd, cwd=cwd, env=run_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, errors="replace", start_new_session=True)
        log, killed, limit = _watch(proc, workdir, budget, limits, group)
    return {"isolated": ok, "why": why, "uid": measured_uid(workdir),
            "returncode": proc.returncode, "log": log, "killed": killed, "limit": limit,
            "cgroup": group.version if group is not None else None, "cgroup_why": group_why}


def measured_uid(workdir):
    """The Unix user the sandbox ran as, as the kernel recorded it, or ``None``.

    The owner of :data:`kpcourse.grading.sandbox.inside.MARK`, which the sandbox makes in
    ``workdir/out`` before any of the submission's code runs (read without following a link). No
    process inside can make a file that belongs to another user. ``None`` when it is gone: the
    submission removed it.
    """
    try:
        return os.lstat(Path(workdir) / "out" / MARK).st_uid
    except OSError:
        return None


def read_untrusted(base, parts, max_bytes):
    """The bytes of ``base/parts...``, a regular file the sandbox wrote, or ``None``.

    ``base`` is the grader's own folder; below it nothing is trusted: no component is
    followed if it is a link (``O_NOFOLLOW`` at each step, from the folder above's
    descriptor), the file must be a regular file (never a FIFO or a device) and at most
    ``max_bytes`` long.
    """
    flags = os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW
    opened = []
    try:
        fd = os.open(base, flags | os.O_DIRECTORY)
        opened.append(fd)
        for part in parts[:-1]:
            fd = os.open(part, flags | os.O_DIRECTORY, dir_fd=fd)
            opened.append(fd)
        fd = os.open(parts[-1], flags | os.O_NONBLOCK, dir_fd=fd)
        opened.append(fd)
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
            return None
        chunks, size = [], 0
        while size <= max_bytes:
            chunk = os.read(fd, min(2**20, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return None if size > max_bytes else b"".join(chunks)
    except OSError:
        return None
    finally:
        for fd in opened:
            os.close(fd)


# ---------------------------------------------------------------- the watch
def _watch(proc, workdir, budget, limits, group=None, every=0.25):
    """Wait for the sandbox; stop it past its time budget, its memory or its disk allowance.

    Memory: with a control group, once the kernel has killed a process of it for passing its
    limit (all pages counted, shared memory included); without one, once the resident memory
    of its processes passes the limit.
    """
    tail = collections.deque(maxlen=200)
    reader = threading.Thread(target=lambda: [tail.append(line[-500:]) for line in proc.stdout], daemon=True)
    reader.start()
    deadline = time.monotonic() + budget
    killed, limit = False, None

    def over_memory():
        if group is not None:
            return group.oom_kills() > 0
        return _tree_memory(proc.pid) > limits.memory_bytes

    try:
        while proc.poll() is None:
            if time.monotonic() > deadline:
                killed = True
            elif over_memory():
                limit = "memory"
            elif _written(workdir, ("answers", "out")) > limits.work_bytes:
                limit = "disk"
            if killed or limit:
                _kill_group(proc)
                break
            time.sleep(every)
    finally:
        if proc.poll() is None:
            _kill_group(proc)
        proc.wait()
        reader.join(timeout=5)
    if limit is None and group is not None and group.oom_kills():
        limit = "memory"  # killed between two looks, just before the end
    if limit is None and _written(workdir, ("answers", "out")) > limits.work_bytes:
        limit = "disk"  # written between two looks, just before the end
    return "".join(tail)[-6000:], killed, limit


def _tree_memory(root):
    """Resident bytes of ``root`` and every process below it (from ``/proc``)."""
    children = collections.defaultdict(list)
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()
        children[int(fields[1])].append(int(entry.name))
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, ()))
        try:
            with open(f"/proc/{pid}/statm", "rb") as f:
                total += int(f.read().split()[1]) * _PAGE
        except (OSError, ValueError, IndexError):
            continue
    return total


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _written(workdir, subdirs, most_entries=20000):
    """Bytes under ``workdir``'s writable folders (links not followed; too many files count as too much)."""
    total, seen, todo = 0, 0, [Path(workdir) / s for s in subdirs]
    while todo:
        try:
            with os.scandir(todo.pop()) as entries:
                for e in entries:
                    seen += 1
                    if seen > most_entries:
                        return float("inf")
                    if e.is_dir(follow_symlinks=False):
                        todo.append(e.path)
                    else:
                        total += e.stat(follow_symlinks=False).st_blocks * 512
        except OSError:
            continue
    return total


# ---------------------------------------------------------------- the user
#: First of the user ids that sandboxes run as when the grader is root (one per sandbox at a time).
FIRST_UID = 61000
_SLOTS = 512


@contextlib.contextmanager
def _user_slot():
    """An unprivileged user id of its own for one sandbox (``None`` when the grader is not root:
    the sandbox then runs as the grader's own user, unprivileged already)."""
    if os.geteuid() != 0:
        yield None
        return
    import fcntl

    locks = Path(tempfile.gettempdir()) / "kpcourse-sandbox-users"
    locks.mkdir(mode=0o700, exist_ok=True)
    start = os.getpid() % _SLOTS
    for i in range(_SLOTS):
        slot = (start + i) % _SLOTS
        fd = os.open(locks / f"{slot}.lock", os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        try:
            yield FIRST_UID + slot
        finally:
            os.close(fd)
        return
    raise RuntimeError(f"all {_SLOTS} sandbox user ids are in use: too many submissions graded at once")


def _grant(workdir, user):
    """Let the sandbox's user read ``in/`` and ``run/`` and write only ``answers/`` and ``out/``."""
    workdir = Path(workdir)
    os.chmod(workdir, 0o711)
    for sub in ("in", "run"):
        for dirpath, _, filenames in os.walk(workdir / sub):
            os.chmod(dirpath, 0o755)
            for name in filenames:
                os.chmod(os.path.join(dirpath, name), 0o644, follow_symlinks=False)
    for sub in ("answers", "out"):
        os.chmod(workdir / sub, 0o700)
        if user is not None:
            os.chown(workdir / sub, user, user)


@contextlib.contextmanager
def _scratch(prefix):
    path = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()
