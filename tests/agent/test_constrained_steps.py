"""The constrained step policy in the loop: step objects become calls and the answer, what
each step offers, the closing report, and the auto switch from native calls."""

from __future__ import annotations

import json
from pathlib import Path

from agent.events import Notice, TextDelta
from agent.loop.policy import StepPolicy
from agent.model.scripted import call, text
from agent.sessions.replay import read_records
from agent.sessions.store import Session
from agent.small.report import REPORT_PROMPT, WITHHELD
from agent.small.schema import CHOICE_FORMAT, CHOICE_PROMPT, STEP_LEFT_OUT
from tests.agent.loop_kit import Face, assert_valid_history, make_agent, offered, results

ECHO = '{"name": "bash", "arguments": {"command": "echo hi"}}'
GO_ON = text('"continue"')  # the choice after a command that exited 0: not done


async def test_constrained_steps_become_calls_and_the_answer(ws: Path) -> None:
    write = '{"name": "write", "arguments": {"path": "c.py", "content": "c = 1"}}'
    read = '{"name": "read", "arguments": {"path": "c.py"}}'
    agent, model = make_agent(
        ws,
        [
            text(write),
            text('{"answer": "Made it."}'),
            text(read),
            text('{"answer": "Made c.py."}'),
        ],
        tool_mode="constrained",
    )
    face = Face()
    finished = await agent.run_turn("make c.py", face)

    assert (ws / "c.py").read_text() == "c = 1"
    assert finished.final_text == "Made c.py."
    # No raw JSON, and the answer set aside never reached the face.
    assert [e.text for e in face.of(TextDelta)] == ["Made c.py."]
    assert all(r.reply_format.name == "step" for r in model.requests)
    assert "# Reply format" in model.requests[0].messages[0]["content"]
    # The answer right after the program was written was set aside for one step that had to
    # be a tool call.
    assert "answer" in offered(model.requests[1])
    assert "answer" not in offered(model.requests[2]) and "read" in offered(model.requests[2])
    assert [m["role"] for m in agent.messages[1:]] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ]
    assert "Made it." not in [m.get("content") for m in agent.messages]
    assert agent.messages[-1] == {"role": "assistant", "content": "Made c.py."}


async def test_a_small_model_repeating_a_finished_step_is_asked_to_report(ws: Path) -> None:
    said = '{"name": "answer", "arguments": {"text": "It printed hi."}}'
    agent, model = make_agent(
        ws, [text(ECHO), GO_ON, text(ECHO), text(said)], tool_mode="constrained"
    )
    face = Face()
    finished = await agent.run_turn("run echo hi", face)

    assert (finished.stop_reason, finished.final_text) == ("done", "It printed hi.")
    assert [e.text for e in face.of(TextDelta)] == ["It printed hi."]
    report = model.requests[3]
    # The report is a step whose only choice is the answer; the tools described stay the same.
    assert offered(report) == {"answer"}
    assert report.tools == model.requests[0].tools
    assert report.messages[-1] == {"role": "user", "content": REPORT_PROMPT}
    assert report.messages[-2]["content"] == "hi\n[exit code 0]"  # no note to copy
    assert agent.messages[-1] == {"role": "assistant", "content": "It printed hi."}
    assert_valid_history(agent.messages)


async def test_the_report_request_is_never_saved_as_the_users_words(ws: Path) -> None:
    said = '{"name": "answer", "arguments": {"text": "It printed hi."}}'
    agent, model = make_agent(
        ws,
        [text(ECHO), GO_ON, text(ECHO), text(said), text('{"answer": "Yes."}')],
        tool_mode="constrained",
    )
    await agent.run_turn("run echo hi", Face())
    await agent.run_turn("did it work?", Face())

    users = ["run echo hi", "did it work?"]
    assert [m["content"] for m in agent.messages if m["role"] == "user"] == users
    saved = [r["message"] for r in read_records(agent.session.path) if r["type"] == "message"]
    assert [m["content"] for m in saved if m["role"] == "user"] == users
    # The next turn, and a resumed session, see the report after the result it closed.
    sent = model.requests[4].messages
    assert [m["role"] for m in sent[-3:]] == ["tool", "assistant", "user"]
    resumed, _ = make_agent(ws, [], session=Session.open(agent.session.id))
    assert REPORT_PROMPT not in [m.get("content") for m in resumed.messages]
    assert resumed.messages[1:] == agent.messages[1:]


async def test_a_report_in_step_format_is_read_as_one(ws: Path) -> None:
    said = '{"name": "answer", "arguments": {"text": "It printed hi."}}'
    agent, _ = make_agent(ws, [text(ECHO), GO_ON, text(ECHO), text(said)], tool_mode="constrained")
    assert (await agent.run_turn("run echo hi", Face())).final_text == "It printed hi."


async def test_a_report_with_no_words_is_the_last_result(ws: Path) -> None:
    agent, _ = make_agent(ws, [text(ECHO), GO_ON, text(ECHO), text(ECHO)], tool_mode="constrained")
    face = Face()
    finished = await agent.run_turn("run echo hi", face)
    assert finished.final_text == "Last result: hi\n[exit code 0]"
    assert face.of(TextDelta) == []  # nothing the model said
    assert agent.messages[-1] == {"role": "assistant", "content": finished.final_text}


