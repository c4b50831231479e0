"""Read before changing, for every model: an edit of an existing file the session never read is
refused, showing the file when it is small (which counts as reading it)."""

from __future__ import annotations

from pathlib import Path

from agent.model.reply import Call
from tools.files import small_text
from tools.registry import ToolRegistry
from tools.tool import ToolResult

SHOWN_FILE_BYTES = 4_000  # an unread file this small is shown in the refusal to change it


class Reads:
    """The files the session has read or changed."""

    def __init__(self, registry: ToolRegistry, workspace: Path) -> None:
        self.registry, self.workspace = registry, workspace
        self.seen: set[Path] = set()

    def kind(self, call: Call) -> str | None:
        tool = self.registry.get(call.name)
        return tool.kind(call.arguments) if tool and call.arguments is not None else None

    def paths(self, call: Call) -> list[Path]:
        tool = self.registry.get(call.name)
        if tool is None or call.arguments is None:
            return []
        return [(self.workspace / p).resolve() for p in tool.paths(call.arguments)]

    def unread_edit(self, call: Call) -> str | None:
        """Why this edit must wait (an existing file, not empty, never read), or None. The
        refusal shows a small file whole, which counts as reading it: the next try may change
        it."""
        if self.kind(call) != "edit":
            return None
        for path in self.paths(call):
            if path not in self.seen and _size(path):
                inside = path.is_relative_to(self.workspace)
                shown = path.relative_to(self.workspace) if inside else path
                text = small_text(path, SHOWN_FILE_BYTES)
                if text is None:
                    return f"{shown} exists and you have not read it; read it first, then change it"
                self.seen.add(path)
                return (
                    f"{shown} exists and you have not read it. It holds:\n{text}\n"
                    "Change it with edit, or write its whole new content"
                )
        return None

    def observe(self, call: Call, result: ToolResult) -> None:
        if not result.is_error and self.kind(call) in ("read", "edit"):
            self.seen.update(self.paths(call))


def _size(path: Path) -> int:
    """A regular file's size; 0 when there is none, or the name cannot be looked up at all (too
    long, a loop): the tool's own error tells the model, and the turn goes on."""
    try:
        return path.stat().st_size if path.is_file() else 0
    except OSError:
        return 0
