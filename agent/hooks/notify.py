"""Notifications when a turn ends or waits for an approval: the ``notify`` command (as Codex's:
run with one JSON argument, never waited on for long, never able to lose the turn), and for the
TUI the terminal's own escape and a desktop notification's command."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
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


def terminal_escape(title: str, body: str, env: dict[str, str]) -> str:
    """The terminal's own notification: OSC 777 (``notify;title;body``) for the terminals that
    read it (VTE's, rxvt's, foot, Ghostty), else OSC 9 (iTerm2, WezTerm, kitty, Windows
    Terminal...). Control characters are dropped: the text cannot end the sequence."""
    title, body = _plain(title).replace(";", ","), _plain(body)
    term, program = env.get("TERM", ""), env.get("TERM_PROGRAM", "").lower()
    if env.get("VTE_VERSION") or term.startswith(("rxvt", "foot")) or program == "ghostty":
        return f"\x1b]777;notify;{title};{body}\x07"
    return f"\x1b]9;{title}: {body}\x07"


def desktop_command(title: str, body: str) -> list[str] | None:
    """A desktop notification's command (notify-send, or osascript on macOS); None: none here."""
    if shutil.which("notify-send"):
        return ["notify-send", "--app-name=beecode", _plain(title), _plain(body)]
    if sys.platform == "darwin" and shutil.which("osascript"):
        said, named = json.dumps(_plain(body)), json.dumps(_plain(title))
        script = f"display notification {said} with title {named}"
        return ["osascript", "-e", script]
    return None


def _plain(text: str) -> str:
    return "".join(c if c.isprintable() else " " for c in text)[:SUMMARY_CHARS]
