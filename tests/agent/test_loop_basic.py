"""The plain loop on the scripted model: tool round trips, parallel reads, calls in text,
malformed arguments, the step limit and model errors."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from agent.events import (
    ErrorEvent,
    Notice,
    StepStats,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
)
from agent.model.endpoint import ModelError, ReasoningPiece
from agent.model.scripted import call, calls, text
from agent.sessions.replay import read_records
from tests.agent.loop_kit import (
    Face,
    assert_session_mirrors,
    assert_valid_history,
    make_agent,
    results,
)
from tools.registry import default_registry
from tools.tool import Kind, ToolResult


async def test_tool_round_trip(ws: Path) -> None:
    agent, model = make_agent(
        ws,
        [call("write", {"path": "hello.py", "content": "print('hello')\n"}), text("Wrote ", "it.")],
    )
    face = Face()
    finished = await agent.run_turn("create hello.py", face)

    assert (ws / "hello.py").read_text() == "print('hello')\n"
    assert (finished.stop_reason, finished.final_text) == ("done", "Wrote it.")
    assert face.events[-1] == finished
    assert [type(e) for e in face.events] == [
        StepStats,
        ToolCallStarted,
        ToolCallFinished,
        TextDelta,
        TextDelta,
        StepStats,
        TurnFinished,
    ]
    assert [e.text for e in face.of(TextDelta)] == ["Wrote ", "it."]  # streamed as it came
    done = face.of(ToolCallFinished)[0]
    assert not done.is_error and done.meta.get("path")
    assert len(finished.stats) == 2
    # The second request carries the call and its result.
    sent = model.requests[1].messages
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool"]
    assert sent[3]["tool_call_id"] == sent[2]["tool_calls"][0]["id"]
    assert model.requests[0].tools == default_registry().schemas()
    assert all(r.reply_format.free for r in model.requests)  # native calls, no schema
    assert_valid_history(agent.messages)
    assert_session_mirrors(agent)
    kinds = [r["type"] for r in read_records(agent.session.path)]
    assert kinds.count("stats") == 2 and kinds.count("permission") == 1


class GatedRead:
    """A read tool that only finishes once ``n`` copies of it run at the same time."""

    name = "probe"
    description = "test"
    parameters: dict[str, Any] = {"type": "object", "properties": {"tag": {"type": "string"}}}

    def __init__(self, n: int) -> None:
        self.barrier = asyncio.Barrier(n)

    def kind(self, args: dict[str, Any]) -> Kind:
        return "read"

    def subject(self, args: dict[str, Any]) -> str:
        return str(args.get("tag"))

    def paths(self, args: dict[str, Any]) -> list[str]:
        return []

    async def run(self, args: dict[str, Any], ctx: Any) -> ToolResult:
        await self.barrier.wait()  # deadlocks (test timeout) unless the reads run together
        return ToolResult(f"probe {args['tag']}")


@pytest.mark.timeout(20)
async def test_read_only_calls_run_in_parallel_and_results_keep_call_order(ws: Path) -> None:
    (ws / "a.txt").write_text("A\n")
    registry = default_registry()
    registry.add(GatedRead(2))
    reply = calls(
        ("probe", {"tag": "1"}, "c1"),
        ("probe", {"tag": "2"}, "c2"),
        ("write", {"path": "b.txt", "content": "B"}, "c3"),
        ("read", {"path": "b.txt"}, "c4"),
    )
    agent, _ = make_agent(ws, [reply, text("ok")], registry=registry)
    finished = await agent.run_turn("go", Face())

    assert finished.stop_reason == "done"
    tool_messages = [m for m in agent.messages if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == ["c1", "c2", "c3", "c4"]
    assert [m["content"] for m in tool_messages[:2]] == ["probe 1", "probe 2"]
    assert tool_messages[3]["content"] == "1\tB"  # the read after the write saw the write


async def test_malformed_arguments_get_an_exact_error_and_never_go_back(ws: Path) -> None:
    agent, model = make_agent(
        ws,
        [
            call("write", '{"path": "a.txt", "content": }', "w1"),
            call("write", {"path": "a.txt"}, "w2"),
            call("write", {"path": "a.txt", "content": "fixed"}, "w3"),
            text("done"),
        ],
    )
    face = Face()
    finished = await agent.run_turn("write a.txt", face)

    assert finished.stop_reason == "done"
    assert (ws / "a.txt").read_text() == "fixed"
    by_id = {m["tool_call_id"]: m["content"] for m in agent.messages if m["role"] == "tool"}
    assert by_id["w1"].startswith("Error: arguments are not valid JSON (Expecting value")
    assert by_id["w2"] == "Error: missing required field 'content'. Fix the call and try again."
    # The bad JSON was replaced by the parsed (here: empty) object before going back.
    first = model.requests[1].messages[2]["tool_calls"][0]["function"]
    assert first == {"name": "write", "arguments": "{}"}
    assert_valid_history(agent.messages)
    errors = [e for e in face.of(ToolCallFinished) if e.is_error]
    assert [e.call_id for e in errors] == ["w1", "w2"]


async def test_calls_written_as_text_run_and_are_stored_as_calls(ws: Path) -> None:
    # The reply is the call and nothing else: a call quoted amid prose would not run.
    written = '```json\n{"name": "write", "arguments": {"path": "t.txt", "content": "x",}}\n```'
    agent, model = make_agent(ws, [text(written), text("Created t.txt.")])
    finished = await agent.run_turn("make t.txt", Face())

    assert finished.final_text == "Created t.txt."
    assert (ws / "t.txt").read_text() == "x"
    stored = model.requests[1].messages[2]
    assert not stored["content"]
    assert json.loads(stored["tool_calls"][0]["function"]["arguments"]) == {
        "path": "t.txt",
        "content": "x",
    }


async def test_max_steps(ws: Path) -> None:
    agent, model = make_agent(
        ws, [call("ls", {}), call("ls", {"path": "."}), text("unused")], max_steps=2
    )
    face = Face()
    finished = await agent.run_turn("loop", face)
    assert (finished.stop_reason, finished.final_text) == (
        "max_steps",
        "Stopped: reached the step limit (2).",
    )
    assert len(model.requests) == 2 and len(results(agent)) == 2
    assert face.of(Notice) == [Notice(finished.final_text, "warning")]
    assert_valid_history(agent.messages)


async def test_model_error_ends_the_turn_with_an_error_event(ws: Path) -> None:
    agent, _ = make_agent(ws, [[ModelError("model server error 500: boom")]])
    face = Face()
    finished = await agent.run_turn("x", face)
    assert (finished.stop_reason, finished.final_text) == ("error", "model server error 500: boom")
    assert face.of(ErrorEvent) == [ErrorEvent("model server error 500: boom")]


async def test_reasoning_goes_back_with_each_reply(ws: Path) -> None:
    # A template that keeps earlier thinking (Qwen 3.6) then re-reads the replies as generated.
    write = call("write", {"path": "a.txt", "content": "a\n"})
    replies = [[ReasoningPiece("write first"), *write], [ReasoningPiece("done"), *text("Done.")]]
    agent, model = make_agent(ws, [*replies, text("ok")])
    await agent.run_turn("write a.txt", Face())
    await agent.run_turn("thanks", Face())
    sent = model.requests[2].messages
    assert [m.get("reasoning_content") for m in sent if m["role"] == "assistant"] == [
        "write first",
        "done",
    ]
    assert_session_mirrors(agent)
