"""Checkpoint tests: a real git workspace, beecode's data dir in tmp, the real loop with a
scripted model (the loop takes the checkpoints)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.faults.conftest import data_dir  # noqa: F401  (the fixture, shared)


def git(workspace: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(workspace), "-c", "user.name=t", "-c", "user.email=t@e", *args],
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A git repository: kept.txt committed, notes.txt untracked, build/ ignored."""
    path = (tmp_path / "ws").resolve()
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    (path / ".gitignore").write_text("build/\n")
    (path / "kept.txt").write_text("kept v1\n")
    git(path, "add", ".")
    git(path, "commit", "-qm", "start")
    (path / "notes.txt").write_text("untracked notes\n")
    (path / "build").mkdir()
    (path / "build" / "out.bin").write_bytes(b"ignored build output")
    return path


def files(ws: Path) -> dict[str, bytes]:
    """Every file of the workspace outside .git, with its bytes."""
    return {
        p.relative_to(ws).as_posix(): p.read_bytes()
        for p in sorted(ws.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(ws).parts
    }
