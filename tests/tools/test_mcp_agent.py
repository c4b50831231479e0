"""The assembled agent and the TUI's backend with MCP servers from the config: connected when the
agent is built, their tools in its registry and permissions, listed by /mcp, closed at shutdown.
The endpoint is a closed port: building an agent does not need a model."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from agent.config import Config
from agent.faces.contract import ConnectRequest
from agent.runtime.assemble import build_agent
from agent.tui.backend import LocalBackend
from tests.tools.processes import wait_until_dead
from tests.tools.test_mcp import MISSING, TIME, children
from tools.tool import ToolContext

ENDPOINT = "http://127.0.0.1:9/v1"  # never answers; the agent is built, not run
SERVERS = {"time": TIME, "gti": {"command": MISSING}}


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("DATA", "STATE", "CONFIG"):
        monkeypatch.setenv(f"BEECODE_{var}_DIR", str(tmp_path / var.lower()))


def test_the_agent_connects_its_servers_offers_their_tools_and_closes_them(
    tmp_path: Path,
) -> None:
    lines: list[str] = []
    before = set(children("mcp-server-time"))
    agent = build_agent(
        tmp_path, Config(endpoint=ENDPOINT, mcp_servers=SERVERS), progress=lines.append
    )
    try:
        [pid] = set(children("mcp-server-time")) - before
        assert lines == [
            "connecting MCP servers: time, gti",
            f"mcp server 'gti': command not found: {MISSING}",
        ]
        names = agent.registry.names()
        assert names[-2:] == ["time_get_current_time", "time_convert_time"]
        tool = agent.registry.get("time_get_current_time")
        assert tool is not None
        decision = agent.permissions.check(tool.name, tool.kind({}), "", [])
        assert decision.verdict == "allow"  # a read-only tool runs in ask mode
    finally:
        agent.close()
    assert wait_until_dead(pid)
    assert (tmp_path / "state" / "mcp.log").is_file()


def test_without_mcp_servers_the_sdk_is_not_even_imported(tmp_path: Path) -> None:
    code = (
        "import sys; from pathlib import Path; from agent.runtime.assemble import build_agent;"
        "from agent.config import Config;"
        f"agent = build_agent(Path({str(tmp_path)!r}), Config(endpoint={ENDPOINT!r}));"
        "agent.close(); print('mcp' in sys.modules, len(agent.registry.names()))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "10"]  # the 9 built-in tools and skill


def test_the_tui_lists_servers_with_status_and_closes_them_on_quit(tmp_path: Path) -> None:
    backend = LocalBackend(tmp_path, Config(endpoint=ENDPOINT))
    assert backend.extras("mcp") == [
        "No MCP servers: add [mcp_servers.NAME] tables to the user config.toml."
    ]
    backend = LocalBackend(tmp_path, Config(endpoint=ENDPOINT, mcp_servers=SERVERS))
    before = set(children("mcp-server-time"))
    progress: list[str] = []
    core = backend.connect(ConnectRequest(), lambda key, line: progress.append(line))
    [pid] = set(children("mcp-server-time")) - before
    listed = backend.extras("mcp")
    assert listed[0].startswith("time · connected · 2 tools · ")
    assert listed[1] == f"gti · failed · command not found: {MISSING} · {MISSING}"
    assert f"mcp server 'gti': command not found: {MISSING}" in progress
    assert core.agent is not None
    backend.connect(ConnectRequest(), lambda key, line: None)  # /clear: gti gets another try
    [again] = set(children("mcp-server-time")) - before - {pid}
    assert wait_until_dead(pid)
    backend.shutdown()
    assert wait_until_dead(again)
    assert backend.extras("mcp")[0].startswith("time · closed · 2 tools · ")


def test_the_tui_keeps_live_servers_for_the_next_agent(tmp_path: Path) -> None:
    backend = LocalBackend(tmp_path, Config(endpoint=ENDPOINT, mcp_servers={"time": TIME}))
    before = set(children("mcp-server-time"))
    backend.connect(ConnectRequest(), lambda key, line: None)
    first = set(children("mcp-server-time")) - before
    core = backend.connect(ConnectRequest(), lambda key, line: None)  # /clear
    try:
        assert set(children("mcp-server-time")) - before == first
        assert core.agent.registry.names()[-2:] == ["time_get_current_time", "time_convert_time"]
    finally:
        backend.shutdown()
    assert all(wait_until_dead(pid) for pid in first)


async def test_the_tui_stops_background_jobs_of_a_replaced_agent_and_at_quit(
    tmp_path: Path,
) -> None:
    backend = LocalBackend(tmp_path, Config(endpoint=ENDPOINT))
    pids = []
    for _ in range(2):  # the first agent is replaced (/clear), the second one quits
        core = backend.connect(ConnectRequest(), lambda key, line: None)
        bash = core.agent.registry.get("bash")
        assert bash is not None
        args = {"command": "exec sleep 600", "background": True}
        started = await bash.run(args, ToolContext(tmp_path))
        pids.append(int(re.search(r"pid (\d+)", started.output)[1]))  # type: ignore[index]
    assert wait_until_dead(pids[0])  # replaced: its jobs stopped, the new agent's kept
    assert not wait_until_dead(pids[1], within_s=0.5)
    backend.shutdown()
    assert wait_until_dead(pids[1])
