"""MCP servers as tools, against the real reference servers from PyPI (mcp-server-time and
mcp-server-git, in the test extra): connect, list, call, errors both ways, a missing command, a
server killed mid-session, cancel, close. Each server start costs ~1 s, so one set of servers
serves the module and only the kill test starts its own."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import git
import psutil
import pytest

from tests.tools.processes import wait_until_dead
from tools.mcp.servers import McpServers
from tools.mcp.spawn import GUARD
from tools.mcp.tool import McpTool
from tools.registry import ToolRegistry, default_registry
from tools.tool import Tool, ToolContext

BIN = Path(sys.executable).parent  # the console scripts of this environment
TIME: dict[str, object] = {
    "command": str(BIN / "mcp-server-time"),
    "args": ["--local-timezone", "UTC"],
}
MISSING = "mcp-server-gti"


def git_server(repo: Path) -> dict[str, object]:
    return {"command": str(BIN / "mcp-server-git"), "args": ["--repository", str(repo)]}


def children(pattern: str) -> list[int]:
    """PIDs of the live MCP servers this process started whose command line holds ``pattern``:
    each runs as the child of its guard (tools/mcp/guard.py), which is this process's child."""
    found = []
    for child in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            line = " ".join(child.cmdline())
            if pattern in line and GUARD.name not in line and child.status() != "zombie":
                found.append(child.pid)
    return found


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("repo")
    with git.Repo.init(root, initial_branch="main"):
        (root / "notes.txt").write_text("hello\n")
    return root


@pytest.fixture(scope="module")
def servers(
    repo: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[McpServers, list[str]]]:
    log = tmp_path_factory.mktemp("state") / "mcp.log"
    specs: dict[str, dict[str, object]] = {
        "time": TIME,
        "git": git_server(repo),
        "gti": {"command": MISSING},
    }
    servers = McpServers(specs, log, call_timeout_s=60)
    problems = servers.connect()
    pids = children("mcp-server-")
    yield servers, problems
    servers.close()
    assert all(wait_until_dead(pid) for pid in pids), "close left a server running"


@pytest.fixture(scope="module")
def registry(servers: tuple[McpServers, list[str]]) -> ToolRegistry:
    registry = default_registry()
    for tool in servers[0].tools(set(registry.names())):
        registry.add(tool)
    return registry


def mcp_tool(registry: ToolRegistry, name: str) -> McpTool:
    tool = registry.get(name)
    assert isinstance(tool, McpTool), name
    return tool


def test_a_missing_command_is_one_line_and_the_others_connect(
    servers: tuple[McpServers, list[str]],
) -> None:
    manager, problems = servers
    assert problems == [f"mcp server 'gti': command not found: {MISSING}"]
    lines = manager.status_lines()
    assert lines[0].startswith("time · connected · 2 tools · ")
    assert lines[1].startswith("git · connected · ")
    assert lines[2] == f"gti · failed · command not found: {MISSING} · {MISSING}"
    assert lines[3].startswith("server logs: ")


def test_tools_join_the_registry_with_short_names_lean_schemas_and_kinds(
    registry: ToolRegistry,
) -> None:
    names = registry.names()
    assert names[:9] == default_registry().names()  # built-ins first: the prefix stays stable
    assert names[9:11] == ["time_get_current_time", "time_convert_time"]
    assert {"git_git_status", "git_git_commit", "git_git_log"} <= set(names[11:])
    for name in names[9:]:
        tool = mcp_tool(registry, name)
        assert isinstance(tool, Tool)
        assert "\n" not in tool.description and 0 < len(tool.description) <= 100
        assert tool.parameters["type"] == "object"
        assert "title" not in json.dumps(tool.parameters)  # pydantic's titles are dropped
    current = mcp_tool(registry, "time_get_current_time")
    assert current.parameters["required"] == ["timezone"]
    assert current.kind({}) == "read"  # the server says readOnlyHint
    assert mcp_tool(registry, "git_git_commit").kind({}) == "execute"  # permission mode ask asks
    assert current.subject({"timezone": "UTC"}) == "" and current.paths({}) == []


def test_the_registry_validates_mcp_arguments(registry: ToolRegistry) -> None:
    problem = registry.validate("time_get_current_time", {})
    assert problem is not None and "timezone" in problem
    assert registry.validate("time_get_current_time", {"timezone": "UTC"}) is None


def test_names_clash_with_taken_ones_get_a_number(servers: tuple[McpServers, list[str]]) -> None:
    taken = {"time_get_current_time"}
    tools = servers[0].tools(taken)
    assert tools[0].name == "time_get_current_time_2"
    assert len(set(taken)) == len(tools) + 1  # every new name was added to taken


async def test_a_successful_call(registry: ToolRegistry, tmp_path: Path) -> None:
    result = await mcp_tool(registry, "time_get_current_time").run(
        {"timezone": "UTC"}, ToolContext(workspace=tmp_path)
    )
    assert not result.is_error
    assert json.loads(result.output)["timezone"] == "UTC"


