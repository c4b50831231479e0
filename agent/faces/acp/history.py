"""A resumed session's history as session updates (``session/load`` replays it), and a
prompt's content blocks as the text of beecode's turn."""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Sequence
from typing import Any

from acp import (
    start_tool_call,
    text_block,
    tool_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_tool_call,
    update_user_message_text,
)
from acp.schema import (
    AudioContentBlock,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from agent.faces.acp.updates import OUTPUT_MAX_CHARS, Update, title, tool_kind
from agent.sessions.store import message_text

_SAFE = re.compile(r"[^\w.\- ]")  # what may stand in an image's label: [image NAME]

PromptBlock = (
    TextContentBlock
    | ImageContentBlock
    | AudioContentBlock
    | ResourceContentBlock
    | EmbeddedResourceContentBlock
)


def prompt_text(blocks: Sequence[PromptBlock]) -> str:
    """The prompt as one user message: text as it is, an embedded file as a fenced block under
    its URI, a link as its URI (beecode's @mentions read files the turn names)."""
    parts: list[str] = []
    for block in blocks:
        match block:
            case TextContentBlock(text=text):
                parts.append(text)
            case EmbeddedResourceContentBlock(resource=TextResourceContents() as resource):
                parts.append(f"{resource.uri}:\n```\n{resource.text}\n```")
            case ResourceContentBlock(uri=uri):
                parts.append(uri)
            case ImageContentBlock():
                pass  # sent as an image (``prompt_images``)
            case _:
                parts.append(f"[{block.type} left out: beecode takes text and images here]")
    return "\n\n".join(parts)


def prompt_images(blocks: Sequence[PromptBlock]) -> list[tuple[str, bytes]]:
    """The prompt's images as (name, bytes): named by their URI's last part where they have
    one; data that is not base64 comes as no bytes (the turn says it is no image)."""
    images: list[tuple[str, bytes]] = []
    for block in blocks:
        if isinstance(block, ImageContentBlock):
            name = _SAFE.sub("_", (block.uri or "").rstrip("/").rsplit("/", 1)[-1])[-80:]
            if not name.strip("._"):
                name = f"image-{len(images) + 1}.{block.mime_type.rpartition('/')[2] or 'png'}"
            try:
                data = base64.b64decode(block.data, validate=True)
            except (binascii.Error, ValueError):
                data = b""
            images.append((name, data))
    return images


def replayed(messages: list[dict[str, Any]]) -> list[Update | Any]:
    """The updates that show ``messages`` (the history after the system prompt) again."""
    updates: list[Update | Any] = []
    for message in messages:
        role, content = message.get("role"), message_text(message)
        if role == "user" and content:
            updates.append(update_user_message_text(content))
        elif role == "assistant":
            if isinstance(message.get("reasoning_content"), str) and message["reasoning_content"]:
                updates.append(update_agent_thought_text(message["reasoning_content"]))
            if content:
                updates.append(update_agent_message_text(content))
            updates += [_call(call) for call in message.get("tool_calls") or []]
        elif role == "tool" and isinstance(message.get("tool_call_id"), str):
            shown = [tool_content(text_block(content[:OUTPUT_MAX_CHARS]))] if content else []
            updates.append(
                update_tool_call(message["tool_call_id"], status="completed", content=shown)
            )
    return updates


def _call(call: Any) -> Update:
    function = call.get("function") or {} if isinstance(call, dict) else {}
    name = str(function.get("name") or "tool")
    try:
        args = json.loads(function.get("arguments") or "{}")
    except ValueError:
        args = {}
    args = args if isinstance(args, dict) else {}
    call_id = str(call.get("id") or name) if isinstance(call, dict) else name
    return start_tool_call(
        call_id, title(name, args), kind=tool_kind(name), status="pending", raw_input=args
    )
