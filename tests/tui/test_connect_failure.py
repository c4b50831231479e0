"""A server start that really fails, under Pilot: the real runtime plans a profile whose model
file does not exist. The TUI says why in one line, its status stops saying "connecting…" and
"server starting", the start's progress goes, and a prompt typed then is given back."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.pilot import Pilot

from agent.config import Config
from agent.runtime import Runtime
from agent.tui.app import BeeApp
from agent.tui.widgets.prompt import Prompt
from agent.tui.widgets.server_panel import ServerPanel
from agent.tui.widgets.status import StatusLine
from tests.tui.harness import SIZE, send, shown

REASON = "model file /nonexistent/model.gguf does not exist"


async def settled(pilot: Pilot[None], condition: Callable[[], bool]) -> None:
    """Wait for the connect thread, which imports and plans for seconds on a loaded machine."""
    for _ in range(2400):
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError("the app never reached the expected state")


async def test_a_failed_server_start_is_told_and_nothing_still_says_starting(
    workspace: Path, tmp_path: Path
) -> None:
    profiles = '[broken]\nbase = "tiny"\ntarget = "/nonexistent/model.gguf"\n'
    (tmp_path / "config" / "profiles.toml").write_text(profiles)
    runtime = Runtime(workspace, Config(profile="broken"))
    app = BeeApp(runtime, None, history_path=tmp_path / "history.jsonl")
    try:
        async with app.run_test(size=SIZE) as pilot:
            await send(pilot, "hello")  # typed while the server starts
            await settled(pilot, lambda: "could not start the agent" in shown(app))
            await settled(pilot, lambda: "server failed" in str(status(app)))
            said = [line for line in shown(app).splitlines() if "could not start" in line]
            assert said == [f"could not start the agent: {REASON} (/clear tries again)"]
            assert "connecting" not in status(app) and "starting" not in status(app)
            assert "not connected (/clear tries again)" in status(app)
            assert not app.main.query_one(ServerPanel).display  # opened for the start, closed
            assert app.main.query_one(Prompt).input.text == "hello"  # given back, not kept pending
            await pilot.press("ctrl+u")
            await send(pilot, "again")
            assert app.main.query_one(Prompt).input.text == "again"
            assert "connecting…" not in shown(app)
    finally:
        runtime.shutdown()


def status(app: BeeApp) -> str:
    return str(app.main.query_one(StatusLine).content)
