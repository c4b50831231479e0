"""Never make it worse: within a turn, a write that would replace content the turn itself wrote
with text copied from a tool result or from the prompt is refused.

Small models, done and not stopping, overwrite good work with what they were last shown: a file
written and run correctly became "wrote notes.txt (1 line)", the text of the write's own result,
and a VERSION file written right became "created VERSION (1 line)" one step later, before any
check (so the work need not be checked to be kept: no such copy fixes a file). Copied means the
new content (stripped) is inside a tool result of the turn and not inside the prompt, or it is
the prompt itself, or most of it (the task's words, not a value the task asked for).

Nor is a file or a command made of the turn's words rather than its work, whatever the file
held: content, or an echoed text, that holds a run of five words of beecode's notes and refusals
this turn, or the task's first six words (or the whole of a shorter task), is refused every
time. Told a command would replace all of server.ini, the 0.5B model echoed the refusal itself
into the file; told "server.ini: port 8081 please", it echoed the task into it.
"""

from __future__ import annotations

import re
from pathlib import Path

from agent.model.reply import Call
from tools.tool import ToolResult

REFUSAL = (
    "not written: {name} already holds what this turn wrote, and this content is "
    "copied from {source}. If the task is done, answer; otherwise change the file with edit"
)


COPIED_WORDS, TASK_WORDS = 5, 6  # runs of words this long are no coincidence
_ECHO = re.compile(r"^\s*(?:echo|printf)\s+(.*)", re.S)


def copied_words(call: Call, said: list[str], task: str) -> str | None:
    """Why this write, edit or echo, made of beecode's words or the task's, is refused; or None."""
    args = call.arguments or {}
    value = args.get("content", args.get("new")) if call.name in ("write", "edit") else None
    echoed = _ECHO.match(str(args.get("command", ""))) if call.name == "bash" else None
    # an echo's text ends where its redirect begins (a rough cut: a quoted > ends it too)
    text = _flat(value if isinstance(value, str) else echoed[1].split(">")[0] if echoed else "")
    words = text.split()
    asked = _flat(task).split()
    opening = " ".join(asked[:TASK_WORDS])
    if asked and (opening in text if len(asked) >= TASK_WORDS else text == " ".join(asked)):
        return "this repeats the task's words: take the task's first step instead"
    heard = [_flat(line) for line in said if line.strip()]
    runs = (" ".join(words[at : at + COPIED_WORDS]) for at in range(len(words) - COPIED_WORDS + 1))
    if any(run in h and run not in " ".join(asked) for run in runs for h in heard):
        return "this is beecode's note to you, not text for a file or a command: do the task"
    return None


def _flat(text: str) -> str:
    return " ".join(re.findall(r"[\w.-]+", text.lower()))


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
