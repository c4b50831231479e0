"""Run by tests/faults/test_kill.py in a subprocess: one agent turn (scripted model) that writes
a file and then runs a command that waits to be killed. argv: workspace, session id file."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from agent.model.scripted import call, text
from agent.sessions.store import Session
from tests.scripted import make_agent


def main() -> None:
    ws, id_file = Path(sys.argv[1]), Path(sys.argv[2])
    session = Session.create(ws)
    id_file.write_text(session.id)
    replies = [
        call("write", {"path": "made.txt", "content": "made by the turn\n" * 1000}, "w1"),
        call("bash", {"command": "rm kept.txt; touch started; sleep 600"}, "b1"),
        text("never reached"),
    ]
    agent, _ = make_agent(ws, replies, session=session, system="s")
    asyncio.run(agent.run_turn("make a file, then wait", lambda _e: None))


if __name__ == "__main__":
    main()
