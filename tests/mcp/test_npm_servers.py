"""The npm reference servers, server-everything and server-filesystem, through the real agent
(a scripted model): their tools (a result, an isError result, a file written on disk), text and
binary resources, prompts with arguments by position and by name."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent.config import Config
from agent.events import ToolCallFinished, TurnFinished
from agent.faces.contract import ConnectRequest
from agent.model.scripted import call
from tests.factory import ENDPOINT, ScriptedRuntime, answer

pytestmark = pytest.mark.usefixtures("beecode_dirs")
DOC = "demo://resource/static/document/features.md"


@pytest.fixture
def runtime(
    workspace: Path, tmp_path: Path, npm_server: dict[str, list[str]]
) -> Iterator[ScriptedRuntime]:
    root = tmp_path / "shared"
    root.mkdir()
    everything, filesystem = npm_server["everything"], npm_server["filesystem"]
    servers = {
        "everything": {"command": everything[0], "args": [*everything[1:], "stdio"]},
        "fs": {"command": filesystem[0], "args": [*filesystem[1:], str(root.resolve())]},
    }
    config = Config(
        endpoint=ENDPOINT,
        tool_mode="native",
        permission_mode="yolo",
        mcp_servers=servers,
        mcp_tool_budget=0,  # all 27 tools listed, as the model calls them here
    )
    made = ScriptedRuntime(workspace, [], config, n_ctx=65536)  # the documents are long
    made.connect(ConnectRequest(), lambda key, line: None)
    made.settle_mcp(lambda key, line: None)  # the servers start in the background
    yield made
    made.shutdown()


def turn(runtime: ScriptedRuntime, text: str, script: list[Any]) -> list[Any]:
    runtime.model.replies.extend(script)
    assert runtime.agent is not None
    events: list[Any] = []
    asyncio.run(runtime.agent.run_turn(text, events.append))
    return events


def test_tools_give_results_and_errors(runtime: ScriptedRuntime, tmp_path: Path) -> None:
    written = tmp_path / "shared" / "notes.txt"
    script = [
        call("everything_get-sum", {"a": 2, "b": 3}),
        call("fs_write_file", {"path": str(written), "content": "from the model"}),
        call("fs_read_text_file", {"path": "/etc/hostname"}),  # outside its root: isError
        call("fs_read_text_file", {"path": str(written.with_name("none.txt"))}),
        answer("done"),
    ]
    events = turn(runtime, "add and write", script)
    finished = [(e.name, e.output, e.is_error) for e in events if isinstance(e, ToolCallFinished)]
    assert finished[0] == ("everything_get-sum", "The sum of 2 and 3 is 5.", False)
    assert finished[1] == ("fs_write_file", f"Successfully wrote to {written}", False)
    assert written.read_text() == "from the model"
    assert finished[2][2] and finished[2][1].startswith("Access denied - path outside allowed")
    assert finished[3][2] and finished[3][1].startswith("ENOENT: no such file or directory")
    assert isinstance(events[-1], TurnFinished) and events[-1].stop_reason == "done"


def test_resources_text_and_binary_and_attachments(runtime: ScriptedRuntime) -> None:
    script = [
        call("mcp_resource", {"action": "list"}),
        call("mcp_resource", {"action": "read", "server": "everything", "uri": DOC}),
        call(
            "mcp_resource",
            {"action": "read", "server": "everything", "uri": "demo://resource/dynamic/blob/1"},
        ),
        call("mcp_resource", {"action": "read", "server": "fs", "uri": "file:///etc/hostname"}),
        answer("read"),
    ]
    turn(runtime, "what is there?", script)
    results = [m["content"] for m in runtime.model.requests[-1].messages if m["role"] == "tool"]
    listed = results[0].splitlines()
    assert len(listed) == 7  # the server's static documents; fs offers no resources
    assert f"everything {DOC} · features.md (text/markdown)" in listed
    assert results[1].startswith("# Everything Server - Features")
    # a blob is summarised; its size follows the server's clock ("1:05:09 PM", "10:05:09 PM")
    assert re.fullmatch(r"\[text/plain content of \d+ bytes, not shown\]", results[2])
    assert results[3] == "cannot read file:///etc/hostname from 'fs': Method not found"
    turn(runtime, f"summarise @everything:{DOC}", [answer("ok")])
    sent = runtime.model.requests[-1].messages[-1]["content"]
    assert sent.startswith(f'summarise @everything:{DOC}\n\n<resource server="everything"')
    assert "# Everything Server - Features" in sent


def test_prompts_take_arguments_by_position_and_by_name(runtime: ScriptedRuntime) -> None:
    names = runtime.extras("prompts")
    assert "everything:args-prompt" in names and not any(n.startswith("fs:") for n in names)
    turn(runtime, "/everything:args-prompt Paris France", [answer("sunny")])
    assert runtime.model.requests[-1].messages[-1]["content"] == "What's weather in Paris, France?"
    turn(runtime, "/everything:args-prompt state=Texas Austin", [answer("hot")])
    assert runtime.model.requests[-1].messages[-1]["content"] == "What's weather in Austin, Texas?"
    events = turn(runtime, "/everything:args-prompt", [])
    assert events[-1].final_text == (
        "/everything:args-prompt: missing city; usage: /everything:args-prompt <city> [state]"
    )


@pytest.mark.parametrize("vision", [True, False])
def test_images_reach_a_vision_model_and_are_described_to_others(
    runtime: ScriptedRuntime, vision: bool
) -> None:
    runtime.vision = vision  # what the server's /props says (server.client.Props.vision)
    runtime.connect(ConnectRequest(), lambda key, line: None)  # as /clear: a new agent
    turn(runtime, "show the logo", [call("everything_get-tiny-image", {}), answer("a logo")])
    after = runtime.model.requests[-1].messages
    described = "Here's the image you requested:\n[image: image/png, 4033 bytes]\n"
    assert after[-2 if vision else -1]["content"].startswith(described)
    images = [p for p in after[-1]["content"] if p.get("type") == "image_url"] if vision else []
    assert len(images) == int(vision)
    if vision:
        url = images[0]["image_url"]["url"]
        assert url.startswith("data:image/png;base64,iVBORw0KGgo")  # a PNG's first bytes
        # The session resumed on a model without vision: the image is left out, and said so.
        assert runtime.agent is not None
        resume = ConnectRequest(resume=runtime.agent.session.id)
        runtime.vision = False
        runtime.connect(resume, lambda key, line: None)
        assert runtime.agent is not None
        last = runtime.agent.messages[-2]["content"]  # before the answer
        assert [p["type"] for p in last] == ["text", "text"]
        assert last[1]["text"] == "[1 image(s) left out: this model reads no images]"
