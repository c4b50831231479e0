"""The git tool on a real repository in a tmp dir."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import git
import pytest

from tools.git import GitTool
from tools.tool import ToolContext

tool = GitTool()


async def call(ctx: ToolContext, **args: Any) -> str:
    result = await tool.run(args, ctx)
    assert not result.is_error, result.output
    return result.output


async def failure(ctx: ToolContext, **args: Any) -> str:
    result = await tool.run(args, ctx)
    assert result.is_error, result.output
    return result.output


async def test_add_commit_log_show(ctx: ToolContext, workspace: Path, repo: git.Repo) -> None:
    (workspace / "a.txt").write_text("one\n")
    assert await call(ctx, action="status") == "## No commits yet on main\n?? a.txt"
    assert await call(ctx, action="add", paths=["a.txt"]) == "A  a.txt"
    committed = await call(ctx, action="commit", message="add a")
    assert committed.startswith("[main (root-commit) ") and "add a" in committed
    assert repo.head.commit.message == "add a\n"
    log = await call(ctx, action="log")
    assert log.endswith(" Test User: add a") and len(log.splitlines()) == 1
    shown = await call(ctx, action="show")
    assert "add a" in shown and "+one" in shown
    assert await call(ctx, action="status") == "## main"


async def test_diff_unstaged_and_staged(ctx: ToolContext, workspace: Path, repo: git.Repo) -> None:
    (workspace / "a.txt").write_text("one\n")
    repo.index.add(["a.txt"])
    repo.index.commit("start")
    assert await call(ctx, action="diff") == "no unstaged changes"
    (workspace / "a.txt").write_text("two\n")
    assert "-one\n+two" in await call(ctx, action="diff")
    assert await call(ctx, action="diff", staged=True) == "no staged changes"
    await call(ctx, action="add", paths=["."])
    assert "-one\n+two" in await call(ctx, action="diff", staged=True)
    assert await call(ctx, action="diff") == "no unstaged changes"


async def test_branch_and_checkout(ctx: ToolContext, workspace: Path, repo: git.Repo) -> None:
    (workspace / "a.txt").write_text("one\n")
    repo.index.add(["a.txt"])
    repo.index.commit("start")
    await call(ctx, action="branch", name="feature")
    assert await call(ctx, action="branch") == "  feature\n* main"
    assert "Switched to branch 'feature'" in await call(ctx, action="checkout", name="feature")
    assert repo.active_branch.name == "feature"
    await call(ctx, action="checkout", name="topic", create=True)
    assert repo.active_branch.name == "topic"
    (workspace / "a.txt").write_text("changed\n")
    await call(ctx, action="checkout", paths=["a.txt"])
    assert (workspace / "a.txt").read_text() == "one\n"


async def test_not_a_repository(ctx: ToolContext, workspace: Path) -> None:
    message = await failure(ctx, action="status")
    assert message == f"not a git repository: {workspace}; use action init"


async def test_init(ctx: ToolContext, workspace: Path) -> None:
    assert await call(ctx, action="init") == f"initialized an empty git repository in {workspace}"
    assert (workspace / ".git").is_dir()
    assert await call(ctx, action="init") == f"already a git repository: {workspace}"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"action": "commit"}, "commit needs a message"),
        ({"action": "add"}, 'add needs paths (use ["."] for everything)'),
        ({"action": "checkout"}, "checkout needs name (a branch or commit) or paths"),
        ({"action": "show", "rev": "--output=x"}, "rev must not start with '-': --output=x"),
        ({"action": "log", "max_count": 0}, "max_count must be at least 1"),
        (
            {"action": "push"},
            "field 'action' must be one of: status, diff, log, show, add, commit, "
            "branch, checkout, init; got 'push'",
        ),
        ({"action": "add", "paths": "a.txt"}, "field 'paths' must be array, got string"),
    ],
)
async def test_bad_arguments(
    ctx: ToolContext, repo: git.Repo, args: dict[str, Any], message: str
) -> None:
    assert await failure(ctx, **args) == message


async def test_git_refusals_come_back_as_errors(ctx: ToolContext, repo: git.Repo) -> None:
    assert "nothing to commit" in await failure(ctx, action="commit", message="empty")
    assert "unknown revision" in await failure(ctx, action="show", rev="nope")


@pytest.mark.parametrize(
    ("args", "kind", "subject"),
    [
        ({"action": "status"}, "read", "git status --short --branch"),
        (
            {"action": "diff", "staged": True, "paths": ["a b"]},
            "read",
            "git diff --staged -- 'a b'",
        ),
        ({"action": "branch"}, "read", "git branch --list"),
        ({"action": "branch", "name": "x"}, "execute", "git branch x"),
        ({"action": "commit", "message": "fix it"}, "execute", "git commit -m 'fix it'"),
        ({"action": "checkout", "name": "x", "create": True}, "execute", "git checkout -b x"),
        ({"action": "init"}, "execute", "git init"),
        ({"action": "commit"}, "execute", "git commit"),
    ],
)
def test_kind_and_subject(args: dict[str, Any], kind: str, subject: str) -> None:
    assert tool.kind(args) == kind
    assert tool.subject(args) == subject
    assert tool.paths(args) == args.get("paths", [])
