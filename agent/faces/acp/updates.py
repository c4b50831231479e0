"""The core's events as ACP session updates: text and reasoning chunks, tool calls with their
kind, status and content (a diff for a file written or edited), beecode's notes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from acp import (
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_tool_call,
)
from acp.schema import (
    AgentMessageChunk,
    AgentThoughtChunk,
    ContentToolCallContent,
    FileEditToolCallContent,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    ToolKind,
)

from agent.events import (
    ErrorEvent,
    Event,
    ImageAttached,
    Notice,
    PermissionRequest,
    ReasoningDelta,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
)
from tools.files import BEFORE, small_text
from tools.paths import expanded

Update = AgentMessageChunk | AgentThoughtChunk | ToolCallStart | ToolCallProgress
KINDS: dict[str, ToolKind] = {
    "read": "read",
    "ls": "read",
    "write": "edit",
    "edit": "edit",
    "glob": "search",
    "grep": "search",
    "mcp_tools": "search",
    "bash": "execute",
    "git": "execute",
    "todo": "think",
}
EDITS = ("write", "edit")
DIFF_MAX_BYTES = 1_000_000  # a bigger file's change is told by the tool's own words
OUTPUT_MAX_CHARS = 20_000  # a tool's output as the editor shows it


def tool_kind(name: str) -> ToolKind:
    return KINDS.get(name, "fetch" if "fetch" in name.lower() else "other")


def title(name: str, args: dict[str, Any]) -> str:
    """What a call does, in one line: its command, path or pattern."""
    for key in ("command", "path", "pattern", "query", "url"):
        if isinstance(args.get(key), str) and args[key]:
            return f"{name} {args[key][:120]}"
    return name


def note(text: str) -> AgentMessageChunk:
    """beecode's own words in the answer's stream, set apart from the model's."""
    return update_agent_message_text(f"\n\n> beecode: {text}\n\n")


class Translator:
    """Turns one session's events into updates; remembers each edit's file before it ran, so
    its diff can be sent when it finishes."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self._before: dict[str, tuple[Path, str | None]] = {}
        self.announced: set[str] = set()  # calls sent before they ran (a permission request)

    def updates(self, event: Event) -> list[Update]:
        match event:
            case TextDelta(text=text):
                return [update_agent_message_text(text)]
            case ReasoningDelta(text=text):
                return [update_agent_thought_text(text)]
            case ToolCallStarted():
                return [self._started(event)]
            case ToolCallFinished():
                return [self._finished(event)]
            case Notice(message=message):
                return [note(message)]
            case ErrorEvent(message=message):
                return [note(f"error: {message}")]
            case ImageAttached():
                return [note(event.line())]
        return []

    def _path(self, args: dict[str, Any]) -> Path | None:
        path = args.get("path")
        return (
            (self.workspace / expanded(path)).resolve() if isinstance(path, str) and path else None
        )

    def _started(self, event: ToolCallStarted) -> ToolCallStart | ToolCallProgress:
        path = self._path(event.arguments)
        if path is not None and event.name in EDITS:
            self._before[event.call_id] = (path, small_text(path, DIFF_MAX_BYTES))
        if event.call_id in self.announced:  # asked about first: the editor has it already
            return update_tool_call(event.call_id, status="in_progress")
        return start_tool_call(
            event.call_id,
            title(event.name, event.arguments),
            kind=tool_kind(event.name),
            status="in_progress",
            locations=[ToolCallLocation(path=str(path))] if path is not None else None,
            raw_input=event.arguments,
        )

    def asked(self, request: PermissionRequest) -> ToolCallStart:
        """The call a permission request is about, sent before the request: what it will run
        or the diff it will make."""
        self.announced.add(request.call_id)
        fence = "diff" if request.kind == "edit" else ""
        shown = f"```{fence}\n{request.preview[:OUTPUT_MAX_CHARS]}\n```"
        return start_tool_call(
            request.call_id,
            f"{request.tool} {request.subject[:120]}".strip(),
            kind=tool_kind(request.tool),
            status="pending",
            content=[tool_content(text_block(shown))],
        )

    def _finished(self, event: ToolCallFinished) -> ToolCallProgress:
        output = event.output[:OUTPUT_MAX_CHARS]
        content: list[ContentToolCallContent | FileEditToolCallContent] = (
            [tool_content(text_block(output))] if output else []
        )
        before = self._before.pop(event.call_id, None)
        if before is not None and not event.is_error and "diff" in event.meta:
            path, old = before
            buffer = event.meta.get(BEFORE)  # the editor's text the edit changed, not the disk's
            old = buffer if isinstance(buffer, str) and len(buffer) <= DIFF_MAX_BYTES else old
            new = small_text(path, DIFF_MAX_BYTES)
            if new is not None:
                content.insert(0, tool_diff_content(str(path), new, old))
        return update_tool_call(
            event.call_id,
            kind=tool_kind(event.name),
            status="failed" if event.is_error else "completed",
            content=content,
            raw_output={"output": output, **_plain(event.meta)},
        )


def _plain(meta: dict[str, Any]) -> dict[str, Any]:
    """The tool's extras that JSON can carry as they are."""
    kept = {k: v for k, v in meta.items() if k != BEFORE}
    return json.loads(json.dumps(kept, default=str)) if kept else {}
