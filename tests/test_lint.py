"""ruff passes on the package, the tests, the benchmarks and the grader files (``make lint``)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_is_clean():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        if os.environ.get("CI") == "true":
            pytest.fail("ruff is not installed: make setup installs it")
        pytest.skip("ruff is not installed (make setup installs it)")
    done = subprocess.run([ruff, "check", "kpcourse", "tests", "benchmarks", "source"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:]
