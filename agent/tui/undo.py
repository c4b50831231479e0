"""/undo: file contents from before a turn's edits, restored on request.

A write or edit call is snapshotted when it starts (before the tool runs, since the agent emits
``ToolCallStarted`` first) and counted as a change when it finishes without error. Changes made by
bash commands are not tracked; /undo says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from agent.loop.events import ToolCallFinished, ToolCallStarted

FILE_TOOLS = ("write", "edit")


@dataclass
class _Turn:
    before: dict[Path, bytes | None] = field(default_factory=dict)  # None: the file did not exist
    changed: set[Path] = field(default_factory=set)


class FileUndo:
    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace.resolve()
        self._current = _Turn()
        self._last: _Turn | None = None  # the last turn that changed files

    def _resolve(self, path: str) -> Path:
        return (self.workspace / path).resolve()

    def tool_started(self, call: ToolCallStarted) -> None:
        path = call.arguments.get("path")
        if call.name not in FILE_TOOLS or not isinstance(path, str):
            return
        target = self._resolve(path)
        if target not in self._current.before:
            self._current.before[target] = target.read_bytes() if target.is_file() else None

    def tool_finished(self, done: ToolCallFinished) -> None:
        path = done.meta.get("path")
        if done.name in FILE_TOOLS and not done.is_error and isinstance(path, str):
            self._current.changed.add(self._resolve(path))

    def end_turn(self) -> None:
        if self._current.changed:
            self._last = self._current
        self._current = _Turn()

    def undo(self) -> tuple[list[str], list[str]]:
        """Restore the last changed turn's files: (restored paths, changed paths without a
        snapshot, left as they are)."""
        turn, self._last = self._last, None
        if turn is None:
            return [], []
        restored: list[str] = []
        skipped: list[str] = []
        for path in sorted(turn.changed):
            if path not in turn.before:
                skipped.append(self._show(path))
                continue
            content = turn.before[path]
            if content is None:
                path.unlink(missing_ok=True)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(content)
            restored.append(self._show(path))
        return restored, skipped

    def _show(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.workspace))
        except ValueError:
            return str(path)
