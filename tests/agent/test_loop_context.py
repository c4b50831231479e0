"""Compaction: before the context fills, and when the server says the request does not fit."""

from __future__ import annotations

import json
from pathlib import Path

from agent.context.prompt import SUMMARY_INSTRUCTION, SUMMARY_PREFIX, TokenCounter
from agent.events import Notice
from agent.model.endpoint import ContextOverflow
from agent.model.scripted import Script, text
from agent.sessions.store import Session
from tests.agent.loop_kit import Face, assert_session_mirrors, make_agent
from tools.registry import ToolRegistry


async def test_compaction_before_the_context_fills(ws: Path) -> None:
    session = Session.create(ws)
    long = "word " * 150
    history = []
    for i in range(4):
        history += [
            {"role": "user", "content": f"question {i} {long}"},
            {"role": "assistant", "content": f"answer {i} {long}"},
        ]
    for message in history:
        session.append_message(message)
    agent, model = make_agent(
        ws, [text("SUMMARY"), text("fresh")], session=session, registry=ToolRegistry(), n_ctx=1000
    )
    agent.counter = TokenCounter(None)  # offline estimate: no server here
    face = Face()
    finished = await agent.run_turn("last question", face)

    assert finished.final_text == "fresh"
    summary_request = model.requests[0]
    assert summary_request.reply_format.free
    sent = model.requests[1].messages
    # The summary is asked for after the conversation's start as it was (the cached prefix).
    asked = summary_request.messages
    assert asked[:3] == [sent[0], *history[:2]]
    # The old part ends with a user message: the request is folded into it, not a second one.
    assert asked[3] == {
        "role": "user",
        "content": f"{history[2]['content']}\n\n{SUMMARY_INSTRUCTION}",
    }
    assert len(asked) == 4
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
    assert summary.tools == model.requests[4].tools  # the same prefix as the overflowed request
    assert summary.messages[0] == model.requests[4].messages[0]
    assert SUMMARY_INSTRUCTION in json.dumps(summary.messages[-1])
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


async def test_a_summary_request_that_does_not_fit_falls_back_to_a_transcript(ws: Path) -> None:
    session = Session.create(ws)
    for i in range(4):
        session.append_message({"role": "user", "content": f"question {i} " + "word " * 150})
        session.append_message({"role": "assistant", "content": f"answer {i}"})
    overflow = ContextOverflow("request exceeds the available context size", 9030, 8192)
    replies: list[Script] = [[overflow], text("SUMMARY"), text("fresh")]
    agent, model = make_agent(ws, replies, session=session, registry=ToolRegistry(), n_ctx=1000)
    agent.counter = TokenCounter(None)
    finished = await agent.run_turn("last question", Face())
    assert finished.final_text == "fresh"
    transcript = model.requests[1]  # the capped transcript under the summarizer's instruction
    assert transcript.messages[0] == {"role": "system", "content": SUMMARY_INSTRUCTION}
    assert model.requests[2].messages[1]["content"].startswith(SUMMARY_PREFIX + "SUMMARY")
