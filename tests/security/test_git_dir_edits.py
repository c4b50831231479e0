"""Edits under .git/ ask in every mode but yolo, whatever the allow rules say."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.config import Mode
from agent.permissions.rules import Permissions

GIT_PATHS = [
    ".git/config",
    ".git/hooks/pre-commit",
    "sub/.git/config",
    ".GIT/config",
    "./.git/info/attributes",
]


def perms(tmp_path: Path, mode: Mode, allow: list[str]) -> Permissions:
    workspace = tmp_path / "ws"
    (workspace / ".git").mkdir(parents=True, exist_ok=True)
    if not (workspace / "gitlink").is_symlink():
        (workspace / "gitlink").symlink_to(workspace / ".git")
    return Permissions(mode, allow, [], workspace, [])


@pytest.mark.parametrize("path", [*GIT_PATHS, "gitlink/config"])
@pytest.mark.parametrize("mode", ["ask", "auto-edit"])
@pytest.mark.parametrize("allow", [[], ["write"], ["write(**)"], ["write(*)", "edit(*)"]])
def test_git_dir_edit_asks(tmp_path: Path, path: str, mode: Mode, allow: list[str]) -> None:
    for tool in ("write", "edit"):
        decision = perms(tmp_path, mode, allow).check(tool, "edit", path, [path])
        assert decision.verdict == "ask", (tool, path, mode, allow)
        assert ".git" in decision.reason


@pytest.mark.parametrize("path", GIT_PATHS)
def test_plan_refuses_and_yolo_runs_git_dir_edits(tmp_path: Path, path: str) -> None:
    assert perms(tmp_path, "plan", []).check("write", "edit", path, [path]).verdict == "deny"
    assert perms(tmp_path, "yolo", []).check("write", "edit", path, [path]).verdict == "allow"


def test_reading_git_files_and_editing_gitignore_do_not_ask(tmp_path: Path) -> None:
    p = perms(tmp_path, "auto-edit", [])
    assert p.check("read", "read", ".git/config", [".git/config"]).verdict == "allow"
    assert p.check("write", "edit", ".gitignore", [".gitignore"]).verdict == "allow"
    assert p.check("write", "edit", "src/git.py", ["src/git.py"]).verdict == "allow"
