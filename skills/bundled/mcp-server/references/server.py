"""A minimal MCP server over stdio (mcp 2.x). Run: python3 server.py"""

from __future__ import annotations

from mcp.server import MCPServer

server = MCPServer("notes")
NOTES: list[str] = []


@server.tool()
def add_note(text: str) -> str:
    """Keep a note; returns how many there are."""
    NOTES.append(text)
    return f"{len(NOTES)} notes"


@server.tool()
def list_notes() -> str:
    """All notes, one a line."""
    return "\n".join(NOTES) or "no notes"


if __name__ == "__main__":
    server.run()  # stdio; server.run("streamable-http") serves HTTP instead
