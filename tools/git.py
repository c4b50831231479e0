"""The git tool: one action per call, built as a git command line and run with safe configuration.

The command line is also the permission subject ("git commit -m 'fix'"), so what the user
approves is exactly what runs. Values that could pass for options (a name or rev starting
with "-") are refused, and paths always follow "--".
"""

from __future__ import annotations

import asyncio
import shlex
import subprocess
from pathlib import Path
from typing import Any

import git

from tools.git_safety import DIFF_FLAGS, safe_env, safe_options
from tools.output import cap_text
from tools.tool import BOOL, INT, STR, BaseTool, Kind, ToolContext, ToolError, ToolResult, params

ACTIONS = ["status", "diff", "log", "show", "add", "commit", "branch", "checkout", "init"]
READ_ACTIONS = {"status", "diff", "log", "show"}
DEFAULT_LOG_COUNT = 10
LOG_FORMAT = "--format=%h %ad %an: %s"
# Submodules carry configs of their own whose drivers the safe options do not name.
_EXTRA_FLAGS = {
    "diff": [*DIFF_FLAGS, "--ignore-submodules=all"],
    "show": DIFF_FLAGS,
    "log": DIFF_FLAGS,
    "status": ["--ignore-submodules=all"],
}


class GitTool(BaseTool):
    name = "git"
    description = "Run a git action in the workspace; name is a branch, rev a commit."
    parameters = params(
        {"action": {"enum": ACTIONS}},
        {
            "paths": {"type": "array", "items": STR},
            "staged": BOOL,
            "message": STR,
            "name": STR,
            "create": BOOL,
            "rev": STR,
            "max_count": INT,
        },
    )

    def kind(self, args: dict[str, Any]) -> Kind:
        action = args.get("action")
        listing_branches = action == "branch" and not args.get("name")
        return "read" if action in READ_ACTIONS or listing_branches else "execute"

    def subject(self, args: dict[str, Any]) -> str:
        try:
            return shlex.join(["git", *git_argv(args)])
        except (ToolError, TypeError, KeyError, AttributeError):
            return f"git {args.get('action', '')}".rstrip()

    def paths(self, args: dict[str, Any]) -> list[str]:
        paths = args.get("paths")
        return [str(path) for path in paths] if isinstance(paths, list) else []

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        argv = git_argv(args)
        if args["action"] == "init":
            return await asyncio.to_thread(_init, ctx.workspace)
        output = await asyncio.to_thread(_run, ctx.workspace, argv, ctx.bash_timeout_s)
        if args["action"] == "add":
            output = await asyncio.to_thread(_run, ctx.workspace, ["status", "--short"], 30)
        if not output.strip():
            output = _empty_output(args)
        return ToolResult(cap_text(output, ctx.max_output_chars))


def git_argv(args: dict[str, Any]) -> list[str]:
    """The git arguments for a call; ToolError when the action lacks what it needs."""
    action, paths = args["action"], args.get("paths", [])
    name, rev = _not_an_option(args, "name"), _not_an_option(args, "rev")
    after = ["--", *paths] if paths else []
    match action:
        case "status":
            return ["status", "--short", "--branch", *after]
        case "diff":
            return ["diff", *(["--staged"] if args.get("staged") else []), *rev, *after]
        case "log":
            count = args.get("max_count", DEFAULT_LOG_COUNT)
            if count < 1:
                raise ToolError("max_count must be at least 1")
            return ["log", f"--max-count={count}", LOG_FORMAT, "--date=short", *rev, *after]
        case "show":
            return ["show", *(rev or ["HEAD"]), *after]
        case "add":
            if not paths:
                raise ToolError('add needs paths (use ["."] for everything)')
            return ["add", *after]
        case "commit":
            if not args.get("message", "").strip():
                raise ToolError("commit needs a message")
            return ["commit", "-m", args["message"], *after]
        case "branch":
            return ["branch", *name, *rev] if name else ["branch", "--list"]
        case "checkout":
            if paths:
                return ["checkout", *rev, *after]
            if not name:
                raise ToolError("checkout needs name (a branch or commit) or paths")
            return ["checkout", *(["-b"] if args.get("create") else []), *name]
    return ["init"]


def _not_an_option(args: dict[str, Any], field: str) -> list[str]:
    value = args.get(field, "")
    if value.startswith("-"):
        raise ToolError(f"{field} must not start with '-': {value}")
    return [value] if value else []


def _repo(workspace: Path) -> git.Repo:
    try:
        return git.Repo(workspace, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise ToolError(f"not a git repository: {workspace}; use action init") from None


def _run(workspace: Path, argv: list[str], timeout: float) -> str:
    with _repo(workspace) as repo:
        cwd = Path(repo.working_tree_dir or repo.git_dir)
    command = [argv[0], *_EXTRA_FLAGS.get(argv[0], []), *argv[1:]]
    try:
        done = subprocess.run(
            ["git", *safe_options(cwd), *command],
            cwd=cwd,
            env=safe_env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise ToolError(f"git {argv[0]} timed out after {timeout:g}s") from None
    out, err = (
        stream.decode("utf-8", "replace").rstrip("\n") for stream in (done.stdout, done.stderr)
    )
    text = "\n".join(part for part in (out, err) if part)
    if done.returncode != 0:
        raise ToolError(text or f"git {argv[0]} failed with exit code {done.returncode}")
    return text


def _init(workspace: Path) -> ToolResult:
    if (workspace / ".git").exists():
        return ToolResult(f"already a git repository: {workspace}")
    # Not GitPython's init: inherited GIT_* variables (GIT_TEMPLATE_DIR brings hooks) stay out.
    subprocess.run(["git", "init", "-q"], cwd=workspace, env=safe_env(), check=True, timeout=30)
    return ToolResult(f"initialized an empty git repository in {workspace}")


def _empty_output(args: dict[str, Any]) -> str:
    if args["action"] == "diff":
        return "no staged changes" if args.get("staged") else "no unstaged changes"
    return "done"
