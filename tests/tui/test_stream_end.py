"""A stream's end in the real app: its last text is on screen before the agent's thread goes on
with the turn's end (the reply checked, the session written), which would otherwise share the
GIL with the frame that draws it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import agent.tui.screens.main as main_screen
from agent.events import Event, StepStats
from tests.factory import ScriptedRuntime, answer
from tests.tui.harness import running, turn

LAST = "QQEND"


async def shown_when_the_agent_goes_on(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> list[bool]:
    """For each stream's end: was its last word on screen when the agent's emit returned?"""
    runtime = ScriptedRuntime(workspace, [answer("The reply ", "ends with ", LAST)])
    async with running(runtime) as (app, pilot):
        frames: list[bool] = []  # per frame written: does the screen show the last word
        display = app._display

        def noted_frame(screen: Any, renderable: Any) -> None:
            display(screen, renderable)
            strips = screen._compositor.render_strips()
            frames.append(any(LAST in strip.text for strip in strips))

        monkeypatch.setattr(app, "_display", noted_frame)
        at_ends: list[bool] = []
        emit = app.main._emit

        def noted(event: Event) -> None:  # on the agent's thread
            emit(event)
            if isinstance(event, StepStats):
                at_ends.append(any(frames))

        monkeypatch.setattr(app.main, "_emit", noted)
        await turn(app, pilot, "go")
        return at_ends


async def test_the_agent_goes_on_once_the_streams_last_text_is_drawn(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What is tested is the wait, not its bound: a loaded machine may take longer for a frame.
    monkeypatch.setattr(main_screen, "END_WAIT_S", 60.0)
    assert await shown_when_the_agent_goes_on(workspace, monkeypatch) == [True]
