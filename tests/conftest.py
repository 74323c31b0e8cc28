"""Shared pytest fixtures."""

import os
from pathlib import Path

import pytest

# The course's staged data: ``shared/data`` beside the repository.
_SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data():
    """Folder of the staged data files (env ``KPCOURSE_DATA``, else ``../shared/data``).

    Tests that need it are skipped when the folder is absent, except under ``CI=true``
    where a missing folder is a failure.
    """
    env = os.environ.get("KPCOURSE_DATA")
    path = Path(env) if env else _SHARED_DATA
    if not path.is_dir():
        message = f"data folder {path} not found; set KPCOURSE_DATA to the course's data folder"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture(scope="session")
def bwrap():
    """bubblewrap can start a sandbox here (``.ci/run`` installs it): else skip, or fail under ``CI=true``."""
    from kpcourse.grading.sandbox import bwrap as sandbox

    ok, why = sandbox.available()
    if not ok:
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)


@pytest.fixture(scope="session")
def message():
    """``message(func, *args, **kwargs)``: the text of the AssertionError ``func(*args, **kwargs)`` must raise."""
    def message(func, *args, **kwargs):
        __tracebackhide__ = True
        with pytest.raises(AssertionError) as info:
            func(*args, **kwargs)
        return str(info.value)
    return message
