"""kpcourse.grading.sandbox.bwrap: a submission's notebook runs where it can reach nothing of the course.

Needs Debian's bubblewrap (``apt-get install bubblewrap``; ``.ci/run`` installs it). Without
it these tests are skipped, except under ``CI=true`` where that is a failure.
"""

import json
import os
import socket
from pathlib import Path

import nbformat
import pytest

from kpcourse.grading.sandbox import bwrap as sandbox

ROOT = Path(__file__).resolve().parents[1]


def _workdir(tmp_path, cells):
    """A work folder whose notebook holds ``cells`` (a list of code, or one cell's code)."""
    work = tmp_path / "work"
    for sub in ("in", "run", "answers"):
        (work / sub).mkdir(parents=True)
    cells = [cells] if isinstance(cells, str) else cells
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    (work / "in" / "probes.json").write_text("{}")
    nbformat.write(nb, work / "in" / "notebook.ipynb")
    return work


def _run(tmp_path, code, timeout=30):
    work = _workdir(tmp_path, code)
    result = sandbox.run_notebook("notebook.ipynb", work, timeout, budget=120)
    out = nbformat.read(work / "out" / "executed.ipynb", as_version=4)
    text = "".join(o.get("text", "") + o.get("evalue", "") for o in out.cells[0].outputs)
    return result, text, work


def test_the_course_folder_home_and_tmp_are_out_of_reach(bwrap, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("the answer")
    # a checkout or venv that lives under /tmp is mounted read-only at its own path: the first
    # folder of that path shows in the sandbox's /tmp, with nothing in it but the mount
    mounts = {Path(d).parts[2] for d in sandbox._python_dirs() + sandbox._data_dirs() if d.startswith("/tmp/")}
    code = f"""
import os, pathlib
import kpcourse
checks = {{
    "secret": os.path.exists({str(secret)!r}),
    "repo source": os.path.exists({str(ROOT / 'source')!r}),
    "repo tests": os.path.exists({str(ROOT / 'tests')!r}),
    "home": sorted(os.listdir(os.path.expanduser("~"))),
    "tmp": sorted(p for p in os.listdir("/tmp") if p not in ("home", "jupyter-runtime", "ipython", "mpl",
                                                           *{sorted(mounts)!r})
                  and not (p.startswith("tmp") and p.endswith(".json"))),  # this kernel's own connection file
    "up from kpcourse": [str(p) for p in pathlib.Path(kpcourse.__file__).parents if (p / "source").exists()],
}}
print(checks)
"""
    result, text, _ = _run(tmp_path, code)
    assert result["isolated"], result
    assert "'secret': False" in text and "'repo source': False" in text and "'repo tests': False" in text, text
    assert "'home': []" in text and "'tmp': []" in text and "'up from kpcourse': []" in text, text


def test_read_only_outside_its_work_folder_and_no_network(bwrap, tmp_path):
    code = """
import os, socket, kpcourse
results = []
for target in (kpcourse.__file__, "/usr/x", "../in/probes.json"):
    try:
        open(target, "a").close()
        results.append("wrote " + target)
    except OSError:
        results.append("refused")
try:
    socket.create_connection(("1.1.1.1", 80), timeout=2)
    results.append("network")
except OSError:
    results.append("no network")
for target in ("mine.py", "/tmp/mine.txt"):
    try:
        open(target, "w").write("x = 1")
        results.append("wrote " + target)
    except OSError:
        results.append("refused " + target)
print(results)
"""
    result, text, work = _run(tmp_path, code)
    assert "no network" in text, text
    assert "wrote /tmp/mine.txt" in text and text.count("wrote") == 1, text  # only its own /tmp
    assert not (work / "run" / "mine.py").exists()


def test_killing_everything_inside_leaves_the_grader_running(bwrap, tmp_path):
    work = _workdir(tmp_path, "import os, signal\nos.killpg(os.getpgid(0), signal.SIGKILL)")
    result = sandbox.run_notebook("notebook.ipynb", work, 20, budget=90)
    assert result["isolated"]
    assert os.getpid() > 0 and socket.gethostname()  # still here


def test_without_bubblewrap_it_runs_and_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox, "available", lambda: (False, "bubblewrap (bwrap) is not installed"))
    monkeypatch.delenv("KPCOURSE_ISOLATION", raising=False)  # CI requires isolation everywhere else
    result, text, _ = _run(tmp_path, "print(1 + 1)")
    assert result["isolated"] is False and "not installed" in result["why"] and "2" in text
    monkeypatch.setenv("KPCOURSE_ISOLATION", "require")
    with pytest.raises(sandbox.IsolationUnavailable):
        _run(tmp_path / "again", "print(1)")


