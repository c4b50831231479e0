"""Driving the real app under Pilot: start it on a runtime, wait for conditions, read the screen."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Collapsible, Markdown, Static
from textual.widgets._collapsible import CollapsibleTitle

from agent.faces.contract import ConnectRequest
from agent.tui.app import BeeApp
from tests.factory import ScriptedRuntime

SIZE = (100, 30)


class Clock:
    """A clock the test moves by hand, for the live tok/s estimate."""

    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def clock(app: BeeApp) -> Clock:
    """The clock ``make_app`` gave the app's main screen, to move by hand."""
    assert isinstance(app.main.clock, Clock)
    return app.main.clock


def make_app(runtime: ScriptedRuntime, request: ConnectRequest | None = None) -> BeeApp:
    history = runtime.workspace.parent / "history.jsonl"
    app = BeeApp(runtime, request, history_path=history)
    app.main.clock = Clock()
    return app


@asynccontextmanager
async def running(
    runtime: ScriptedRuntime, request: ConnectRequest | None = None
) -> AsyncIterator[tuple[BeeApp, Pilot[None]]]:
    """The app on ``runtime`` until the test is done; then the runtime shuts down, as after
    ``run_app`` (the agent's background jobs, its MCP servers)."""
    app = make_app(runtime, request)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.core is not None)
            yield app, pilot
    finally:
        runtime.shutdown()


async def until(pilot: Pilot[None], condition: Callable[[], object], tries: int = 300) -> None:
    for _ in range(tries):
        if condition():
            return
        await pilot.pause()
    raise AssertionError("the app never reached the expected state")


async def send(pilot: Pilot[None], text: str) -> None:
    """Type ``text`` into the prompt and press enter."""
    await pilot.press(*text)
    await pilot.press("enter")


async def turn(app: BeeApp, pilot: Pilot[None], text: str) -> None:
    """Send a prompt and wait until its turn has finished and been drawn."""
    before = app.main.turns_finished
    await send(pilot, text)
    await until(pilot, lambda: app.main.turns_finished > before and not app.main.busy)
    await pilot.pause()


def shown(app: BeeApp) -> str:
    """The conversation's text as a reader sees it: Markdown sources, block titles, statics."""
    parts: list[str] = []
    for widget in app.main.conversation.query("*"):
        if isinstance(widget, Markdown):
            parts.append(widget.source)
        elif isinstance(widget, Collapsible):
            parts.append(str(widget.title))
        elif isinstance(widget, Static) and not isinstance(widget, CollapsibleTitle):
            if not any(isinstance(a, Markdown) for a in widget.ancestors):
                parts.append(str(widget.content))
    return "\n".join(parts)


def line(app: BeeApp, selector: str) -> str:
    widget = app.main.query_one(selector, Static)
    return str(widget.content)


def workspace_of(app: BeeApp) -> Path:
    return app.backend.workspace
