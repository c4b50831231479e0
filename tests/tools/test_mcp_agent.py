"""The runtime both faces use, with MCP servers from the config: started in the background when
the agent is built, their tools in its registry and permissions once they are up (settle_mcp
waits, as a headless run does), listed by /mcp, closed by the runtime alone (once, at shutdown
or when a new agent does not reuse them). The endpoint is a scripted server: building an agent
needs one that answers, not a model."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.config import Config
from agent.faces.contract import ConnectRequest, Core
from agent.loop.agent import Agent
from agent.runtime import Runtime
from tests.agent.sse_server import Script, scripted_endpoint
from tests.tools.processes import wait_until_dead
from tests.tools.test_mcp import MISSING, TIME, children
from tools.tool import ToolContext

SERVERS: dict[str, dict[str, object]] = {"time": TIME, "gti": {"command": MISSING}}


def loop_agent(core: Core) -> Agent:
    """The core's agent, which the faces see only as a TurnRunner, as the loop's Agent."""
    assert isinstance(core.agent, Agent)
    return core.agent


@pytest.fixture
def endpoint() -> Iterator[str]:
    """A server that answers (the agent is built, not run): an unreachable one fails at once."""
    with scripted_endpoint() as url:
        yield url + "/v1"


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("DATA", "STATE", "CONFIG"):
        monkeypatch.setenv(f"BEECODE_{var}_DIR", str(tmp_path / var.lower()))


def test_the_agent_connects_its_servers_offers_their_tools_and_closes_them(
    endpoint: str,
    tmp_path: Path,
) -> None:
    lines: list[str] = []
    before = set(children("mcp-server-time"))
    runtime = Runtime(tmp_path, Config(endpoint=endpoint, mcp_servers=SERVERS))
    agent = loop_agent(runtime.connect(ConnectRequest(), lambda key, line: lines.append(line)))
    runtime.settle_mcp(lambda key, line: lines.append(line))
    try:
        [pid] = set(children("mcp-server-time")) - before
        assert lines == [
            "starting MCP servers: time, gti",
            f"mcp server 'gti': command not found: {MISSING}",
        ]
        names = agent.registry.names()
        assert names[-2:] == ["time_get_current_time", "time_convert_time"]
        tool = agent.registry.get("time_get_current_time")
        assert tool is not None
        decision = agent.permissions.check(tool.name, tool.kind({}), "", [])
        assert decision.verdict == "allow"  # a read-only tool runs in ask mode
        agent.close()  # the agent's tools only call the servers: closing it leaves them up
        assert not wait_until_dead(pid, within_s=0.5)
    finally:
        runtime.shutdown()
    assert wait_until_dead(pid)
    assert (tmp_path / "state" / "mcp.log").is_file()


def test_without_mcp_servers_the_sdk_is_not_even_imported(endpoint: str, tmp_path: Path) -> None:
    code = (
        "import sys; from pathlib import Path; from agent.runtime import Runtime;"
        "from agent.config import Config; from agent.faces.contract import ConnectRequest;"
        f"runtime = Runtime(Path({str(tmp_path)!r}), Config(endpoint={endpoint!r}));"
        "agent = runtime.connect(ConnectRequest(), lambda key, line: None).agent;"
        "runtime.shutdown(); print('mcp' in sys.modules, len(agent.registry.names()))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "11"]  # the 9 built-in tools, skill and task


def test_the_runtime_lists_servers_with_status_and_closes_them_on_quit(
    endpoint: str, tmp_path: Path
) -> None:
    runtime = Runtime(tmp_path, Config(endpoint=endpoint))
    assert runtime.extras("mcp") == [
        "No MCP servers: add them to .mcp.json or [mcp_servers] in config.toml."
    ]
    runtime = Runtime(tmp_path, Config(endpoint=endpoint, mcp_servers=SERVERS))
    before = set(children("mcp-server-time"))
    progress: list[str] = []
    core = runtime.connect(ConnectRequest(), lambda key, line: progress.append(line))
    runtime.settle_mcp(lambda key, line: progress.append(line))
    [pid] = set(children("mcp-server-time")) - before
    listed = runtime.extras("mcp")
    assert listed[0].startswith("time · connected · 2 tools · ")
    assert listed[1] == f"gti · failed · command not found: {MISSING} · {MISSING}"
    assert f"mcp server 'gti': command not found: {MISSING}" in progress
    assert core.agent is not None
    runtime.connect(ConnectRequest(), lambda key, line: None)  # /clear: gti gets another try
    runtime.settle_mcp(lambda key, line: None)
    [again] = set(children("mcp-server-time")) - before - {pid}
    assert wait_until_dead(pid)
    runtime.shutdown()
    assert wait_until_dead(again)
    assert runtime.extras("mcp")[0].startswith("time · closed · 2 tools · ")


def test_the_runtime_keeps_live_servers_for_the_next_agent(endpoint: str, tmp_path: Path) -> None:
    runtime = Runtime(tmp_path, Config(endpoint=endpoint, mcp_servers={"time": TIME}))
    before = set(children("mcp-server-time"))
    runtime.connect(ConnectRequest(), lambda key, line: None)
    runtime.settle_mcp(lambda key, line: None)
    first = set(children("mcp-server-time")) - before
    core = runtime.connect(ConnectRequest(), lambda key, line: None)  # /clear
    try:
        assert set(children("mcp-server-time")) - before == first
        names = loop_agent(core).registry.names()
        assert names[-2:] == ["time_get_current_time", "time_convert_time"]
    finally:
        runtime.shutdown()
    assert all(wait_until_dead(pid) for pid in first)


async def test_the_runtime_stops_background_jobs_of_a_replaced_agent_and_at_quit(
    endpoint: str,
    tmp_path: Path,
) -> None:
    runtime = Runtime(tmp_path, Config(endpoint=endpoint))
    pids = []
    for _ in range(2):  # the first agent is replaced (/clear), the second one quits
        core = runtime.connect(ConnectRequest(), lambda key, line: None)
        bash = loop_agent(core).registry.get("bash")
        assert bash is not None
        args = {"command": "exec sleep 600", "background": True}
        started = await bash.run(args, ToolContext(tmp_path))
        pid = re.search(r"pid (\d+)", started.output)
        assert pid is not None, started.output
        pids.append(int(pid[1]))
    assert wait_until_dead(pids[0])  # replaced: its jobs stopped, the new agent's kept
    assert not wait_until_dead(pids[1], within_s=0.5)
    runtime.shutdown()
    assert wait_until_dead(pids[1])


def test_a_headless_run_closes_the_servers_it_connected(
    endpoint: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from agent import cli

    config = tmp_path / "config"
    config.mkdir()
    assert isinstance(TIME["args"], list)
    args = ", ".join(f'"{arg}"' for arg in TIME["args"])
    (config / "config.toml").write_text(
        f'[mcp_servers.time]\ncommand = "{TIME["command"]}"\nargs = [{args}]\n'
    )
    workspace = tmp_path / "ws"
    workspace.mkdir()
    monkeypatch.chdir(workspace)
    before = set(children("mcp-server-time"))
    Script.status, Script.body = 503, [{"error": "loading model"}]
    status = cli.main(["-p", "hi", "--endpoint", endpoint, "--output-format", "json"])
    assert status == 1  # the endpoint answers every request with an error: a model error
    assert "beecode: starting MCP servers: time" in capsys.readouterr().err
    assert (tmp_path / "state" / "mcp.log").is_file()  # the server was started, and is gone:
    left = set(children("mcp-server-time")) - before
    assert all(wait_until_dead(pid) for pid in left), left
