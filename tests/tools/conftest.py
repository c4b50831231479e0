"""Fixtures for the tool tests: a real workspace in a tmp dir, a real git repo, process probes."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import git
import pytest

from tools.base import ToolContext


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root.resolve()


@pytest.fixture
def ctx(workspace: Path) -> ToolContext:
    return ToolContext(workspace=workspace)


@pytest.fixture
def repo(workspace: Path) -> Iterator[git.Repo]:
    with git.Repo.init(workspace, initial_branch="main") as repo:
        with repo.config_writer() as config:
            config.set_value("user", "name", "Test User")
            config.set_value("user", "email", "test@example.com")
            config.set_value("commit", "gpgsign", "false")
        yield repo


def is_alive(pid: int) -> bool:
    """True while the process exists and is not a zombie (in a container PID 1 may not reap)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_until_dead(pid: int, within_s: float = 10.0) -> bool:
    # SIGKILL is delivered asynchronously; this bounds the wait, it does not measure speed.
    deadline = time.monotonic() + within_s
    while is_alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def wait_for_file(path: Path, within_s: float = 10.0) -> str:
    deadline = time.monotonic() + within_s
    while not (path.exists() and path.read_text().strip()):
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)
    return path.read_text().strip()
