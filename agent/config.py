"""Settings: user config.toml < project .beecode/config.toml < BEECODE_* env vars < CLI flags.

Every setting is a field of ``Config``; its type hint is the validation spec, so adding a setting is
one line. The check is hand-written, not pydantic: importing pydantic and building its validator
cost ~0.15 s on the way to the TUI's first paint (0.5 s), which imports no pydantic otherwise.
Scalars from a later source replace earlier ones. Lists (rules, roots, skills dirs) and
``mcp_servers`` accumulate instead: a project config cannot drop the user's deny rules. A project
config comes with the repository, so unless the user trusts the workspace it cannot widen
permissions, add MCP commands or send code to another endpoint (see ``_PRIVILEGED``). Relative
paths in ``extra_roots`` and ``skills_dirs`` are relative to the workspace."""

from __future__ import annotations

import difflib
import os
import re
import tomllib
import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

from agent.limits import limit_problem, loosened
from agent.toml_lines import line_of
from server.paths import config_dir

Mode = Literal["ask", "auto-edit", "yolo", "plan"]
ToolMode = Literal["auto", "native", "constrained"]
Notifications = Literal["auto", "off", "terminal", "desktop"]


@dataclass
class Config:
    # Managed server profile (see `beecode server`); ignored when `endpoint` is set.
    profile: str | None = None
    # OpenAI-compatible base URL (…/v1) of a server beecode does not manage.
    endpoint: str | None = None
    # Bearer token for `endpoint`, when the server wants one.
    api_key: str | None = None
    # Model name sent in requests; None: the server's only model.
    model: str | None = None
    temperature: float | None = None  # sampling; None leaves the server's default
    top_p: float | None = None
    top_k: int | None = None
    # Most tokens one model reply may produce.
    max_tokens: int = 4096
    # ask: reads run, the rest asks; auto-edit: edits run too; yolo: all runs; plan: read-only.
    permission_mode: Mode = "ask"
    # Rules like "bash(git status*)", "write(src/**)" or a bare tool name; deny wins.
    allow: list[str] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)
    # Directories outside the workspace that file tools may use.
    extra_roots: list[str] = field(default_factory=list)
    # Default and largest timeout of one bash command, in seconds.
    bash_timeout_s: float = 120.0
    bash_max_timeout_s: float = 600.0
    # Tool output kept for the model (head and tail); the rest is counted, not sent.
    max_output_chars: int = 30_000
    # Seconds the model server may send nothing before a reply is stalled (CPU prefill is slow).
    stall_timeout_s: float = 3600.0
    prefill_notice_s: float = 10.0  # say so before sending what takes longer to prefill cold
    # Model requests per user turn before the turn stops.
    max_steps: int = 50
    # Tool calls: native (server-parsed), constrained (JSON-schema steps), auto: constrained for a
    # model under 3B parameters or a chat template without tool calls, chosen once per session
    # (and said); native for every other model, whatever its calls do.
    tool_mode: ToolMode = "auto"
    # [mcp_servers.NAME] tables: command (+ args, env, cwd) for stdio, or url (+ headers) for HTTP.
    mcp_servers: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Most prompt tokens the MCP tools may take listed one by one (at most a tenth of the context);
    # past it the model reaches them through one search-and-call tool, mcp_tools. 0: no limit.
    mcp_tool_budget: int = 2000
    # Extra directories searched for skills (folders holding SKILL.md).
    skills_dirs: list[str] = field(default_factory=list)
    # Secret-looking environment variables that bash commands may see (all others are removed).
    pass_env: list[str] = field(default_factory=list)
    # Run bash commands in bubblewrap: no network, the filesystem read-only but the workspace.
    sandbox: bool = False
    # Workspaces whose .beecode/config.toml may widen permissions (user config only).
    trusted_workspaces: list[str] = field(default_factory=list)
    # A session's prompt cache saved by the managed server when the session is left, restored
    # on resume: at most this many MiB in all (0: none kept), none older than this many days.
    slot_cache_mb: int = 8192
    slot_cache_days: float = 14.0
    # Most tokens the repository map may take (at most an eighth of the context); 0: no map.
    repo_map_tokens: int = 1024
    # Claude Code's hooks, same shape: [[hooks.PreToolUse]] matcher = "Bash", with
    # [[hooks.PreToolUse.hooks]] type = "command", command = "...", timeout = 60 (agent.hooks).
    hooks: dict[str, Any] = field(default_factory=dict)
    # When a turn ends or waits for approval: auto (the terminal's own notification, and a
    # desktop one where notify-send or osascript is there, while the terminal is not focused),
    # terminal, desktop, or off (none, and no notify command).
    notifications: Notifications = "auto"
    # A command run with one JSON argument at those points, as Codex's notify: ["cmd", "arg"].
    notify: list[str] = field(default_factory=list)
    # The project's own checks, fed back to the model after a turn that changed files
    # (agent.feedback): a command line or an argv list; None: detected (ruff, pytest, npm test,
    # go test, cargo test...). A lint command's "{files}" becomes the changed files. Each runs
    # as a bash command would: the same permission rules, sandbox and environment; never in plan.
    lint_cmd: str | list[str] | None = None
    test_cmd: str | list[str] | None = None
    auto_lint: bool = True  # lint after a turn's changes, when a lint command is known
    auto_test: bool = False
    lsp: bool = True  # a language server's errors too, where one is installed (basedpyright)
    check_rounds: int = 2  # times per turn the model is sent back to fix what a check found
    lint_timeout_s: float = 30.0
    test_timeout_s: float = 120.0
    lsp_timeout_s: float = 30.0
    # Settings an untrusted project config tried to set and that were ignored (for a notice).
    ignored_project_settings: list[str] = field(default_factory=list)


