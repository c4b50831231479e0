"""/undo, /redo and /rewind: the workspace's checkpoints (``agent.checkpoints``), which the loop
takes before each turn's first change, whatever made it (write, edit, bash, git). They live on
disk, so they survive quitting, resuming and a crash. Every method blocks (git): run it in a
worker thread."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent.checkpoints.rewind import rewind
from agent.checkpoints.shadow import CheckpointError
from agent.checkpoints.store import Checkpoints, describe


class CheckpointUndo:
    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace.resolve()

    def undo(self, steps: int) -> tuple[str, bool]:
        """(the line to show, whether it worked)."""
        return _tried(lambda: describe(Checkpoints(self.workspace).undo(steps)))

    def redo(self) -> tuple[str, bool]:
        return _tried(lambda: describe(Checkpoints(self.workspace).redo()))

    def rewind(
        self, steps: int, session_id: str | None, messages: list[dict[str, Any]]
    ) -> tuple[str, bool]:
        return _tried(lambda: rewind(self.workspace, session_id, messages, steps))


def steps_of(arg: str) -> int | None:
    """The N of ``/undo N``: 1 when absent, None when not a positive number."""
    if not arg.strip():
        return 1
    return int(arg) if arg.strip().isdigit() and int(arg) > 0 else None


def _tried(action: Any) -> tuple[str, bool]:
    try:
        return str(action()), True
    except CheckpointError as error:
        return str(error), False
