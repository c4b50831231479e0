"""Never make it worse: within a turn, a write that would replace content the turn itself wrote
with text copied from a tool result or from the prompt is refused.

Small models, done and not stopping, overwrite good work with what they were last shown: a file
written and run correctly became "wrote notes.txt (1 line)", the text of the write's own result,
and a VERSION file written right became "created VERSION (1 line)" one step later, before any
check (so the work need not be checked to be kept: no such copy fixes a file). Copied means the
new content (stripped) is inside a tool result of the turn and not inside the prompt, or it is
the prompt itself, or most of it (the task's words, not a value the task asked for).
"""

from __future__ import annotations

from pathlib import Path

from agent.model.reply import Call
from tools.tool import ToolResult

REFUSAL = (
    "not written: {name} already holds what this turn wrote, and this content is "
    "copied from {source}. If the task is done, answer; otherwise change the file with edit"
)


class WorkGuard:
    def __init__(self, workspace: Path, prompt: str) -> None:
        self.workspace, self.prompt = workspace, prompt.strip()
        self.written: dict[Path, str] = {}  # content this turn wrote, by file
        self.results: list[str] = []

    def refusal(self, call: Call) -> str | None:
        """Why this call may not run, or None."""
        path, content = self._write(call)
        if path is None or content is None or path not in self.written:
            return None
        if _read(path) != self.written.get(path) or content.strip() == self.written[path].strip():
            return None  # changed since (not this turn's work), or the same work again
        source = self._copied_from(content.strip())
        return REFUSAL.format(name=path.name, source=source) if source else None

    def observe(self, call: Call, result: ToolResult) -> None:
        self.results.append(result.output)
        if result.is_error:
            return
        path, content = self._write(call)
        if path is not None and content is not None:
            self.written[path] = content

    def _copied_from(self, text: str) -> str | None:
        if not text:
            return None
        if text == self.prompt or (text in self.prompt and 2 * len(text) >= len(self.prompt)):
            return "the prompt"
        if text not in self.prompt and any(text in output for output in self.results):
            return "a tool result"
        return None

    def _write(self, call: Call) -> tuple[Path | None, str | None]:
        content = (call.arguments or {}).get("content")
        if call.name != "write" or not isinstance(content, str):
            return None, None
        return self._path(call), content

    def _path(self, call: Call) -> Path | None:
        path = (call.arguments or {}).get("path")
        return (self.workspace / path).resolve() if isinstance(path, str) else None


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
