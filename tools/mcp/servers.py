"""The configured MCP servers: connected at once, their tools offered, calls relayed, then closed.

The SDK's sessions live on an event loop of their own in a daemon thread, so they outlive any one
loop of the agent (headless runs its turn in ``asyncio.run``; the TUI has Textual's loop) and a
tool call from any loop just awaits a future. A server that fails to start, stops answering or
dies costs one line; the others and the agent carry on. Every request has a timeout (the SDK's
default waits forever). ``mcp`` is imported here and in tools.mcp.requests only; import them only
when a server is configured (the SDK costs ~0.7 s).
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import threading
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any, TextIO, TypeVar

import anyio
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client, types
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.types.jsonrpc import CONNECTION_CLOSED, REQUEST_TIMEOUT

from tools.environment import network_env
from tools.mcp.problems import CLOSED, problem_of, sdk_logs_to
from tools.mcp.requests import answers_ping, list_extras, list_tools
from tools.mcp.tool import McpTool, mcp_tools, result_text
from tools.tool import ToolResult

CONNECT_TIMEOUT_S = 30.0  # spawn + initialize + tools/list (a Python server needs ~1 s)
CALL_TIMEOUT_S = 300.0
CLOSE_TIMEOUT_S = 10.0  # the SDK gives a stdio server 2 s after EOF, then 2 s after SIGTERM
T = TypeVar("T")


def offered_tool(name: str, spec: Mapping[str, Any]) -> bool:
    """Whether the server's config lets the model see this tool (deny wins; globs allowed)."""
    allow, deny = spec.get("allow_tools"), spec.get("deny_tools", [])
    if any(fnmatch.fnmatchcase(name, p) for p in deny):
        return False
    return allow is None or any(fnmatch.fnmatchcase(name, p) for p in allow)


class _Link:
    """One configured server: its spec, its live session (or why there is none) and its tools."""

    def __init__(self, name: str, spec: Mapping[str, Any]) -> None:
        self.name, self.spec = name, dict(spec)
        self.session: ClientSession | None = None
        self.listed: list[types.Tool] = []
        self.prompts: list[types.Prompt] = []
        self.resources: list[types.Resource] = []
        self.state = "connecting"  # connected, failed, down (died later), closed
        self.problem = ""
        self.ready = asyncio.Event()
        self.stop = asyncio.Event()
        self.calls: set[asyncio.Task[Any]] = set()

    def fail(self, problem: str) -> None:
        """Mark the server unusable (first reason wins) and let its holder close the transport."""
        if self.state in ("connecting", "connected"):
            self.state = "failed" if self.state == "connecting" else "down"
            self.problem = problem
        self.session = None
        self.stop.set()
        for call in self.calls - {asyncio.current_task()}:
            call.cancel()  # calls waiting on a dead transport would wait out their timeout

    def line(self) -> str:
        return f"mcp server {self.name!r}: {self.problem}"

    def unavailable(self) -> ToolResult:
        why = self.problem or self.state
        return ToolResult(f"mcp server {self.name!r} is not available ({why})", is_error=True)


