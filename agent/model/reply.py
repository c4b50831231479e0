"""One model reply assembled from its stream: text, reasoning, tool calls and stats.

Text and reasoning are emitted to the face as they arrive. Tool calls come from the server's
native tool calls or from calls the model left in its text (``agent.model.toolcalls``). A reply
held to a schema is one JSON object: its text is kept whole and unshown, for the step policy to
read (``agent.steps``).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Collection
from dataclasses import dataclass, field
from typing import Any

from agent.events import EventSink, ReasoningDelta, RequestStats, TextDelta
from agent.model.endpoint import (
    CallPiece,
    ModelChunk,
    ReasoningPiece,
    ReplyFormat,
    StreamEnd,
    TextPiece,
)
from agent.model.toolcalls import ParsedCall, parse_arguments, parse_text_calls


@dataclass
class Call:
    id: str
    name: str
    arguments: dict[str, Any] | None  # None: unreadable, see error
    error: str | None = None  # why the call cannot run, told to the model
    recovered: bool = False  # read from the reply's text (agent.model.toolcalls), not native


@dataclass
class Reply:
    text: str = ""
    reasoning: str = ""
    calls: list[Call] = field(default_factory=list)
    finish_reason: str | None = None
    stats: RequestStats | None = None
    # Native call fragments by stream index: [id, name, argument text].
    fragments: dict[int, list[str]] = field(default_factory=dict)

    def message(self) -> dict[str, Any]:
        """The reply as an assistant message with its calls; arguments re-serialized from the
        parsed object, so malformed JSON never goes back to the server."""
        calls = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(c.arguments or {})},
            }
            for c in self.calls
        ]
        thought = {"reasoning_content": self.reasoning} if self.reasoning else {}
        return {"role": "assistant", "content": self.text, **thought, "tool_calls": calls}


def new_call_id() -> str:
    return "call_" + uuid.uuid4().hex[:16]


async def collect(
    chunks: AsyncIterator[ModelChunk],
    emit: EventSink,
    reply: Reply,
    *,
    reply_format: ReplyFormat,
    tool_names: Collection[str],
) -> None:
    """Fill ``reply`` from ``chunks``. It is filled as the stream goes, so a cancelled stream
    leaves the partial text in it."""
    async for chunk in chunks:
        match chunk:
            case TextPiece(text):
                reply.text += text
                if reply_format.free:  # an object is raw JSON, for its reader to show
                    emit(TextDelta(text))
            case ReasoningPiece(text):
                reply.reasoning += text
                emit(ReasoningDelta(text))
            case CallPiece(index, piece_id, piece_name, fragment):
                slot = reply.fragments.setdefault(index, ["", "", ""])
                slot[0] = slot[0] or piece_id or ""
                slot[1] = slot[1] or piece_name or ""
                slot[2] += fragment
            case StreamEnd(finish_reason, stats):
                reply.finish_reason, reply.stats = finish_reason, stats
    if not reply_format.free and not reply.fragments:
        return
    for call_id, name, raw in reply.fragments.values():
        parsed, error = parse_arguments(raw)
        reply.calls.append(make_call(ParsedCall(name, parsed, error), reply.finish_reason, call_id))
    if not reply.calls:
        found = parse_text_calls(reply.text, tool_names)
        if found.calls:
            reply.text = found.text
            reply.calls = [make_call(c, reply.finish_reason) for c in found.calls]
            for call in reply.calls:
                call.recovered = True
    ids = [c.id for c in reply.calls]
    for i, c in enumerate(reply.calls):
        if c.id in ids[:i]:  # results are matched by id: a repeated one would be ambiguous
            c.id = new_call_id()


def make_call(parsed: ParsedCall, finish_reason: str | None, call_id: str = "") -> Call:
    error = parsed.error
    if error and finish_reason == "length":
        error += "; the reply hit the token limit, so keep the call shorter"
    return Call(call_id or new_call_id(), parsed.name, parsed.arguments, error)
