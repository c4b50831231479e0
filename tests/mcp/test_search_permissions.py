"""Permission rules and per-server tool lists hold for calls made through the ``mcp_tools``
search-and-call tool as for listed tools: a call is judged as the tool it runs (real
mcp-server-time and the notes server, a scripted model)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

from agent.config import Config
from agent.events import PermissionDecision, PermissionRequest
from agent.faces.contract import ConnectRequest
from agent.model.scripted import call
from tests.factory import ENDPOINT, ScriptedRuntime, answer

pytestmark = pytest.mark.usefixtures("beecode_dirs")
BIN = Path(sys.executable).parent
SERVERS = {
    "time": {
        "command": str(BIN / "mcp-server-time"),
        "args": ["--local-timezone", "UTC"],
        "deny_tools": ["convert_*"],
    },
    "notes": {"command": sys.executable, "args": [str(Path(__file__).with_name("notes_mcp.py"))]},
}


def through_search(name: str, arguments: dict[str, Any]) -> list[Any]:
    return call("mcp_tools", {"action": "call", "name": name, "arguments": arguments})


def run_turn(script: list[Any], deny: list[str]) -> tuple[list[str], list[PermissionRequest]]:
    """One turn of ``script`` in search mode; every question answered allow_always. Returns the
    tool results the model saw and the questions asked."""
    asked: list[PermissionRequest] = []

    def emit(event: Any) -> None:
        if isinstance(event, PermissionRequest):
            asked.append(event)
            event.future.set_result(PermissionDecision("allow_always"))

    config = Config(
        endpoint=ENDPOINT,
        tool_mode="native",
        mcp_servers=SERVERS,
        mcp_tool_budget=50,
        deny=deny,
    )
    runtime = ScriptedRuntime(Path.cwd(), [*script, answer("done")], config)
    try:
        runtime.connect(ConnectRequest(), lambda key, line: None)
        runtime.settle_mcp(lambda key, line: None)  # the server starts in the background
        assert runtime.agent is not None
        assert "mcp_tools" in runtime.agent.registry.names()
        asyncio.run(runtime.agent.run_turn("go", emit))
        messages = runtime.model.requests[-1].messages
        return [m["content"] for m in messages if m["role"] == "tool"], asked
    finally:
        runtime.shutdown()


@pytest.fixture(autouse=True)
def in_workspace(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(workspace)


def test_a_call_through_search_is_asked_and_allowed_as_the_tool_it_runs() -> None:
    script = [
        through_search("notes_env_var", {"name": "NOPE"}),
        through_search("notes_env_var", {"name": "NOPE2"}),  # allowed always: not asked again
        through_search("time_convert_time", {}),  # hidden by the server's deny_tools
    ]
    results, asked = run_turn(script, deny=[])
    assert [(q.tool, q.kind) for q in asked] == [("notes_env_var", "execute")]
    assert results[:2] == ["<unset>", "<unset>"]
    assert results[2].startswith("no MCP tool named 'time_convert_time'")


@pytest.mark.parametrize("rule", ["notes_env_var", "notes_*", "mcp_tools(notes_*)"])
def test_a_denied_tool_cannot_be_run_through_search(rule: str) -> None:
    script = [through_search("notes_env_var", {"name": "HOME"})]
    results, asked = run_turn(script, deny=[rule])
    assert asked == []
    assert results[0].startswith(f"Error: permission denied (denied by rule {rule})")
