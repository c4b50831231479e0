"""The hook events as the loop fires them, for one session (``Hooks``).

SessionStart at the session's first turn (source ``startup``, or ``resume`` for a session with
history), then UserPromptSubmit before each prompt; PreToolUse before a call's permission check,
PostToolUse after it ran; Stop when the model answers (a block sends the model on, with
``stop_hook_active`` set, at most ``MAX_STOP_BLOCKS`` times a turn); Notification, with the
``notify`` command, when a call waits for approval and when a turn ends. Every hook's word for
the user goes out as a ``HookNote``; a project's hooks not run are named once (``HooksSkipped``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent.config import Config
from agent.events import EventSink, HooksSkipped, Notice, PermissionRequest
from agent.hooks.load import HookSet, load_hooks, tool_input, tool_names
from agent.hooks.notify import notify_payload, run_notify
from agent.hooks.outcome import Outcome, read_runs
from agent.hooks.run import run_hook
from agent.sessions.store import Session
from tools.tool import ToolResult

MAX_STOP_BLOCKS = 3  # a Stop hook that blocks again and again: the turn ends anyway
# beecode's permission modes as Claude Code names them, for the hooks' permission_mode.
CLAUDE_MODES = {"ask": "default", "auto-edit": "acceptEdits", "yolo": "bypassPermissions"}


class Hooks:
    def __init__(
        self,
        found: HookSet,
        workspace: Path,
        session_id: str,
        transcript: Path | None = None,
        mode: Callable[[], str] = lambda: "ask",
        notify: list[str] | None = None,
    ) -> None:
        """``notify``: the notify command (none when notifications are off)."""
        self.found, self.workspace, self.session_id = found, workspace, session_id
        self.transcript, self.mode, self.notify_argv = transcript, mode, notify or []
        self.halt: str | None = None  # a hook said "continue": false this turn: its stopReason
        self._started = False
        self._stop_blocks = 0
        self._pending: set[asyncio.Task[None]] = set()

    @classmethod
    def configured(
        cls, workspace: Path, config: Config, session: Session, mode: Callable[[], str]
    ) -> Hooks:
        """The session's hooks (``load_hooks``) and notify command (none when notifications
        are off); ``mode``: the permission mode as it is when a hook runs."""
        notify = [] if config.notifications == "off" else config.notify
        found = load_hooks(workspace, config)
        return cls(found, workspace, session.id, session.path, mode, notify)

    async def start_turn(self, prompt: str, resumed: bool, emit: EventSink) -> Outcome:
        """SessionStart (at the first turn) and UserPromptSubmit; ``context`` is for the model,
        ``blocked`` (or ``halt``) means the prompt is not sent."""
        self.halt, self._stop_blocks = None, 0
        context: list[str] = []
        if not self._started:
            self._started = True
            if self.found.skipped:
                emit(HooksSkipped(self.found.skipped))
            for problem in self.found.problems:
                emit(Notice(problem, "warning"))
            source = "resume" if resumed else "startup"
            started = await self._fire("SessionStart", [source], {"source": source}, emit)
            context += started.context
        said = await self._fire("UserPromptSubmit", None, {"prompt": prompt}, emit)
        said.context = context + said.context
        return said

    async def pre_tool(
        self, name: str, tool: object, args: dict[str, Any], call_id: str, emit: EventSink
    ) -> Outcome:
        payload = self._tool(name, tool, args, call_id)
        return await self._fire("PreToolUse", tool_names(name, tool), payload, emit)

    async def post_tool(
        self,
        name: str,
        tool: object,
        args: dict[str, Any],
        call_id: str,
        result: ToolResult,
        emit: EventSink,
    ) -> str:
        """What the model is told after the result ("" for nothing): a block's reason, context."""
        if not self.found.matching("PostToolUse", tool_names(name, tool)):
            return ""
        response = {"output": result.output, "is_error": result.is_error}
        payload = {**self._tool(name, tool, args, call_id), "tool_response": response}
        said = await self._fire("PostToolUse", tool_names(name, tool), payload, emit)
        told = ([said.blocked] if said.blocked else []) + said.context
        return "".join(f"\n[PostToolUse hook] {line}" for line in told)

    async def stop(self, answer: str, emit: EventSink) -> str | None:
        """Why the model must go on (a Stop hook blocked), or None to end the turn."""
        if not self.found.matching("Stop", None):
            return None
        payload = {"stop_hook_active": self._stop_blocks > 0, "last_assistant_message": answer}
        said = await self._fire("Stop", None, payload, emit)
        if said.halt or not said.blocked:
            return None
        if self._stop_blocks >= MAX_STOP_BLOCKS:
            emit(Notice(f"Stop hooks blocked {MAX_STOP_BLOCKS} times in a row: the turn ends."))
            return None
        self._stop_blocks += 1
        return said.blocked

    def watching(self, emit: EventSink) -> EventSink:
        """``emit``, notifying when a call waits for the user's approval."""

        def sink(event: Any) -> None:
            emit(event)
            if isinstance(event, PermissionRequest):
                message = f"beecode needs your permission to use {event.tool}"
                task = asyncio.ensure_future(
                    self.notify("permission_prompt", "approval-requested", message, "", emit)
                )
                self._pending.add(task)
                task.add_done_callback(self._pending.discard)

        return sink

    async def turn_over(self, answer: str, emit: EventSink) -> None:
        """The turn ended: notify, and let the approvals' notifications finish."""
        await self.notify("idle_prompt", "agent-turn-complete", "beecode is done", answer, emit)
        if self._pending:
            await asyncio.gather(*self._pending, return_exceptions=True)

    async def notify(
        self, kind: str, what: str, message: str, answer: str, emit: EventSink
    ) -> None:
        """The Notification hooks (matched on ``kind``) and the notify command (told ``what``)."""
        payload = {"message": message, "notification_type": kind, "title": "beecode"}
        await self._fire("Notification", [kind], payload, emit)
        if self.notify_argv:
            argument = notify_payload(what, self.session_id, self.workspace, message, answer)
            text = json.dumps(argument, ensure_ascii=False)
            if problem := await run_notify(self.notify_argv, text, self.workspace):
                emit(Notice(problem, "warning"))

    def _tool(self, name: str, tool: object, args: dict[str, Any], call_id: str) -> dict[str, Any]:
        shown = tool_names(name, tool)[0]
        return {"tool_name": shown, "tool_input": tool_input(args), "tool_use_id": call_id}

    async def _fire(
        self, event: str, names: list[str] | None, payload: dict[str, Any], emit: EventSink
    ) -> Outcome:
        hooks = self.found.matching(event, names)
        if not hooks:
            return Outcome()
        common = {
            "session_id": self.session_id,
            "transcript_path": str(self.transcript) if self.transcript else None,
            "cwd": str(self.workspace),
            "hook_event_name": event,
            "permission_mode": CLAUDE_MODES.get(self.mode(), self.mode()),
        }
        runs = [run_hook(h, {**common, **payload}, self.workspace) for h in hooks]
        said = read_runs(event, list(await asyncio.gather(*runs)))
        for note in said.notes:
            emit(note)
        if said.halt and event != "Stop":
            self.halt = said.halt
        return said