async def test_git_status_on_a_real_repo(registry: ToolRegistry, repo: Path) -> None:
    tool = mcp_tool(registry, "git_git_status")
    result = await tool.run({"repo_path": str(repo)}, ToolContext(workspace=repo))
    assert not result.is_error
    assert "notes.txt" in result.output


async def test_a_tool_error_is_a_failed_result(registry: ToolRegistry, tmp_path: Path) -> None:
    result = await mcp_tool(registry, "time_get_current_time").run(
        {"timezone": "Nowhere/Atlantis"}, ToolContext(workspace=tmp_path)
    )
    assert result.is_error
    assert "Invalid timezone" in result.output


async def test_a_protocol_error_is_a_failed_result(servers: tuple[McpServers, list[str]]) -> None:
    # mcp-server-time answers an unknown tool with a JSON-RPC error, not an is_error result.
    result = await servers[0].call("time", "no_such_tool", {})
    assert result.is_error
    assert result.output == "mcp server 'time': Unknown tool: no_such_tool"


async def test_output_is_capped(registry: ToolRegistry, repo: Path) -> None:
    tool = mcp_tool(registry, "git_git_status")
    result = await tool.run(
        {"repo_path": str(repo)}, ToolContext(workspace=repo, max_output_chars=60)
    )
    assert len(result.output) <= 60 and "omitted" in result.output


async def test_a_cancelled_call_leaves_the_session_usable(
    registry: ToolRegistry, tmp_path: Path
) -> None:
    ctx = ToolContext(workspace=tmp_path)
    tool = mcp_tool(registry, "time_get_current_time")
    call = asyncio.create_task(tool.run({"timezone": "UTC"}, ctx))
    await asyncio.sleep(0)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    result = await tool.run({"timezone": "UTC"}, ctx)
    assert not result.is_error


def test_a_killed_server_fails_its_calls_with_one_line_and_others_go_on(
    repo: Path, tmp_path: Path
) -> None:
    servers = McpServers({"time": TIME, "git": git_server(repo)}, tmp_path / "mcp.log")
    before = set(children("mcp-server-"))  # the module's servers
    try:
        assert servers.connect() == []
        ours = set(children("mcp-server-")) - before
        tools = {tool.name: tool for tool in servers.tools(set())}
        [pid] = [pid for pid in ours if pid in children("mcp-server-time")]
        os.kill(pid, signal.SIGKILL)
        assert wait_until_dead(pid)
        ctx = ToolContext(workspace=repo)
        gone = "mcp server 'time' is not available (the server exited or closed the connection)"

        async def calls() -> list[tuple[str, bool]]:
            first = await tools["time_get_current_time"].run({"timezone": "UTC"}, ctx)
            again = await tools["time_convert_time"].run({}, ctx)
            other = await tools["git_git_status"].run({"repo_path": str(repo)}, ctx)
            return [(r.output, r.is_error) for r in (first, again, other)]

        first, again, other = asyncio.run(calls())
        assert first == again == (gone, True)
        assert not other[1] and "notes.txt" in other[0]
        assert servers.status_lines()[0].startswith(
            "time · down · the server exited or closed the connection · "
        )
    finally:
        servers.close()
    assert all(wait_until_dead(pid) for pid in ours)


def test_a_server_that_exits_at_start_or_never_answers_costs_one_line(tmp_path: Path) -> None:
    specs = {
        "crash": {
            "command": sys.executable,
            "args": ["-c", "raise SystemExit('bad config: no token')"],
        },
        "mute": {"command": sys.executable, "args": ["-c", "import time; time.sleep(60)"]},
    }
    servers = McpServers(specs, tmp_path / "mcp.log", connect_timeout_s=1)
    try:
        problems = servers.connect()
    finally:
        servers.close()
    assert problems == [
        "mcp server 'crash': exited during start; stderr: bad config: no token",
        "mcp server 'mute': no reply within 1 s",
    ]
    assert servers.tools(set()) == []


def test_garbage_and_bad_utf8_on_stdout_are_logged_not_fatal(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    # mcp-server-time behind a banner line and a line of invalid UTF-8.
    code = (
        "import sys; sys.stdout.buffer.write(b'starting up\\n\\xff\\xfe\\n'); sys.stdout.flush();"
        "sys.argv = ['mcp-server-time', '--local-timezone', 'UTC'];"
        "from mcp_server_time import main; main()"
    )
    log = tmp_path / "mcp.log"
    servers = McpServers({"noisy": {"command": sys.executable, "args": ["-c", code]}}, log)
    try:
        assert servers.connect() == []
        [tool, _] = servers.tools(set())
        result = asyncio.run(tool.run({"timezone": "UTC"}, ToolContext(workspace=tmp_path)))
    finally:
        servers.close()
    assert not result.is_error and json.loads(result.output)["timezone"] == "UTC"
    assert capfd.readouterr().err == ""  # nothing on the terminal
    assert "Failed to parse" in log.read_text()
