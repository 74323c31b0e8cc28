"""``make lab``, the README's first command: the Lab it starts serves what a student needs.

The command is read from ``make -n lab`` (what the Makefile really runs) and started on a free port,
without a browser; its contents API and its front page say what the student's Lab shows: the start
page opens, the file browser sits at the repository's top with the lectures (``notebooks/``) and the
assignments (``release/``) in it, and the instructor's ``source/`` (solutions, graders) is not listed.
(Before, the positional ``notebooks/`` became the server's root, and ``release/`` could not be reached.)
"""

from __future__ import annotations

import json
import os
import shlex
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "kpcourse-lab-test"


def _command():
    plan = subprocess.run(["make", "-n", "lab"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    line = next(x for x in plan.replace("\\\n", " ").splitlines() if " lab " in f"{x} " and "jupyter" in x)
    return shlex.split(line)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    port = _free_port()
    runtime = tmp_path_factory.mktemp("jupyter-runtime")
    args = [*_command(), "--no-browser", f"--port={port}", "--ServerApp.ip=127.0.0.1",
            f"--IdentityProvider.token={TOKEN}"]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, "JUPYTER_RUNTIME_DIR": str(runtime)})
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):  # up to 60 s for the server to answer
            try:
                urllib.request.urlopen(f"{base}/api/status?token={TOKEN}", timeout=2)
                break
            except (urllib.error.URLError, ConnectionError):
                if proc.poll() is not None:
                    pytest.fail(f"make lab's server stopped at once: {' '.join(args)}")
                time.sleep(0.2)
        else:
            pytest.fail("make lab's server did not answer within 60 s")
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def _json(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.load(r)


def test_the_start_page_opens(lab):
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        opener.open(f"{lab}/?token={TOKEN}", timeout=10)
        pytest.fail("the front page should redirect to the start page")
    except urllib.error.HTTPError as err:
        assert err.code in (301, 302), err.code
        assert "/lab/tree/notebooks/00-start-here.ipynb" in err.headers["Location"], err.headers["Location"]


def test_lectures_and_assignments_are_listed_and_the_instructors_folders_are_not(lab):
    top = {item["name"] for item in _json(f"{lab}/api/contents/?token={TOKEN}")["content"]}
    assert {"notebooks", "release"} <= top, top
    assert not top & {"source", "tests", ".ci"}, top
    lectures = {item["name"] for item in _json(f"{lab}/api/contents/notebooks?token={TOKEN}")["content"]}
    assert "00-start-here.ipynb" in lectures
    assignments = {item["name"] for item in _json(f"{lab}/api/contents/release?token={TOKEN}")["content"]}
    assert {p.name for p in (ROOT / "release").iterdir() if p.is_dir()} <= assignments
    one = sorted(assignments)[0]
    notebook = _json(f"{lab}/api/contents/release/{one}/{one}.ipynb?token={TOKEN}")
    assert notebook["type"] == "notebook" and notebook["content"]["cells"]
