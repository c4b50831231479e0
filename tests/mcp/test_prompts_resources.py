"""MCP prompts as /server:prompt commands and resources (the mcp_resource tool, @server:uri
attachments), through the real agent on the notes server with a scripted model."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

from agent.commands.prompts import prompt_arguments
from agent.commands.registry import McpPrompt
from agent.config import Config
from agent.events import TurnFinished
from agent.faces.contract import ConnectRequest
from agent.model.scripted import call
from tests.factory import ENDPOINT, ScriptedRuntime, answer

pytestmark = pytest.mark.usefixtures("beecode_dirs")
NOTES = {"command": sys.executable, "args": [str(Path(__file__).with_name("notes_mcp.py"))]}
REVIEW = McpPrompt("notes", "review", (("path", True), ("focus", False)))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a.py", {"path": "a.py"}),
        ("a.py speed", {"path": "a.py", "focus": "speed"}),
        ("focus=speed a.py", {"path": "a.py", "focus": "speed"}),
        ("a.py slow start", {"path": "a.py", "focus": "slow start"}),
        ("'my file.py'", {"path": "my file.py"}),
    ],
)
def test_arguments_by_name_or_position(text: str, expected: dict[str, str]) -> None:
    assert prompt_arguments(REVIEW, text) == expected


def test_a_missing_required_argument_tells_the_usage() -> None:
    with pytest.raises(ValueError, match=r"missing path; usage: /notes:review <path> \[focus\]"):
        prompt_arguments(REVIEW, "focus=speed")


def turn(runtime: ScriptedRuntime, text: str) -> TurnFinished:
    assert runtime.agent is not None
    events: list[Any] = []
    return asyncio.run(runtime.agent.run_turn(text, events.append))


def test_prompts_resources_and_attachments_reach_the_model(workspace: Path) -> None:
    script = [
        answer("reviewed"),
        answer("make"),
        call("mcp_resource", {"action": "list"}),
        call("mcp_resource", {"action": "read", "server": "notes", "uri": "notes://logo"}),
        answer("a logo"),
    ]
    config = Config(endpoint=ENDPOINT, tool_mode="native", mcp_servers={"notes": NOTES})
    runtime = ScriptedRuntime(workspace, script, config)
    try:
        runtime.connect(ConnectRequest(), lambda key, line: None)
        runtime.settle_mcp(lambda key, line: None)  # the server starts in the background
        assert runtime.extras("prompts") == ["notes:review"]
        assert turn(runtime, "/notes:review src/a.py focus=speed").stop_reason == "done"
        sent = runtime.model.requests[0].messages[-1]["content"]
        assert sent == "Review src/a.py, looking for speed."
        assert turn(runtime, "/notes:review").final_text == (
            "/notes:review: missing path; usage: /notes:review <path> [focus]"
        )
        turn(runtime, "How do I build? @notes:notes://readme")
        sent = runtime.model.requests[1].messages[-1]["content"]
        assert sent.endswith(
            '<resource server="notes" uri="notes://readme">\nNotes: the build uses make.\n'
            "</resource>"
        )
        turn(runtime, "What is the logo?")
        results = [m["content"] for m in runtime.model.requests[-1].messages if m["role"] == "tool"]
        assert results[-2:] == [
            "notes notes://readme · readme (text/plain)\nnotes notes://logo · logo (image/png)",
            "[image/png content of 48 bytes, not shown]",
        ]
    finally:
        runtime.shutdown()
