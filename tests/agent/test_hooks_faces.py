"""Hooks and notifications in headless mode: their lines on stderr and in the JSON result, a
blocked prompt's exit status, the notify command's JSON, and notifications turned off."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from agent.config import Config
from agent.faces.headless import run_agent
from agent.model.scripted import Step, text
from tests.agent.hook_kit import given, hook_script, settings
from tests.factory import make_agent

NOTIFY = "import sys\nopen(sys.argv[1], 'w').write(sys.argv[2])\n"


def headless(ws: Path, replies: list[list[Step]], config: Config) -> tuple[int, str, str]:
    agent = make_agent(ws, replies, config)
    out, err = io.StringIO(), io.StringIO()
    try:
        status = run_agent(agent, "hello", "json", out, err, agent.session.id)
    finally:
        agent.close()
    return status, out.getvalue(), err.getvalue()


def test_a_blocked_prompt_exits_3_and_the_hooks_are_in_the_json(
    workspace: Path, isolated_home: Path
) -> None:
    command, _ = hook_script(
        workspace.parent / "hooks", "no", "sys.stderr.write('not today')\nsys.exit(2)"
    )
    settings(workspace, "UserPromptSubmit", command)
    config = Config(endpoint="http://x/v1", tool_mode="native", trusted_workspaces=[str(workspace)])
    status, out, err = headless(workspace, [text("never")], config)

    result = json.loads(out)  # stdout holds the JSON alone
    assert status == 3 and result["stop_reason"] == "blocked"
    [note] = result["hooks"]
    assert note["type"] == "hook_note" and note["kind"] == "blocked" and note["text"] == "not today"
    assert "beecode: hook UserPromptSubmit" in err and "blocked: not today" in err


def test_untrusted_hooks_are_named_on_stderr_and_in_the_json(
    workspace: Path, isolated_home: Path
) -> None:
    command, log = hook_script(workspace.parent / "hooks", "repo", "")
    settings(workspace, "UserPromptSubmit", command)
    status, out, err = headless(
        workspace, [text("hi")], Config(endpoint="http://x/v1", tool_mode="native")
    )

    assert status == 0 and given(log) == []
    assert [h["type"] for h in json.loads(out)["hooks"]] == ["hooks_skipped"]
    assert "hooks not run (the project is not trusted)" in err


@pytest.mark.parametrize("notifications", ["auto", "off"])
def test_the_notify_command_gets_the_turns_json_unless_notifications_are_off(
    workspace: Path, isolated_home: Path, notifications: str
) -> None:
    script, told = workspace.parent / "notify.py", workspace.parent / "told.json"
    script.write_text(NOTIFY)
    config = Config(
        endpoint="http://x/v1",
        tool_mode="native",
        notify=[sys.executable, str(script), str(told)],
        notifications=notifications,  # type: ignore[arg-type]
    )
    status, out, _ = headless(workspace, [text("all done here")], config)

    assert status == 0
    if notifications == "off":
        assert not told.exists()
        return
    payload = json.loads(told.read_text())
    assert payload["type"] == "agent-turn-complete"
    assert payload["session-id"] == json.loads(out)["session_id"]
    assert payload["cwd"] == str(workspace) and payload["last-assistant-message"] == "all done here"
