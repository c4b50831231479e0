"""Skills and commands in the agent: the real loop, tools, permissions and sessions, a scripted
model, and skill folders written in tmp dirs."""

from __future__ import annotations

import io
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from agent.commands.turns import CommandAgent
from agent.config import Mode
from agent.events import PermissionDecision, PermissionRequest, TurnFinished
from agent.faces.headless import run_agent
from agent.model.scripted import Script, ScriptedModel, call, text
from agent.sessions.replay import read_records
from tests.agent.loop_kit import Face, offered
from tests.scripted import make_agent
from tests.skills.conftest import write_skill

GREET = (
    "---\nname: greet\ndescription: Greet someone. Use to say hello.\n{extra}---\n"
    "Say hello to $1.\n"
)


@pytest.fixture(autouse=True)
def isolated(isolated_home: Path) -> Path:
    return isolated_home


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    return path


def greet_skill(ws: Path, extra: str = "") -> Path:
    return write_skill(ws / ".agents/skills", "greet", GREET.format(extra=extra))


def make(
    ws: Path, replies: Iterable[Script], mode: Mode = "yolo", **config: Any
) -> tuple[CommandAgent, ScriptedModel]:
    config.setdefault("trusted_workspaces", [str(ws)])
    agent, model = make_agent(ws, replies, mode=mode, skills=True, **config)
    assert isinstance(agent, CommandAgent)
    return agent, model


def tool_results(agent: CommandAgent) -> list[str]:
    return [m["content"] for m in agent.messages if m["role"] == "tool"]


async def test_the_model_activates_a_skill_by_the_tool(ws: Path) -> None:
    greet_skill(ws)
    agent, model = make(ws, [call("skill", {"name": "greet"}), text("Hello, Ada.")])
    finished = await agent.run_turn("greet Ada", Face())
    assert finished.stop_reason == "done"
    system = model.requests[0].messages[0]["content"]
    assert "# Skills\n" in system and "- greet: Greet someone. Use to say hello." in system
    assert "Say hello" not in system  # only the catalogue is in the prefix
    schema = next(t for t in model.requests[0].tools if t["function"]["name"] == "skill")
    enum = schema["function"]["parameters"]["properties"]["name"]["enum"]
    assert "greet" in enum and "write-tests" in enum  # project and bundled skills
    assert tool_results(agent)[0].startswith('<skill_content name="greet">\nSay hello to .')


async def test_the_user_invokes_a_skill_with_arguments(ws: Path) -> None:
    greet_skill(ws)
    agent, model = make(ws, [text("Hello, Ada.")])
    await agent.run_turn("/greet Ada Lovelace", Face())
    sent = model.requests[0].messages[-1]["content"]
    assert sent.startswith('/greet Ada Lovelace\n<skill_content name="greet">\nSay hello to Ada.')
    # Loaded by the user: the model activating it again gets a short note, not the body twice.
    agent.model = ScriptedModel([call("skill", {"name": "greet"}), text("ok")])
    await agent.run_turn("again", Face())
    assert tool_results(agent)[-1] == "Skill greet is already loaded above; follow it."


async def test_allowed_tools_narrow_the_skill_turn_only(ws: Path) -> None:
    greet_skill(ws, "allowed-tools: Read Bash(echo:*)\n")
    (ws / "a.txt").write_text("A\n")
    replies = [
        call("write", {"path": "b.txt", "content": "no"}),
        call("bash", {"command": "echo hi"}),
        call("bash", {"command": "echo hi && rm a.txt"}),
        call("read", {"path": "a.txt"}),
        text("done"),
        call("write", {"path": "b.txt", "content": "yes"}),
        text("written"),
    ]
    agent, model = make(ws, replies)
    await agent.run_turn("/greet Ada", Face())
    results = tool_results(agent)
    assert "the skill greet allows only: Read, Bash(echo:*)" in results[0]
    assert results[1].startswith("hi") and "allows only" in results[2]
    assert "A" in results[3] and "allows only" not in results[3]
    assert (ws / "a.txt").exists() and not (ws / "b.txt").exists()
    assert len(model.requests[0].tools) == len(model.requests[-1].tools)  # schemas unchanged
    await agent.run_turn("now write b.txt", Face())  # a new turn: every tool again
    assert (ws / "b.txt").read_text() == "yes"


async def test_a_model_activated_skill_narrows_the_rest_of_its_turn(ws: Path) -> None:
    greet_skill(ws, "allowed-tools: [read]\n")
    replies = [call("skill", {"name": "greet"}), call("bash", {"command": "echo x"}), text("ok")]
    agent, _ = make(ws, replies)
    await agent.run_turn("greet", Face())
    assert "allows only: read" in tool_results(agent)[1]


async def test_untrusted_project_skill_asks_once_before_its_body_is_used(ws: Path) -> None:
    greet_skill(ws)
    replies = [
        call("skill", {"name": "greet"}),
        text("a"),
        call("skill", {"name": "greet"}),
        text("b"),
    ]
    agent, _ = make(ws, replies, mode="ask", trusted_workspaces=[])
    face = Face(PermissionDecision("allow_once"))
    await agent.run_turn("greet", face)
    asked = face.of(PermissionRequest)
    assert [(r.tool, r.kind, r.subject) for r in asked] == [("skill", "execute", "greet")]
    assert tool_results(agent)[0].startswith("<skill_content")
    second = Face()  # no answer queued: a second request would fail the test
    await agent.run_turn("again", second)
    assert not second.of(PermissionRequest)


