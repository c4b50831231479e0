"""Hooks in Claude Code's format, on the real loop, tools and permissions with the scripted
model: real hook scripts (``tests.agent.hook_kit``) read the event on stdin and answer by exit
code or JSON, as Claude Code's hooks reference documents."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.config import load_config
from agent.events import HookNote, HooksSkipped, PermissionDecision, PermissionRequest
from agent.hooks.session import MAX_STOP_BLOCKS
from agent.model.scripted import call, text
from agent.sessions.replay import read_records
from tests.agent.hook_kit import given, hook_script, settings
from tests.agent.loop_kit import Face, make_agent, results


@pytest.fixture
def home(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No user hooks of the machine's: HOME (and ~/.claude) in the test's tmp dir."""
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    return isolated_home


def trusted(ws: Path, replies: list[Any], **options: Any) -> Any:
    """An agent in ``ws``, a trusted workspace, with the hooks the runtime would load."""
    return make_agent(ws, replies, with_hooks=True, trusted_workspaces=[str(ws)], **options)


async def test_exit_2_blocks_the_call_and_its_stderr_goes_to_the_model(
    ws: Path, home: Path
) -> None:
    command, log = hook_script(
        ws.parent / "hooks", "guard", 'sys.stderr.write("not here")\nsys.exit(2)'
    )
    settings(ws, "PreToolUse", command, "Bash")
    agent, _ = trusted(ws, [call("bash", {"command": "echo hi > out.txt"}), text("ok")])
    face = Face()
    finished = await agent.run_turn("make out.txt", face)

    assert finished.stop_reason == "done" and not (ws / "out.txt").exists()
    assert "not here" in results(agent)[0] and "PreToolUse hook" in results(agent)[0]
    [event] = given(log)
    assert event["hook_event_name"] == "PreToolUse" and event["tool_name"] == "Bash"
    assert event["tool_input"]["command"] == "echo hi > out.txt"
    assert (
        event["session_id"] == agent.session.id and event["permission_mode"] == "bypassPermissions"
    )
    assert Path(event["_cwd"]) == ws and event["_project"] == event["_beecode_project"] == str(ws)
    assert [(n.kind, n.text) for n in face.of(HookNote)] == [("blocked", "not here")]


def decide(decision: str) -> str:
    answer = {"permissionDecision": decision, "permissionDecisionReason": f"said {decision}"}
    return f"print(json.dumps({{'hookSpecificOutput': {answer!r}}}))"


@pytest.mark.parametrize(
    ("decision", "mode", "ran", "asked"),
    [
        ("deny", "yolo", False, False),  # JSON deny blocks, with the reason to the model
        ("allow", "ask", True, False),  # allow spares the question
        ("allow", "plan", False, False),  # ... but never opens plan mode, which only reads
        ("ask", "yolo", False, True),  # ask: beecode's own prompt (answered no here)
    ],
)
async def test_json_permission_decisions(
    ws: Path, home: Path, decision: str, mode: str, ran: bool, asked: bool
) -> None:
    command, _ = hook_script(ws.parent / "hooks", "decide", decide(decision))
    settings(ws, "PreToolUse", command, "Write")
    reply = call("write", {"path": "a.txt", "content": "x"})
    agent, _ = trusted(ws, [reply, text("ok")], mode=mode)
    face = Face(PermissionDecision("deny"))
    await agent.run_turn("write a.txt", face)

    assert (ws / "a.txt").exists() == ran
    assert bool(face.of(PermissionRequest)) == asked
    if decision == "deny":
        assert "said deny" in results(agent)[0]
    logged = [r for r in read_records(agent.session.path) if r["type"] == "permission"]
    assert logged[0]["verdict"] == ("allow" if ran else "deny")


async def test_post_tool_use_sees_the_response_and_its_block_reason_reaches_the_model(
    ws: Path, home: Path
) -> None:
    body = "print(json.dumps({'decision': 'block', 'reason': 'lint failed on a.txt'}))"
    command, log = hook_script(ws.parent / "hooks", "post", body)
    settings(ws, "PostToolUse", command, "Edit|Write")
    replies = [call("write", {"path": "a.txt", "content": "x"}), call("ls", {}), text("ok")]
    agent, _ = trusted(ws, replies)
    await agent.run_turn("write a.txt", Face())

    [event] = given(log)  # the ls call did not match Edit|Write
    assert event["tool_name"] == "Write" and event["tool_input"]["file_path"] == "a.txt"
    assert event["tool_response"]["is_error"] is False
    assert (ws / "a.txt").read_text() == "x"
    assert results(agent)[0].endswith("[PostToolUse hook] lint failed on a.txt")


async def test_user_prompt_submit_exit_2_blocks_and_erases_the_prompt(ws: Path, home: Path) -> None:
    command, _ = hook_script(
        ws.parent / "hooks", "prompt", 'sys.stderr.write("no secrets")\nsys.exit(2)'
    )
    settings(ws, "UserPromptSubmit", command)
    agent, model = trusted(ws, [text("never")])
    finished = await agent.run_turn("my password is hunter2", Face())

    assert finished.stop_reason == "blocked" and "no secrets" in finished.final_text
    assert not model.requests  # nothing was sent
    assert "hunter2" not in agent.session.path.read_text()
    assert all("hunter2" not in str(m) for m in agent.messages)


