"""/rewind: undo the files of the last N turns and cut the conversation back to before them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent.checkpoints.store import Checkpoints, describe
from agent.sessions.store import Session


def rewind(
    workspace: Path, session_id: str | None, messages: list[dict[str, Any]], steps: int
) -> str:
    """Restore the files, record the cut in the session and apply it to ``messages`` (the live
    history, system prompt first); returns the line to show. Raises CheckpointError."""
    restored = Checkpoints(workspace).undo(steps)
    line = describe(restored)
    if session_id is None or restored.session != session_id or restored.mark is None:
        return f"{line} The conversation is left as it is: that turn was in another session."
    session = Session.open(session_id)
    session.rewind(restored.mark)
    messages[1:] = [m for m in session.messages() if m.get("role") != "system"]
    return f"{line} The conversation is back to before that turn (/redo restores the files only)."
