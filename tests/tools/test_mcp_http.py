"""An MCP server over streamable HTTP (the SDK's own MCPServer on a loopback port): connect with
headers, one-line descriptions, text and image results, a call past its timeout, and the server
killed mid-session."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tools.processes import wait_listening, wait_until_dead
from tools.mcp.servers import McpServers
from tools.tool import ToolContext

SERVER = '''
import sys

import anyio
from mcp.server.mcpserver import Image, MCPServer

server = MCPServer("peer")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers.

    More text that the model does not need."""
    return a + b


@server.tool()
async def wait(seconds: float) -> str:
    """Sleep, then answer."""
    await anyio.sleep(seconds)
    return "awake"


@server.tool()
def picture() -> Image:
    """A tiny image."""
    return Image(data=b"\\x89PNG", format="png")


server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
'''


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def peer(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    script, port = tmp_path / "peer.py", free_port()
    script.write_text(SERVER)
    log = (tmp_path / "peer.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, str(script), str(port)], stdout=log, stderr=log, start_new_session=True
    )
    try:
        wait_listening(port, proc, tmp_path / "peer.log")  # the SDK takes about a second to import
        yield f"http://127.0.0.1:{port}/mcp", proc
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        log.close()


def test_a_streamable_http_server(
    peer: tuple[str, subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    url, proc = peer
    spec = {"url": url, "headers": {"Authorization": "Bearer test"}}
    servers = McpServers({"peer": spec}, tmp_path / "mcp.log", call_timeout_s=2)
    try:
        assert servers.connect() == []
        tools = {tool.name: tool for tool in servers.tools(set())}
        assert list(tools) == ["peer_add", "peer_wait", "peer_picture"]
        assert tools["peer_add"].description == "Add two integers."
        assert tools["peer_add"].kind({}) == "execute"  # no readOnlyHint: ask mode asks
        ctx = ToolContext(workspace=tmp_path)

        async def calls() -> list[tuple[str, bool]]:
            done = [await tools["peer_add"].run({"a": 1, "b": 2}, ctx)]
            done.append(await tools["peer_picture"].run({}, ctx))
            done.append(await tools["peer_wait"].run({"seconds": 60}, ctx))  # past the timeout
            done.append(await tools["peer_wait"].run({"seconds": 0}, ctx))
            os.killpg(proc.pid, signal.SIGKILL)
            assert wait_until_dead(proc.pid)
            done.append(await tools["peer_add"].run({"a": 1, "b": 2}, ctx))
            done.append(await tools["peer_add"].run({"a": 1, "b": 2}, ctx))
            return [(result.output, result.is_error) for result in done]

        added, picture, late, awake, lost, again = asyncio.run(calls())
    finally:
        servers.close()
    assert added == ("3", False)
    assert picture == ("[image: image/png, 4 bytes]", False)
    assert late == ("mcp server 'peer': no reply within 2 s; the server may still be at it", True)
    assert awake == ("awake", False)  # a timed-out call leaves the session usable
    gone = "mcp server 'peer' is not available (the server exited or closed the connection)"
    assert lost == again == (gone, True)
