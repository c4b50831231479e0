"""How an MCP server is reached: a URL over streamable HTTP or SSE, or a command over stdio. A
stdio server is started under ``tools/mcp/guard.py``, so it dies with beecode even when beecode
is SIGKILLed, with the SDK's safe environment plus what its config passes, and its stderr goes
to a file (redacted, bounded), never to the terminal."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx2
from mcp import StdioServerParameters, stdio_client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tools.environment import network_env
from tools.redacted_log import RedactedLog

GUARD = Path(__file__).with_name("guard.py")


def check_command(command: str, path: str | None, cwd: str | None) -> None:
    """Raise what exec would (FileNotFoundError, PermissionError): the guard is what beecode
    starts, so a missing server command would otherwise only show as an early exit."""
    if os.sep in command:
        found: str | None = str(Path(cwd or ".") / command)
        if not os.path.exists(str(found)):
            found = None
    else:
        found = shutil.which(command, mode=os.F_OK, path=path)
    if found is None:
        raise FileNotFoundError(command)
    if os.path.isdir(found) or not os.access(found, os.X_OK):
        raise PermissionError(command)


def server_params(spec: Mapping[str, Any]) -> StdioServerParameters:
    """The guarded command line of a stdio server's spec."""
    # Over the SDK's safe set (PATH, HOME, ...): proxies and CA files, then the config's.
    env = network_env() | spec.get("env", {})
    cwd = spec.get("cwd")
    if cwd is None or Path(cwd).is_dir():  # a missing cwd is the spawn's to tell
        check_command(spec["command"], env.get("PATH", os.environ.get("PATH")), cwd)
    command, args = spec["command"], spec.get("args", [])
    if os.name == "posix":  # process groups; elsewhere the SDK's own kill scope (a Job Object)
        guard = [str(GUARD), str(os.getpid())]  # beecode's pid: the parent it watches
        command, args = sys.executable, ["-I", "-S", *guard, command, *args]
    return StdioServerParameters(
        command=command,
        args=args,
        env=env,
        cwd=cwd,
        encoding_error_handler="replace",  # one bad byte must not kill the reader
    )


async def open_transport(
    spec: Mapping[str, Any],
    stack: contextlib.AsyncExitStack,
    stderr_path: Path | None,
    auth: httpx2.Auth | None = None,
) -> Any:
    """The (read, write) streams of the server of ``spec``, closed with ``stack``; ``auth``:
    an HTTP server's (tools/mcp/signin.py)."""
    if "url" in spec and spec.get("type") == "sse":
        client = sse_client(spec["url"], spec.get("headers"), auth=auth)
        return await stack.enter_async_context(client)
    if "url" in spec:
        http = create_mcp_http_client(headers=spec.get("headers"), auth=auth)
        await stack.enter_async_context(http)
        return await stack.enter_async_context(
            streamable_http_client(spec["url"], http_client=http)
        )
    assert stderr_path is not None  # a stdio server's
    sink = stack.enter_context(RedactedLog(stderr_path))
    return await stack.enter_async_context(stdio_client(server_params(spec), errlog=sink.pipe()))
