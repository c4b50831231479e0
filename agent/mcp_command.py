"""``beecode mcp list | get NAME | add NAME ... | remove NAME | test NAME | enable | disable |
approve NAME... | login NAME | logout NAME``: the MCP servers of this workspace, wherever they
are configured."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from agent.config import Config, ConfigError, load_config
from agent.mcp_config import (
    approve,
    configured,
    expanded,
    mcp_setup,
    needs_approval,
    server_spec,
    set_enabled,
    shown,
    write_entry,
)
from server.paths import config_dir, state_dir

LIST_WAIT_S = 5.0  # `list` waits this long for the servers to start, then shows them as they are
SCOPES = {"user": "the user's mcp.json in beecode's config dir", "project": "the project .mcp.json"}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="beecode mcp", description=__doc__)
    sub = parser.add_subparsers(dest="action", required=True)
    sub.add_parser("list", help="every server: where configured, state, what it offers")
    for action, what in (
        ("get", "one server's entry as written"),
        ("remove", "delete a server from the user or project mcp.json"),
        ("test", "connect one server, list its tools, print timings"),
        ("enable", "start this server again in this workspace"),
        ("disable", "do not start this server in this workspace"),
        ("login", "sign in to an HTTP server that asks for it (OAuth)"),
        ("logout", "delete the stored sign-in of an HTTP server"),
    ):
        sub.add_parser(action, help=what).add_argument("name")
    sub.add_parser("approve", help="let project servers start here").add_argument(
        "names", nargs="+"
    )
    add = sub.add_parser("add", help="NAME -- COMMAND ARGS... | NAME --url URL [--header K:V]")
    add.add_argument("name")
    add.add_argument("--scope", choices=SCOPES, default="user", help="which file to write")
    add.add_argument("--url", help="a streamable-HTTP (or with --type sse, SSE) server")
    add.add_argument("--type", choices=("stdio", "http", "sse"))
    add.add_argument("--header", action="append", default=[], metavar="K:V")
    add.add_argument("--env", action="append", default=[], metavar="K=V")
    return parser


def main(argv: list[str]) -> int:
    # What follows -- is the server's command line, whatever options it has.
    cut = argv.index("--") if "--" in argv else len(argv)
    try:
        options = _parser().parse_args(argv[:cut])
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    workspace = Path.cwd().resolve()
    try:
        config = load_config(workspace)
    except ConfigError as e:
        return _fail(str(e), 2)
    action = options.action
    if action == "list":
        return _list(workspace, config)
    if action == "add":
        return _add(workspace, config, options, argv[cut + 1 :])
    if action == "approve":
        unknown = set(options.names) - set(configured(workspace, config))
        if unknown:
            return _fail(f"no MCP server named {', '.join(sorted(unknown))} (beecode mcp list)")
        approve(workspace, options.names, config)
        print(f"approved in {workspace}: {', '.join(options.names)}")
        return 0
    entries = configured(workspace, config)
    if options.name not in entries:
        return _fail(f"no MCP server named {options.name!r} (beecode mcp list)")
    where, raw = entries[options.name]
    if action == "get":
        print(f"{options.name}: {where}\n{json.dumps(raw, indent=2)}")
    elif action in ("enable", "disable"):
        set_enabled(workspace, options.name, action == "enable")
        print(f"{options.name}: {action}d in {workspace}")
    elif action == "remove":
        if not where.endswith(".json") or where.endswith(("cursor/mcp.json", "vscode/mcp.json")):
            return _fail(f"{options.name} is in {where}: edit that file")
        write_entry(Path(where), options.name, None)
        print(f"removed {options.name} from {where}")
    elif action in ("login", "logout"):
        return _signin(workspace, options.name, raw, action)
    else:
        return _test(workspace, config, options.name, (where, raw))
    return 0


def _list(workspace: Path, config: Config) -> int:
    setup = mcp_setup(workspace, config)
    entries = configured(workspace, config)
    for note in setup.notes:
        print(note, file=sys.stderr)
    if not entries:
        print("no MCP servers (beecode mcp add NAME -- COMMAND, or a .mcp.json in the project)")
        return 0
    states = {name: "disabled" for name in setup.disabled}
    states |= {name: "not approved (beecode mcp approve NAME)" for name in setup.unapproved}
    if setup.servers:
        from tools.mcp.servers import McpServers  # the SDK: only when something is to connect

        servers = McpServers(setup.servers, state_dir() / "mcp.log", connect_timeout_s=15)
        try:
            servers.connect(within_s=LIST_WAIT_S)  # one not up by then is listed as starting
            offers = servers.offers()
            for line in servers.status_lines()[:-1]:
                name, state, detail = line.split(" · ")[:3]
                prompts, resources = offers.get(name, ([], []))
                if name in offers:
                    detail += f", {_count(resources, 'resource')}, {_count(prompts, 'prompt')}"
                states[name] = f"{state}, {detail}"
        finally:
            servers.close()
    for name, (where, raw) in entries.items():
        try:
            target = shown(server_spec(raw))
        except ValueError as err:
            target = f"invalid: {err}"
        print(f"{name} · {states.get(name, 'not started')} · {target} · {where}")
    return 0


def _add(workspace: Path, config: Config, options: argparse.Namespace, command: list[str]) -> int:
    if bool(command) == bool(options.url):
        return _fail("add needs either --url URL or -- COMMAND ARGS...", 2)
    raw: dict[str, Any] = {"type": options.type or ("http" if options.url else "stdio")}
    if options.url:
        raw["url"] = options.url
        if options.header:
            raw["headers"] = dict(_pair(h, ":") for h in options.header)
    else:
        raw |= {"command": command[0], "args": command[1:]}
        if options.env:
            raw["env"] = dict(_pair(e, "=") for e in options.env)
    try:
        server_spec(raw)
    except ValueError as err:
        return _fail(str(err), 2)
    path = config_dir() / "mcp.json" if options.scope == "user" else workspace / ".mcp.json"
    write_entry(path, options.name, raw)
    if options.scope == "project":  # the user's own addition needs no approval here
        approve(workspace, [options.name], config)
    print(f"added {options.name} to {path}")
    return 0


def _signin(workspace: Path, name: str, raw: Any, action: str) -> int:
    try:
        spec = _expanded(workspace, raw)
    except ValueError as err:
        return _fail(f"{name}: {err}")
    if "url" not in spec:
        return _fail(f"{name} is a stdio server: only HTTP servers sign in")
    from agent.mcp_login import login, logout  # the SDK: only when asked

    return (login if action == "login" else logout)(name, spec)


def _test(workspace: Path, config: Config, name: str, entry: tuple[str, Any]) -> int:
    """Connect one server as configured, list, time it: a project server only once approved
    (a repository's command runs only with the user's yes, here as everywhere)."""
    where, raw = entry
    try:
        if needs_approval(workspace, config, name, where, raw):
            approve_it = f"beecode mcp approve {name}"
            return _fail(f"{name} is a project server not approved here: {approve_it}")
        spec = _expanded(workspace, raw)
    except ValueError as err:
        return _fail(f"{name}: {err}")
    from tools.mcp.servers import McpServers

    print(f"{name}: {shown(spec)}")
    servers = McpServers({name: spec}, state_dir() / "mcp.log")
    started = time.monotonic()
    try:
        problems = servers.connect()
        took = time.monotonic() - started
        if problems:
            return _fail(f"{problems[0]} (after {took:.2f} s; server log: {servers.log_path})")
        tools = servers.tools(set())
        print(f"connected and listed in {took:.2f} s: {len(tools)} tools")
        for tool in tools:
            print(f"  {tool.name}")
    finally:
        servers.close()
    return 0


def _expanded(workspace: Path, raw: Any) -> dict[str, Any]:
    """The entry's spec with its variables replaced. Raises ValueError naming what is wrong."""
    try:
        return expanded(server_spec(raw), workspace, os.environ)
    except KeyError as err:
        raise ValueError(f"${{{err.args[0]}}} is not set") from None


def _count(items: list[Any], what: str) -> str:
    return f"{len(items)} {what}{'s' * (len(items) != 1)}"


def _pair(text: str, sep: str) -> tuple[str, str]:
    key, _, value = text.partition(sep)
    return key.strip(), value.strip()


def _fail(message: str, code: int = 1) -> int:
    print(f"beecode mcp: {message}", file=sys.stderr)
    return code
