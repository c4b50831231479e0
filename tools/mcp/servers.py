"""The configured MCP servers: started in the background, their tools offered, calls relayed,
watched, restarted, then closed.

The SDK's sessions live on an event loop of their own in a daemon thread, so they outlive any one
loop of the agent (headless runs its turn in ``asyncio.run``; the TUI has Textual's loop) and a
tool call from any loop just awaits a future. ``start()`` returns at once: each server is
"starting" until it is up or its start timed out. A server that fails to start, stops answering
(a call or an idle ping gets no reply) or dies costs one line with its stderr tail; it is
started again with a doubling pause, and the others and the agent carry on. Every request has a
timeout (the SDK's default waits forever). Each stdio server runs under tools/mcp/guard.py, so
none outlives beecode, even a SIGKILLed one. ``mcp`` is imported in tools.mcp only; import these
modules only when a server is configured (the SDK costs ~0.7 s).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable, Collection, Coroutine, Mapping
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any, TypeVar

import anyio
from mcp import ClientSession, MCPError, types
from mcp.types.jsonrpc import CONNECTION_CLOSED, REQUEST_TIMEOUT

from tools.mcp.link import Link, offered_tool
from tools.mcp.problems import CLOSED, problem_of, sdk_logs_to
from tools.mcp.requests import PING_TIMEOUT_S, answers_ping, list_extras, list_tools
from tools.mcp.signin import signin_problem, start_auth
from tools.mcp.spawn import open_transport
from tools.mcp.tool import McpTool, mcp_tools, result_images, result_text
from tools.tool import ToolResult

CONNECT_TIMEOUT_S = 30.0  # spawn + initialize + tools/list (a Python server needs ~1 s)
CALL_TIMEOUT_S = 300.0
RESTART_PAUSE_S, RESTART_CAP_S, MAX_RESTARTS = 1.0, 30.0, 5  # a dead server is started again
STABLE_S = 60.0  # a server that ran this long before it died starts the restart count afresh
PING_EVERY_S = 30.0  # an idle server is pinged: a hung one is found before a call waits on it
CLOSE_TIMEOUT_S = 10.0  # the SDK gives a stdio server 2 s after EOF, then 2 s after SIGTERM
T = TypeVar("T")


class McpServers:
    """The config's MCP servers: ``connect()`` once, ``tools()`` for the registry, ``close()``."""

    def __init__(
        self,
        specs: Mapping[str, Mapping[str, Any]],
        log_path: Path,
        *,
        connect_timeout_s: float = CONNECT_TIMEOUT_S,
        call_timeout_s: float = CALL_TIMEOUT_S,
        ping_every_s: float = PING_EVERY_S,
    ) -> None:
        self.log_path = log_path
        self.connect_timeout_s, self.call_timeout_s = connect_timeout_s, call_timeout_s
        self.ping_every_s = ping_every_s
        self._links = {name: Link(name, spec) for name, spec in specs.items()}
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="mcp", daemon=True)
        self._holders: list[asyncio.Task[None]] = []
        self._closing = asyncio.Event()
        self._closed = False
        self._started: Future[None] | None = None  # done when no server is starting any more

    # The caller's side: any thread or event loop.

    def start(self) -> None:
        """Start every server in the background (concurrently); returns at once."""
        if self._started is not None:
            return
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        sdk_logs_to(self.log_path)
        self.log_path.touch()  # the SDK's records; each server's stderr beside it
        self._thread.start()
        self._started = self._submit(self._start_all())

    def connect(self, within_s: float | None = None) -> list[str]:
        """Start the servers (if not yet) and wait until none is starting, at most ``within_s``
        (each has its connect timeout anyway); one line per server that is not up."""
        self.start()
        assert self._started is not None
        with contextlib.suppress(FutureTimeout):
            self._started.result(timeout=within_s)
        return [link.line() for link in self._links.values() if link.state != "connected"]

    def starting(self) -> list[str]:
        """The servers still starting for the first time."""
        return [link.name for link in self._links.values() if link.state == "starting"]

    def news(self) -> list[str]:
        """One line per server that failed or went down since the last call (a failed restart
        tells its own reason)."""
        lines = []
        for link in self._links.values():
            if link.state in ("failed", "down") and link.problem != link.told:
                link.told = link.problem
                lines.append(link.line())
        return lines

    def serves(self, specs: Mapping[str, Mapping[str, Any]]) -> bool:
        """Whether these are the servers of ``specs``, all open: a new agent may reuse them (a
        failed or dead one gets another try when they are connected anew)."""
        same = {name: link.spec for name, link in self._links.items()} == specs
        live = all(link.state in ("starting", "connected") for link in self._links.values())
        return same and live and not self._closed

    def tools(self, taken: set[str], skip: Collection[str] = ()) -> list[McpTool]:
        """The connected servers' tools, in config order then each server's order; none of the
        servers in ``skip``."""
        made: list[McpTool] = []
        for link in self._links.values():
            if link.state == "connected" and link.name not in skip:
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
        stderr = self.log_path.with_name(f"{self.log_path.stem}.NAME.stderr")
        return lines + [f"server logs: {self.log_path}, each server's stderr in {stderr}"]

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

    def _submit(self, work: Coroutine[Any, Any, T]) -> Future[T]:
        return asyncio.run_coroutine_threadsafe(work, self._loop)

    # The MCP loop's side.

    async def _start_all(self) -> None:
        self._holders = [asyncio.create_task(self._hold(link)) for link in self._links.values()]
        await asyncio.gather(*(link.started.wait() for link in self._links.values()))

    async def _hold(self, link: Link) -> None:
        """Keep the server's session open until told to stop; one that dies after it was up, or
        whose restart fails, is started again after a pause that doubles each time (capped), up
        to MAX_RESTARTS in a row (a run of STABLE_S starts the count afresh).

        The transport's task groups must be left in the task that entered them, hence one task
        per start (``link.attempt``), which a start that takes too long or close() cancels."""
        pause, clock = RESTART_PAUSE_S, asyncio.get_running_loop().time
        while True:
            began = clock()
            link.ready = asyncio.Event()
            link.attempt = asyncio.create_task(self._session(link))
            try:
                await asyncio.wait_for(asyncio.shield(link.ready.wait()), self.connect_timeout_s)
            except TimeoutError:
                link.fail(f"no reply within {self.connect_timeout_s:g} s")
                link.attempt.cancel()
            link.started.set()
            await asyncio.gather(link.attempt, return_exceptions=True)
            if clock() - began > STABLE_S:
                pause, link.restarts = RESTART_PAUSE_S, 0
            if link.state == "down" and link.restarts >= MAX_RESTARTS:
                link.problem += f"; not started again after {MAX_RESTARTS} restarts"
            if link.state != "down" or self._closed or link.restarts >= MAX_RESTARTS:
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closing.wait(), pause)  # close() ends the wait
            if self._closed:
                return
            pause = min(pause * 2, RESTART_CAP_S)  # for the next failure
            link.restarts += 1
            link.state, link.stop = "restarting", asyncio.Event()

    async def _session(self, link: Link) -> None:
        """Open the session, list the server's offers, wait for the stop."""
        try:
            async with contextlib.AsyncExitStack() as stack:
                read, write = await self._open(link, stack)
                # The start's requests wait as long as a start may take (the server may still
                # be importing its code); calls and pings say their own timeouts.
                session = await stack.enter_async_context(
                    ClientSession(read, write, read_timeout_seconds=self.connect_timeout_s)
                )
                await session.initialize()
                listed = await list_tools(session)
                link.prompts, link.resources = await list_extras(session)
                if link.state == "starting":  # the tools offered stay those of the first start
                    link.listed = listed
                if link.state in ("starting", "restarting"):
                    link.session, link.state, link.problem = session, "connected", ""
                link.ready.set()
                await self._watch(link, session)
        except (Exception, asyncio.CancelledError) as error:
            problem = signin_problem(link.name, link.auth) or problem_of(error, link.spec)
            if problem == CLOSED and link.state == "starting":
                problem = "exited during start"
            link.fail(problem)  # with the server's last stderr lines when it exited
        finally:
            link.session = None
            link.retell()  # the transport is closed: its stderr is all in the file now
            link.ready.set()

    async def _watch(self, link: Link, session: ClientSession) -> None:
        """Wait for the stop, pinging the server whenever it has been idle for a while: one that
        does not answer is hung (a call in flight has its own timeout and ping)."""
        while not link.stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(link.stop.wait(), self.ping_every_s)
            if not link.stop.is_set() and not link.calls and not await answers_ping(session):
                link.fail(f"hung: no reply to a ping within {PING_TIMEOUT_S:g} s")

    async def _open(self, link: Link, stack: contextlib.AsyncExitStack) -> Any:
        if "url" in link.spec:  # its stored sign-in, if any (each start reads it afresh)
            link.auth = start_auth(link.spec["url"], link.spec.get("headers", {}))
        else:  # its stderr goes to a file of its own, beside the log
            link.stderr_path = self.log_path.with_name(f"{self.log_path.stem}.{link.name}.stderr")
        return await open_transport(link.spec, stack, link.stderr_path, link.auth)

    async def _call(self, link: Link, tool: str, args: dict[str, Any]) -> ToolResult:
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
                await link.settled()  # so the result tells the server's last words
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
            await link.settled()
            return link.unavailable()
        finally:
            link.calls.discard(task)
        output, is_error = result_text(result)
        shown = output or ("(failed)" if is_error else "(no output)")
        return ToolResult(shown, is_error, images=result_images(result))

    async def _close_all(self) -> None:
        self._closing.set()
        for link in self._links.values():
            if link.state in ("starting", "connected", "restarting"):
                if link.state != "connected" and link.attempt is not None:
                    link.attempt.cancel()  # a start still under way is not waited for
                link.state = "closed"  # before the stop: teardown noise is not a failure
            link.stop.set()
        await asyncio.gather(*self._holders, return_exceptions=True)
