"""Past a token budget, the MCP tools are not listed one by one: one ``mcp_tools`` tool finds
them by words (each hit with its schema) and calls one. The tools list then stays this one entry
for the whole session, so the cached prefix survives whatever the servers offer."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from tools.mcp.tool import McpTool
from tools.tool import STR, Kind, ToolContext, ToolResult, openai_schema, params

SEARCH_TOOL = "mcp_tools"
MAX_HITS = 5
_WORD = re.compile(r"[a-z0-9]+")


def schema_tokens(tools: Sequence[McpTool]) -> int:
    """About how many prompt tokens listing these tools costs (4 characters a token)."""
    return sum(len(json.dumps(openai_schema(t), separators=(",", ":"))) for t in tools) // 4


class McpSearchTool:
    """Search the MCP tools, then call one by name with its arguments."""

    name = SEARCH_TOOL
    description = "Find MCP server tools by words (action search), then call one (action call)."
    parameters = params(
        {"action": {"type": "string", "enum": ["search", "call"]}},
        {"query": STR, "name": STR, "arguments": {"type": "object"}},
    )

    def __init__(self, tools: Sequence[McpTool]) -> None:
        self.tools = {tool.name: tool for tool in tools}

    def _target(self, args: dict[str, Any]) -> McpTool | None:
        return self.tools.get(str(args.get("name", ""))) if args.get("action") == "call" else None

    def routes_to(self, args: dict[str, Any]) -> tuple[McpTool, dict[str, Any]] | None:
        target = self._target(args)
        arguments = args.get("arguments") or {}
        return (target, arguments) if target and isinstance(arguments, dict) else None

    def kind(self, args: dict[str, Any]) -> Kind:
        target = self._target(args)
        return target.kind(args.get("arguments") or {}) if target else "read"

    def subject(self, args: dict[str, Any]) -> str:
        target = self._target(args)
        return target.name if target else ""  # deny rules can name it: mcp_tools(time_*)

    def paths(self, args: dict[str, Any]) -> list[str]:
        return []

    def search(self, query: str) -> list[McpTool]:
        words = set(_WORD.findall(query.lower()))

        def score(tool: McpTool) -> int:
            return len(words & set(_WORD.findall(f"{tool.name} {tool.description}".lower())))

        ranked = sorted(self.tools.values(), key=score, reverse=True)
        return [tool for tool in ranked if score(tool) > 0][:MAX_HITS] or ranked[:MAX_HITS]

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if args.get("action") == "search":
            hits = self.search(str(args.get("query", "")))
            lines = [
                json.dumps(
                    {"name": t.name, "description": t.description, "parameters": t.parameters},
                    separators=(",", ":"),
                )
                for t in hits
            ]
            return ToolResult("\n".join(lines) or "(no MCP tools)")
        target = self._target(args)
        if target is None:
            return ToolResult(
                f"no MCP tool named {args.get('name')!r}: search first", is_error=True
            )
        arguments = args.get("arguments") or {}
        if not isinstance(arguments, dict):
            return ToolResult("arguments must be an object", is_error=True)
        return await target.run(arguments, ctx)
