"""TUI test fixtures: beecode's dirs in tmp for every test, a real git repository, a bench run on
record, a stable tool clock."""

from __future__ import annotations

import itertools
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from agent.config import Config


@pytest.fixture(autouse=True)
def isolated(beecode_dirs: None) -> None:
    """Every TUI test keeps beecode's dirs in its tmp dir."""


@pytest.fixture
def changed_repo(workspace: Path) -> Path:
    """A real git repository in the workspace: a.txt committed as "one", now "two"."""

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(workspace), *args], check=True, capture_output=True)

    git("init", "-q")
    (workspace / "a.txt").write_text("one\n")
    git("add", "a.txt")
    git("-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "a")
    (workspace / "a.txt").write_text("two\n")
    return workspace


@pytest.fixture
def tiny_config(beecode_dirs: None) -> Config:
    """A managed config for the `tiny` profile (no server runs: the server view says "down")."""
    return Config(profile="tiny")


@pytest.fixture
def quarter_second_tools(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every tool call takes 250 ms by the loop's clock, so durations on screen are stable."""
    from agent.loop import calls

    ticks = itertools.count(step=0.25)
    monkeypatch.setattr(calls, "time", SimpleNamespace(monotonic=lambda: next(ticks)))
