"""A project's .mcp.json under Pilot: the TUI asks once before starting its servers (naming the
commands); a yes is remembered for the folder, a no starts nothing and is not asked again."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agent.config import Config
from agent.faces.contract import ConnectRequest
from agent.mcp_config import mcp_setup
from agent.tui.screens.info import PickScreen
from tests.factory import ScriptedRuntime
from tests.tui.harness import SIZE, make_app, send, until

pytestmark = pytest.mark.usefixtures("beecode_dirs")
NOTES = [sys.executable, str(Path(__file__).parents[1] / "mcp" / "notes_mcp.py")]


def project_servers(workspace: Path) -> None:
    entry = {"command": NOTES[0], "args": NOTES[1:]}
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"notes": entry}}))


@pytest.mark.parametrize("choice", ["start", "skip"])
async def test_the_tui_asks_once_before_a_project_server_starts(
    workspace: Path, choice: str
) -> None:
    project_servers(workspace)
    runtime = ScriptedRuntime(workspace)
    app = make_app(runtime)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, PickScreen))
            screen = app.screen
            assert isinstance(screen, PickScreen)
            labels = [label for _, label in screen.options]
            assert labels[0] == f"Start them (remembered for this folder): notes: {' '.join(NOTES)}"
            await pilot.press(*(["down"] if choice == "skip" else []), "enter")
            await until(pilot, lambda: app.core is not None)
            started = runtime.mcp is not None
            assert started == (choice == "start")
            await send(pilot, "/clear")  # a new agent: not asked again
            await until(pilot, lambda: len(runtime.requests) == 2 and app.core is not None)
            assert not isinstance(app.screen, PickScreen)
    finally:
        runtime.shutdown()
    remembered = mcp_setup(workspace, Config()).servers
    assert list(remembered) == (["notes"] if choice == "start" else [])
    assert ConnectRequest() in runtime.requests