async def test_session_start_and_prompt_context_reach_the_model(ws: Path, home: Path) -> None:
    start, start_log = hook_script(ws.parent / "hooks", "start", "print('branch: main')")
    added = {
        "hookSpecificOutput": {
            "hookEventName": "UserPromptSubmit",
            "additionalContext": "it is Tuesday",
        }
    }
    prompt, _ = hook_script(ws.parent / "hooks", "prompt", f"print(json.dumps({added!r}))")
    settings(ws, "SessionStart", start, "startup")
    settings(ws, "UserPromptSubmit", prompt, local=True)  # .claude/settings.local.json too
    agent, model = trusted(ws, [text("one"), text("two")])
    await agent.run_turn("hello", Face())
    await agent.run_turn("again", Face())

    first = model.requests[0].messages[-1]["content"]
    assert first.startswith("hello") and "branch: main" in first and "it is Tuesday" in first
    second = model.requests[1].messages[-1]["content"]
    assert "branch: main" not in second and "it is Tuesday" in second
    assert [e["source"] for e in given(start_log)] == ["startup"]  # once a session


@pytest.mark.parametrize("honours_active", [True, False])
async def test_stop_hook_sends_the_model_on_with_a_loop_guard(
    ws: Path, home: Path, honours_active: bool
) -> None:
    body = "sys.stderr.write('run the tests first')\nsys.exit(2)"
    if honours_active:
        body = "if not event['stop_hook_active']:\n    " + body.replace("\n", "\n    ")
    command, log = hook_script(ws.parent / "hooks", "stop", body)
    settings(ws, "Stop", command)
    agent, model = trusted(ws, [text(f"done {i}") for i in range(MAX_STOP_BLOCKS + 1)])
    finished = await agent.run_turn("fix it", Face())

    blocks = 1 if honours_active else MAX_STOP_BLOCKS
    assert finished.stop_reason == "done" and finished.final_text == f"done {blocks}"
    assert [e["stop_hook_active"] for e in given(log)] == [False] + [True] * blocks
    assert given(log)[0]["last_assistant_message"] == "done 0"
    told = [m["content"] for m in model.requests[1].messages if m["role"] == "user"]
    assert told[-1] == "Stop hook feedback: run the tests first"


async def test_a_hook_past_its_timeout_is_stopped_and_the_call_goes_on(
    ws: Path, home: Path
) -> None:
    command, _ = hook_script(ws.parent / "hooks", "slow", "import time\ntime.sleep(60)")
    settings(ws, "PreToolUse", command, timeout=1)
    agent, _ = trusted(ws, [call("bash", {"command": "echo ran > ran.txt"}), text("ok")])
    face = Face()
    await agent.run_turn("run", face)

    assert (ws / "ran.txt").exists()
    [note] = face.of(HookNote)
    assert note.kind == "error" and note.text == "timed out after 1 s"


async def test_an_untrusted_projects_hooks_are_skipped_and_named_once(ws: Path, home: Path) -> None:
    command, log = hook_script(ws.parent / "hooks", "project", "")
    settings(ws, "UserPromptSubmit", command)
    settings(ws, "PreToolUse", command, local=True)
    (ws / ".beecode").mkdir()
    (ws / ".beecode" / "config.toml").write_text(
        f"[[hooks.Stop]]\nhooks = [{{ type = 'command', command = {json.dumps(command)} }}]\n"
    )
    config = load_config(ws)  # as the runtime reads it: the project config untrusted
    assert config.hooks == {} and "hooks" in config.ignored_project_settings
    agent, _ = make_agent(
        ws,
        [call("ls", {}), text("ok"), text("two")],
        with_hooks=True,
        ignored_project_settings=config.ignored_project_settings,
    )
    face = Face()
    await agent.run_turn("one", face)
    await agent.run_turn("two", face)

    assert given(log) == []
    [skipped] = face.of(HooksSkipped)
    named = " ".join(skipped.sources)
    assert "settings.json (1 hook)" in named and "settings.local.json (1 hook)" in named
    assert ".beecode/config.toml" in named


async def test_user_hooks_run_in_an_untrusted_workspace(ws: Path, home: Path) -> None:
    command, log = hook_script(ws.parent / "hooks", "user", "")
    (home / ".claude").mkdir()
    user = {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": command}]}]}}
    (home / ".claude" / "settings.json").write_text(json.dumps(user))
    config_hook = {
        "PostToolUse": [{"matcher": "ls", "hooks": [{"type": "command", "command": command}]}]
    }
    agent, _ = make_agent(ws, [call("ls", {}), text("ok")], with_hooks=True, hooks=config_hook)
    await agent.run_turn("hello", Face())

    assert [e["hook_event_name"] for e in given(log)] == ["UserPromptSubmit", "PostToolUse"]
