"""server-everything over streamable HTTP on a loopback port (node, with tests/peers/loopback.cjs
so it listens on 127.0.0.1 only): tools, an image, a resource and a prompt with arguments."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from tests.mcp.conftest import PEERS
from tests.tools.processes import wait_listening
from tests.tools.test_mcp_http import free_port
from tools.mcp.extras import prompt_text, read_resource
from tools.mcp.servers import McpServers


@pytest.fixture
def everything_url(npm_server: dict[str, list[str]], tmp_path: Path) -> Iterator[str]:
    node, script = npm_server["everything"]
    port, log = free_port(), (tmp_path / "everything.log").open("wb")
    argv = [node, "--require", str(PEERS / "loopback.cjs"), script, "streamableHttp"]
    env = {**os.environ, "PORT": str(port)}
    proc = subprocess.Popen(argv, env=env, stdout=log, stderr=log, start_new_session=True)
    try:
        wait_listening(port, proc, tmp_path / "everything.log")
        listening = psutil.Process(proc.pid).net_connections("inet")
        assert {c.laddr.ip for c in listening if c.status == "LISTEN"} == {"127.0.0.1"}
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        log.close()


def test_everything_over_streamable_http(everything_url: str, tmp_path: Path) -> None:
    servers = McpServers({"every": {"url": everything_url}}, tmp_path / "mcp.log")
    try:
        assert servers.connect() == []
        tools = {tool.name: tool for tool in servers.tools(set())}
        assert {"every_echo", "every_get-tiny-image"} <= set(tools)
        prompts, resources = servers.offers()["every"]
        assert "args-prompt" in [p.name for p in prompts] and len(resources) == 7

        async def asks() -> list[str]:
            echo = await servers.call("every", "echo", {"message": "over http"})
            image = await servers.call("every", "get-tiny-image", {})
            assert [i.mime_type for i in image.images] == ["image/png"]
            doc = await read_resource(servers, "every", resources[0].uri, 2000)
            asked = await prompt_text(servers, "every", "args-prompt", {"city": "Oslo"})
            return [echo.output, image.output.splitlines()[1], doc.splitlines()[0], asked]

        assert asyncio.run(asks()) == [
            "Echo: over http",
            "[image: image/png, 4033 bytes]",
            "# Everything Server – Architecture",
            "What's weather in Oslo?",
        ]
    finally:
        servers.close()
