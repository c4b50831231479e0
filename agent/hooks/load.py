"""Where hooks come from, their shape, and which tool names a matcher sees.

Claude Code's format, read from the same files it reads: ``~/.claude/settings.json`` (or
``$CLAUDE_CONFIG_DIR``) and beecode's user config always; the project's
``.claude/settings.json`` and ``.claude/settings.local.json`` only in a trusted workspace
(``trusted_workspaces``, as for the project's ``.beecode/config.toml``, whose ``hooks`` the config
loader drops when untrusted). What was skipped is named, never run.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent.config import Config

EVENTS = ("PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "Notification", "SessionStart")
DEFAULT_TIMEOUT_S = 60.0
MAX_TIMEOUT_S = 3600.0
# beecode's tools as Claude Code names them (a matcher may use either name).
CLAUDE_NAMES: dict[str, tuple[str, ...]] = {
    "bash": ("Bash",),
    "read": ("Read",),
    "write": ("Write",),
    "edit": ("Edit", "MultiEdit"),
    "glob": ("Glob",),
    "grep": ("Grep",),
    "ls": ("LS",),
    "todo": ("TodoWrite",),
    "task": ("Task", "Agent"),
}
# Argument names as Claude Code's tools call them, added beside beecode's in tool_input.
CLAUDE_ARGS = {"path": "file_path", "old": "old_string", "new": "new_string"}


@dataclass(frozen=True)
class HookCommand:
    event: str
    matcher: str  # "" or "*": every tool (or source, or notification type)
    command: str
    timeout_s: float
    source: str  # where it was configured, for the user


@dataclass
class HookSet:
    hooks: list[HookCommand] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "file (N hooks)": untrusted, not run
    problems: list[str] = field(default_factory=list)  # one line each, the entry left out

    def matching(self, event: str, names: list[str] | None) -> list[HookCommand]:
        """The hooks of ``event`` whose matcher takes one of ``names`` (None: an event without
        matchers, all of them), each command once."""
        found = [
            h
            for h in self.hooks
            if h.event == event and (names is None or matches(h.matcher, names))
        ]
        return list({h.command: h for h in found}.values())


def matches(matcher: str, names: list[str]) -> bool:
    """Claude Code's rule: empty or ``*`` matches all; otherwise a regex on the whole name
    (``Edit|Write``, ``mcp__github__.*``); one that is no regex is compared as it is."""
    if matcher in ("", "*") or not names:
        return matcher in ("", "*")
    try:
        pattern = re.compile(matcher)
    except re.error:
        return matcher in names
    return any(pattern.fullmatch(name) for name in names)


def tool_names(name: str, tool: object) -> list[str]:
    """The names a matcher is tried on: Claude Code's first (the one hooks are told), then
    beecode's. An MCP tool is also ``mcp__server__tool``."""
    server, remote = getattr(tool, "server", None), getattr(tool, "remote_name", None)
    if isinstance(server, str) and isinstance(remote, str):
        return [f"mcp__{server}__{remote}", name]
    return [*CLAUDE_NAMES.get(name, ()), name]


def tool_input(args: dict[str, Any]) -> dict[str, Any]:
    """The call's arguments, with Claude Code's names beside beecode's (``file_path``...)."""
    return {**args, **{CLAUDE_ARGS[k]: v for k, v in args.items() if k in CLAUDE_ARGS}}


def load_hooks(workspace: Path, config: Config) -> HookSet:
    from agent.config import workspace_trusted

    found = HookSet()
    claude_home = Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")
    _add(found, claude_home / "settings.json", None)
    found.hooks += _parsed(config.hooks, "beecode config", found.problems)
    trusted = workspace_trusted(workspace, config)
    for name in ("settings.json", "settings.local.json"):
        _add(found, workspace / ".claude" / name, None if trusted else found.skipped)
    if "hooks" in config.ignored_project_settings:
        found.skipped.append(".beecode/config.toml")
    return found


def _add(found: HookSet, path: Path, skip_into: list[str] | None) -> None:
    try:
        if not path.is_file():
            return
        data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError) as err:
        found.problems.append(f"{path}: not read ({err})")
        return
    hooks = data.get("hooks") if isinstance(data, dict) else None
    if not hooks:
        return
    problem = hooks_problem(hooks)
    if problem:
        found.problems.append(f"{path}: hooks: {problem}")
        return
    parsed = _parsed(hooks, str(path), found.problems)
    if skip_into is not None:
        skip_into.append(f"{path} ({len(parsed)} hook{'s' * (len(parsed) != 1)})")
    else:
        found.hooks += parsed


def _parsed(hooks: dict[str, Any], source: str, problems: list[str]) -> list[HookCommand]:
    """The command hooks of the events beecode fires; the rest named in ``problems``."""
    out: list[HookCommand] = []
    for event, groups in hooks.items():
        if event not in EVENTS:
            problems.append(f"{source}: hooks.{event}: not an event beecode fires (left out)")
            continue
        for group in groups:
            for hook in group.get("hooks", []):
                if hook.get("type", "command") != "command":
                    problems.append(f"{source}: {event}: only command hooks run (left out)")
                    continue
                timeout = float(hook.get("timeout") or DEFAULT_TIMEOUT_S)
                if not math.isfinite(timeout):
                    timeout = DEFAULT_TIMEOUT_S
                timeout = min(max(timeout, 0.1), MAX_TIMEOUT_S)
                matcher = str(group.get("matcher") or "")
                out.append(HookCommand(event, matcher, hook["command"], timeout, source))
    return out


def hooks_problem(value: Any) -> str | None:
    """What is wrong with a ``hooks`` table (Claude Code's shape), or None."""
    if not isinstance(value, dict):
        return "must be a table of events (PreToolUse = [...])"
    for event, groups in value.items():
        if not isinstance(groups, list) or not all(isinstance(g, dict) for g in groups):
            return f"{event}: must be a list of {{matcher, hooks}} tables"
        for group in groups:
            if not isinstance(group.get("matcher", ""), str):
                return f"{event}: matcher must be a string"
            inner = group.get("hooks")
            if not isinstance(inner, list) or not all(isinstance(h, dict) for h in inner):
                return f"{event}: hooks must be a list of {{type, command}} tables"
            for hook in inner:
                if hook.get("type", "command") == "command" and not (
                    isinstance(hook.get("command"), str) and hook["command"].strip()
                ):
                    return f"{event}: a command hook needs a command string"
                timeout = hook.get("timeout")
                if timeout is not None and (
                    isinstance(timeout, bool) or not isinstance(timeout, int | float)
                ):
                    return f"{event}: timeout must be a number of seconds"
    return None