async def test_plan_mode_offers_a_small_model_only_reads(ws: Path) -> None:
    agent, model = make_agent(ws, [text('{"answer": "ok"}')], tool_mode="constrained", mode="plan")
    await agent.run_turn("plan it", Face())
    assert offered(model.requests[0]) == {"read", "ls", "answer"}


async def test_constrained_steps_offer_no_tools_bash_can_stand_in_for(ws: Path) -> None:
    agent, model = make_agent(ws, [text('{"answer": "ok"}')], tool_mode="constrained")
    await agent.run_turn("x", Face())
    described = [t["function"]["name"] for t in model.requests[0].tools]
    assert "bash" in described and "answer" in described and not STEP_LEFT_OUT & set(described)
    assert offered(model.requests[0]) == set(described)


async def test_auto_never_switches_a_model_whose_calls_are_invalid(ws: Path) -> None:
    """Invalid native calls come back to the model as data, every time: the session keeps its
    policy, its system prompt (the cached prefix) and free replies."""
    bad = [call("write", "{bad"), call("write", {"path": "a"})]
    agent, model = make_agent(ws, [*bad, text("ok"), *bad, text("ok")], tool_mode="auto")
    face = Face()
    await agent.run_turn("x", face)
    await agent.run_turn("y", face)

    assert all(r.reply_format.free for r in model.requests)
    assert type(agent.policy) is StepPolicy and face.of(Notice) == []
    assert {r.messages[0]["content"] for r in model.requests} == {"You are a test."}
    assert all(r.startswith("Error: ") for r in results(agent))


async def test_a_small_model_is_told_its_policy_once(ws: Path) -> None:
    answer = text(json.dumps({"name": "answer", "arguments": {"text": "hi"}}))
    agent, _ = make_agent(ws, [answer, answer], tool_mode="constrained")
    face = Face()
    await agent.run_turn("x", face)
    await agent.run_turn("y", face)
    said = 'Constrained steps this session (tool_mode = "constrained").'
    assert face.of(Notice) == [Notice(said)]


async def test_no_request_shows_a_small_model_an_answer_to_copy(ws: Path) -> None:
    """Worked answers were copied into reports of runs that printed nothing: the guide shows
    calls only, and the report request has no words a report could take."""
    agent, model = make_agent(
        ws, [text(ECHO), GO_ON, text(ECHO), text("")], tool_mode="constrained"
    )
    await agent.run_turn("run echo hi", Face())

    system = model.requests[0].messages[0]["content"]
    assert '"name": "answer"' not in system and "printed" not in system
    assert model.requests[-1].messages[-1]["content"] == REPORT_PROMPT
    assert not any(c.isdigit() or c == "." for c in REPORT_PROMPT[:-1])


async def test_after_a_step_that_may_have_finished_the_model_chooses_done_or_not(ws: Path) -> None:
    said = '{"name": "answer", "arguments": {"text": "It printed hi."}}'
    replies = [text(ECHO), GO_ON, text(ECHO.replace("hi", "ho")), text('"done"'), text(said)]
    agent, model = make_agent(ws, replies, tool_mode="constrained")
    finished = await agent.run_turn("run echo hi, then echo ho", Face())

    assert (finished.stop_reason, finished.final_text) == ("done", "It printed hi.")
    choice, then, report = model.requests[1], model.requests[2], model.requests[4]
    assert choice.reply_format == CHOICE_FORMAT and choice.reply_format.max_tokens == 8
    assert choice.messages[-1] == {"role": "user", "content": CHOICE_PROMPT}
    assert choice.tools == model.requests[0].tools  # the same prompt prefix
    assert "answer" not in offered(then)  # not done: the next step is an action
    assert offered(report) == {"answer"} and report.messages[-1]["content"] == REPORT_PROMPT
    # Neither the question nor the choice is kept: the history is the calls, then the answer.
    kept = [m.get("content") for m in agent.messages]
    assert CHOICE_PROMPT not in kept and '"done"' not in kept and '"continue"' not in kept
    assert_valid_history(agent.messages)


async def test_a_report_the_facts_contradict_is_left_out_and_the_facts_answer(ws: Path) -> None:
    said = '{"name": "answer", "arguments": {"text": "Created README.md."}}'
    replies = [text(ECHO), GO_ON, text(ECHO), text(said), text(said)]
    agent, model = make_agent(ws, replies, tool_mode="constrained")
    face = Face()
    finished = await agent.run_turn("run echo hi", face)

    # Asked for once more, with no account of what was wrong to copy; said again, left out.
    again = model.requests[-1]
    assert offered(again) == {"answer"} and again.messages[-1]["content"] == REPORT_PROMPT

    assert finished.final_text == WITHHELD
    assert finished.facts.withheld == "Created README.md."
    assert finished.facts.doubts == ["the report names README.md; no such file is in the workspace"]
    assert [d.text for d in face.of(TextDelta)] == [WITHHELD]  # the false report is never shown
    assert agent.messages[-1] == {"role": "assistant", "content": WITHHELD}
