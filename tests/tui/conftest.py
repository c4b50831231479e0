"""TUI test fixtures: beecode's data, state and config dirs in tmp, a real workspace folder."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def beecode_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DATA", "STATE", "CONFIG"):
        folder = tmp_path / name.lower()
        folder.mkdir()
        monkeypatch.setenv(f"BEECODE_{name}_DIR", str(folder))


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
