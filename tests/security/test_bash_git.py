"""git run by bash (an allowed `git status`, `git commit`, a script's git) cannot run what a hostile
repository's config names: each case writes a real `.git/config` or hook that would create a
marker file, runs a real command line through the bash tool, and checks the marker is absent.
The user's own config (global, here `GIT_CONFIG_GLOBAL`) still counts, and a trusted workspace
runs the repository's hooks, as the user who trusts it expects."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent.config import Config
from agent.events import PermissionRequest
from agent.model.scripted import call, text
from tests.agent.loop_kit import Face, make_agent
from tests.factory import ENDPOINT
from tests.factory import make_agent as assembled_agent
from tools.bash import BashTool
from tools.tool import ToolContext

from .jobs import job_output
from .test_git_config import hook, hostile, marker, modify, repo

__all__ = ["repo"]  # the fixture, shared with the git tool's cases
pytestmark = pytest.mark.usefixtures("beecode_dirs")  # the agents' sessions stay in tmp
COMMIT = "git commit -qam m"
CASES: list[tuple[str, list[str], str]] = [
    ("fsmonitor on status", ["[core]", "fsmonitor = {touch}"], "git status"),
    ("fsmonitor on diff", ["[core]", "fsmonitor = {touch}"], "git diff --stat"),
    ("external diff", ["[diff]", "external = {touch}"], "git diff"),
    ("external diff on log -p", ["[diff]", "external = {touch}"], "git log -p -1 --ext-diff"),
    ("diff driver command", ['[diff "evil"]', "command = {touch}"], "git diff"),
    ("textconv on diff", ['[diff "evil"]', "textconv = {touch}"], "git diff"),
    ("textconv on show", ['[diff "evil"]', "textconv = {touch}"], "git show HEAD"),
    ("clean filter on status", ['[filter "evil"]', "clean = {touch}"], "git status"),
    ("clean filter on commit", ['[filter "evil"]', "clean = {touch}", "required = true"], COMMIT),
    ("smudge filter on checkout", ['[filter "evil"]', "smudge = {touch}"], "git checkout a.txt"),
    ("hooks path on commit", ["[core]", "hooksPath = hooks"], COMMIT),
    ("gpg program on commit", ["[commit]", "gpgSign = true", "[gpg]", "program = {touch}"], COMMIT),
    ("credential helper", ["[credential]", "helper = !{touch}"], "git credential fill < q"),
    ("url credential helper", ['[credential "https://x"]', "helper = !{touch}"],
     "git credential fill < q"),
    ("ssh command", ["[core]", "sshCommand = {touch}"], "git ls-remote ssh://h/x"),
    ("ext protocol", ["[protocol]", "allow = always"], "git ls-remote 'ext::{touch}'"),
    ("upload-pack of a remote", ['[remote "up"]', "url = .", "uploadpack = {touch}"],
     "git fetch -q up"),
    ("difftool command", ["[diff]", "tool = evil", '[difftool "evil"]', "cmd = {touch}"],
     "git difftool -y"),
    ("editor", ["[core]", "editor = {touch}"], "git commit -qa"),
    ("a script's git", ["[core]", "fsmonitor = {touch}"], "sh -c 'cd . && git status'"),
]  # fmt: skip


async def bash(repo: Path, command: str, trusted: bool = False) -> str:
    ctx = ToolContext(workspace=repo, trusted_workspace=trusted)
    result = await BashTool().run({"command": command, "timeout": 60}, ctx)
    return result.output


@pytest.fixture(autouse=True)
def own_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's global config: a file of the test's own, empty unless a test writes to it."""
    path = tmp_path / "gitconfig"
    path.write_text("")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(path))
    return path


@pytest.mark.parametrize(("name", "lines", "command"), CASES, ids=[c[0] for c in CASES])
async def test_a_hostile_repository_config_runs_nothing(
    repo: Path, name: str, lines: list[str], command: str
) -> None:
    hook(repo / "hooks", "pre-commit", repo)
    (repo / "q").write_text("protocol=https\nhost=x\n\n")
    hostile(repo, *lines)
    modify(repo)
    await bash(repo, command.replace("{touch}", str(repo.parent / "evil.sh")))
    assert not marker(repo).exists(), f"{name}: git ran a configured program"


