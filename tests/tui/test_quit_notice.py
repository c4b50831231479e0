"""Ctrl+C under Pilot: the first one says how to quit and within what window; the second quits."""

from __future__ import annotations

from pathlib import Path

from tests.factory import ScriptedRuntime
from tests.tui.harness import running


async def test_the_first_ctrl_c_says_how_to_quit_and_the_second_quits(workspace: Path) -> None:
    async with running(ScriptedRuntime(workspace)) as (app, pilot):
        await pilot.press("ctrl+c")
        await pilot.pause()
        said = [n.message for n in app._notifications]
        assert said == ["Press Ctrl+C again within 2 s to quit."]
        assert app.is_running
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert not app.is_running
