"""One configured MCP server's state, and which of its tools the config offers."""

from __future__ import annotations

import asyncio
import fnmatch
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mcp import ClientSession, types

from tools.mcp.signin import Provider, Refused
from tools.tool import ToolResult

STDERR_TAIL_LINES = 3


def offered_tool(name: str, spec: Mapping[str, Any]) -> bool:
    """Whether the server's config lets the model see this tool (deny wins; globs allowed)."""
    allow, deny = spec.get("allow_tools"), spec.get("deny_tools", [])
    if any(fnmatch.fnmatchcase(name, p) for p in deny):
        return False
    return allow is None or any(fnmatch.fnmatchcase(name, p) for p in allow)


class Link:
    """One configured server: its spec, its live session (or why there is none) and its tools."""

    def __init__(self, name: str, spec: Mapping[str, Any]) -> None:
        self.name, self.spec = name, dict(spec)
        self.session: ClientSession | None = None
        self.listed: list[types.Tool] = []
        self.prompts: list[types.Prompt] = []
        self.resources: list[types.Resource] = []
        self.state = "starting"  # connected, failed, down (died later), restarting, closed
        self.problem = ""
        self.reason = ""  # the problem without the stderr tail
        self.told = ""  # the problem last told to the user (McpServers.news)
        self.started = asyncio.Event()  # the first start is over, whichever way it went
        self.ready = asyncio.Event()  # the current start is over
        self.attempt: asyncio.Task[None] | None = None  # the current start's task
        self.stop = asyncio.Event()
        self.calls: set[asyncio.Task[Any]] = set()
        self.stderr_path: Path | None = None  # a stdio server's, set when it is started
        self.auth: Provider | Refused | None = None  # an HTTP server's, set when it is started
        self.restarts = 0

    def fail(self, problem: str) -> None:
        """Mark the server unusable (the first reason of this start wins, so a failed restart
        tells its own) and let its holder close the transport."""
        if self.state in ("starting", "connected", "restarting"):
            self.state = "failed" if self.state == "starting" else "down"  # down: restarted
            self.reason = problem
            self.retell()
        self.session = None
        self.stop.set()
        for call in self.calls - {asyncio.current_task()}:
            call.cancel()  # calls waiting on a dead transport would wait out their timeout

    def retell(self) -> None:
        """The problem with the stderr's last lines as they are now: once the transport is
        closed, its copy has them all (a crash's last words can reach the file after it)."""
        if self.state in ("failed", "down") and self.reason:
            tail = self.stderr_tail()
            self.problem = self.reason + (f"; stderr: {tail}" if tail else "")

    async def settled(self, within_s: float = 2.0) -> None:
        """Wait, a little, for the current start to end (its transport closed, stderr copied);
        the waiting call is no longer one the teardown cancels."""
        current = asyncio.current_task()
        if current is not None:
            self.calls.discard(current)
        if self.attempt is not None and self.attempt is not current:
            await asyncio.wait({self.attempt}, timeout=within_s)

    def stderr_tail(self) -> str:
        """The last lines the server wrote on stderr (why it died, usually)."""
        if self.stderr_path is None:  # not started, or not a stdio server
            return ""
        try:
            lines = self.stderr_path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return ""
        return " | ".join(line.strip() for line in lines[-STDERR_TAIL_LINES:] if line.strip())

    def line(self) -> str:
        return f"mcp server {self.name!r}: {self.problem}"

    def unavailable(self) -> ToolResult:
        why = self.problem or self.state
        return ToolResult(f"mcp server {self.name!r} is not available ({why})", is_error=True)
