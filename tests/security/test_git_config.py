"""A hostile repository configuration cannot make the git tool run anything.

Each case writes a real ``.git/config`` (or environment) that would create a marker file when git
runs the configured program, then drives the git tool's own actions and checks the marker is absent.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import git
import pytest

from tools.git import GitTool
from tools.tool import ToolContext

tool = GitTool()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    with git.Repo.init(root, initial_branch="main") as repo:
        with repo.config_writer() as config:
            config.set_value("user", "name", "Test User")
            config.set_value("user", "email", "test@example.com")
        (root / "a.txt").write_text("one\n")
        (root / ".gitattributes").write_text("* filter=evil diff=evil merge=evil\n")
        repo.index.add(["a.txt", ".gitattributes"])
        repo.index.commit("start")
    return root


def marker(repo: Path) -> Path:
    return repo.parent / "PWNED"


def hostile(repo: Path, *lines: str) -> None:
    """Append config lines; ``{touch}`` is a program that creates the marker and passes input on."""
    touch = repo.parent / "evil.sh"
    touch.write_text(f'#!/bin/sh\ntouch {marker(repo)}\ncat "$@"\n')
    touch.chmod(0o755)
    with (repo / ".git" / "config").open("a") as config:
        config.write("\n".join(line.replace("{touch}", str(touch)) for line in lines) + "\n")


def hook(directory: Path, name: str, repo: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / name
    script.write_text(f"#!/bin/sh\ntouch {marker(repo)}\n")
    script.chmod(0o755)


def modify(repo: Path) -> None:
    (repo / "a.txt").write_text("two\n")
    os.utime(repo / ".git" / "index", (0, 0))  # a racy index makes git re-read (and filter) files


async def act(repo: Path, **args: Any) -> str:
    result = await tool.run(args, ToolContext(workspace=repo))
    return result.output


def hooks_path(repo: Path) -> None:
    """A pre-commit hook in a folder that core.hooksPath names."""
    hook(repo / "hooks", "pre-commit", repo)
    hostile(repo, "[core]", f"hooksPath = {repo / 'hooks'}")


def included_config(repo: Path) -> None:
    """An fsmonitor set in a file that the repository's config includes."""
    repo.parent.joinpath("inc").write_text(f"[core]\nfsmonitor = touch {marker(repo)}\n")
    hostile(repo, "[include]", f"path = {repo.parent / 'inc'}")


