"""Full garbage collections are held off while a reply streams, and only then."""

from __future__ import annotations

import gc
from pathlib import Path

from agent.model.endpoint import TextPiece
from agent.model.scripted import Hold, call
from agent.tui import collector
from tests.factory import ScriptedRuntime, answer
from tests.tui.harness import running, send, until


def normal(thresholds: tuple[int, int, int]) -> bool:
    return gc.get_threshold() == thresholds and gc.get_freeze_count() == 0


async def test_held_while_text_streams_and_released_for_a_tool_and_at_the_end(
    workspace: Path,
) -> None:
    (workspace / "a.txt").write_text("one\n")
    before = gc.get_threshold()
    held_text, held_again = Hold(), Hold()
    script = [
        [TextPiece("Reading it"), held_text, *call("read", {"path": "a.txt"})],
        [TextPiece("It says one"), held_again, *answer(".")],
    ]
    async with running(ScriptedRuntime(workspace, script)) as (app, pilot):
        assert normal(before)
        await send(pilot, "read a.txt")
        await until(pilot, lambda: held_text.reached.is_set())
        await until(pilot, collector.holding)
        young, middle, old = before
        assert gc.get_threshold() == (young, middle, old * collector.RARER)
        assert gc.get_freeze_count() > 0  # what the app held before is not walked
        held_text.release.set()
        await until(pilot, lambda: held_again.reached.is_set())
        await until(pilot, collector.holding)  # the tool call closed the first reply; a new one
        held_again.release.set()
        await until(pilot, lambda: app.main.turns_finished == 1)
        await until(pilot, lambda: not collector.holding())  # after the reply's last frame
        assert normal(before)


async def test_released_only_after_the_replys_last_frame(workspace: Path) -> None:
    """The full collection the release lets come must not hold the reply's end off the
    screen: closing the stream keeps the hold until the screen has refreshed."""
    before = gc.get_threshold()
    async with running(ScriptedRuntime(workspace)) as (app, pilot):
        conversation = app.main.conversation
        await conversation.text("The whole reply")
        assert collector.holding()
        await conversation.close_streams()
        assert collector.holding()  # its last frame is not out yet
        await until(pilot, lambda: not collector.holding())
        assert normal(before)


async def test_an_app_closed_mid_reply_releases_the_collector(workspace: Path) -> None:
    before = gc.get_threshold()
    held = Hold()
    async with running(ScriptedRuntime(workspace, [[TextPiece("Thinking it"), held]])) as (
        app,
        pilot,
    ):
        await send(pilot, "go")
        await until(pilot, lambda: held.reached.is_set())
        await until(pilot, collector.holding)
        app.exit()
        await pilot.pause()
    assert not collector.holding() and normal(before)