class McpServers:
    """The config's MCP servers: ``connect()`` once, ``tools()`` for the registry, ``close()``."""

    def __init__(
        self,
        specs: Mapping[str, Mapping[str, Any]],
        log_path: Path,
        *,
        connect_timeout_s: float = CONNECT_TIMEOUT_S,
        call_timeout_s: float = CALL_TIMEOUT_S,
    ) -> None:
        self.log_path = log_path
        self.connect_timeout_s, self.call_timeout_s = connect_timeout_s, call_timeout_s
        self._links = {name: _Link(name, spec) for name, spec in specs.items()}
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="mcp", daemon=True)
        self._holders: list[asyncio.Task[None]] = []
        self._log: TextIO | None = None
        self._closed = False

    # The caller's side: any thread or event loop.

    def connect(self) -> list[str]:
        """Connect every server concurrently; one line per server that could not be connected."""
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        # Servers' stderr (banners, tracebacks) goes here, never to the terminal.
        self._log = open(self.log_path, "a", encoding="utf-8", errors="replace")
        sdk_logs_to(self.log_path)
        self._thread.start()
        self._submit(self._connect_all()).result()
        return [link.line() for link in self._links.values() if link.state != "connected"]

    def serves(self, specs: Mapping[str, Mapping[str, Any]]) -> bool:
        """Whether these are the servers of ``specs``, all open: a new agent may reuse them (a
        failed or dead one gets another try when they are connected anew)."""
        same = {name: link.spec for name, link in self._links.items()} == specs
        live = all(link.state == "connected" for link in self._links.values())
        return same and live and not self._closed

    def tools(self, taken: set[str]) -> list[McpTool]:
        """The connected servers' tools, in config order then each server's order."""
        made: list[McpTool] = []
        for link in self._links.values():
            if link.state == "connected":
                offered = [t for t in link.listed if offered_tool(t.name, link.spec)]
                made += mcp_tools(link.name, offered, self, taken)
        return made

    def status_lines(self) -> list[str]:
        """One line per server for /mcp: name, state, tool count or problem."""
        lines = []
        for link in self._links.values():
            where = link.spec.get("url") or " ".join(
                [link.spec["command"], *link.spec.get("args", [])]
            )
            n = len(link.listed)
            shown = link.problem or f"{n} tool{'s' * (n != 1)}"
            lines.append(f"{link.name} · {link.state} · {shown} · {where}")
        return lines + [f"server logs: {self.log_path}"]

    async def call(self, server: str, tool: str, args: dict[str, Any]) -> ToolResult:
        """Call a tool on the agent's loop; cancelling this cancels the request on the server."""
        link = self._links[server]
        if self._closed or link.state != "connected":
            return link.unavailable()
        return await asyncio.wrap_future(self._submit(self._call(link, tool, args)))

    def offers(self) -> dict[str, tuple[list[types.Prompt], list[types.Resource]]]:
        """Each connected server's prompts and resources."""
        live = (link for link in self._links.values() if link.state == "connected")
        return {link.name: (link.prompts, link.resources) for link in live}

    async def request(self, server: str, ask: Callable[[ClientSession], Awaitable[T]]) -> T:
        """Any other request (a prompt, a resource) on the server's session, with the timeout.
        Raises LookupError naming why the server cannot be asked."""
        link = self._links.get(server)
        if link is None or self._closed or link.session is None:
            raise LookupError(link.unavailable().output if link else f"no MCP server {server!r}")
        session = link.session
        work = asyncio.wait_for(ask(session), self.call_timeout_s)
        return await asyncio.wrap_future(self._submit(work))

    def close(self) -> None:
        """Close every session and stop its server; safe to call more than once."""
        if self._closed:
            return
        self._closed = True
        if self._thread.is_alive():
            with contextlib.suppress(FutureTimeout):
                self._submit(self._close_all()).result(timeout=CLOSE_TIMEOUT_S)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=CLOSE_TIMEOUT_S)
        if not self._thread.is_alive():
            self._loop.close()
        if self._log is not None:
            self._log.close()

    def _submit(self, work: Coroutine[Any, Any, T]) -> Future[T]:
        return asyncio.run_coroutine_threadsafe(work, self._loop)

    # The MCP loop's side.

    async def _connect_all(self) -> None:
        async def ready(link: _Link, holder: asyncio.Task[None]) -> None:
            try:
                await asyncio.wait_for(link.ready.wait(), self.connect_timeout_s)
            except TimeoutError:
                link.fail(f"no reply within {self.connect_timeout_s:g} s")
                holder.cancel()

        self._holders = [asyncio.create_task(self._hold(link)) for link in self._links.values()]
        await asyncio.gather(*map(ready, self._links.values(), self._holders))

    async def _hold(self, link: _Link) -> None:
        """Open the server's session, list its tools and keep it open until told to stop.

        The transport's task groups must be left in the task that entered them, hence one
        long-lived task per server."""
        try:
            async with contextlib.AsyncExitStack() as stack:
                read, write = await self._open(link.spec, stack)
                session = await stack.enter_async_context(
                    ClientSession(read, write, read_timeout_seconds=self.call_timeout_s)
                )
                await session.initialize()
                link.listed = await list_tools(session)
                link.prompts, link.resources = await list_extras(session)
                if link.state == "connecting":
                    link.session, link.state = session, "connected"
                link.ready.set()
                await link.stop.wait()
        except (Exception, asyncio.CancelledError) as error:
            problem = problem_of(error, link.spec)
            if problem == CLOSED and link.state == "connecting":
                problem = f"exited during start (its stderr is in {self.log_path})"
            link.fail(problem)
        finally:
            link.session = None
            link.ready.set()

    async def _open(self, spec: dict[str, Any], stack: contextlib.AsyncExitStack) -> Any:
        if "url" in spec and spec.get("type") == "sse":
            return await stack.enter_async_context(sse_client(spec["url"], spec.get("headers")))
        if "url" in spec:
            http = create_mcp_http_client(headers=spec.get("headers"))
            await stack.enter_async_context(http)
            return await stack.enter_async_context(
                streamable_http_client(spec["url"], http_client=http)
            )
        params = StdioServerParameters(
            command=spec["command"],
            args=spec.get("args", []),
            # over the SDK's safe set (PATH, HOME, ...): proxies and CA files, then the config's
            env=network_env() | spec.get("env", {}),
            cwd=spec.get("cwd"),
            encoding_error_handler="replace",  # one bad byte must not kill the reader
        )
        assert self._log is not None  # opened by connect()
        return await stack.enter_async_context(stdio_client(params, errlog=self._log))

    async def _call(self, link: _Link, tool: str, args: dict[str, Any]) -> ToolResult:
        session = link.session
        if session is None:
            return link.unavailable()
        task = asyncio.current_task()
        assert task is not None
        link.calls.add(task)
        try:
            result = await session.call_tool(tool, args, read_timeout_seconds=self.call_timeout_s)
        except MCPError as error:
            if error.code == CONNECTION_CLOSED:
                link.fail(CLOSED)
                return link.unavailable()
            if error.code == REQUEST_TIMEOUT and not await answers_ping(session):
                # Not slow but hung: stopped and marked down, so no later call waits on it.
                link.fail(f"hung: no reply within {self.call_timeout_s:g} s, nor to a ping")
                return link.unavailable()
            if error.code == REQUEST_TIMEOUT:
                late = f"no reply within {self.call_timeout_s:g} s; the server may still be at it"
                return ToolResult(f"mcp server {link.name!r}: {late}", is_error=True)
            return ToolResult(f"mcp server {link.name!r}: {error.message}", is_error=True)
        except asyncio.CancelledError:
            if link.state == "connected":
                raise  # the user's cancel
            return link.unavailable()  # the server died under the call
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError) as error:
            link.fail(problem_of(error, link.spec))
            return link.unavailable()
        finally:
            link.calls.discard(task)
        output, is_error = result_text(result)
        return ToolResult(output or ("(failed)" if is_error else "(no output)"), is_error)

    async def _close_all(self) -> None:
        for link in self._links.values():
            if link.state == "connected":
                link.state = "closed"  # before the stop: teardown noise is not a failure
            link.stop.set()
        await asyncio.gather(*self._holders, return_exceptions=True)
