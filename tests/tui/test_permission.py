"""The permission modal answers the real agent's permission request, in ask mode, with each of its
four answers; what the tool then did (or did not) and what the session recorded show the answer."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from agent.model.scripted import call
from agent.permissions.allowed import AllowedRules
from agent.sessions.replay import read_records
from agent.tui.screens.permission import PermissionScreen
from tests.factory import ScriptedRuntime, answer
from tests.tui.harness import running, send, shown, until

COMMAND = "echo ran > ran.txt"


def asking(workspace: Path) -> ScriptedRuntime:
    return ScriptedRuntime(workspace, [call("bash", {"command": COMMAND}), answer("after")])


def permission_records(runtime: ScriptedRuntime) -> list[dict[str, object]]:
    assert runtime.agent is not None
    records = read_records(runtime.agent.session.path)
    return [r for r in records if r.get("type") == "permission"]


class TestPermissionModal:
    @pytest.mark.parametrize(
        ("keys", "verdict", "reason"),
        [
            (["y"], "allow", "user: allow_once"),
            (["a"], "allow", "user: allow_always bash(echo ran)"),
            (["n"], "deny", "user: deny"),
            (["escape"], "deny", "user: deny"),
            (["m", *"not here", "enter"], "deny", "the user said: not here"),
        ],
    )
    async def test_each_answer_reaches_the_agent(
        self, workspace: Path, keys: list[str], verdict: str, reason: str
    ) -> None:
        runtime = asking(workspace)
        async with running(runtime) as (app, pilot):
            await send(pilot, "note that it ran")
            await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
            await pilot.press(*keys)
            await until(pilot, lambda: "after" in shown(app))
            assert not isinstance(app.screen, PermissionScreen)
            [record] = permission_records(runtime)
            assert (record["verdict"], record["reason"]) == (verdict, reason)
            assert (workspace / "ran.txt").exists() == (verdict == "allow")
            remembered = AllowedRules(workspace).load()
            assert remembered == (["bash(echo ran)"] if keys == ["a"] else [])

    async def test_buttons_answer_too(self, workspace: Path) -> None:
        runtime = asking(workspace)
        async with running(runtime) as (app, pilot):
            await send(pilot, "note that it ran")
            await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
            await pilot.click("#allow_once")
            await until(pilot, lambda: "after" in shown(app))
            [record] = permission_records(runtime)
            assert record["reason"] == "user: allow_once"
            assert (workspace / "ran.txt").read_text() == "ran\n"

    async def test_shows_the_command_and_the_diff(self, workspace: Path) -> None:
        (workspace / "app.py").write_text("x = 1\n")
        script = [
            call("read", {"path": "app.py"}),  # reads run in ask mode; edits ask
            call("edit", {"path": "app.py", "old": "x = 1", "new": "x = 2"}),
        ]
        async with running(ScriptedRuntime(workspace, script)) as (app, pilot):
            await send(pilot, "bump")
            await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
            screen = app.screen
            question = screen.query_one("#question", Static)
            assert str(question.content) == "Allow edit to change files?"
            assert str(screen.query_one("#subject", Static).content) == "app.py"
            preview = str(screen.query_one("#preview Static", Static).content)
            assert "-x = 1\n+x = 2" in preview
            assert (workspace / "app.py").read_text() == "x = 1\n"  # nothing changed before yes

    async def test_closes_when_the_turn_is_cancelled_under_it(self, workspace: Path) -> None:
        runtime = asking(workspace)
        async with running(runtime) as (app, pilot):
            await send(pilot, "note that it ran")
            await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
            await pilot.press("ctrl+c")  # once: cancels the turn (twice would quit)
            await until(pilot, lambda: not isinstance(app.screen, PermissionScreen))
            await until(pilot, lambda: not app.main.busy and "turn cancelled" in shown(app))
            assert not (workspace / "ran.txt").exists()
            assert runtime.agent is not None
            # The call was never answered; the history still gives it a result.
            assert runtime.agent.messages[-1] == {
                "role": "tool",
                "tool_call_id": "call_0_bash",
                "content": "Cancelled by the user.",
            }
