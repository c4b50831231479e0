"""The lean prefix: compact schemas, and past the token budget one mcp_tools tool that finds
and calls the MCP tools (real mcp-server-time and the notes server, a scripted model)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from agent.config import Config
from agent.faces.contract import ConnectRequest
from agent.model.scripted import call
from tests.factory import ENDPOINT, ScriptedRuntime, answer
from tools.mcp.tool import lean_schema

pytestmark = pytest.mark.usefixtures("beecode_dirs")
BIN = Path(sys.executable).parent
SERVERS = {
    "time": {"command": str(BIN / "mcp-server-time"), "args": ["--local-timezone", "UTC"]},
    "notes": {"command": sys.executable, "args": [str(Path(__file__).with_name("notes_mcp.py"))]},
}


def test_schemas_lose_titles_defaults_and_long_descriptions() -> None:
    schema = {
        "title": "Args",
        "type": "object",
        "properties": {
            "default": {"type": "string", "default": "x", "title": "Default"},
            "n": {"type": "integer", "description": "How many.\nMore words " + "w" * 200},
        },
    }
    assert lean_schema(schema) == {
        "type": "object",
        "properties": {
            "default": {"type": "string"},
            "n": {"type": "integer", "description": "How many."},
        },
    }


def tool_names(runtime: ScriptedRuntime) -> list[str]:
    assert runtime.agent is not None
    return runtime.agent.registry.names()


@pytest.mark.parametrize("budget", [2000, 50])
def test_past_the_budget_one_tool_finds_and_calls_them(workspace: Path, budget: int) -> None:
    script = [
        call("mcp_tools", {"action": "search", "query": "current time"}),
        call(
            "mcp_tools",
            {"action": "call", "name": "time_get_current_time", "arguments": {"timezone": "UTC"}},
        ),
        answer("done"),
    ]
    config = Config(
        endpoint=ENDPOINT,
        tool_mode="native",
        permission_mode="yolo",
        mcp_servers=SERVERS,
        mcp_tool_budget=budget,
    )
    runtime = ScriptedRuntime(workspace, script if budget == 50 else [], config)
    try:
        runtime.connect(ConnectRequest(), lambda key, line: None)
        runtime.settle_mcp(lambda key, line: None)  # the servers start in the background
        names = tool_names(runtime)
        if budget == 2000:
            assert "time_get_current_time" in names and "mcp_tools" not in names
            assert (
                runtime.extras("mcp")[-1] == "mode: listed (the MCP tools fit in 819 tokens)"
            )  # a tenth of 8K
            return
        assert "mcp_tools" in names and not any(n.startswith(("time_", "notes_")) for n in names)
        assert runtime.extras("mcp")[-1].startswith("mode: search (the tools are past 50 tokens")
        assert runtime.agent is not None
        events: list[Any] = []
        asyncio.run(runtime.agent.run_turn("what time is it?", events.append))
        results = [m["content"] for m in runtime.model.requests[-1].messages if m["role"] == "tool"]
        first_hit = json.loads(results[0].splitlines()[0])
        assert first_hit["name"] == "time_get_current_time"
        assert "timezone" in first_hit["parameters"]["properties"]
        assert json.loads(results[1])["timezone"] == "UTC"
        # The tools list the model saw never changed during the turn.
        assert len({json.dumps(r.tools) for r in runtime.model.requests}) == 1
    finally:
        runtime.shutdown()
