"""Typed events from the agent core to its faces (the TUI and headless mode).

The core never prints: it emits these, in order, through an ``EventSink``. A permission request
carries a Future that the face resolves; the loop awaits it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from agent.facts import TurnFacts


@dataclass(frozen=True)
class DraftingNote:
    """The speculation brake's word on a request (server.brake): whether drafting was off for
    it, and drafting's decode rate over the rate without it, measured on this server."""

    paused: bool
    ratio: float | None  # None: not measured yet in this context band
    held: bool = True  # False: the server drafts even when asked not to
    off_tok_s: float | None = None  # the decode rate without drafting, measured in this band
    never_accepted: bool = False  # paused since no draft was accepted, whatever the rates say

    def describe(self) -> str:
        if not self.held:
            return "drafting cannot be paused on this server"
        if self.paused and self.never_accepted:
            return "drafting paused: no draft accepted"
        if self.ratio is None:
            return "drafting paused" if self.paused else "drafting: not measured yet"
        return f"drafting {'paused' if self.paused else 'on'}: {self.ratio:.2f}x"


@dataclass(frozen=True)
class RequestStats:
    """One model request's figures. ``source`` says whether the server measured them."""

    source: Literal["server", "client"]
    decode_tok_s: float
    predicted_n: int
    prompt_n: int  # prompt tokens processed this request
    cache_n: int  # prompt tokens served from the server's cache
    draft_n: int | None  # None: no speculation ran
    draft_accepted: int | None
    wall_s: float
    prompt_tok_s: float = 0.0  # the server's prefill rate this request; 0: not reported
    constrained: bool = False  # the reply was held to a schema (a grammar on the server)
    # Decode steps that verified a draft (the server's /metrics); None: not known.
    drafted_steps: int | None = None
    # The decode steps the reply took at least (agent.model.stats.least_steps); None: not known.
    least_steps: int | None = None
    drafting: DraftingNote | None = None  # None: no brake on this server

    @property
    def acceptance(self) -> float | None:
        if not self.draft_n or self.draft_accepted is None:
            return None
        return self.draft_accepted / self.draft_n

    @property
    def accepted_share(self) -> float | None:
        """Share of output tokens that came from accepted drafts."""
        if self.draft_accepted is None or not self.predicted_n:
            return None
        return self.draft_accepted / self.predicted_n

    @property
    def cache_share(self) -> float:
        total = self.prompt_n + self.cache_n
        return self.cache_n / total if total else 0.0


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ReasoningDelta:
    text: str


@dataclass(frozen=True)
class ToolCallStarted:
    call_id: str
    name: str
    arguments: dict[str, Any]
    recovered: bool = False  # the call was read from the reply's text


@dataclass(frozen=True)
class ToolCallFinished:
    call_id: str
    name: str
    output: str
    is_error: bool
    duration_s: float
    meta: dict[str, Any] = field(default_factory=dict)


PermissionChoice = Literal["allow_once", "allow_always", "deny", "deny_always", "deny_with_message"]


@dataclass(frozen=True)
class PermissionDecision:
    choice: PermissionChoice
    # deny_always: deny, and deny rules for the rest of the session (an editor's "reject always")
    # deny_with_message: the user's words, told to the model as theirs; deny: the face's own
    # account, told as it is (headless: nobody is there to ask)
    message: str = ""


@dataclass(frozen=True)
class PermissionRequest:
    call_id: str
    tool: str
    kind: str
    subject: str  # the command line or path
    preview: str  # what will run or change (a diff for edits)
    future: asyncio.Future[PermissionDecision]
    agent: str = ""  # the sub-agent that asks ("": the main agent)


@dataclass(frozen=True)
class StepStats:
    """Stats of one model request inside a turn, live for the faces."""

    stats: RequestStats


# blocked: a UserPromptSubmit hook refused the prompt, or a hook stopped the turn
StopReason = Literal[
    "done", "failed", "max_steps", "cancelled", "error", "tool_failures", "blocked"
]


