"""A stdio MCP server (the mcp SDK's MCPServer) whose tools misbehave on purpose: one exits the
process mid-call, one never answers, one freezes the whole server, one floods its reply, one
floods stderr."""

from __future__ import annotations

import os
import sys
import time

from mcp.server.mcpserver import MCPServer

server = MCPServer("faulty")


@server.tool()
def echo(text: str) -> str:
    """Say the text back."""
    return text


@server.tool()
def crash() -> str:
    """Exit the server process in the middle of the call, saying why on stderr."""
    sys.stderr.write("fatal: out of cheese\n")
    sys.stderr.flush()
    os._exit(9)


@server.tool()
def hang() -> str:
    """Never answer."""
    time.sleep(3600)
    return "late"


@server.tool()
async def freeze() -> str:
    """Block the server's event loop: the whole server stops answering (pings too)."""
    time.sleep(3600)
    return "late"


@server.tool()
def flood(megabytes: int) -> str:
    """A reply of that many megabytes."""
    return "z" * (megabytes << 20)


@server.tool()
def shout(megabytes: int) -> str:
    """Write that many megabytes to stderr, then answer."""
    for _ in range(megabytes):
        sys.stderr.write("noise " * ((1 << 20) // 6) + "\n")
    return "shouted"


if __name__ == "__main__":
    server.run()
