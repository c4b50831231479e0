"""Running one reply's tool calls: refuse invalid ones, ask permission, execute, report.

Calls run in the order the model gave them, except that consecutive read-only calls run
together (``asyncio.gather``). Results are recorded in call order. Every permission decision
is logged to the session.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import difflib
import json
import time
from collections.abc import Callable
from typing import Any

from agent.checkpoints.hook import checkpoint_refusal
from agent.events import (
    EventSink,
    PermissionDecision,
    PermissionRequest,
    ToolCallFinished,
    ToolCallStarted,
)
from agent.hooks.outcome import Outcome
from agent.hooks.session import Hooks
from agent.model.reply import Call
from agent.permissions.rules import Decision, Permissions
from agent.sessions.store import Session
from tools.files import small_text, unified_diff
from tools.paths import expanded, resolve_in_workspace
from tools.registry import ToolRegistry
from tools.textfiles import reader, shown_text
from tools.tool import Image, Router, Tool, ToolContext, ToolError, ToolResult

Record = Callable[[Call, ToolResult], None]
# A denial is the user's decision, not a failed step: told as such, never as "fix and retry".
USER_DENIED = "The user denied this call; it was not run."
NO_RETRY = " Do not retry it. Go on with what else the task needs, if anything; else stop and wait."
PREVIEW_MAX_BYTES = 1_000_000  # bigger files are previewed by their arguments, not a diff


class CallRunner:
    def __init__(
        self,
        registry: ToolRegistry,
        permissions: Permissions,
        ctx: ToolContext,
        session: Session,
        hooks: Hooks,
    ) -> None:
        self.registry, self.permissions, self.ctx, self.session = (
            registry,
            permissions,
            ctx,
            session,
        )
        self.hooks = hooks
        self.denied: set[tuple[str, str]] = set()  # (tool, subject) the user denied this turn
        self.denied_again: str | None = None  # set when the model asked again for one of them

    def start_turn(self) -> None:
        self.denied.clear()
        self.denied_again = None

    async def run(self, calls: list[Call], emit: EventSink, record: Record) -> None:
        reads: list[tuple[Call, Tool]] = []

        async def flush() -> None:
            results = await asyncio.gather(*(self._execute(c, t, emit) for c, t in reads))
            for (call, _), result in zip(reads, results, strict=True):
                record(call, result)
            reads.clear()

        for call in calls:
            tool = self.registry.get(call.name)
            if tool is None or call.error:
                await flush()
                invalid = call.error or f"unknown tool {call.name!r}"
                # A refusal that says what to send next needs no "fix the call" after it.
                fix = "" if invalid.endswith(" again") else ". Fix the call and try again."
                record(call, _refuse(call, f"Error: {invalid}{fix}", emit))
                continue
            denial = await self._admit(call, tool, emit)
            if denial is not None:
                await flush()
                record(call, _refuse(call, denial, emit, denied=True))
            elif tool.kind(self._args(call)) == "read":
                reads.append((call, tool))
            else:
                await flush()
                label = f"{call.name} {tool.subject(self._args(call))}"
                if problem := checkpoint_refusal(self.session, self.ctx.workspace, label, emit):
                    record(call, _refuse(call, f"Error: {problem}.", emit))
                else:
                    record(call, await self._execute(call, tool, emit))
        await flush()

    @staticmethod
    def _args(call: Call) -> dict[str, Any]:
        return call.arguments or {}

    async def _admit(self, call: Call, tool: Tool, emit: EventSink) -> str | None:
        """None when the call may run, else what the model is told."""
        name, args = call.name, self._args(call)
        said = await self.hooks.pre_tool(name, tool, args, call.id, emit)
        kind, subject = tool.kind(args), tool.subject(args)
        decision = self.permissions.check(name, kind, subject, tool.paths(args))
        routed = tool.routes_to(args) if isinstance(tool, Router) else None
        if routed is not None and decision.verdict != "deny":
            # Judged as the tool it runs: rules naming that tool apply, and allow_always keeps one.
            tool, args = routed
            name, kind, subject = tool.name, tool.kind(args), tool.subject(args)
            decision = self.permissions.check(name, kind, subject, tool.paths(args))
        decision = _hooked(decision, said, self.hooks.halt)
        verdict, reason = decision.verdict, decision.reason
        told = f"Error: permission denied ({reason}).{NO_RETRY}"
        if verdict == "ask" and (call.name, subject) in self.denied:  # never asked twice
            verdict, reason, told = "deny", "user: deny (asked again)", USER_DENIED + NO_RETRY
            self.denied_again = f"{call.name} {subject}"
        elif verdict == "ask":
            future: asyncio.Future[PermissionDecision] = asyncio.get_running_loop().create_future()
            shown = await asyncio.to_thread(preview, args, self.ctx)  # an editor may read
            emit(PermissionRequest(call.id, name, kind, subject, shown, future))
            answer = await future
            verdict = "allow" if answer.choice in ("allow_once", "allow_always") else "deny"
            reason = f"user: {answer.choice}"
            if answer.choice == "allow_always":
                reason += " " + self.permissions.allow_always(name, subject)
            elif answer.choice == "deny_always":
                reason += " " + self.permissions.deny_always(name, subject)
            elif answer.choice == "deny_with_message" and answer.message:
                reason = f"the user said: {answer.message}"
                told = f"{USER_DENIED} The user said: {answer.message}"
            elif answer.message:  # the face's own account (headless: nobody to ask)
                reason = told = answer.message
            else:
                told = USER_DENIED + NO_RETRY
            if verdict == "deny" and told.startswith(USER_DENIED):
                self.denied.add((call.name, subject))
        if verdict == "allow":
            # An approved path outside the workspace becomes a root the file tools accept.
            self.ctx.extra_roots += self.permissions.outside(tool.paths(args))
        self.session.append(
            {
                "type": "permission",
                "call_id": call.id,
                "tool": name,
                "subject": subject,
                "verdict": verdict,
                "reason": reason,
            }
        )
        return None if verdict == "allow" else told

    async def _execute(self, call: Call, tool: Tool, emit: EventSink) -> ToolResult:
        emit(ToolCallStarted(call.id, call.name, self._args(call), call.recovered))
        start = time.monotonic()
        try:
            result = await tool.run(self._args(call), self.ctx)
        except Exception as e:  # a tool bug must not end the session; the model hears of it
            result = ToolResult(
                f"Error: {call.name} failed: {type(e).__name__}: {e}", is_error=True
            )
        told = await self.hooks.post_tool(call.name, tool, self._args(call), call.id, result, emit)
        result = dataclasses.replace(result, output=result.output + told) if told else result
        emit(
            ToolCallFinished(
                call.id,
                call.name,
                result.output,
                result.is_error,
                time.monotonic() - start,
                result.meta,
            )
        )
        return result


def _hooked(decision: Decision, said: Outcome, halt: str | None) -> Decision:
    """The permission decision with the PreToolUse hooks' word: a block or deny refuses, ask
    asks; allow spares only a question: a deny rule or plan mode still refuses."""
    if halt is not None or said.blocked or said.permission == "deny":
        why = halt or said.blocked or said.reason or "no reason given"
        return Decision("deny", f"PreToolUse hook: {why}")
    if decision.verdict == "allow" and said.permission == "ask":
        return Decision("ask", f"PreToolUse hook asks: {said.reason or 'no reason given'}")
    if decision.verdict == "ask" and said.permission == "allow":
        return Decision("allow", f"PreToolUse hook allows: {said.reason or 'no reason given'}")
    return decision


def _refuse(call: Call, told: str, emit: EventSink, *, denied: bool = False) -> ToolResult:
    """``denied``: by the permissions (the user's choice, not a failed step of the task)."""
    result = ToolResult(
        told,
        is_error=True,
        meta={"denied": True} if denied else {},
    )
    emit(ToolCallStarted(call.id, call.name, call.arguments or {}))
    emit(ToolCallFinished(call.id, call.name, result.output, True, 0.0))
    return result


def images_message(images: list[Image]) -> dict[str, Any]:
    """The images the tool calls returned, as a user message a vision model reads."""
    parts: list[dict[str, Any]] = [{"type": "text", "text": "The images the tools returned:"}]
    for image in images:
        url = f"data:{image.mime_type};base64,{image.data}"
        parts.append({"type": "image_url", "image_url": {"url": url}})
    return {"role": "user", "content": parts}


def text_only(message: dict[str, Any]) -> dict[str, Any]:
    """The message without image parts, for a model that does not read images (a session
    resumed on another server): the server would refuse the request."""
    content = message.get("content")
    if not isinstance(content, list):
        return message
    parts = [p for p in content if not (isinstance(p, dict) and p.get("type") == "image_url")]
    dropped = len(content) - len(parts)
    note = {"type": "text", "text": f"[{dropped} image(s) left out: this model reads no images]"}
    return {**message, "content": parts + [note] * bool(dropped)}


def message_text(message: dict[str, Any]) -> str:
    """A message's words (the text parts of one with images)."""
    content = message.get("content")
    if isinstance(content, list):  # parts: text and images
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""


def preview(args: dict[str, Any], ctx: ToolContext) -> str:
    """What a call will do, for the permission prompt: the command, the diff a write or edit
    would make to the file (to the editor's buffer where the tools read through one), or the
    arguments. Blocks on the editor: called in a worker thread."""
    if isinstance(args.get("command"), str):
        return str(args["command"])
    old, new = _text_arg(args, "old"), _text_arg(args, "new")
    path = args.get("path")
    if isinstance(path, str):
        full = ctx.workspace / expanded(path)
        before = small_text(full, PREVIEW_MAX_BYTES)
        if before is not None and (files := reader(ctx)) is not None:
            with contextlib.suppress(ToolError):  # checked as the tool checks it, first
                before = shown_text(files, resolve_in_workspace(path, ctx), before)
        after = args.get("content") if isinstance(args.get("content"), str) else None
        if after is None and before and old and new is not None and old in before:
            after = before.replace(old, new, -1 if args.get("replace_all") else 1)
        if after is not None:
            try:
                created = not full.exists()
            except OSError:  # a name too long to look up: the write's own error tells
                created = True
            return unified_diff(before or "", str(after), path, created=created)
    if old is not None and new is not None:
        diff = difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=2)
        return "\n".join(list(diff)[2:])
    return json.dumps(args, indent=1, ensure_ascii=False)[:2000]


def _text_arg(args: dict[str, Any], name: str) -> str | None:
    found = (args.get(k) for k in (name, f"{name}_string", f"{name}_text"))
    return next((value for value in found if isinstance(value, str)), None)
