"""Compaction: before the context fills, and when the server says the request does not fit."""

from __future__ import annotations

import json
from pathlib import Path

from agent.context.prompt import SUMMARY_INSTRUCTION, SUMMARY_PREFIX, TokenCounter
from agent.loop.events import Notice
from agent.model.endpoint import ContextOverflow
from agent.model.scripted import text
from agent.sessions.store import Session
from tests.agent.loop_kit import Face, assert_session_mirrors, make_agent
from tools.registry import ToolRegistry


async def test_compaction_before_the_context_fills(ws: Path) -> None:
    session = Session.create(ws)
    long = "word " * 150
    for i in range(4):
        session.append_message({"role": "user", "content": f"question {i} {long}"})
        session.append_message({"role": "assistant", "content": f"answer {i} {long}"})
    agent, model = make_agent(
        ws, [text("SUMMARY"), text("fresh")], session=session, registry=ToolRegistry(), n_ctx=1000
    )
    agent.counter = TokenCounter(None)  # offline estimate: no server here
    face = Face()
    finished = await agent.run_turn("last question", face)

    assert finished.final_text == "fresh"
    summary_request = model.requests[0]
    assert summary_request.tools == [] and summary_request.reply_format.free
    assert "answer 0" in json.dumps(summary_request.messages)
    sent = model.requests[1].messages
    assert len(sent) == 8  # system, the summary, the 6 most recent messages
    assert sent[1]["content"].startswith(SUMMARY_PREFIX + "SUMMARY")
    assert "answer 0" not in json.dumps(sent)
    assert any(e.message.startswith("Compacted the conversation") for e in face.of(Notice))
    assert_session_mirrors(agent)


async def test_context_overflow_compacts_and_retries_once(ws: Path) -> None:
    overflow = ContextOverflow(
        "request (9030 tokens) exceeds the available context size", 9030, 8192
    )
    agent, model = make_agent(
        ws,
        [text("a1"), text("a2"), text("a3"), text("a4"), [overflow], text("SUMMARY"), text("fine")],
    )
    for i in range(4):
        await agent.run_turn(f"q{i}", Face())
    finished = await agent.run_turn("q5", Face())
    assert finished.final_text == "fine"
    summary = model.requests[5]
    assert summary.tools == [] and SUMMARY_INSTRUCTION in json.dumps(summary.messages)
    # The retry sent the compacted history: the summary in place of the first turns.
    assert model.requests[6].messages[1]["content"].startswith(SUMMARY_PREFIX + "SUMMARY")
    assert model.requests[6].messages[-1] == {"role": "user", "content": "q5"}

    agent2, _ = make_agent(ws, [[overflow], [overflow]])
    finished = await agent2.run_turn("huge", Face())
    assert finished.stop_reason == "error"
    assert "does not fit the context" in finished.final_text


async def test_one_long_tool_round_is_trimmed_not_summarized(ws: Path) -> None:
    session = Session.create(ws)
    asked = {"id": "r1", "type": "function", "function": {"name": "read", "arguments": "{}"}}
    session.append_message({"role": "user", "content": "read it"})
    session.append_message({"role": "assistant", "content": "", "tool_calls": [asked]})
    session.append_message({"role": "tool", "tool_call_id": "r1", "content": "x" * 9000})
    agent, model = make_agent(ws, [], session=session)

    note = await agent.compact()
    assert note == "Compacted the conversation: 4 messages -> 4."
    assert model.requests == []  # nothing old to summarize
    assert 0 < len(agent.messages[-1]["content"]) <= 2_000
    assert_session_mirrors(agent)
    assert await agent.compact() == "Nothing to compact: the conversation is one short exchange."
