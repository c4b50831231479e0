"""A scripted agent for the TUI tests: it emits real ``agent.loop.events`` from a script, asks real
permission futures, and keeps its history in a real session file. Only the model is scripted.

The backend around it is the real ``LocalBackend`` (sessions, profiles, server view, extras);
only ``connect`` is replaced, to hand out scripted agents instead of building one on a server.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.config import Config
from agent.faces.contract import ConnectRequest, Core, Facts, Progress
from agent.loop.events import (
    Event,
    EventSink,
    PermissionDecision,
    PermissionRequest,
    RequestStats,
    StepStats,
    TextDelta,
    TurnFinished,
)
from agent.permissions.rules import Permissions
from agent.sessions.store import Session
from agent.tui.backend import LocalBackend

ENDPOINT = "http://127.0.0.1:9/v1"  # never contacted: the scripted agent answers


@dataclass(frozen=True)
class Ask:
    """Ask permission; the turn goes on once the UI resolves the future."""

    tool: str
    kind: str
    subject: str
    preview: str = ""


@dataclass(frozen=True)
class Hold:
    """Wait here until ``cancel()``."""


@dataclass(frozen=True)
class Effect:
    """Do something to the world at this point, as a tool would (write a file)."""

    act: Callable[[], object]


Step = Event | Ask | Hold | Effect


def stats(
    tok_s: float = 40.0,
    predicted: int = 120,
    draft: tuple[int, int] | None = None,
    prompt: int = 300,
    cache: int = 0,
) -> RequestStats:
    proposed, accepted = draft if draft is not None else (None, None)
    return RequestStats("server", tok_s, predicted, prompt, cache, proposed, accepted, 3.0)


class ScriptedAgent:
    def __init__(self, turns: deque[list[Step]], session: Session) -> None:
        self.turns = turns
        self.session = session
        self.messages: list[dict[str, Any]] = [{"role": "system", "content": "scripted"}]
        self.messages += session.messages()
        self.decisions: list[PermissionDecision] = []
        self.cancelled = asyncio.Event()

    async def run_turn(self, user_text: str, emit: EventSink) -> TurnFinished:
        self._add({"role": "user", "content": user_text})
        self.cancelled.clear()
        script = self.turns.popleft() if self.turns else [TextDelta("(no script)")]
        steps: list[RequestStats] = []
        text: list[str] = []
        reason: Any = "done"
        for step in script:
            await asyncio.sleep(0)  # as a real stream: other tasks run between chunks
            if isinstance(step, Hold):
                await self.cancelled.wait()
            if self.cancelled.is_set():
                reason = "cancelled"
                break
            if isinstance(step, Effect):
                step.act()
            elif isinstance(step, Ask):
                future: asyncio.Future[PermissionDecision] = (
                    asyncio.get_running_loop().create_future()
                )
                emit(
                    PermissionRequest(
                        "c1", step.tool, step.kind, step.subject, step.preview, future
                    )
                )
                self.decisions.append(await future)
            elif not isinstance(step, Hold):
                emit(step)
                if isinstance(step, TextDelta):
                    text.append(step.text)
                if isinstance(step, StepStats):
                    steps.append(step.stats)
        self._add({"role": "assistant", "content": "".join(text)})
        finished = TurnFinished(steps, reason, "".join(text))
        emit(finished)
        return finished

    def cancel(self) -> None:
        self.cancelled.set()

    async def compact(self) -> str:
        return f"Compacted the conversation: {len(self.messages)} messages -> 2."

    def _add(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        self.session.append({"type": "message", "message": message})


class ScriptedBackend(LocalBackend):
    def __init__(
        self,
        workspace: Path,
        turns: list[list[Step]] | None = None,
        baseline_tok_s: float | None = None,
        managed: bool = False,
    ) -> None:
        """``managed``: no endpoint, so the server view is the real managed server's (none
        runs in the tests' state dir: "down")."""
        super().__init__(workspace, Config() if managed else Config(endpoint=ENDPOINT))
        self.turns: deque[list[Step]] = deque(turns or [])
        self.baseline_tok_s = baseline_tok_s
        self.requests: list[ConnectRequest] = []
        self.progress_lines: list[tuple[str, str]] = []
        self.gate = threading.Event()  # connect() returns once set; tests may hold it
        self.gate.set()
        self.agent: ScriptedAgent | None = None

    def connect(self, request: ConnectRequest, progress: Progress) -> Core:
        self.requests.append(request)
        for key, line in self.progress_lines:  # as the server's build and download report
            progress(key, line)
        self.gate.wait(timeout=30)
        session = Session.open(request.resume) if request.resume else Session.create(self.workspace)
        self.agent = ScriptedAgent(self.turns, session)
        return Core(
            agent=self.agent,
            facts=Facts("qwen2.5-coder-0.5b", "tiny", 8192, self.baseline_tok_s),
            permissions=Permissions("ask", [], [], self.workspace, []),
            session_id=session.id,
            compact=self.agent.compact,
        )
