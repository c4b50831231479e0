"""How an MCP server's failures are told: one line per problem, the SDK's log records in the
log file (never on the terminal, where the TUI draws)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mcp import MCPError
from mcp.types.jsonrpc import CONNECTION_CLOSED

from tools.redact import redact_text

CLOSED = "the server exited or closed the connection"


def problem_of(error: BaseException, spec: Mapping[str, Any]) -> str:
    """One line for why a server could not be used (the first error inside exception groups)."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    if isinstance(error, FileNotFoundError) and "command" in spec:
        if spec.get("cwd") and not Path(spec["cwd"]).is_dir():
            return f"working directory not found: {spec['cwd']}"
        return f"command not found: {spec['command']}"
    if isinstance(error, PermissionError) and "command" in spec:
        return f"cannot run {spec['command']}: permission denied"
    if isinstance(error, MCPError):
        closed = error.code == CONNECTION_CLOSED
        return CLOSED if closed else f"error {error.code}: {error.message}"
    if isinstance(error, (TimeoutError, asyncio.CancelledError)):
        return "no reply in time"
    text = str(error).strip().splitlines()
    detail = f"{type(error).__name__}: {text[0]}" if text else type(error).__name__
    return f"cannot connect to {spec['url']}: {detail}" if "url" in spec else detail


def sdk_logs_to(path: Path) -> None:
    """The SDK's own log records (a garbage line from a server, a failed read) go to the log file:
    unhandled, Python would print warnings on stderr, through the TUI's screen."""
    sdk = logging.getLogger("mcp")
    target = str(path.resolve())
    if any(getattr(handler, "baseFilename", None) == target for handler in sdk.handlers):
        return
    handler = logging.FileHandler(target, encoding="utf-8", delay=True)
    handler.setFormatter(_Redacting("%(asctime)s %(name)s %(levelname)s: %(message)s"))
    sdk.addHandler(handler)
    sdk.propagate = False


class _Redacting(logging.Formatter):
    """A record as text with secrets removed: a garbage line from a server can hold one."""

    def format(self, record: logging.LogRecord) -> str:
        return redact_text(super().format(record))
