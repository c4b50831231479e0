"""A small, well-behaved stdio MCP server (the mcp SDK's MCPServer) with a tool, prompts and
resources: what a user's own server offers. ``env_var`` reports what its environment holds."""

from __future__ import annotations

import os

from mcp.server.mcpserver import MCPServer

server = MCPServer("notes")


@server.tool()
def env_var(name: str) -> str:
    """The value of an environment variable in this server, or <unset>."""
    return os.environ.get(name, "<unset>")


@server.prompt()
def review(path: str, focus: str = "bugs") -> str:
    """Ask for a review of one file."""
    return f"Review {path}, looking for {focus}."


@server.resource("notes://readme", mime_type="text/plain")
def readme() -> str:
    """The project notes."""
    return "Notes: the build uses make."


@server.resource("notes://logo", mime_type="image/png")
def logo() -> bytes:
    """A tiny image."""
    return b"\x89PNG\r\n\x1a\n" + bytes(40)


if __name__ == "__main__":
    server.run()