def test_a_cell_that_kills_the_kernel_costs_only_that_cell(bwrap, tmp_path):
    work = _workdir(tmp_path, ["x = 41", "import os\nos._exit(1)", "print(x + 1)"])
    sandbox.run_notebook("notebook.ipynb", work, 20, budget=200)
    out = nbformat.read(work / "out" / "executed.ipynb", as_version=4)
    assert out.cells[1].outputs[0]["ename"] == "DeadKernelError"
    assert out.cells[2].outputs[0]["text"] == "42\n"  # restarted, the cells above replayed


# ------------------------------------------------------------ users, imports, limits
def _run_cells(tmp_path, cells, timeout=30, **kwargs):
    work = _workdir(tmp_path, cells)
    result = sandbox.run_notebook("notebook.ipynb", work, timeout, budget=180, **kwargs)
    executed = work / "out" / "executed.ipynb"
    texts = None
    if executed.is_file():
        out = nbformat.read(executed, as_version=4)
        texts = ["".join(str(o.get("text", "")) + str(o.get("evalue", "")) for o in c.outputs) for c in out.cells]
    return result, texts


def test_runs_as_an_unprivileged_user_of_its_own(bwrap, tmp_path):
    result, texts = _run_cells(tmp_path, [
        "import os\nprint(os.getuid(), os.geteuid(), os.getgid(), os.getgroups())",
        "print(open('/proc/self/status').read().split('CapEff:')[1].split()[0])",
        "import subprocess\nprint(subprocess.run(['su', '-c', 'id'], capture_output=True, text=True).returncode)"])
    uid = result["uid"]
    assert uid != 0 and texts[0].split()[:3] == [str(uid)] * 3, (result, texts)
    assert texts[1].strip() == "0" * 16, texts  # no capability left
    assert texts[2].strip() != "0", texts  # no way back to root


def test_what_the_assignment_does_not_allow_is_absent(bwrap, tmp_path):
    from kpcourse.grading.sandbox.allowed import Allowed

    probe = ("import importlib, logging, pydoc\nfound = []\n"
             "for name in ('kpcourse.perceptron', 'kpcourse.kernels', 'kpcourse.gram', 'kpcourse._dual', "
             "'kpcourse.grading.judge.policy', 'sklearn', 'scipy'):\n"
             "    try:\n        importlib.import_module(name)\n        found.append(name)\n"
             "    except ImportError as exc:\n        last = str(exc)\n"
             "print(sorted(found), pydoc.locate('kpcourse.perceptron.Perceptron'), "
             "'sklearn' in logging.sys.modules)\nprint(last)")
    ok = "from kpcourse import checks, datasets, plotting\nprint(datasets.worked_example()[1].tolist())"
    result, texts = _run_cells(tmp_path / "default", [probe, ok], allowed=Allowed())
    assert texts[0].splitlines()[0] == "[] None False", texts
    assert "not available while this assignment is graded" in texts[0], texts
    assert texts[1].strip() == "[1, -1, 1, -1]", texts
    model = Allowed(("kpcourse.perceptron", "sklearn", "scipy"))
    result, texts = _run_cells(tmp_path / "model", [probe], allowed=model)
    assert "['kpcourse._dual', 'kpcourse.gram', 'kpcourse.kernels', 'kpcourse.perceptron', 'scipy', 'sklearn'] " \
           "<class 'kpcourse.perceptron._primal.Perceptron'> True" in texts[0], texts
    assert "Warning" not in texts[0], texts  # scikit-learn starts without complaint


