"""One ACP session: a beecode runtime and its agent, and the prompt turns run on it.

The core's events go out in order through one queue: the update for each event, and the
permission request, whose answer resolves the Future the loop awaits. A cancelled prompt stops
the turn as the TUI's Escape does (the history stays valid, nothing written is lost)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from acp import Client, RequestError
from acp.schema import (
    PromptResponse,
    SessionMode,
    SessionModeState,
    StopReason,
    ToolCallUpdate,
)

from agent.config import Mode
from agent.events import Event, PermissionDecision, PermissionRequest, TurnFinished
from agent.faces.acp.history import PromptBlock, prompt_images, prompt_text, replayed
from agent.faces.acp.permission import CANCELLED, OPTIONS, decision
from agent.faces.acp.updates import Translator, Update, note
from agent.faces.contract import Core
from agent.faces.headless import facts_json, stats_line, turn_figures
from agent.permissions.rules import MODES
from agent.runtime import Runtime
from agent.sessions.store import SessionError

INVALID_PARAMS, INTERNAL = -32602, -32603  # JSON-RPC's codes
Outgoing = Update | PermissionRequest
STOPS: dict[str, StopReason] = {
    "done": "end_turn",
    "failed": "end_turn",  # answered, after a step that failed: the facts say which
    "tool_failures": "end_turn",  # beecode stopped the turn and said why
    "max_steps": "max_turn_requests",
    "cancelled": "cancelled",
}
MODE_WORDS = {
    "ask": "asks before edits and commands",
    "auto-edit": "edits run, commands ask",
    "yolo": "everything runs (file tools still ask outside the workspace)",
    "plan": "read-only: nothing is changed or run",
}


def refused(line: str, code: int = INVALID_PARAMS) -> RequestError:
    """An error the editor shows as it is: beecode's one line is the message (and its data)."""
    return RequestError(code, f"beecode: {line}", {"message": line})


class AcpSession:
    def __init__(self, runtime: Runtime, core: Core, client: Client) -> None:
        self.runtime, self.core, self.client = runtime, core, client
        self.id = core.session_id or ""
        self.translator = Translator(runtime.workspace)
        self._turn: asyncio.Task[TurnFinished] | None = None
        self._asking: asyncio.Task[Any] | None = None

    def modes(self) -> SessionModeState | None:
        holder = self.core.permissions
        if holder is None:
            return None
        return SessionModeState(
            current_mode_id=holder.mode,
            available_modes=[SessionMode(id=m, name=m, description=MODE_WORDS[m]) for m in MODES],
        )

    def set_mode(self, mode: str) -> None:
        if self.core.permissions is None or mode not in MODES:
            raise refused(f"unknown mode {mode!r} (modes: {', '.join(MODES)})")
        self.core.permissions.mode = _mode(mode)

    async def replay(self) -> None:
        """The resumed history, as the editor shows a conversation (``session/load``)."""
        for update in replayed(self.core.agent.messages[1:]):
            await self.client.session_update(self.id, update)

    async def prompt(self, blocks: Sequence[PromptBlock]) -> PromptResponse:
        if self._turn is not None:
            raise refused("a prompt is already running in this session", -32600)
        queue: asyncio.Queue[Outgoing | None] = asyncio.Queue()

        def emit(event: Event) -> None:
            # Translated at once: an edit's file is read before the tool changes it.
            if isinstance(event, PermissionRequest):
                queue.put_nowait(event)
            for update in self.translator.updates(event):
                queue.put_nowait(update)

        sender = asyncio.create_task(self._send(queue))
        turn = self.core.agent.run_turn(prompt_text(blocks), emit, prompt_images(blocks))
        self._turn = asyncio.create_task(turn)
        try:
            finished = await self._turn
        except SessionError as e:  # the turn's first record could not be written (disk full)
            raise refused(str(e), INTERNAL) from None
        finally:
            self._turn = None
            queue.put_nowait(None)
            await sender
        return await self._close(finished)

    def cancel(self) -> None:
        """Stop the running turn (and an unanswered permission request with it)."""
        if self._turn is not None:
            self.core.agent.cancel()
        if self._asking is not None:
            self._asking.cancel()

    async def _send(self, queue: asyncio.Queue[Outgoing | None]) -> None:
        """The updates in order; a permission request waits for the editor's answer (the
        loop awaits it, so nothing comes after it meanwhile)."""
        while (item := await queue.get()) is not None:
            if isinstance(item, PermissionRequest):
                await self._ask(item)
            else:
                await self.client.session_update(self.id, item)

    async def _ask(self, request: PermissionRequest) -> None:
        start = self.translator.asked(request)
        await self.client.session_update(self.id, start)
        tool_call = ToolCallUpdate(
            tool_call_id=start.tool_call_id,
            title=start.title,
            kind=start.kind,
            status=start.status,
            content=start.content,
        )
        self._asking = asyncio.create_task(
            self.client.request_permission(session_id=self.id, tool_call=tool_call, options=OPTIONS)
        )
        try:
            answer = decision(await self._asking)
        except asyncio.CancelledError:  # the prompt was cancelled: the turn stops anyway
            answer = PermissionDecision("deny", CANCELLED)
        except Exception as e:  # the editor failed to answer: nothing runs, and the turn goes on
            answer = PermissionDecision("deny", f"the editor could not be asked ({e}); not run")
        finally:
            self._asking = None
        if not request.future.done():  # done: the turn was cancelled meanwhile
            request.future.set_result(answer)

    async def _close(self, finished: TurnFinished) -> PromptResponse:
        """The turn's end: beecode's account of it and its figures, then the stop reason."""
        if finished.stop_reason == "error":
            raise refused(finished.final_text, INTERNAL)
        figures = turn_figures(finished.stats, self.core.facts)
        lines = [*finished.facts.lines(), f"{stats_line(figures)} · session {self.id}"]
        await self.client.session_update(self.id, note("\n> ".join(lines)))
        meta = {
            "beecode": {
                "stop_reason": finished.stop_reason,
                "figures": figures.as_json() if figures else None,
                **facts_json(finished.facts),
            }
        }
        stop = "max_tokens" if finished.cut else STOPS[finished.stop_reason]
        return PromptResponse(stop_reason=stop, field_meta=meta)

    def close(self) -> None:
        self.runtime.shutdown(stop_server=False)  # the next session reuses the warm server


def _mode(name: str) -> Mode:
    return next(m for m in MODES if m == name)
