"""Sub-agents on the scripted model: the task tool, restricted tools, the main agent's rules,
no recursion, the turn's account, and what the session keeps (``agent.subagents``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.config import Config, Mode
from agent.events import (
    PermissionDecision,
    PermissionRequest,
    SubagentFinished,
    SubagentStarted,
    SubagentStep,
    ToolCallStarted,
    TurnFinished,
)
from agent.loop.agent import Agent
from agent.model.scripted import ScriptedModel, Step, call, text
from agent.sessions.replay import read_records
from agent.sessions.store import Session
from tests.agent.loop_kit import Face
from tests.factory import ENDPOINT, make_agent

pytestmark = pytest.mark.usefixtures("beecode_dirs")


def task(agent: str, prompt: str, call_id: str = "t1") -> list[Step]:
    return call("task", {"description": f"{agent} job", "prompt": prompt, "agent": agent}, call_id)


def agent_with(ws: Path, replies: list[list[Step]], mode: Mode = "yolo") -> Agent:
    config = Config(endpoint=ENDPOINT, tool_mode="native", permission_mode=mode)
    return make_agent(ws, replies, config)


def model_of(agent: Agent) -> ScriptedModel:
    assert isinstance(agent.model, ScriptedModel)
    return agent.model


def tool_result(agent: Agent, call_id: str) -> str:
    return str(next(m["content"] for m in agent.messages if m.get("tool_call_id") == call_id))


async def test_explore_searches_in_its_own_context_and_returns_only_its_answer(
    workspace: Path,
) -> None:
    (workspace / "app.py").write_text("def answer():\n    return 42\n")
    replies = [
        task("explore", "Where is answer defined?"),
        call("grep", {"pattern": "def answer"}, "g1"),
        text("answer is defined in app.py:1."),
        text("It is in app.py."),
    ]
    agent, face = agent_with(workspace, replies), Face()
    finished = await agent.run_turn("find answer", face)

    assert finished.final_text == "It is in app.py."
    assert tool_result(agent, "t1").startswith("answer is defined in app.py:1.")
    assert not any(m.get("tool_call_id") == "g1" for m in agent.messages)  # its work stays its own
    sub_first = model_of(agent).requests[1]
    assert [m["role"] for m in sub_first.messages] == ["system", "user"]
    assert sub_first.messages[1]["content"] == "Where is answer defined?"
    assert "Your role: explore" in sub_first.messages[0]["content"]
    assert sorted(t["function"]["name"] for t in sub_first.tools) == ["glob", "grep", "ls", "read"]
    [started] = face.of(SubagentStarted)
    steps = face.of(SubagentStep)
    [done] = face.of(SubagentFinished)
    assert (started.agent, done.agent, done.stop_reason) == ("explore", "explore", "done")
    assert [type(s.event).__name__ for s in steps][:2] == ["StepStats", "ToolCallStarted"]
    assert len(done.stats) == 2 and done.result == "answer is defined in app.py:1."
    assert [e.call_id for e in face.of(ToolCallStarted)] == ["t1"]  # the sub's calls are steps
    # A resume reads the main conversation only; the sub-agent's records are kept apart.
    assert [m["role"] for m in Session.open(agent.session.id).messages()] == [
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    kept = [r for r in read_records(agent.session.path) if r["type"] == "subagent"]
    assert kept and all(r["agent"] == "explore" for r in kept)


async def test_explore_cannot_write(workspace: Path) -> None:
    replies = [
        task("explore", "make x.txt"),
        call("write", {"path": "x.txt", "content": "x"}, "w1"),
        text("I cannot write."),
        text("done"),
    ]
    agent = agent_with(workspace, replies)
    await agent.run_turn("go", Face())
    assert not (workspace / "x.txt").exists()
    sub = model_of(agent).requests[2].messages
    refused = next(m["content"] for m in sub if m.get("tool_call_id") == "w1")
    assert "unknown tool 'write'" in refused


async def test_plan_mode_holds_for_a_sub_agent(workspace: Path) -> None:
    replies = [
        task("general", "make x.txt"),
        call("write", {"path": "x.txt", "content": "x"}, "w1"),
        text("Plan mode refused the write."),
        text("done"),
    ]
    agent = agent_with(workspace, replies, mode="plan")
    await agent.run_turn("go", Face())
    assert not (workspace / "x.txt").exists()
    sub = model_of(agent).requests[2].messages
    refused = next(m["content"] for m in sub if m.get("tool_call_id") == "w1")
    assert "plan mode is read-only" in refused


async def test_a_sub_agent_asks_through_the_same_face_labelled(workspace: Path) -> None:
    replies = [
        task("general", "make x.txt"),
        call("write", {"path": "x.txt", "content": "x"}, "w1"),
        text("The user denied it."),
        text("done"),
    ]
    agent, face = agent_with(workspace, replies, mode="ask"), Face(PermissionDecision("deny"))
    await agent.run_turn("go", face)
    [asked] = face.of(PermissionRequest)
    assert (asked.agent, asked.tool, asked.subject) == ("general", "write", "x.txt")
    assert not (workspace / "x.txt").exists()


async def test_no_recursion(workspace: Path) -> None:
    replies = [
        task("general", "delegate"),
        task("general", "again", "t2"),
        text("I could not delegate."),
        text("done"),
    ]
    agent = agent_with(workspace, replies)
    await agent.run_turn("go", Face())
    sub = model_of(agent).requests[1]
    assert "task" not in [t["function"]["name"] for t in sub.tools]
    assert "task" in [t["function"]["name"] for t in model_of(agent).requests[0].tools]
    refused = next(
        m["content"] for m in model_of(agent).requests[2].messages if m.get("tool_call_id") == "t2"
    )
    assert "unknown tool 'task'" in refused
    assert len(model_of(agent).requests) == 4  # no second sub-agent started


async def test_sub_agent_changes_are_the_turns(workspace: Path) -> None:
    replies = [
        task("general", "make b.txt"),
        call("write", {"path": "b.txt", "content": "b\n"}, "w1"),
        call("bash", {"command": "echo made"}, "b1"),
        text("Made b.txt."),
        text("The sub-agent made b.txt."),
    ]
    agent, face = agent_with(workspace, replies), Face()
    finished = await agent.run_turn("go", face)
    assert (workspace / "b.txt").read_text() == "b\n"
    assert finished.facts.created == ["b.txt"]  # from the turn's checkpoint
    assert [c.command for c in finished.facts.commands] == ["echo made"]
    from agent.checkpoints.store import Checkpoints

    undone = Checkpoints(workspace).turn_changes(agent.session.id, agent.session.turn_mark)
    assert undone == {"b.txt": "A"}
    [done] = face.of(SubagentFinished)
    assert done.facts.created == ["b.txt"]
    assert isinstance(face.of(TurnFinished)[0], TurnFinished)


async def test_an_unknown_agent_is_refused_with_the_names(workspace: Path) -> None:
    replies = [task("nosuch", "x"), text("ok")]
    agent = agent_with(workspace, replies)
    await agent.run_turn("go", Face())
    refused = tool_result(agent, "t1")
    assert "nosuch" in refused and "explore" in refused and "general" in refused
    assert len(model_of(agent).requests) == 2


def test_headless_json_carries_each_sub_agent(workspace: Path) -> None:
    import io
    import json

    from agent.faces.headless import run_agent

    (workspace / "app.py").write_text("x = 1\n")
    replies = [
        task("explore", "What is x?"),
        call("read", {"path": "app.py"}, "r1"),
        text("x is 1 (app.py:1)."),
        text("x is 1."),
    ]
    agent = agent_with(workspace, replies, mode="ask")
    out, err = io.StringIO(), io.StringIO()
    try:
        status = run_agent(agent, "what is x", "json", out, err, agent.session.id)
    finally:
        agent.close()
    result = json.loads(out.getvalue())
    assert status == 0 and result["result"] == "x is 1."
    [sub] = result["subagents"]
    assert (sub["agent"], sub["stop_reason"], sub["result"]) == (
        "explore",
        "done",
        "x is 1 (app.py:1).",
    )
    assert sub["figures"]["requests"] == 2 and sub["changes"]["created"] == []
    assert [c["name"] for c in result["tool_calls"]] == ["task"]  # the sub's calls are its own


async def test_a_project_agent_in_an_untrusted_workspace_gets_read_only_tools(
    workspace: Path,
) -> None:
    from agent.events import Notice

    folder = workspace / ".beecode" / "agents"
    folder.mkdir(parents=True)
    (folder / "writer.md").write_text(
        "---\nname: writer\ndescription: Writes docs\ntools: Write, Read\nmodel: opus\n---\n"
        "You write docs.\n"
    )
    replies = [
        task("writer", "write x.txt"),
        call("write", {"path": "x.txt", "content": "x"}, "w1"),
        text("Could not write."),
        text("done"),
    ]
    agent, face = agent_with(workspace, replies), Face()
    await agent.run_turn("go", face)
    sub = model_of(agent).requests[1]
    assert [t["function"]["name"] for t in sub.tools] == ["read"]
    assert "You write docs." in sub.messages[0]["content"]
    assert not (workspace / "x.txt").exists()
    notes = [n.message for n in face.of(Notice)]
    assert sum("model 'opus' ignored" in n for n in notes) == 1
    main_tools = model_of(agent).requests[0].tools
    task_schema = next(t for t in main_tools if t["function"]["name"] == "task")
    assert task_schema["function"]["parameters"]["properties"]["agent"]["enum"] == [
        "explore",
        "general",
        "writer",
    ]


def test_on_a_server_with_several_slots_each_agent_keeps_its_own() -> None:
    from agent.model.endpoint import FREE, OpenAIChatModel
    from agent.subagents.slots import SlotGuard

    model = OpenAIChatModel("http://127.0.0.1:9", top_k=20)
    guard = SlotGuard("http://127.0.0.1:9", None, 3, None)
    main, sub = guard.main_model(model), guard.model_for_subagent(model)
    assert isinstance(main, OpenAIChatModel) and isinstance(sub, OpenAIChatModel)
    assert main._request([], [], FREE)["extra_body"] == {"top_k": 20, "id_slot": 0}
    assert sub._request([], [], FREE)["extra_body"] == {"top_k": 20, "id_slot": 2}
    assert model._request([], [], FREE)["extra_body"] == {"top_k": 20}  # the original as it was
    one = SlotGuard("http://127.0.0.1:9", None, 1, None)
    assert one.main_model(model) is model and one.model_for_subagent(model) is model


def test_a_server_that_cannot_be_asked_just_runs_it(workspace: Path) -> None:
    from agent.subagents.slots import SlotGuard

    config = Config(endpoint="http://127.0.0.1:9/v1")
    assert SlotGuard.for_server("http://127.0.0.1:9", config) is None