async def test_an_allow_rule_for_git_status_runs_git_safely(repo: Path) -> None:
    """The issue's case: `bash(git status*)` allowed, in a repository with a hostile config."""
    hostile(repo, "[core]", "fsmonitor = {touch}")
    modify(repo)
    script = [call("bash", {"command": "git status --short"}), text("ok")]
    agent, _ = make_agent(repo, script, mode="ask", allow=["bash(git status*)"])
    face = Face()  # no answers: a request would fail the test
    finished = await agent.run_turn("what changed?", face)
    assert finished.final_text == "ok" and face.of(PermissionRequest) == []
    assert not marker(repo).exists()


async def test_a_background_jobs_git_runs_nothing_either(repo: Path) -> None:
    hostile(repo, "[core]", "fsmonitor = {touch}")
    modify(repo)
    output = await job_output(ToolContext(workspace=repo), "git status --short; echo END")
    assert "M a.txt" in output and not marker(repo).exists()


@pytest.mark.parametrize("name", ["pre-commit", "commit-msg", "post-commit"])
async def test_the_repositorys_hooks_do_not_run_in_an_untrusted_workspace(
    repo: Path, name: str
) -> None:
    hook(repo / ".git" / "hooks", name, repo)
    modify(repo)
    output = await bash(repo, f"{COMMIT} && git log --oneline | wc -l")
    assert output.strip().startswith("2") and not marker(repo).exists()


async def test_a_trusted_workspace_runs_its_hooks(repo: Path) -> None:
    hook(repo / ".git" / "hooks", "pre-commit", repo)
    modify(repo)
    await bash(repo, COMMIT, trusted=True)
    assert marker(repo).exists()


@pytest.mark.parametrize("trusted", [False, True])
async def test_trusted_workspaces_in_the_config_decide_for_the_agents_bash(
    repo: Path, trusted: bool
) -> None:
    hook(repo / ".git" / "hooks", "pre-commit", repo)
    modify(repo)
    config = Config(
        endpoint=ENDPOINT,
        tool_mode="native",
        permission_mode="yolo",
        trusted_workspaces=[str(repo)] if trusted else [],
    )
    agent = assembled_agent(repo, [call("bash", {"command": COMMIT}), text("ok")], config)
    try:
        assert (await agent.run_turn("commit it", Face())).final_text == "ok"
    finally:
        agent.close()
    assert marker(repo).exists() is trusted


async def test_the_users_own_config_still_counts(repo: Path, own_config: Path) -> None:
    """Hooks and credential helpers from the user's global config run; the repository's not."""
    own_hooks, used = repo.parent / "own-hooks", repo.parent / "USED"
    own_hooks.mkdir()
    (own_hooks / "pre-commit").write_text(f"#!/bin/sh\ntouch {used}-hook\n")
    (own_hooks / "pre-commit").chmod(0o755)
    own_config.write_text(
        f"[core]\n\thooksPath = {own_hooks}\n"
        f'[credential]\n\thelper = "!f() {{ touch {used}-helper; echo password=p; }}; f"\n'
    )
    hostile(repo, "[core]", "hooksPath = hooks", "[credential]", "helper = !{touch}")
    (repo / "q").write_text("protocol=https\nhost=x\nusername=u\n\n")
    modify(repo)
    await bash(repo, f"{COMMIT}; git credential fill < q")
    assert (repo.parent / "USED-hook").exists() and (repo.parent / "USED-helper").exists()
    assert not marker(repo).exists()


async def test_git_still_works_through_bash(repo: Path) -> None:
    hostile(repo, "[core]", "fsmonitor = {touch}", '[filter "evil"]', "clean = cat")
    modify(repo)
    output = await bash(repo, "git diff && git status --short && git commit -qam two && git log")
    assert "-one\n+two" in output and " M a.txt" in output and "two" in output
    assert not marker(repo).exists()
    assert subprocess.run(["git", "status", "--short"], cwd=repo, capture_output=True).stdout == b""
