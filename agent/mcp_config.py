"""MCP servers from the files users already have, beside beecode's own ``[mcp_servers]`` TOML.

Read, in this order (a later definition of a name replaces an earlier one): the project's
``.vscode/mcp.json`` (``servers``), ``.cursor/mcp.json`` and ``.mcp.json`` (``mcpServers``, or the
bare map as plugins write it), then the user's ``mcp.json`` in beecode's config dir and the
``[mcp_servers]`` of the config. Files are JSONC (comments, trailing commas), as VS Code writes.
``${VAR}``, ``${VAR:-default}``, ``${env:VAR}`` and ``${workspaceFolder}`` are expanded in
command, args, env, url and headers; a server naming an unset variable is skipped with one line.
A project's servers come with the repository: they start only once the user approved them in this
workspace (kept with the "allow always" rules, bound to the exact command or URL), or when the
workspace is trusted.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.config import Config, workspace_trusted
from agent.permissions.allowed import AllowedRules
from server.paths import config_dir, data_dir

PROJECT_FILES = (".vscode/mcp.json", ".cursor/mcp.json", ".mcp.json")
USER_FILE = "mcp.json"
_TRANSPORTS = {"stdio": "stdio", "http": "http", "streamable-http": "http", "sse": "sse"}
_TRANSPORTS |= {"streamableHttp": "http", "streamable_http": "http"}
_VAR = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_APPROVAL = "mcp_server"  # the rule's tool name: mcp_server(NAME=fingerprint); no tool has it


@dataclass
class McpSetup:
    """The servers to start, where each was configured, and what was left out and why."""

    servers: dict[str, dict[str, Any]] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)
    # Project servers the user has not approved in this workspace: name -> command or URL.
    unapproved: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    disabled: list[str] = field(default_factory=list)  # by `beecode mcp disable` here


class McpFileError(Exception):
    """A file that cannot be read: "<file>:<line>: <reason>"."""


def strip_jsonc(text: str) -> str:
    """JSON from JSONC: comments and trailing commas become spaces, so lines keep their numbers."""
    out = list(text)
    i, in_string, last_comma = 0, False, -1
    while i < len(text):
        c = text[i]
        if in_string:
            if c == "\\":
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string, last_comma = True, -1
        elif text.startswith("//", i) or text.startswith("/*", i):
            end = text.find("\n" if c + text[i + 1] == "//" else "*/", i + 2)
            end = len(text) if end < 0 else end + (0 if text[i + 1] == "/" else 2)
            out[i:end] = [ch if ch == "\n" else " " for ch in text[i:end]]
            i = end
            continue
        elif c == ",":
            last_comma = i
        elif c in "}]" and last_comma >= 0:
            out[last_comma] = " "
            last_comma = -1
        elif not c.isspace():
            last_comma = -1
        i += 1
    return "".join(out)


def read_servers_file(path: Path) -> dict[str, Any]:
    """The server map of one JSON(C) file in any of the shapes above. Raises McpFileError."""
    try:
        text = path.read_text(encoding="utf-8-sig", errors="replace")
        data = json.loads(strip_jsonc(text))
    except OSError as err:
        raise McpFileError(f"{path}: cannot read: {err.strerror}") from None
    except json.JSONDecodeError as err:
        raise McpFileError(f"{path}:{err.lineno}: invalid JSON: {err.msg}") from None
    if not isinstance(data, dict):
        raise McpFileError(f"{path}:1: must be an object of servers")
    for wrapper in ("mcpServers", "servers"):
        if wrapper in data:
            if not isinstance(data[wrapper], dict):
                raise McpFileError(f"{path}:{_line_of(text, wrapper)}: {wrapper} must be an object")
            return dict(data[wrapper])
    return data


def server_spec(raw: Any) -> dict[str, Any]:
    """beecode's spec (command, args, env, cwd | url, headers; type) from one entry; unknown
    fields are ignored. Raises ValueError naming what is wrong."""
    if not isinstance(raw, Mapping):
        raise ValueError("must be an object with command or url")
    kind = raw.get("type") or raw.get("transport") or ("stdio" if "command" in raw else "http")
    if kind not in _TRANSPORTS:
        raise ValueError(f"unknown type {kind!r} (use stdio, http or sse)")
    spec: dict[str, Any] = {"type": _TRANSPORTS[kind]}
    need = "command" if spec["type"] == "stdio" else "url"
    if not isinstance(raw.get(need), str) or not raw[need]:
        raise ValueError(f"type {kind} needs {need} (a string)")
    spec[need] = raw[need]
    shapes = {"args": list, "env": dict} if need == "command" else {"headers": dict}
    for key, shape in shapes.items():
        value = raw.get(key)
        if value is None:
            continue
        if not isinstance(value, shape):
            raise ValueError(f"{key} must be {'a list' if shape is list else 'an object'}")
        items = list(value.values() if isinstance(value, dict) else value)
        if not all(isinstance(v, str | int | float) for v in items):
            raise ValueError(f"{key} must hold strings")
        spec[key] = (
            {k: str(v) for k, v in value.items()} if shape is dict else list(map(str, value))
        )
    for key, alias in (("allow_tools", "includeTools"), ("deny_tools", "excludeTools")):
        names = raw.get(key, raw.get(alias))
        if names is not None:
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                raise ValueError(f"{key} must be a list of tool names")
            spec[key] = list(names)
    if need == "command" and isinstance(raw.get("cwd"), str):
        spec["cwd"] = raw["cwd"]
    return spec


def expanded(
    spec: Mapping[str, Any], workspace: Path, environ: Mapping[str, str]
) -> dict[str, Any]:
    """The spec with variables replaced. Raises KeyError(name) for an unset one with no default."""
    values = {**environ, "workspaceFolder": str(workspace)}

    def sub(text: str) -> str:
        def one(match: re.Match[str]) -> str:
            name, default = match[1], match[2]
            if name in values:
                return values[name]
            if default is None:
                raise KeyError(name)
            return default

        return _VAR.sub(one, text)

    out: dict[str, Any] = {}
    for key, value in spec.items():
        if isinstance(value, str) and key != "type":
            out[key] = sub(value)
        elif isinstance(value, list):
            out[key] = [sub(v) for v in value]
        elif isinstance(value, dict):
            out[key] = {k: sub(v) for k, v in value.items()}
        else:
            out[key] = value
    return out


def approval_rule(name: str, spec: Mapping[str, Any]) -> str:
    """The remembered approval of one server as written (a changed command asks again)."""
    digest = hashlib.sha256(json.dumps([name, spec], sort_keys=True).encode()).hexdigest()
    return f"{_APPROVAL}({name}={digest[:16]})"


def shown(spec: Mapping[str, Any]) -> str:
    """The command line or URL a user approves."""
    return spec.get("url") or " ".join([spec["command"], *spec.get("args", [])])


def configured(
    workspace: Path, config: Config, notes: list[str] | None = None
) -> dict[str, tuple[str, Any]]:
    """Every configured entry as written: name -> (where, raw entry). A file that cannot be read
    is one line in ``notes``; the other files count."""
    found: dict[str, tuple[str, Any]] = {}
    for path in [*(workspace / f for f in PROJECT_FILES), config_dir() / USER_FILE]:
        try:
            if path.is_file():
                found |= {n: (str(path), r) for n, r in read_servers_file(path).items()}
        except McpFileError as err:
            if notes is not None:
                notes.append(f"mcp: {err}")
    return found | {name: ("config.toml", raw) for name, raw in config.mcp_servers.items()}


def mcp_setup(
    workspace: Path,
    config: Config,
    environ: Mapping[str, str] | None = None,
    approved: list[str] | None = None,
) -> McpSetup:
    """The servers to start in this workspace; ``approved``: the remembered rules (read from
    the user's data dir when None)."""
    setup = McpSetup()
    entries = configured(workspace, config, setup.notes)
    project = {str(workspace / f) for f in PROJECT_FILES}
    trusted = workspace_trusted(workspace, config)
    rules = set(AllowedRules(workspace).load() if approved is None else approved)
    env = os.environ if environ is None else environ
    off = set(disabled_store(workspace).load())
    for name, (where, raw) in entries.items():
        written_off = isinstance(raw, Mapping) and (
            raw.get("disabled") is True or raw.get("enabled") is False
        )
        if written_off or _off_rule(name) in off:
            setup.disabled.append(name)
            continue
        try:
            spec = server_spec(raw)
        except ValueError as err:
            setup.notes.append(f"mcp server {name!r} ({where}): {err}; not started")
            continue
        if where in project and not trusted and approval_rule(name, spec) not in rules:
            setup.unapproved[name] = shown(spec)
            continue
        try:
            setup.servers[name] = expanded(spec, workspace, env)
        except KeyError as err:
            setup.notes.append(
                f"mcp server {name!r} ({where}): ${{{err.args[0]}}} is not set; not started"
            )
            continue
        setup.origins[name] = where
    return setup


def needs_approval(workspace: Path, config: Config, name: str, where: str, raw: Any) -> bool:
    """Whether this entry is a project server not (or no longer) approved in this workspace: it
    must not start, whoever asks (a turn, `mcp list` or `mcp test`)."""
    if where not in {str(workspace / f) for f in PROJECT_FILES}:
        return False
    if workspace_trusted(workspace, config):
        return False
    return approval_rule(name, server_spec(raw)) not in AllowedRules(workspace).load()


def approve(workspace: Path, names: list[str], config: Config) -> None:
    """Remember that the user approved these project servers, as written now."""
    rules = []
    for name, (_, raw) in configured(workspace, config).items():
        if name in names:
            rules.append(approval_rule(name, server_spec(raw)))
    AllowedRules(workspace).add(rules)


def disabled_store(workspace: Path) -> AllowedRules:
    """The servers the user disabled in this workspace, kept like the "allow always" rules."""
    return AllowedRules(workspace, data_dir() / "mcp_disabled.json")


def _off_rule(name: str) -> str:
    return f"{_APPROVAL}({name})"


def set_enabled(workspace: Path, name: str, enabled: bool) -> None:
    store = disabled_store(workspace)
    if enabled:
        store.remove([_off_rule(name)])
    else:
        store.add([_off_rule(name)])


def write_entry(path: Path, name: str, raw: Mapping[str, Any] | None) -> None:
    """Add (or with None remove) one server in a JSON file, keeping its shape (the bare map or
    the ``mcpServers``/``servers`` wrapper). Comments in the file are not kept."""
    data: dict[str, Any] = {"mcpServers": {}}
    if path.is_file():
        data = json.loads(strip_jsonc(path.read_text(encoding="utf-8-sig")))
    wrapper = next((w for w in ("mcpServers", "servers") if w in data), None)
    servers = data[wrapper] if wrapper else data
    if raw is None:
        servers.pop(name, None)
    else:
        servers[name] = dict(raw)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def _line_of(text: str, key: str) -> int:
    at = text.find(f'"{key}"')
    return text.count("\n", 0, at) + 1 if at >= 0 else 1
