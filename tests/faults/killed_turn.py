"""Run by tests/faults/test_kill.py in a subprocess: one agent turn (scripted model) that writes
a file and then runs a command that waits to be killed. argv: workspace, session id file."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from agent.config import Config
from agent.loop.agent import Agent
from agent.model.scripted import ScriptedModel, call, text
from agent.permissions.rules import Permissions
from agent.sessions.store import Session
from tools.registry import default_registry
from tools.tool import ToolContext


def main() -> None:
    ws, id_file = Path(sys.argv[1]), Path(sys.argv[2])
    session = Session.create(ws)
    id_file.write_text(session.id)
    replies = [
        call("write", {"path": "made.txt", "content": "made by the turn\n" * 1000}, "w1"),
        call("bash", {"command": "rm kept.txt; touch started; sleep 600"}, "b1"),
        text("never reached"),
    ]
    cfg = Config(permission_mode="yolo", tool_mode="native")  # type: ignore[arg-type]
    agent = Agent(
        ScriptedModel(replies),
        default_registry(),
        Permissions("yolo", [], [], ws, []),
        session,
        cfg,
        ToolContext(ws),
        system="s",
    )
    asyncio.run(agent.run_turn("make a file, then wait", lambda _e: None))


if __name__ == "__main__":
    main()
