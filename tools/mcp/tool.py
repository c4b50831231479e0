"""One tool of an MCP server as a Tool of the registry: a short name, a lean schema, one line of
description, and its results turned into text.

Nothing here imports ``mcp``: tool listings and call results are read by attribute, so this module
stays cheap to import and the SDK loads only when a server is configured.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable
from typing import Any, Protocol

from tools.output import cap_text
from tools.tool import Image, Kind, ToolContext, ToolResult

MAX_NAME = 64  # the OpenAI API's limit on function names
MAX_DESCRIPTION = 100  # every token of it is prefilled on a cold turn
MAX_PARAMETER_DESCRIPTION = 80
_DROPPED = ("title", "default", "examples", "$schema")
_NOT_NAME = re.compile(r"[^a-zA-Z0-9_-]+")
_SUB_SCHEMAS = ("items", "additionalProperties", "not", "if", "then", "else")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")


class McpCaller(Protocol):
    """What a tool needs from its server's connection (``tools.mcp.servers.McpServers``)."""

    async def call(self, server: str, tool: str, args: dict[str, Any]) -> ToolResult: ...


def tool_name(server: str, tool: str, taken: set[str]) -> str:
    """``<server>_<tool>`` in the characters a model can type, unique among ``taken``."""
    base = _NOT_NAME.sub("_", f"{server}_{tool}").strip("_") or "mcp_tool"
    name, number = base[:MAX_NAME], 1
    while name in taken:
        number += 1
        suffix = f"_{number}"
        name = base[: MAX_NAME - len(suffix)] + suffix
    return name


def one_line(description: str | None, limit: int = MAX_DESCRIPTION) -> str:
    """The first line of a description, cut at a word before ``limit`` characters."""
    first = next((line.strip() for line in (description or "").splitlines() if line.strip()), "")
    if len(first) <= limit:
        return first
    cut = first[: limit - 1].rsplit(" ", 1)[0] if " " in first[: limit - 1] else first[: limit - 1]
    return cut.rstrip(" ,;:.") + "…"


def lean_schema(schema: Any) -> Any:
    """The schema without ``title``, ``default`` and ``examples`` keys (pydantic adds them; the
    model does not need them), descriptions cut to one short line. Property names are kept even
    when a property is called "title"."""
    if not isinstance(schema, dict):
        return schema
    lean: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _DROPPED:
            continue
        if key == "description" and isinstance(value, str):
            lean[key] = one_line(value, MAX_PARAMETER_DESCRIPTION)
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            lean[key] = {name: lean_schema(sub) for name, sub in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            lean[key] = [lean_schema(sub) for sub in value]
        elif key in _SUB_SCHEMAS:
            lean[key] = lean_schema(value)
        else:
            lean[key] = value
    return lean


def parameters_of(input_schema: Any) -> dict[str, Any]:
    """An arguments schema the chat API accepts: always an object."""
    schema = lean_schema(input_schema) if isinstance(input_schema, dict) else {}
    if schema.get("type") != "object":
        schema = {"properties": {}, **schema, "type": "object"}
    return schema


def _size_of(data: Any) -> int:
    try:
        return len(base64.b64decode(data or "", validate=False))
    except (binascii.Error, ValueError, TypeError):
        return len(data or "")


def content_text(block: Any) -> str:
    """One content block as text; what is not text is summarised in one bracketed line."""
    kind = getattr(block, "type", "")
    if kind == "text":
        return str(block.text)
    if kind in ("image", "audio"):
        return f"[{kind}: {block.mime_type}, {_size_of(block.data)} bytes]"
    if kind == "resource_link":
        return f"[resource link: {block.uri}]"
    if kind == "resource":
        inner = block.resource
        text = getattr(inner, "text", None)
        if isinstance(text, str):
            return text
        mime = getattr(inner, "mime_type", None) or "binary"
        return f"[resource: {inner.uri}, {mime}, {_size_of(getattr(inner, 'blob', ''))} bytes]"
    return f"[{kind or 'unknown'} content]"


def result_images(result: Any) -> tuple[Image, ...]:
    """The image blocks of a CallToolResult, for a model that sees images."""
    blocks = result.content or []
    return tuple(
        Image(str(b.mime_type), str(b.data)) for b in blocks if getattr(b, "type", "") == "image"
    )


def result_text(result: Any) -> tuple[str, bool]:
    """(text for the model, is_error) of a CallToolResult."""
    parts = [content_text(block) for block in result.content or []]
    structured = getattr(result, "structured_content", None)
    if not parts and structured is not None:
        parts = [json.dumps(structured, ensure_ascii=False)]
    return "\n".join(parts), bool(result.is_error)


class McpTool:
    """A tool of a connected MCP server; calls go through the server's connection."""

    def __init__(self, server: str, listed: Any, caller: McpCaller, taken: set[str]) -> None:
        self.server, self.remote_name = server, str(listed.name)
        self.name = tool_name(server, self.remote_name, taken)
        self.description = one_line(listed.description) or f"{self.remote_name} ({server} MCP)"
        self.parameters = parameters_of(listed.input_schema)
        annotations = getattr(listed, "annotations", None)
        self.read_only = bool(getattr(annotations, "read_only_hint", False))
        self._caller = caller

    def kind(self, args: dict[str, Any]) -> Kind:
        # A server's word that a tool only reads is all we know; anything else may change things.
        return "read" if self.read_only else "execute"

    def subject(self, args: dict[str, Any]) -> str:
        return ""  # rules name the whole tool: "time_get_current_time"

    def paths(self, args: dict[str, Any]) -> list[str]:
        return []

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        result = await self._caller.call(self.server, self.remote_name, args)
        output = cap_text(result.output, ctx.max_output_chars)
        return ToolResult(output, result.is_error, images=result.images)


def mcp_tools(
    server: str, listed: Iterable[Any], caller: McpCaller, taken: set[str]
) -> list[McpTool]:
    """The server's tools in its own order, with names unique among ``taken`` (which grows)."""
    made = []
    for item in listed:
        tool = McpTool(server, item, caller, taken)
        taken.add(tool.name)
        made.append(tool)
    return made
