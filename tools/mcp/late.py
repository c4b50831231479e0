"""The tools of MCP servers that came up after the agent was built (they start in the
background): taken in at the start of a turn, never within one.

Within a turn the tools list, and so the prompt prefix, stays byte-for-byte the same. A server
that comes up during a turn is offered from the next turn on: in listed mode its tools join the
end of the list (the cached prefix is recomputed once, from the tools on); in search mode they
join the ``mcp_tools`` catalogue and the prompt does not change at all. When late tools push the
listed ones past the budget, the MCP tools switch to search mode then, once.
"""

from __future__ import annotations

from tools.mcp.extras import RESOURCE_TOOL, ResourceTool
from tools.mcp.search import McpSearchTool, schema_tokens
from tools.mcp.servers import McpServers
from tools.mcp.tool import McpTool
from tools.registry import ToolRegistry


def take_late_tools(registry: ToolRegistry, mcp: McpServers, budget: int | None) -> bool:
    """Add the tools of servers that came up since they were last looked at; True when the
    tools list the model sees changed."""
    tools = [t for name in registry.names() if (t := registry.get(name)) is not None]
    listed = [t for t in tools if isinstance(t, McpTool)]
    search = next((t for t in tools if isinstance(t, McpSearchTool)), None)
    found = list(search.tools.values()) if search is not None else []
    taken = set(registry.names()) | {t.name for t in found}
    new = mcp.tools(taken, skip={t.server for t in listed + found})
    changed = False
    if new and search is not None:
        search.tools |= {tool.name: tool for tool in new}  # the schema stays as it was
    elif new and budget and schema_tokens(listed + new) > budget:
        for tool in listed:
            registry.remove(tool.name)
        registry.add(McpSearchTool(listed + new))
        changed = True
    elif new:
        for tool in new:
            registry.add(tool)
        changed = True
    if RESOURCE_TOOL not in taken and any(res for _, res in mcp.offers().values()):
        registry.add(ResourceTool(mcp))
        changed = True
    return changed
