"""Skills and custom commands in the TUI: /skills, running /NAME, completion after /."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from agent.tui.completion import complete
from agent.tui.screens.info import TextScreen
from agent.tui.screens.permission import PermissionScreen
from tests.factory import ScriptedRuntime, answer
from tests.tui.harness import running, send, shown, until


@pytest.fixture
def skilled(workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    skill = workspace / ".agents/skills/greet/SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: greet\ndescription: Greet someone.\n---\nSay hello to $1.\n")
    command = workspace / ".beecode/commands/team/review.md"
    command.parent.mkdir(parents=True)
    command.write_text("---\ndescription: Review a file\n---\nReview $1.\n")
    from agent.tui.commands import workspace_commands

    workspace_commands(workspace, refresh=True)  # other tests may have cached this path
    return workspace


async def test_skills_screen_lists_skills_and_commands(skilled: Path) -> None:
    async with running(ScriptedRuntime(skilled)) as (app, pilot):
        await send(pilot, "/skills")
        await until(pilot, lambda: isinstance(app.screen, TextScreen))
        body = str(app.screen.query_one("#body").query_one(Static).content)
        assert "greet  [project]" in body and "/team:review  [project]" in body
        assert "(untrusted project: asks before use)" in body


async def test_a_skill_command_starts_a_turn_in_the_core(skilled: Path) -> None:
    backend = ScriptedRuntime(skilled, [answer("Hello, Ada.")])
    async with running(backend) as (app, pilot):
        await send(pilot, "/greet Ada")
        # A project skill of an untrusted workspace asks once before its body is used.
        await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await pilot.press("y")  # yes, once
        await until(pilot, lambda: "Hello, Ada." in shown(app))
        assert backend.agent is not None
        sent = [m["content"] for m in backend.agent.messages if m["role"] == "user"]
        # The core's CommandAgent expanded the skill: its body, with $1 filled in.
        assert sent == [
            '/greet Ada\n<skill_content name="greet">\nSay hello to Ada.\n</skill_content>\n'
        ]


def test_completion_offers_skills_and_commands_after_slash(skilled: Path) -> None:
    found = complete("/wri", 4, True, skilled)
    assert found is not None and [o[0] for o in found.options] == ["/write-skill", "/write-tests"]
    found = complete("/tea", 4, True, skilled)
    assert found is not None and found.options == [("/team:review", "Review a file")]
    found = complete("/te", 3, True, skilled)  # the built-in /test, then the custom command
    assert found is not None and [o[0] for o in found.options] == ["/test", "/team:review"]
    found = complete("/g", 2, True, skilled)
    assert found is not None and ("/greet", "Greet someone.") in found.options