async def test_untrusted_skill_refused_by_the_user_is_not_used(ws: Path) -> None:
    greet_skill(ws)
    agent, model = make(ws, [], mode="ask", trusted_workspaces=[])
    face = Face(PermissionDecision("deny"))
    finished = await agent.run_turn("/greet Ada", face)
    assert finished.stop_reason == "error" and not model.requests
    assert len(face.of(PermissionRequest)) == 1 and face.of(TurnFinished) == [finished]
    logged = [r for r in read_records(agent.session.path) if r["type"] == "permission"]
    assert [(r["subject"], r["verdict"], r["reason"]) for r in logged] == [
        ("greet", "deny", "user: deny")
    ]
    # Bundled and user skills never ask.
    agent.model = ScriptedModel([text("ok")])
    await agent.run_turn("/write-tests src/a.py", Face())
    assert '<skill_content name="write-tests">' in agent.messages[-2]["content"]


async def test_custom_commands_with_nesting_and_frontmatter(ws: Path, isolated: Path) -> None:
    review = ws / ".beecode/commands/team/review.md"
    review.parent.mkdir(parents=True)
    review.write_text(
        "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $1 for bugs.\n"
    )
    (ws / ".claude/commands").mkdir(parents=True)
    (ws / ".claude/commands/fix.md").write_text("Fix the failing test in $ARGUMENTS\n")
    mine = isolated.parent / "config/commands"
    mine.mkdir(parents=True)
    (mine / "fix.md").write_text("the user's own fix\n")
    agent, model = make(ws, [text("a"), text("b")])
    command = agent.commands.get("team:review")
    assert command is not None and (command.help, command.args) == ("Review a file", "FILE")
    await agent.run_turn("/team:review src/app.py", Face())
    await agent.run_turn("/fix tests/test_x.py", Face())
    assert model.requests[0].messages[-1]["content"] == "Review src/app.py for bugs.\n"
    assert model.requests[1].messages[-1]["content"] == "Fix the failing test in tests/test_x.py\n"
    assert any("/fix" in c and "hidden by the project command" in c for c in agent.commands.clashes)


async def test_a_skill_body_survives_compaction(ws: Path) -> None:
    greet_skill(ws)
    replies = [call("skill", {"name": "greet"}), text("hi"), *[text(f"t{n}") for n in range(4)]]
    agent, _ = make(ws, [*replies, text("SUMMARY")])
    await agent.run_turn("greet", Face())
    for n in range(4):
        await agent.run_turn(f"turn {n}", Face())
    await agent.compact()
    summary = agent.messages[1]["content"]
    assert "SUMMARY" in summary and '<skill_content name="greet">\nSay hello to .' in summary
    assert not any(m["role"] == "tool" for m in agent.messages)  # the tool round went


async def test_a_skill_folder_outside_the_workspace_is_readable(ws: Path, isolated: Path) -> None:
    root = write_skill(
        isolated / ".agents/skills",
        "mine",
        GREET.format(extra=""),
        **{"references__GUIDE.md": "the guide\n"},
    ).parent
    guide = str(root / "references/GUIDE.md")
    replies = [
        call("read", {"path": guide}),
        text("read it"),
        call("write", {"path": guide, "content": "x"}),
    ]
    agent, _ = make(ws, [*replies, text("no")], mode="ask")
    await agent.run_turn("read the guide", Face())
    assert "the guide" in tool_results(agent)[0]
    face = Face(PermissionDecision("deny"))
    await agent.run_turn("change it", face)
    assert len(face.of(PermissionRequest)) == 1  # writing there still asks
    assert (root / "references/GUIDE.md").read_text() == "the guide\n"


async def test_constrained_steps_offer_the_skill_tool(ws: Path) -> None:
    greet_skill(ws)
    step = json.dumps({"name": "skill", "arguments": {"name": "greet"}})
    done = json.dumps({"name": "answer", "arguments": {"text": "Said hello."}})
    agent, model = make(ws, [text(step), text(done)], tool_mode="constrained")
    finished = await agent.run_turn("greet", Face())
    assert "skill" in offered(model.requests[0])
    assert tool_results(agent)[0].startswith('<skill_content name="greet">')
    assert finished.final_text == "Said hello."


def test_headless_runs_a_slash_skill(ws: Path) -> None:
    greet_skill(ws)
    agent, model = make(ws, [text("Hello, Ada.")])
    out, err = io.StringIO(), io.StringIO()
    assert run_agent(agent, "/greet Ada", "json", out, err, agent.session.id) == 0
    assert json.loads(out.getvalue())["result"] == "Hello, Ada."
    assert "Say hello to Ada." in model.requests[0].messages[-1]["content"]


async def test_permission_rules_still_apply_inside_allowed_tools(ws: Path) -> None:
    greet_skill(ws, "allowed-tools: Bash(echo:*)\n")
    replies = [call("bash", {"command": "echo hi"}), text("done")]
    agent, _ = make(ws, replies, mode="ask", deny=["bash(echo*)"])
    await agent.run_turn("/greet Ada", Face())
    assert "permission denied (denied by rule bash(echo*))" in tool_results(agent)[0]


def test_headless_refuses_a_tui_command(ws: Path) -> None:
    agent, model = make(ws, [])
    out, err = io.StringIO(), io.StringIO()
    assert run_agent(agent, "/undo", "text", out, err, agent.session.id) == 1
    assert "/undo is a command of the TUI." in err.getvalue() and not model.requests
