"""The permission modal resolves the agent's future with each of its four answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.loop.events import PermissionDecision, TextDelta
from agent.tui.screens.permission import PermissionScreen
from tests.tui.harness import running, send, shown, until
from tests.tui.scripted import Ask, Hold, ScriptedBackend

DIFF = "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-x = 1\n+x = 2"


def asking(workspace: Path) -> ScriptedBackend:
    return ScriptedBackend(
        workspace, [[Ask("bash", "execute", "rm -rf build"), TextDelta("after")]]
    )


class TestPermissionModal:
    @pytest.mark.parametrize(
        ("keys", "decision"),
        [
            (["y"], PermissionDecision("allow_once")),
            (["a"], PermissionDecision("allow_always")),
            (["n"], PermissionDecision("deny")),
            (["escape"], PermissionDecision("deny")),
            (["m", *"not here", "enter"], PermissionDecision("deny_with_message", "not here")),
        ],
    )
    async def test_each_answer_resolves_the_future(
        self, workspace: Path, keys: list[str], decision: PermissionDecision
    ) -> None:
        backend = asking(workspace)
        async with running(backend) as (app, pilot):
            await send(pilot, "clean up")
            await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
            await pilot.press(*keys)
            await until(pilot, lambda: "after" in shown(app))
            assert backend.agent is not None and backend.agent.decisions == [decision]
            assert not isinstance(app.screen, PermissionScreen)

    async def test_buttons_answer_too(self, workspace: Path) -> None:
        backend = asking(workspace)
        async with running(backend) as (app, pilot):
            await send(pilot, "clean up")
            await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
            await pilot.click("#allow_once")
            await until(pilot, lambda: "after" in shown(app))
            assert backend.agent is not None
            assert backend.agent.decisions == [PermissionDecision("allow_once")]

    async def test_shows_the_command_and_the_diff(self, workspace: Path) -> None:
        backend = ScriptedBackend(workspace, [[Ask("edit", "edit", "app.py", DIFF)]])
        async with running(backend) as (app, pilot):
            await send(pilot, "bump")
            await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
            screen = app.screen
            assert str(screen.query_one("#question").content) == (  # type: ignore[attr-defined]
                "Allow edit to change files?"
            )
            assert str(screen.query_one("#subject").content) == "app.py"  # type: ignore[attr-defined]
            preview = str(screen.query_one("#preview Static").content)  # type: ignore[attr-defined]
            assert "-x = 1\n+x = 2" in preview

    async def test_closes_when_the_request_goes_away(self, workspace: Path) -> None:
        backend = ScriptedBackend(workspace, [[Ask("bash", "execute", "sleep 9"), Hold()]])
        async with running(backend) as (app, pilot):
            await send(pilot, "wait")
            await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
            request = app.screen.request  # type: ignore[attr-defined]
            request.future.cancel()  # as when the agent's turn is cancelled under the modal
            await until(pilot, lambda: not isinstance(app.screen, PermissionScreen))
            await until(pilot, lambda: not app.main.busy and "turn cancelled" in shown(app))
