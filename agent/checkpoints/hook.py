"""The loop's one call into checkpoints: before a call that may change files (an edit, a
command, a git action), snapshot the workspace once per turn.

When the snapshot cannot be written (disk full, read-only data dir) the change is refused with
the reason, so nothing is changed that could not be undone. Without git on the machine there
are no checkpoints at all: the call runs, and the user is told once.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from agent.checkpoints.shadow import CheckpointError
from agent.checkpoints.store import Checkpoints
from agent.events import EventSink, Notice
from agent.sessions.store import Session

NO_GIT = (
    "Checkpoints are off: git is not installed, so /undo cannot restore this session's changes."
)
_told_no_git: set[str] = set()


def checkpoint_refusal(
    session: Session, workspace: Path, label: str, emit: EventSink
) -> str | None:
    """None when the call may run (snapshot taken, or already taken this turn), else why not."""
    if shutil.which("git") is None:
        if session.id not in _told_no_git:
            _told_no_git.add(session.id)
            emit(Notice(NO_GIT, "warning"))
        return None
    try:
        Checkpoints(workspace).before_change(session.id, session.turn_mark, label[:120])
    except CheckpointError as error:
        return f"not run: the checkpoint before this change could not be saved ({error})"
    return None