Setup = Callable[[Path], None]
CASES: list[tuple[str, Setup, dict[str, Any]]] = [
    (
        "fsmonitor on status",
        lambda r: hostile(r, "[core]", "fsmonitor = {touch}"),
        {"action": "status"},
    ),
    (
        "fsmonitor on diff",
        lambda r: hostile(r, "[core]", "fsmonitor = {touch}"),
        {"action": "diff"},
    ),
    (
        "fsmonitor on add",
        lambda r: hostile(r, "[core]", "fsmonitor = {touch}"),
        {"action": "add", "paths": ["."]},
    ),
    ("external diff", lambda r: hostile(r, "[diff]", "external = {touch}"), {"action": "diff"}),
    (
        "external diff on show",
        lambda r: hostile(r, "[diff]", "external = {touch}"),
        {"action": "show"},
    ),
    (
        "diff driver command",
        lambda r: hostile(r, '[diff "evil"]', "command = {touch}"),
        {"action": "diff"},
    ),
    (
        "textconv on diff",
        lambda r: hostile(r, '[diff "evil"]', "textconv = {touch}"),
        {"action": "diff"},
    ),
    (
        "textconv on show",
        lambda r: hostile(r, '[diff "evil"]', "textconv = {touch}"),
        {"action": "show"},
    ),
    (
        "clean filter on status",
        lambda r: hostile(r, '[filter "evil"]', "clean = {touch}"),
        {"action": "status"},
    ),
    (
        "clean filter on add",
        lambda r: hostile(r, '[filter "evil"]', "clean = {touch}", "required = true"),
        {"action": "add", "paths": ["."]},
    ),
    (
        "process filter on diff",
        lambda r: hostile(r, '[filter "evil"]', "process = {touch}"),
        {"action": "diff"},
    ),
    (
        "smudge filter on checkout",
        lambda r: hostile(r, '[filter "evil"]', "smudge = {touch}"),
        {"action": "checkout", "paths": ["a.txt"]},
    ),
    (
        "hooks path",
        hooks_path,
        {"action": "commit", "message": "m", "paths": ["a.txt"]},
    ),
    (
        "default pre-commit hook",
        lambda r: hook(r / ".git" / "hooks", "pre-commit", r),
        {"action": "commit", "message": "m", "paths": ["a.txt"]},
    ),
    (
        "post-commit hook",
        lambda r: hook(r / ".git" / "hooks", "post-commit", r),
        {"action": "commit", "message": "m", "paths": ["a.txt"]},
    ),
    (
        "post-checkout hook",
        lambda r: hook(r / ".git" / "hooks", "post-checkout", r),
        {"action": "checkout", "name": "new", "create": True},
    ),
    (
        "reference-transaction hook",
        lambda r: hook(r / ".git" / "hooks", "reference-transaction", r),
        {"action": "branch", "name": "other"},
    ),
    (
        "gpg program on commit",
        lambda r: hostile(r, "[commit]", "gpgSign = true", "[gpg]", "program = {touch}"),
        {"action": "commit", "message": "m", "paths": ["a.txt"]},
    ),
    (
        "gpg program on log",
        lambda r: hostile(r, "[log]", "showSignature = true", "[gpg]", "program = {touch}"),
        {"action": "log"},
    ),
    (
        "pager",
        lambda r: hostile(r, "[core]", "pager = {touch}", "[pager]", "log = {touch}"),
        {"action": "log"},
    ),
    (
        "included config",
        included_config,
        {"action": "status"},
    ),
]


@pytest.mark.parametrize(("name", "setup", "args"), CASES, ids=[c[0] for c in CASES])
async def test_hostile_config_runs_nothing(
    repo: Path, name: str, setup: Setup, args: dict[str, Any]
) -> None:
    setup(repo)
    modify(repo)
    await act(repo, **args)
    assert not marker(repo).exists(), f"{name}: git ran a configured program"


@pytest.mark.parametrize(
    "variable",
    ["GIT_EXTERNAL_DIFF", "GIT_PAGER_IN_USE", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"],
)
async def test_inherited_git_environment_is_dropped(
    repo: Path, variable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    touch = f"touch {marker(repo)}"
    monkeypatch.setenv("GIT_EXTERNAL_DIFF", touch)
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.fsmonitor={touch}'")
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "diff.external")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", touch)
    monkeypatch.setenv(variable, os.environ.get(variable, "1"))
    modify(repo)
    for action in ("status", "diff", "show"):
        await act(repo, action=action)
    assert not marker(repo).exists()


async def test_safe_configuration_keeps_the_tool_working(repo: Path) -> None:
    hostile(
        repo, "[core]", "fsmonitor = {touch}", '[filter "evil"]', "clean = false", "required = true"
    )
    modify(repo)
    assert "-one\n+two" in await act(repo, action="diff")
    assert "M a.txt" in await act(repo, action="status")
    assert "M  a.txt" in await act(repo, action="add", paths=["a.txt"])


async def test_init_takes_no_template_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    template = tmp_path / "template"
    hook(template / "hooks", "post-commit", tmp_path / "ws")
    monkeypatch.setenv("GIT_TEMPLATE_DIR", str(template))
    (tmp_path / "ws").mkdir()
    await act(tmp_path / "ws", action="init")
    assert not (tmp_path / "ws" / ".git" / "hooks" / "post-commit").exists()
