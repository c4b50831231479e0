"""Project memory from real AGENTS.md / CLAUDE.md files in a real git repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent.context.memory import memory_files, project_memory


@pytest.fixture
def user_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "config"
    path.mkdir()
    monkeypatch.setenv("BEECODE_CONFIG_DIR", str(path))
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "outer" / "repo"
    (root / "pkg" / "sub").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_no_memory_is_empty(repo: Path, user_dir: Path) -> None:
    assert project_memory(repo / "pkg") == ""


def test_collects_from_git_root_down_to_workspace_and_user_first(
    repo: Path, user_dir: Path
) -> None:
    (repo.parent / "AGENTS.md").write_text("above the repo: ignored")
    (repo / "AGENTS.md").write_text("root rules")
    (repo / "pkg" / "CLAUDE.md").write_text("pkg rules from CLAUDE.md")
    (repo / "pkg" / "sub" / "AGENTS.md").write_text("sub agents")
    (repo / "pkg" / "sub" / "CLAUDE.md").write_text("sub claude: shadowed by AGENTS.md")
    (user_dir / "AGENTS.md").write_text("user rules")
    workspace = repo / "pkg" / "sub"
    assert memory_files(workspace) == [
        user_dir / "AGENTS.md",
        repo / "AGENTS.md",
        repo / "pkg" / "CLAUDE.md",
        workspace / "AGENTS.md",
    ]
    memory = project_memory(workspace)
    order = [memory.index(s) for s in ("user rules", "root rules", "pkg rules", "sub agents")]
    assert order == sorted(order)
    assert "ignored" not in memory and "shadowed" not in memory
    assert f"From {repo / 'AGENTS.md'}:\nroot rules" in memory


def test_outside_git_only_the_workspace_counts(tmp_path: Path, user_dir: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("parent")
    workspace = tmp_path / "plain"
    workspace.mkdir()
    (workspace / "AGENTS.md").write_text("here")
    assert project_memory(workspace) == f"From {workspace / 'AGENTS.md'}:\nhere"


def test_memory_is_capped(repo: Path, user_dir: Path) -> None:
    (repo / "AGENTS.md").write_text("x" * 50_000)
    memory = project_memory(repo, max_chars=1000)
    assert memory.endswith("[project memory cut at 1000 characters]")
    assert len(memory) < 1100