class ConfigError(Exception):
    """An invalid setting: "<where>: <key>: <problem>", where is "file:line" when from a file."""


ENV_VARS = {
    "BEECODE_PROFILE": "profile",
    "BEECODE_ENDPOINT": "endpoint",
    "BEECODE_API_KEY": "api_key",
    "BEECODE_PERMISSION_MODE": "permission_mode",
}
# A cloned repository's .beecode/config.toml must not widen what beecode may do or where code is
# sent: these keys count only from the user's own config, env and flags, or a trusted workspace.
_PRIVILEGED = (
    "endpoint",
    "api_key",
    "allow",
    "extra_roots",
    "mcp_servers",
    "trusted_workspaces",
    "pass_env",
    "hooks",
    "notify",
    "lint_cmd",  # the project's own commands: a hostile repository would name what it likes
    "test_cmd",
)
_SAFE_PROJECT_MODES = ("ask", "plan")
_ACCUMULATE = (
    "allow",
    "deny",
    "extra_roots",
    "skills_dirs",
    "mcp_servers",
    "trusted_workspaces",
    "hooks",
)
_PATH_LISTS = ("extra_roots", "skills_dirs")
_SPECS: dict[str, Any] = {
    k: v for k, v in get_type_hints(Config).items() if k != "ignored_project_settings"
}
_MCP_KEYS: dict[str, Any] = {
    "type": str,  # stdio, http or sse (from command or url when left out)
    "command": str,
    "args": list[str],
    "env": dict[str, str],
    "cwd": str,
    "url": str,
    "headers": dict[str, str],
    "allow_tools": list[str],  # tool names or globs offered (all when left out)
    "deny_tools": list[str],
}
_MCP_SHAPES = {str: "a string", list[str]: "a list of strings", dict[str, str]: "a string table"}
_RULE = re.compile(r"(?P<tool>[\w.*?-]+)(?:\((?P<pattern>.+)\))?", re.DOTALL)


def split_rule(rule: str) -> tuple[str, str | None]:
    """ "bash(git status*)" -> ("bash", "git status*"); "git" -> ("git", None)."""
    match = _RULE.fullmatch(rule.strip())
    if match is None:
        raise ValueError(f"bad rule {rule!r}: write tool(pattern) or a bare tool name")
    return match["tool"], match["pattern"]


def ignored_note(config: Config) -> str | None:
    """One line telling the user which project settings were not applied, if any."""
    if not config.ignored_project_settings:
        return None
    return (
        f"ignored in .beecode/config.toml (the project is not trusted): "
        f"{', '.join(config.ignored_project_settings)}; to apply them, add this folder to "
        "trusted_workspaces in your user config"
    )


def load_config(workspace: Path, cli: Mapping[str, Any] | None = None) -> Config:
    merged: dict[str, Any] = {}
    user_file = config_dir() / "config.toml"
    if user_file.is_file():
        _merge(merged, _read_file(user_file))
    project_file = workspace / ".beecode" / "config.toml"
    if project_file.is_file():
        project = _read_file(project_file)
        if not _trusted(workspace, merged.get("trusted_workspaces", [])):
            ignored = [k for k in project if k in _PRIVILEGED] + loosened(project, merged)
            if project.get("permission_mode", "ask") not in _SAFE_PROJECT_MODES:
                ignored.append("permission_mode")
            project = {k: v for k, v in project.items() if k not in ignored}
            merged["ignored_project_settings"] = ignored
        _merge(merged, project)
    for var, key in ENV_VARS.items():
        if os.environ.get(var):
            _merge(merged, {key: _checked(key, os.environ[var], f"environment variable {var}")})
    flags = {k: v for k, v in (cli or {}).items() if v is not None}
    _merge(merged, {k: _checked(k, v, "command line") for k, v in flags.items()})
    for key in _PATH_LISTS:
        if key in merged:
            merged[key] = [str((workspace / Path(p).expanduser()).resolve()) for p in merged[key]]
    return Config(**merged)


