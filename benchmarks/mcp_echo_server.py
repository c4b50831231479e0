"""A minimal stdio MCP server for the memory benchmark: one `echo` tool, nothing else.

When MARKER_DIR is set it leaves a file there on start, so the benchmark can tell that the agent
really launched it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer

name = sys.argv[1] if len(sys.argv) > 1 else "echo"
server = MCPServer(name)


@server.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


if __name__ == "__main__":
    marker = os.environ.get("MARKER_DIR")
    if marker:
        (Path(marker) / f"{name}.{os.getpid()}").write_text("started\n")
    server.run("stdio")
