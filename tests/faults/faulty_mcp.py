"""A stdio MCP server (the mcp SDK's MCPServer) whose tools misbehave on purpose: one exits the
process mid-call, one never answers, one freezes the whole server (at once, after telling a
file, or after its answer), one floods its reply, one floods stderr. With FAULTY_ONCE=PATH, a
crash leaves PATH behind and a server started while it exists exits at once (a failed
restart)."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

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
    if os.environ.get("FAULTY_ONCE"):
        Path(os.environ["FAULTY_ONCE"]).touch()
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
async def stall(marker: str) -> str:
    """Create the marker file, then freeze the server: it never reads its stdin again."""
    Path(marker).touch()
    time.sleep(3600)
    return "late"


@server.tool()
async def freeze_soon() -> str:
    """Answer, then freeze the server: hung while idle, saying so on stderr first."""
    sys.stderr.write("about to freeze\n")
    sys.stderr.flush()
    asyncio.get_running_loop().call_later(0.2, time.sleep, 3600)
    return "frozen soon"


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
    if os.environ.get("FAULTY_ONCE") and Path(os.environ["FAULTY_ONCE"]).exists():
        sys.exit("fatal: the state a crash left cannot be read")
    server.run()