def workspace_trusted(workspace: Path, config: Config) -> bool:
    """Whether the user trusts this workspace (its project skills then load without asking)."""
    return _trusted(workspace, config.trusted_workspaces)


def _trusted(workspace: Path, trusted: list[str]) -> bool:
    here = workspace.resolve()
    return any(here == Path(p).expanduser().resolve() for p in trusted)


def _read_file(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as err:
        raise ConfigError(f"{path}: cannot read: {err.strerror}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        # Python 3.11's error has no lineno attribute: the position is in the message.
        message = str(err)
        at = re.search(r"\(at line (\d+), column \d+\)", message)
        line = at.group(1) if at else str(text.count("\n") + 1)
        problem = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", message)
        raise ConfigError(f"{path}:{line}: invalid TOML: {problem}") from None
    return {key: _checked(key, value, path, text) for key, value in data.items()}


def _checked(key: str, value: Any, where: Path | str, text: str = "") -> Any:
    """The value converted to its field's type, or ConfigError naming where, key and problem."""

    def fail(problem: str, bad_key: str = key) -> ConfigError:
        place = f"{where}:{line_of(text, bad_key)}" if isinstance(where, Path) else where
        return ConfigError(f"{place}: {bad_key}: {problem}")

    if key not in _SPECS:
        close = difflib.get_close_matches(key, _SPECS, n=1)
        raise fail("unknown setting" + (f" (did you mean {close[0]}?)" if close else ""))
    if key == "mcp_servers":
        problem_at = _mcp_problem(value)
        if problem_at:
            raise fail(problem_at[1], f"mcp_servers.{problem_at[0]}" if problem_at[0] else key)
        return {name: dict(entry) for name, entry in value.items()}
    if key == "hooks":
        from agent.hooks.load import hooks_problem  # light: json and re

        if problem := hooks_problem(value):
            raise fail(problem)
        return dict(value)
    problem, converted = _convert(value, _SPECS[key])
    if problem is None:
        problem = limit_problem(key, converted)
    if problem is None and key in ("allow", "deny"):
        for rule in converted:
            try:
                split_rule(rule)
            except ValueError as err:
                problem = str(err)
    if problem is not None:
        raise fail(problem)
    return converted


def _convert(value: Any, hint: Any) -> tuple[str | None, Any]:
    """(problem, value converted to hint); problem is None when the value fits."""
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        options = [arg for arg in get_args(hint) if arg is not type(None)]
        tried = [_convert(value, option) for option in options]
        return next((t for t in tried if t[0] is None), tried[0])
    if origin is Literal:
        choices = get_args(hint)
        if value in choices:
            return None, value
        return f"must be one of {', '.join(choices)}, not {value!r}", value
    if origin in (list, dict):
        items = value.values() if isinstance(value, dict) else value
        if isinstance(value, origin) and all(isinstance(item, str) for item in items):
            return None, origin(value)
        return f"must be {'a list' if origin is list else 'a table'} of strings", value
    if hint is bool:
        return (None, value) if isinstance(value, bool) else ("must be true or false", value)
    if isinstance(value, bool):  # a TOML bool is an int to isinstance; only bool settings take one
        return "must not be true or false", value
    if hint is float and isinstance(value, int | float):
        return None, float(value)
    if hint is int and isinstance(value, int):
        return None, value
    if hint is str and isinstance(value, str):
        return None, value
    name = {int: "an integer", float: "a number", str: "a string"}.get(hint, str(hint))
    return f"must be {name}, not {value!r}", value


def _mcp_problem(value: Any) -> tuple[str, str] | None:
    """(dotted key below mcp_servers, problem) for the first malformed server entry."""
    if not isinstance(value, dict):
        return "", "must be a table of [mcp_servers.NAME] tables"
    for key_name, entry in value.items():  # a name with a newline is quoted: one line stays one
        name = key_name if str(key_name).isprintable() else repr(key_name)
        if not isinstance(entry, dict):
            return name, "must be a table with command (and args, env) or url"
        unknown = sorted(set(entry) - set(_MCP_KEYS))
        if unknown:
            return f"{name}.{unknown[0]}", f"unknown setting (use {', '.join(_MCP_KEYS)})"
        if ("command" in entry) == ("url" in entry):
            return name, "needs exactly one of command or url"
        for key, hint in _MCP_KEYS.items():
            if key in entry and _convert(entry[key], hint)[0] is not None:
                return f"{name}.{key}", f"must be {_MCP_SHAPES[hint]}"
    return None


def _merge(into: dict[str, Any], new: Mapping[str, Any]) -> None:
    for key, value in new.items():
        if key == "hooks" and key in into:  # per event, the later source's groups after
            into[key] = {e: into[key].get(e, []) + value.get(e, []) for e in {**into[key], **value}}
        elif key in _ACCUMULATE and key in into:
            if isinstance(value, dict):
                into[key] = {**into[key], **value}
            else:
                into[key] = into[key] + [item for item in value if item not in into[key]]
        else:
            into[key] = value
