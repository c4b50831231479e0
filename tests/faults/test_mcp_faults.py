"""A real stdio MCP server that crashes, hangs, freezes or floods (tests/faults/faulty_mcp.py),
called through the loop: the server is marked down or the call fails with one line, and the
session goes on with the other tools."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.events import Event, ToolCallFinished
from agent.model.scripted import Step, call, text
from agent.sessions.store import Session
from tests.scripted import make_agent
from tools.mcp.servers import McpServers
from tools.redacted_log import LIMIT_BYTES
from tools.registry import default_registry
from tools.tool import ToolContext

SERVER = {"command": sys.executable, "args": [str(Path(__file__).with_name("faulty_mcp.py"))]}


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[McpServers]:
    servers = McpServers({"f": SERVER}, tmp_path / "mcp.log", call_timeout_s=3)
    assert servers.connect() == []
    try:
        yield servers
    finally:
        servers.close()


async def run(ws: Path, servers: McpServers, replies: list[list[Step]]) -> list[ToolCallFinished]:
    registry = default_registry()
    for tool in servers.tools(set(registry.names())):
        registry.add(tool)
    agent, _ = make_agent(ws, [*replies, text("carried on")], registry=registry, system="s")
    events: list[Event] = []
    finished = await agent.run_turn("use the server", events.append)
    # An answer after a failed call that was not tried again: the turn says it failed.
    stop = "failed" if finished.facts.failed else "done"
    assert (finished.stop_reason, finished.final_text) == (stop, "carried on")
    assert [m["role"] for m in Session.open(agent.session.id).messages()][-1] == "assistant"
    return [e for e in events if isinstance(e, ToolCallFinished)]


async def back_up(servers: McpServers, within_s: float = 60.0) -> None:
    """Wait for the restart (a pause, then a new process: seconds on a loaded machine)."""
    deadline = time.monotonic() + within_s
    while not servers.status_lines()[0].startswith("f · connected"):
        assert time.monotonic() < deadline, servers.status_lines()[0]
        await asyncio.sleep(0.05)


async def test_a_server_that_crashes_mid_call_is_marked_down(ws: Path, servers: McpServers) -> None:
    done = await run(
        ws,
        servers,
        [call("f_crash", {}), call("f_echo", {"text": "x"}), call("bash", {"command": "echo on"})],
    )
    gone = (
        "mcp server 'f' is not available (the server exited or closed the connection;"
        " stderr: fatal: out of cheese)"
    )
    assert [(d.output, d.is_error) for d in done[:2]] == [(gone, True), (gone, True)]
    assert done[2].output == "on\n[exit code 0]"
    assert servers.status_lines()[0].startswith("f · down · the server exited")
    # Started again after a pause, with the same tools: the next turn can use it.
    await back_up(servers)
    again = await run(ws, servers, [call("f_echo", {"text": "back"})])
    assert (again[0].output, again[0].is_error) == ("back", False)


async def test_a_frozen_server_is_stopped_and_marked_down(ws: Path, servers: McpServers) -> None:
    done = await run(ws, servers, [call("f_freeze", {}), call("f_echo", {"text": "x"})])
    down = "mcp server 'f' is not available (hung: no reply within 3 s, nor to a ping)"
    assert [d.output for d in done] == [down, down]


async def test_a_slow_tool_times_out_and_the_server_stays_up(ws: Path, servers: McpServers) -> None:
    done = await run(ws, servers, [call("f_hang", {}), call("f_echo", {"text": "still here"})])
    assert (
        done[0].is_error and "no reply within 3 s; the server may still be at it" in done[0].output
    )
    assert (done[1].output, done[1].is_error) == ("still here", False)


async def test_floods_are_capped_and_logged(
    ws: Path, servers: McpServers, capfd: pytest.CaptureFixture[str]
) -> None:
    done = await run(
        ws, servers, [call("f_flood", {"megabytes": 2}), call("f_shout", {"megabytes": 3})]
    )
    assert len(done[0].output) <= ToolContext(ws).max_output_chars
    assert "chars omitted" in done[0].output
    assert done[1].output == "shouted"
    stderr = servers.log_path.with_name("mcp.f.stderr")  # each server's stderr has its own file
    # 3 MB shouted: the log keeps its last part, bounded, and nothing reached the terminal.
    assert stderr.stat().st_size <= LIMIT_BYTES + 64 * 1024 and capfd.readouterr().err == ""
    assert stderr.read_text().startswith("[... earlier output cut")