@dataclass(frozen=True)
class TurnFinished:
    """``failed``: the model answered, after a step that failed and was not recovered.
    ``facts`` is what the turn did, computed by beecode (``agent.facts``)."""

    stats: list[RequestStats]  # one per model request in the turn
    stop_reason: StopReason
    final_text: str
    facts: TurnFacts = field(default_factory=TurnFacts)
    cut: bool = False  # the answer stopped at the reply's token limit (finish_reason "length")


@dataclass(frozen=True)
class SubagentStarted:
    """A sub-agent (``agent.subagents``) began a task the model gave it."""

    task_id: str
    agent: str
    description: str


@dataclass(frozen=True)
class SubagentStep:
    """One of a running sub-agent's steps: a tool call's start or end, a request's figures."""

    task_id: str
    agent: str
    event: ToolCallStarted | ToolCallFinished | StepStats


@dataclass(frozen=True)
class SubagentFinished:
    """A sub-agent's end: its answer (as the main agent gets it), its requests' figures and
    beecode's account at its end (the turn's changes so far, from the turn's checkpoint, and
    its own commands)."""

    task_id: str
    agent: str
    stop_reason: StopReason
    result: str
    stats: list[RequestStats]
    facts: TurnFacts = field(default_factory=TurnFacts)


@dataclass(frozen=True)
class Notice:
    message: str
    level: Literal["info", "warning"] = "info"


@dataclass(frozen=True)
class ErrorEvent:
    message: str


@dataclass(frozen=True)
class ImageAttached:
    """An image the user's message names (``@path``): sent with it, or left out and why."""

    name: str
    size: int  # bytes; 0 when it could not be read
    shown: bool  # the model is sent the image itself
    why: str = ""  # why it was left out (not shown), or described in a line instead

    def line(self) -> str:
        if self.why:
            return f"image {self.name} left out: {self.why}"
        kib = self.size / 1024
        size = f"{kib:.0f} KB" if kib < 1024 else f"{kib / 1024:.1f} MB"
        return f"attached {self.name} ({size})"


HookNoteKind = Literal["output", "error", "blocked"]


@dataclass(frozen=True)
class HookNote:
    """What a hook (``agent.hooks``) said or did, for the user: its output where it is shown,
    an error (an exit other than 0 and 2, a timeout: the turn goes on), or what it blocked
    (a tool call, the prompt, the turn's end)."""

    event: str  # PreToolUse, PostToolUse, UserPromptSubmit, Stop, Notification, SessionStart
    command: str
    kind: HookNoteKind
    text: str

    def line(self) -> str:
        said = f": {self.text}" if self.text else ""
        return f"hook {self.event} ({self.command[:60]}) {self.kind}{said}"


@dataclass(frozen=True)
class HooksSkipped:
    """A project's hooks not run, the workspace not being trusted; told once per session."""

    sources: list[str]

    def line(self) -> str:
        return (
            f"hooks not run (the project is not trusted): {', '.join(self.sources)}; to run "
            "them, add this folder to trusted_workspaces in your user config"
        )


CheckKind = Literal["lint", "test", "lsp"]
# not_run: denied, plan mode, or no tool to run it with (the summary says which)
CheckStatus = Literal["passed", "failed", "timed_out", "not_run"]


@dataclass(frozen=True)
class CheckStarted:
    """One of the project's own checks (``agent.feedback``) starts: a lint or test command, or
    a language server's diagnostics (``command`` names the server)."""

    kind: CheckKind
    command: str


@dataclass(frozen=True)
class CheckFinished:
    kind: CheckKind
    command: str
    status: CheckStatus
    summary: str  # one line: what failed, or that it passed
    output: str = ""  # what the model is told of it (cut to what matters); "" when it passed
    duration_s: float = 0.0


Event = (
    TextDelta
    | ReasoningDelta
    | ToolCallStarted
    | ToolCallFinished
    | PermissionRequest
    | StepStats
    | TurnFinished
    | Notice
    | ErrorEvent
    | ImageAttached
    | HookNote
    | HooksSkipped
    | CheckStarted
    | CheckFinished
    | SubagentStarted
    | SubagentStep
    | SubagentFinished
)
EventSink = Callable[[Event], None]
