"""What the TUI needs from the agent side, as small Protocols and plain records.

The app drives any object meeting these (``agent.runtime.Runtime``; in tests the same with only
the model scripted). Nothing here imports Textual: it is the one contract between the face and the
core.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agent.config import Mode
from agent.events import EventSink, TurnFinished

if TYPE_CHECKING:
    from agent.context.prefill import PrefillRate


class TurnRunner(Protocol):
    """The agent loop as the app sees it (``agent.loop.agent.Agent``)."""

    messages: list[dict[str, Any]]

    async def run_turn(
        self, user_text: str, emit: EventSink, images: Sequence[tuple[str, bytes]] = ()
    ) -> TurnFinished: ...

    def cancel(self) -> None: ...


class ModeHolder(Protocol):
    """The permission mode, settable at run time (``agent.permissions.rules.Permissions``)."""

    mode: Mode


@dataclass
class Facts:
    """What the status line shows about the model; ``None`` where it is not known."""

    model: str
    profile: str | None = None
    n_ctx: int | None = None
    speculative: bool | None = None  # whether the server drafts at all (its /slots)
    prefill: PrefillRate | None = None  # the server's measured prefill rate on this machine


@dataclass
class Core:
    """A connected agent and what belongs with it; the runtime builds one off the UI thread."""

    agent: TurnRunner
    facts: Facts
    permissions: ModeHolder | None = None
    session_id: str | None = None
    forked_from: str | None = None  # the session this one was just forked from
    # Commands that only exist in some cores; absent ones say so instead of faking it.
    compact: Callable[[], Any] | None = None  # an async callable returning a one-line summary
    context: Callable[[], list[str]] | None = None  # /context's lines (blocks: off the UI)


@dataclass(frozen=True)
class ConnectRequest:
    resume: str | None = None  # a session id to reopen
    continue_latest: bool = False
    profile: str | None = None  # switch the managed server to this profile first
    fork: bool = False  # go on in a new session, a copy of the resumed or continued one


@dataclass(frozen=True)
class SessionRow:
    id: str
    title: str
    updated: str
    n_messages: int
    forked_from: str | None = None  # the session this one is a fork of


@dataclass(frozen=True)
class ServerView:
    """The server as the status line and the server panel show it."""

    state: str  # "up", "down", "starting", "external", "failed"
    url: str | None = None
    profile: str | None = None
    engine: str | None = None
    command: list[str] = field(default_factory=list)
    log_tail: list[str] = field(default_factory=list)
    can_restart: bool = False


# (key, line): progress of a long step; a later line with the same key replaces the earlier one.
Progress = Callable[[str, str], None]


class Backend(Protocol):
    """Where cores come from and what surrounds them. Every method may block: the app calls
    them from thread workers, never on the UI thread."""

    workspace: Path
    # Asked (from the connect thread) whether this project's MCP servers, name -> command or
    # URL, may start; a yes is remembered for the workspace. None: only approved ones start.
    ask_mcp: Callable[[dict[str, str]], bool] | None

    def connect(self, request: ConnectRequest, progress: Progress) -> Core: ...

    def sessions(self) -> list[SessionRow]: ...

    def profiles(self) -> list[str]: ...

    def server(self, log_lines: int) -> ServerView: ...

    def restart_server(self, progress: Progress) -> None: ...

    def shutdown(self) -> None:
        """Stop what this app started (a managed server), leave the rest running."""
        ...

    def extras(self, what: str) -> list[str]:
        """What is available for /mcp or /skills; empty when that feature is not there."""
        ...
