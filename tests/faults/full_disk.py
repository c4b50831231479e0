"""Run by tests/faults/test_disk.py: a headless task with the file size limit set (RLIMIT_FSIZE,
as a full disk: writes past it fail with EFBIG). argv: workspace, limit in bytes, content size."""

from __future__ import annotations

import io
import resource
import signal
import sys
from pathlib import Path

from agent.faces.headless import run_agent
from agent.model.scripted import call, text
from agent.sessions.store import Session
from tests.scripted import make_agent

if __name__ == "__main__":
    ws, limit, size = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails, not kills
    session = Session.create(ws)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    replies = [
        call("write", {"path": "big.txt", "content": "x" * size}, "w1"),
        call("edit", {"path": "kept.txt", "old": "v1", "new": "v2" + "y" * size}, "e1"),
        text("done"),
    ]
    agent, _ = make_agent(ws, replies, session=session, system="s")
    out = io.StringIO()
    status = run_agent(agent, "fill the disk", "json", out, sys.stderr, agent.session.id)
    print(out.getvalue())
    sys.exit(status)