def test_packages_this_python_does_not_use_are_empty_inside(bwrap, tmp_path):
    """The base interpreter's and the system's site-packages (SciPy may be there): not reachable
    by a path added to sys.path."""
    from kpcourse.grading.sandbox.allowed import Allowed, foreign_site_packages

    foreign = foreign_site_packages()
    if not foreign:
        pytest.skip("every site-packages folder here is this Python's own")
    code = (f"import json, os, sys\nsys.path[:0] = {foreign!r}\nfound = {{}}\n"
            f"for d in {foreign!r}:\n    found[d] = len(os.listdir(d)) if os.path.isdir(d) else None\n"
            "try:\n    import scipy.linalg\n    found['scipy'] = scipy.__file__\n"
            "except ImportError:\n    found['scipy'] = None\nprint(json.dumps(found))")
    result, texts = _run_cells(tmp_path, [code], allowed=Allowed())
    found = json.loads(texts[0])
    assert found.pop("scipy") is None, found
    assert all(n in (0, None) for n in found.values()), found


def test_a_package_anywhere_even_under_tmp_is_graded_without_its_compiled_leftovers(bwrap, tmp_path):
    """The package copied under /tmp (a clone there), compiled: the sandbox, run as the grader
    would run it from there, finds the checks and no compiled file of a module it leaves out."""
    import compileall
    import shutil
    import subprocess
    import sys
    import tempfile

    import kpcourse

    where = Path(tempfile.mkdtemp(prefix="kpcourse-elsewhere-", dir="/tmp"))
    try:
        shutil.copytree(Path(kpcourse.__file__).parent, where / "kpcourse",
                        ignore=shutil.ignore_patterns("__pycache__"))
        assert compileall.compile_dir(where / "kpcourse", quiet=1)
        work = _workdir(tmp_path, "import json, os, kpcourse.checks\nhere = os.path.dirname(kpcourse.__file__)\n"
                                  "print(json.dumps([kpcourse.__file__, os.listdir(here), "
                                  "os.listdir(here + '/__pycache__')]))")
        grader = ("import sys\nfrom kpcourse.grading.sandbox import bwrap as sandbox\n"
                  "from kpcourse.grading.sandbox.allowed import Allowed\n"
                  "r = sandbox.run_notebook('notebook.ipynb', sys.argv[1], 30, budget=120, allowed=Allowed())\n"
                  "print(r['isolated'], r['returncode'], r['log'][-2000:])")
        env = dict(os.environ, PYTHONPATH=str(where), PYTHONDONTWRITEBYTECODE="1")
        proc = subprocess.run([sys.executable, "-c", grader, str(work)], env=env, capture_output=True, text=True,
                              timeout=300, cwd=tmp_path)
        assert proc.stdout.startswith("True 0"), proc.stdout[-3000:] + proc.stderr[-3000:]
        out = nbformat.read(work / "out" / "executed.ipynb", as_version=4)
        text = "".join(o.get("text", "") + o.get("evalue", "") for o in out.cells[0].outputs)
        file, files, pycache = json.loads(text)
        assert file == str(where / "kpcourse" / "__init__.py"), text
        compiled = {name.split(".")[0] for name in pycache}
        assert "__init__" in compiled and "kernels" not in compiled, compiled
        assert {f"{m}.py" for m in compiled} <= set(files), (compiled, files)
    finally:
        shutil.rmtree(where, ignore_errors=True)


def test_each_resource_bomb_is_stopped_by_its_limit_and_the_rest_runs(bwrap, tmp_path):
    cells = [
        "import numpy as np\ntry:\n    a = np.ones(6 * 2**30 // 8)\n    a[::512] = 2\n    print('ALLOCATED')\n"
        "except MemoryError:\n    print('MEMORY STOPPED')",
        "import subprocess\nps = []\ntry:\n    for _ in range(1000):\n"
        "        ps.append(subprocess.Popen(['sleep', '60']))\nexcept OSError:\n    pass\n"
        "print('PROCESSES', len(ps))\nfor p in ps:\n    p.kill()\n    p.wait()",
        "try:\n    with open('/grading/out/big', 'wb') as f:\n        for _ in range(5 * 1024):\n"
        "            f.write(b'x' * 2**20)\n    print('WROTE 5 GiB')\n"
        "except OSError as exc:\n    print('FILE STOPPED', exc)\n"
        "import os\nos.remove('/grading/out/big')",
        "print('y' * 300_000_000)",
        "print('STILL HERE', 6 * 7)",
    ]
    result, texts = _run_cells(tmp_path, cells, timeout=60)
    assert result["limit"] is None and result["returncode"] == 0, result
    assert texts[0].strip() == "MEMORY STOPPED", texts[0]
    started = int(texts[1].split()[1])
    assert 0 < started < 256, texts[1]
    assert texts[2].startswith("FILE STOPPED") and "File too large" in texts[2], texts[2]
    assert "[output cut:" in texts[3] and len(texts[3]) < 2 * 2**20, len(texts[3])
    assert texts[4] == "STILL HERE 42\n", texts[4]


