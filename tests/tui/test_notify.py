"""Notifications in the real app under Pilot: a turn that ends, or a call that waits for
approval, while the terminal is not focused (Textual's AppBlur) writes the terminal's own
notification through Textual's driver; a focused terminal, or notifications off, writes none."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events

from agent.config import Config, Notifications
from agent.model.scripted import Hold, Script, call
from agent.tui.app import BeeApp
from agent.tui.screens.permission import PermissionScreen
from tests.factory import ENDPOINT, ScriptedRuntime, answer
from tests.tui.harness import running, send, until


def escapes(app: BeeApp) -> list[str]:
    """What the app writes through its driver from now on, its notifications kept."""
    written: list[str] = []
    driver = app._driver
    assert driver is not None
    original = driver.write

    def write(data: str) -> None:
        if data.startswith(("\x1b]9;", "\x1b]777;")):
            written.append(data)
        original(data)

    driver.write = write  # type: ignore[method-assign]
    return written


def runtime(workspace: Path, notifications: Notifications, *replies: Script) -> ScriptedRuntime:
    config = Config(endpoint=ENDPOINT, tool_mode="native", notifications=notifications)
    return ScriptedRuntime(workspace, replies or [answer("all done")], config)


@pytest.mark.parametrize(
    ("notifications", "blurred", "told"),
    [
        ("terminal", True, True),
        ("terminal", False, False),  # the user is looking
        ("off", True, False),
    ],
)
async def test_a_turn_ending_while_blurred_writes_the_terminals_notification(
    workspace: Path, notifications: Notifications, blurred: bool, told: bool
) -> None:
    hold = Hold()  # the user sends the prompt (a key press: focused), then looks away
    async with running(runtime(workspace, notifications, [hold, *answer("all done")])) as (
        app,
        pilot,
    ):
        written = escapes(app)
        await send(pilot, "hello")
        await until(pilot, hold.reached.is_set)
        if blurred:
            app.post_message(events.AppBlur())
            await until(pilot, lambda: not app.app_focus)
        hold.release.set()
        await until(pilot, lambda: app.main.turns_finished == 1 and not app.main.busy)

    assert bool(written) == told
    if told:
        assert "beecode is done" in written[0] and "all done" in written[0]
        assert written[0].endswith("\x07")


async def test_an_approval_waiting_while_blurred_writes_it_too(workspace: Path) -> None:
    hold = Hold()
    replies = [[hold, *call("bash", {"command": "echo hi"})], answer("ok")]
    async with running(runtime(workspace, "terminal", *replies)) as (app, pilot):
        assert app.core is not None and app.core.permissions is not None
        app.core.permissions.mode = "ask"
        written = escapes(app)
        await send(pilot, "run it")
        await until(pilot, hold.reached.is_set)
        app.post_message(events.AppBlur())
        await until(pilot, lambda: not app.app_focus)
        hold.release.set()
        await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
        assert any("beecode needs your approval" in w and "echo hi" in w for w in written)
        await pilot.press("n")
        await until(pilot, lambda: not app.main.busy)
