"""The MCP servers' life, with real server processes (tests/faults/faulty_mcp.py, mcp-server-time):
started in the background (shown as starting, their tools taken in between turns, in listed or
search mode), a server hung while idle found by a ping, told with its stderr and restarted, a
failed restart telling its own reason, and no server left behind when a real ``beecode -p`` is
SIGKILLed in the middle of a call."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import psutil

from agent.config import Config
from agent.events import Event, Notice
from agent.faces.contract import ConnectRequest
from agent.model.scripted import call
from tests.agent.sse_server import Script, chunk, scripted_endpoint
from tests.factory import ENDPOINT, ScriptedRuntime, answer
from tests.tools.processes import wait_until_dead
from tests.tools.test_mcp import MISSING, TIME, children
from tools.mcp.late import take_late_tools
from tools.mcp.search import McpSearchTool
from tools.mcp.servers import McpServers
from tools.mcp.spawn import GUARD
from tools.registry import default_registry

ROOT = Path(__file__).parents[2]
FAULTY = ROOT / "tests" / "faults" / "faulty_mcp.py"


def faulty(env: dict[str, str] | None = None, gate: Path | None = None) -> dict[str, object]:
    """The faulty server; behind ``gate`` it starts only once that file exists."""
    if gate is None:
        return {"command": sys.executable, "args": [str(FAULTY)], "env": env or {}}
    wait = f'while [ ! -e "{gate}" ]; do sleep 0.05; done; exec "{sys.executable}" "{FAULTY}"'
    return {"command": "sh", "args": ["-c", wait]}


def told(servers: McpServers, wanted: str, within_s: float = 60.0) -> list[str]:
    """The lines ``news()`` tells until one holds ``wanted`` (restarts take seconds here)."""
    lines: list[str] = []
    deadline = time.monotonic() + within_s
    while not any(wanted in line for line in lines):
        assert time.monotonic() < deadline, (wanted, lines)
        lines += servers.news()
        time.sleep(0.05)
    return lines


def until(holds: Callable[[], bool], within_s: float = 60.0) -> None:
    """Wait for what a server process does in its own time (seconds on a loaded machine)."""
    deadline = time.monotonic() + within_s
    while not holds():
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.05)


def test_a_slow_server_starts_in_the_background_and_its_tools_join_between_turns(
    tmp_path: Path,
) -> None:
    gate = tmp_path / "gate"
    servers = McpServers({"f": faulty(gate=gate)}, tmp_path / "mcp.log")
    registry = default_registry()
    before = registry.schemas()
    try:
        servers.start()  # returns at once: the server waits for its gate
        assert servers.starting() == ["f"]
        assert servers.status_lines()[0].startswith("f · starting · 0 tools · sh -c")
        echo = asyncio.run(servers.call("f", "echo", {"text": "x"}))
        assert (echo.output, echo.is_error) == ("mcp server 'f' is not available (starting)", True)
        assert not take_late_tools(registry, servers, None)  # a turn now: the same prompt
        assert registry.schemas() == before
        gate.touch()
        assert servers.connect() == []
        assert take_late_tools(registry, servers, None)  # the next turn has them, at the end
        assert registry.names()[: len(before)] == [s["function"]["name"] for s in before]
        assert "f_echo" in registry.names()[len(before) :]
        assert not take_late_tools(registry, servers, None)  # taken once
    finally:
        servers.close()


def test_an_agent_turn_before_a_server_is_up_gets_its_tools_the_turn_after(
    tmp_path: Path,
) -> None:
    gate = tmp_path / "gate"
    specs: dict[str, dict[str, object]] = {"f": faulty(gate=gate), "gti": {"command": MISSING}}
    script = [answer("no tools yet"), call("f_echo", {"text": "hi"}), answer("said hi")]
    config = Config(
        endpoint=ENDPOINT, tool_mode="native", permission_mode="yolo", mcp_servers=specs
    )
    runtime = ScriptedRuntime(tmp_path, script, config)
    events: list[Event] = []
    try:
        runtime.connect(ConnectRequest(), lambda key, line: None)  # does not wait for f
        assert runtime.mcp is not None and runtime.agent is not None
        until(lambda: runtime.mcp is not None and runtime.mcp.starting() == ["f"])
        assert asyncio.run(runtime.agent.run_turn("hello", events.append)).final_text == (
            "no tools yet"
        )
        first = [t["function"]["name"] for t in runtime.model.requests[0].tools]
        assert not any(name.startswith("f_") for name in first)
        gate.touch()
        assert runtime.mcp.connect() == [f"mcp server 'gti': command not found: {MISSING}"]
        asyncio.run(runtime.agent.run_turn("say hi", events.append))
        second = [t["function"]["name"] for t in runtime.model.requests[1].tools]
        assert second[: len(first)] == first and "f_echo" in second[len(first) :]
        assert [m["content"] for m in runtime.model.requests[2].messages][-1] == "hi"
        notices = [e.message for e in events if isinstance(e, Notice)]
        assert notices == [f"mcp server 'gti': command not found: {MISSING}"]  # told once
    finally:
        runtime.shutdown()


def test_late_tools_past_the_budget_switch_to_search_once_then_join_its_catalogue(
    tmp_path: Path,
) -> None:
    gate = tmp_path / "gate"
    specs = {"a": faulty(), "b": faulty(gate=gate)}
    servers = McpServers(specs, tmp_path / "mcp.log")
    registry = default_registry()
    try:
        servers.start()
        until(lambda: servers.starting() == ["b"])  # a is up, b waits for its gate
        assert servers.starting() == ["b"]
        assert take_late_tools(registry, servers, budget=100)
        search = registry.get("mcp_tools")
        assert isinstance(search, McpSearchTool) and "a_echo" in search.tools
        assert not any(name.startswith("a_") for name in registry.names())
        schemas = registry.schemas()
        gate.touch()
        assert servers.connect() == []
        assert not take_late_tools(registry, servers, budget=100)  # the prompt stays as it was
        assert registry.schemas() == schemas and "b_echo" in search.tools
    finally:
        servers.close()


def test_a_server_hung_while_idle_is_told_with_its_stderr_and_restarted(tmp_path: Path) -> None:
    before = set(children(FAULTY.name))
    servers = McpServers({"f": faulty()}, tmp_path / "mcp.log", ping_every_s=0.5)
    try:
        assert servers.connect() == []
        [frozen] = set(children(FAULTY.name)) - before
        assert asyncio.run(servers.call("f", "freeze_soon", {})).output == "frozen soon"
        hung = "mcp server 'f': hung: no reply to a ping within 5 s; stderr: about to freeze"
        assert told(servers, "hung") == [hung]
        down = asyncio.run(servers.call("f", "echo", {"text": "x"}))
        assert down.is_error and "not available" in down.output  # fails fast, no wait
        assert wait_until_dead(frozen, within_s=30)  # stopped, not left frozen
        until(lambda: " · connected · " in servers.status_lines()[0])  # restarted
        assert asyncio.run(servers.call("f", "echo", {"text": "back"})).output == "back"
    finally:
        servers.close()


def test_a_stopped_real_server_is_found_by_the_ping_killed_and_restarted(tmp_path: Path) -> None:
    before = set(children("mcp-server-time"))
    servers = McpServers({"time": TIME}, tmp_path / "mcp.log", ping_every_s=0.5)
    try:
        assert servers.connect() == []
        [pid] = set(children("mcp-server-time")) - before
        os.kill(pid, signal.SIGSTOP)  # alive, not answering
        [line] = told(servers, "hung")
        assert line.startswith("mcp server 'time': hung: no reply to a ping within 5 s")
        assert wait_until_dead(pid, within_s=30)
        until(lambda: " · connected · " in servers.status_lines()[0])
        result = asyncio.run(servers.call("time", "get_current_time", {"timezone": "UTC"}))
        assert not result.is_error and json.loads(result.output)["timezone"] == "UTC"
    finally:
        servers.close()


def test_a_failed_restart_tells_its_own_reason_not_the_first_deaths(tmp_path: Path) -> None:
    spec = faulty(env={"FAULTY_ONCE": str(tmp_path / "crashed")})
    servers = McpServers({"f": spec}, tmp_path / "mcp.log")
    try:
        assert servers.connect() == []
        crash = asyncio.run(servers.call("f", "crash", {}))
        assert "fatal: out of cheese" in crash.output
        lines = told(servers, "cannot be read")
        assert "fatal: out of cheese" in lines[0]
        assert lines[-1] == (
            "mcp server 'f': the server exited or closed the connection;"
            " stderr: fatal: the state a crash left cannot be read"
        )
        assert "cannot be read" in servers.status_lines()[0]
    finally:
        servers.close()


def test_a_command_the_guard_could_not_run_is_told_as_exec_would(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a program\n")
    (tmp_path / "bin").mkdir()
    specs = {
        "noexec": {"command": str(tmp_path / "notes.txt")},
        "gone": {"command": "./mcp-server-gone", "cwd": str(tmp_path / "bin")},
        "nocwd": {"command": "sh", "cwd": str(tmp_path / "nowhere")},
    }
    servers = McpServers(specs, tmp_path / "mcp.log")
    try:
        assert servers.connect() == [
            f"mcp server 'noexec': cannot run {tmp_path / 'notes.txt'}: permission denied",
            "mcp server 'gone': command not found: ./mcp-server-gone",
            f"mcp server 'nocwd': working directory not found: {tmp_path / 'nowhere'}",
        ]
    finally:
        servers.close()


def test_a_guard_whose_beecode_is_gone_starts_nothing_else_it_passes_the_status_on(
    tmp_path: Path,
) -> None:
    made = tmp_path / "made"
    not_the_parent = str(psutil.Process().ppid())  # a live pid, but not the guard's parent
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(GUARD), not_the_parent, "touch", str(made)], timeout=60
    )
    assert done.returncode == 1 and not made.exists()
    ours = [sys.executable, "-I", "-S", str(GUARD), str(os.getpid()), "sh", "-c", "exit 7"]
    assert subprocess.run(ours, timeout=60).returncode == 7  # the server's status, passed on


def test_what_a_server_leaves_in_its_group_goes_when_it_is_closed(tmp_path: Path) -> None:
    leftover = f'sleep 600 & exec "{sys.executable}" "{FAULTY}"'  # a child it never waits for
    servers = McpServers({"f": {"command": "sh", "args": ["-c", leftover]}}, tmp_path / "m.log")
    try:
        assert servers.connect() == []
        [sleep] = children("sleep 600")
    finally:
        servers.close()  # the server exits at its stdin's end, as the SDK asks it to
    assert wait_until_dead(sleep, within_s=30)


def test_no_server_outlives_a_sigkilled_beecode(tmp_path: Path) -> None:
    """A real `beecode -p` with mcp-server-time and, behind a shell wrapper (as npx or uvx
    are), a server frozen in the middle of the call: it never reads its stdin's end."""
    marker, ws, config = tmp_path / "stalled", tmp_path / "ws", tmp_path / "config"
    ws.mkdir()
    config.mkdir()
    wrapped = f'"{sys.executable}" "{FAULTY}"; exit $?'  # sh stays, the server is its child
    (config / "config.toml").write_text(
        f"[mcp_servers.time]\ncommand = {json.dumps(TIME['command'])}\n"
        f"args = {json.dumps(TIME['args'])}\n"
        f'[mcp_servers.f]\ncommand = "sh"\nargs = ["-c", {json.dumps(wrapped)}]\n'
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "BEECODE_CONFIG_DIR": str(config)}
    env |= {"BEECODE_DATA_DIR": str(tmp_path / "data"), "BEECODE_STATE_DIR": str(tmp_path / "s")}
    stall = {"name": "f_stall", "arguments": json.dumps({"marker": str(marker)})}
    called = {"index": 0, "id": "c1", "type": "function", "function": stall}
    with scripted_endpoint() as url, open(tmp_path / "stderr", "wb") as err:
        Script.body = [
            chunk({"tool_calls": [called]}),
            chunk({}, finish="tool_calls"),
            "[DONE]",
        ]
        argv = ["-p", "stall", "--endpoint", url, "--permission-mode", "yolo"]
        beecode = subprocess.Popen(
            [sys.executable, "-m", "agent.cli", *argv], cwd=ws, env=env, stderr=err
        )
        try:
            deadline = time.monotonic() + 120
            while not marker.exists():  # the call is in flight, the server frozen in it
                assert beecode.poll() is None, (tmp_path / "stderr").read_text()
                assert time.monotonic() < deadline, "the stall tool was never called"
                time.sleep(0.05)
            family = psutil.Process(beecode.pid).children(recursive=True)
            lines = [" ".join(p.cmdline()) for p in family]
            assert any("mcp-server-time" in line for line in lines), lines
            assert any(line.startswith(sys.executable) and FAULTY.name in line for line in lines)
        finally:
            os.kill(beecode.pid, signal.SIGKILL)
            beecode.wait()
    left = [p.pid for p in family if not wait_until_dead(p.pid, within_s=30)]
    assert left == [], [" ".join(psutil.Process(pid).cmdline()) for pid in left]