@pytest.mark.parametrize("bomb,limit", [
    # several processes, each under the per-process limit, over it together
    ("import subprocess, sys\ncode = 'import numpy as np, time; a = np.ones(900 * 2**20 // 8); time.sleep(30)'\n"
     "ps = [subprocess.Popen([sys.executable, '-c', code]) for _ in range(4)]\n[p.wait() for p in ps]", "memory"),
    # many files, each under the file-size limit, over the work folder's allowance together
    ("for i in range(400):\n    open(f'/grading/out/f{i}', 'wb').write(b'x' * 2**20)", "disk"),
])
def test_a_submission_over_its_whole_allowance_is_stopped(bwrap, tmp_path, bomb, limit):
    import time

    started = time.monotonic()
    result, _ = _run_cells(tmp_path, ["print('before')", bomb, "import time\ntime.sleep(20)\nprint('after')"])
    assert result["limit"] == limit, result
    assert time.monotonic() - started < 25, "stopped when the limit was passed, not at the end"


def _control_groups():
    """Skip where this machine lets the grader make no control group (the sandbox then falls back
    on per-process limits and the resident-memory watch, which miss shared memory)."""
    from kpcourse.grading.sandbox.cgroup import Group

    group, why = Group.create(2**30, 64)
    if group is None:
        pytest.skip(f"no control group can be made here: {why}")
    group.close()


@pytest.mark.parametrize("bomb", [
    # memfd files, each under the file-size limit and mapped by no process: no resident memory
    "import os, time\nfds = []\nfor i in range(10):\n    fd = os.memfd_create(f'm{i}')\n"
    "    for _ in range(100):\n        os.write(fd, b'x' * 2**20)\n    fds.append(fd)\ntime.sleep(30)",
    # files in the sandbox's /tmp (a tmpfs), beside an array just under the per-process limit
    "import numpy as np, time\nfor i in range(3):\n    open(f'/tmp/f{i}', 'wb').write(b'x' * 100 * 2**20)\n"
    "a = np.ones(250 * 2**20 // 8)\nprint('ARRAY')\ntime.sleep(30)",
])
def test_shared_memory_counts_against_the_memory_limit(bwrap, tmp_path, bomb):
    """1 GiB in memfd files, or 300 MiB of tmpfs files and a 250 MiB array, under a 512 MiB limit:
    the sandbox's control group counts every page, the kernel stops it, the grader names it."""
    import time

    from kpcourse.grading.sandbox.limits import Limits

    _control_groups()
    started = time.monotonic()
    result, texts = _run_cells(tmp_path, ["print('before')", bomb, "print('after')"],
                               limits=Limits(memory_bytes=512 * 2**20, tmp_bytes=512 * 2**20))
    assert result["cgroup"] in (1, 2), result
    assert result["limit"] == "memory", ({k: v for k, v in result.items() if k != "log"}, texts)
    assert time.monotonic() - started < 25, "stopped when the limit was passed, not at the end"


def test_a_control_group_caps_processes_whatever_the_user():
    """The process limit counts the sandbox's own processes, not every process of its user."""
    import subprocess

    from kpcourse.grading.sandbox.cgroup import Group

    _control_groups()
    group, _ = Group.create(2**30, 20)
    try:
        proc = subprocess.run(group.wrap(["/bin/sh", "-c", "for i in $(seq 40); do sleep 3 & done; wait"]),
                              capture_output=True, text=True, timeout=60)
        events = (group.folders[-1] / "pids.events").read_text().split()
        assert events[0] == "max" and int(events[1]) > 0, (events, proc.stderr[-500:])
    finally:
        group.close()
    assert not any(f.exists() for f in group.folders), "the group was not removed"
