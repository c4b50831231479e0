"""An MCP server's prompts and resources: a prompt's text for a slash command, the one
``mcp_resource`` tool the model lists and reads resources with, and ``@server:uri`` attachments.

Text is passed on (capped); binary content is summarised in one line, never sent as bytes.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import TYPE_CHECKING, Any

from tools.output import cap_text
from tools.tool import STR, Kind, ToolContext, ToolResult, params

if TYPE_CHECKING:
    from tools.mcp.servers import McpServers

RESOURCE_TOOL = "mcp_resource"
_ATTACHMENT = re.compile(r"(?<!\S)@([A-Za-z0-9_.-]+):(\S+)")


def contents_text(contents: Any, limit: int) -> str:
    """Resource or prompt contents as text: text kept, a blob or image one summary line."""
    parts = []
    for item in contents:
        text = getattr(item, "text", None)
        if isinstance(text, str):
            parts.append(text)
            continue
        data = getattr(item, "blob", None) or getattr(item, "data", None) or ""
        try:
            size = len(base64.b64decode(data, validate=True))
        except (binascii.Error, ValueError):
            size = len(data)
        mime = getattr(item, "mime_type", None) or "binary"
        parts.append(f"[{mime} content of {size} bytes, not shown]")
    return cap_text("\n".join(parts), limit)


async def prompt_text(servers: McpServers, server: str, name: str, args: dict[str, str]) -> str:
    """The prompt's messages as one text (a user turn). Raises LookupError or MCPError."""
    result = await servers.request(server, lambda session: session.get_prompt(name, args))
    return contents_text([message.content for message in result.messages], 30_000)


async def read_resource(servers: McpServers, server: str, uri: str, limit: int) -> str:
    result = await servers.request(server, lambda session: session.read_resource(uri))
    return contents_text(getattr(result, "contents", []), limit)


async def with_attachments(servers: McpServers, text: str, limit: int) -> str:
    """The text with each ``@server:uri`` of a connected server's resource appended."""
    offered = servers.offers()
    found = [(s, u) for s, u in _ATTACHMENT.findall(text) if s in offered]
    for server, uri in dict.fromkeys(found):
        try:
            body = await read_resource(servers, server, uri, limit)
        except Exception as error:  # a failed read is told, the turn goes on
            body = f"(could not read: {error})"
        text += f'\n\n<resource server="{server}" uri="{uri}">\n{body}\n</resource>'
    return text


class ResourceTool:
    """List the connected servers' resources, or read one."""

    name = RESOURCE_TOOL
    description = "List MCP servers' resources, or read one by server and uri."
    parameters = params(
        {"action": {"type": "string", "enum": ["list", "read"]}}, {"server": STR, "uri": STR}
    )

    def __init__(self, servers: McpServers) -> None:
        self.servers = servers

    def kind(self, args: dict[str, Any]) -> Kind:
        return "read"

    def subject(self, args: dict[str, Any]) -> str:
        return f"{args.get('server', '')}:{args.get('uri', '')}"

    def paths(self, args: dict[str, Any]) -> list[str]:
        return []

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if args.get("action") == "list":
            lines = [
                f"{server} {r.uri} · {r.name}" + (f" ({r.mime_type})" if r.mime_type else "")
                for server, (_, resources) in self.servers.offers().items()
                for r in resources
            ]
            return ToolResult("\n".join(lines) or "(no resources)")
        server, uri = str(args.get("server", "")), str(args.get("uri", ""))
        if not server or not uri:
            return ToolResult("read needs server and uri (action list shows them)", is_error=True)
        try:
            return ToolResult(await read_resource(self.servers, server, uri, ctx.max_output_chars))
        except Exception as error:  # LookupError, the server's MCPError, a timeout
            return ToolResult(f"cannot read {uri} from {server!r}: {error}", is_error=True)
