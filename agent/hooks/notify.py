"""The ``notify`` command (as Codex's): run with one JSON argument when a turn ends or waits
for an approval, never waited on for long, never able to lose the turn."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agent.hooks.run import kill_group

NOTIFY_TIMEOUT_S = 10.0
SUMMARY_CHARS = 300


def notify_payload(
    kind: str, session_id: str, cwd: Path, message: str, last_answer: str = ""
) -> dict[str, Any]:
    """``type`` is agent-turn-complete or approval-requested (Codex's words for the first)."""
    summary = " ".join(last_answer.split())
    if len(summary) > SUMMARY_CHARS:
        summary = summary[:SUMMARY_CHARS] + "…"
    return {
        "type": kind,
        "session-id": session_id,
        "cwd": str(cwd),
        "message": message,
        "last-assistant-message": summary,
    }


async def run_notify(argv: list[str], payload: str, cwd: Path) -> str | None:
    """Run ``argv + [payload]``; None when it ran, else why not (one line)."""
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            payload,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            cwd=cwd,
            start_new_session=True,
        )
    except OSError as err:
        return f"notify command {argv[0]!r} could not start: {err.strerror or err}"
    try:
        code = await asyncio.wait_for(process.wait(), NOTIFY_TIMEOUT_S)
    except TimeoutError:
        kill_group(process.pid)
        await process.wait()
        return f"notify command {argv[0]!r} ran past {NOTIFY_TIMEOUT_S:g} s and was stopped"
    except asyncio.CancelledError:
        kill_group(process.pid)
        raise
    return None if code == 0 else f"notify command {argv[0]!r} exited {code}"
