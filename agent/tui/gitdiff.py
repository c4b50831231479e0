"""/diff: the workspace's uncommitted changes, from the real git."""

from __future__ import annotations

import subprocess
from pathlib import Path


class NotARepository(Exception):
    pass


def _git(workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(workspace), *args], capture_output=True, text=True, check=False
    )


def uncommitted(workspace: Path) -> tuple[str, list[str]]:
    """(diff of tracked files against HEAD, staged and unstaged; untracked paths)."""
    try:
        inside = _git(workspace, "rev-parse", "--is-inside-work-tree")
    except FileNotFoundError as error:
        raise NotARepository("git is not installed") from error
    if inside.returncode != 0:
        raise NotARepository(f"{workspace} is not inside a git repository")
    if _git(workspace, "rev-parse", "--verify", "-q", "HEAD").returncode == 0:
        diff = _git(workspace, "diff", "--no-color", "HEAD").stdout
    else:  # no commit yet: everything added so far is staged
        diff = _git(workspace, "diff", "--no-color", "--cached").stdout
        diff += _git(workspace, "diff", "--no-color").stdout
    others = _git(workspace, "ls-files", "--others", "--exclude-standard").stdout
    return diff, others.splitlines()
