"""The agent loop: ask the model, run the tools it calls, repeat until it answers.

One user turn is a sequence of steps. A step streams one model reply (``agent.model.reply``); if the
reply calls tools, each call is checked (arguments, permissions), run (``agent.loop.calls``) and its
result appended; otherwise the reply is the answer. Every message, permission decision and stat
goes to the session as it happens. The loop never prints: faces get typed events.

Stops: the answer (done), ``max_steps``, three invalid calls in a row or the same call with the
same result three times (tool_failures), a model error (error), or ``cancel()`` (cancelled).
History stays valid in every case: no call is left without a result, no bad JSON is sent back.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any, Literal

from agent.config import Config
from agent.context.mentions import attach_mentions
from agent.context.prompt import (
    TokenCounter,
    compact,
    should_compact,
    summary_request,
    trim_tool_result,
)
from agent.loop.calls import CallRunner
from agent.loop.events import ErrorEvent, EventSink, Notice, RequestStats, StepStats, TurnFinished
from agent.model.endpoint import ChatModel, ContextOverflow, ModelError
from agent.model.reply import Call, Reply, collect
from agent.permissions.rules import Permissions
from agent.sessions.store import Session, SessionError
from agent.steps.habits import DONE_NOTE, REPORT_PROMPT, ReadLedger, TurnWatch
from agent.steps.schema import ANSWER, STEP_GUIDE, STEP_LEFT_OUT
from tools.registry import ToolRegistry
from tools.tool import ToolContext, ToolResult

Offer = Literal["all", "tools", "answer"]  # what a constrained step may call
MAX_INVALID_STREAK = 3  # invalid calls in a row before the turn stops
NATIVE_INVALID_SWITCH = 2  # invalid native calls before "auto" switches to constrained steps
TRIMMED_RESULT_CHARS = 2_000  # tool results are cut to this when compaction has nothing else


class _Stop(Exception):
    """Ends the turn early with a stop reason and a message for the user."""

    def __init__(self, reason: Literal["max_steps", "tool_failures"], message: str) -> None:
        super().__init__(message)
        self.reason: Literal["max_steps", "tool_failures"] = reason


@dataclasses.dataclass
class _Turn:
    emit: EventSink
    stats: list[RequestStats] = dataclasses.field(default_factory=list)
    invalid_streak: int = 0
    watch: TurnWatch = dataclasses.field(default_factory=TurnWatch)


class Agent:
    def __init__(
        self,
        model: ChatModel,
        registry: ToolRegistry,
        permissions: Permissions,
        session: Session,
        config: Config,
        ctx: ToolContext,
        *,
        system: str,
        n_ctx: int | None = None,
        counter: TokenCounter | None = None,
        constrained: bool = False,
    ) -> None:
        """``constrained``: the model's tool mode when ``config.tool_mode`` is "auto"."""
        self.model, self.registry, self.session, self.config = model, registry, session, config
        self.permissions = permissions  # faces change its mode at run time
        self.n_ctx = n_ctx
        self.counter = counter or TokenCounter(None)
        mode = config.tool_mode
        self.constrained = mode == "constrained" or (mode == "auto" and constrained)
        guide = STEP_GUIDE if self.constrained else ""
        self.messages: list[dict[str, Any]] = [{"role": "system", "content": system + guide}]
        # The system prompt is rebuilt each run; sessions hold the conversation after it.
        self.messages += [m for m in session.messages() if m.get("role") != "system"]
        self._runner = CallRunner(registry, permissions, ctx, session)
        self._ledger = ReadLedger(registry, ctx.workspace)
        self._native_invalid = 0
        self._task: asyncio.Task[TurnFinished] | None = None
        self._cancelled = False

    async def run_turn(self, user_text: str, emit: EventSink) -> TurnFinished:
        """One user turn: model and tool steps until the model answers or the turn stops."""
        turn = _Turn(emit)
        self._cancelled = False
        content, attached = attach_mentions(user_text, self._ledger.workspace)
        self._ledger.seen.update(attached)
        self._add({"role": "user", "content": content})
        self._task = asyncio.create_task(self._steps(turn))
        try:
            finished = await self._task
        except asyncio.CancelledError:
            if not self._cancelled:
                raise
            finished = TurnFinished(turn.stats, "cancelled", "Cancelled by the user.")
        finally:
            self._task = None
        emit(finished)
        return finished

    def cancel(self) -> None:
        """Stop the running turn: the stream closes, running tools are cancelled (bash kills its
        process group), and the history is left valid."""
        if self._task is not None and not self._task.done():
            self._cancelled = True
            self._task.cancel()

    def close(self) -> None:
        """Stop what the tools keep running (background jobs) and the token counter's client."""
        self.registry.close()
        self.counter.close()

    async def _steps(self, turn: _Turn) -> TurnFinished:
        try:
            offer: Offer = "all"
            for _ in range(self.config.max_steps):
                reply = await self._ask(turn, offer)
                offer = "all"
                if not reply.calls:
                    if self.constrained and (turn.watch.wants_check() or turn.watch.wants_retry()):
                        # The answer waits for a run, compile or read of the change. It is not
                        # kept, and no request says so: a small model copies such words.
                        offer = "tools"
                        continue
                    self._add({"role": "assistant", "content": reply.text})
                    return TurnFinished(turn.stats, "done", reply.text)
                self._add(_assistant_message(reply))
                await self._run_calls(reply.calls, turn)
                if self.constrained and turn.watch.settled:
                    return TurnFinished(turn.stats, "done", await self._report(turn))
            raise _Stop("max_steps", f"Stopped: reached the step limit ({self.config.max_steps}).")
        except _Stop as stop:
            turn.emit(Notice(str(stop), "warning"))
            return TurnFinished(turn.stats, stop.reason, str(stop))
        except (ModelError, SessionError) as e:  # SessionError: the disk is full, say
            turn.emit(ErrorEvent(str(e)))
            return TurnFinished(turn.stats, "error", str(e))

    async def _report(self, turn: _Turn) -> str:
        """The model's closing words, as a step that can only be the answer (asked in plain
        words, a small model often answered with one more step object)."""
        self._add({"role": "user", "content": REPORT_PROMPT})
        reply = await self._ask(turn, "answer")
        # Nothing said: the last tool result is the honest report.
        text = reply.text.strip() or next(
            f"Last result: {m['content']}" for m in reversed(self.messages) if m["role"] == "tool"
        )
        self._add({"role": "assistant", "content": text})
        return text

    async def _ask(self, turn: _Turn, offer: Offer = "all") -> Reply:
        """One model reply; compacts first when the history nears the context size, and once
        more (then gives up) when the server still says it does not fit. ``offer``: what a
        constrained step may be (the tools, the answer, or either)."""
        await self._compact(turn.emit, force=False)
        constrained = self.constrained
        schemas = self.registry.schemas()
        allowed: set[str] | None = None
        if constrained:
            schemas = [s for s in schemas if s["function"]["name"] not in STEP_LEFT_OUT]
            banned = turn.watch.take_banned() | self._refused_by_mode()
            tools = {n for n in _names(schemas) if n not in banned} if offer != "answer" else set()
            allowed = tools | ({ANSWER} if offer != "tools" else set())
        for attempt in range(2):
            reply = Reply()
            stream = self.model.stream(
                self.messages, schemas, constrained=constrained, allowed=allowed
            )
            try:
                await collect(
                    stream,
                    turn.emit,
                    reply,
                    constrained=constrained,
                    tool_names=self.registry.names(),
                )
            except ContextOverflow as e:
                if attempt:
                    raise ModelError(f"the conversation does not fit the context: {e}") from None
                await self._compact(turn.emit, force=True)
                continue
            except asyncio.CancelledError:
                # What was said before the cancel stays, as a plain message; calls are dropped.
                if reply.text.strip() and not constrained:
                    self._add({"role": "assistant", "content": reply.text})
                raise
            if reply.stats is not None:
                turn.stats.append(reply.stats)
                self.session.append({"type": "stats", **dataclasses.asdict(reply.stats)})
                turn.emit(StepStats(reply.stats))
            return reply
        raise AssertionError("unreachable")

    def _refused_by_mode(self) -> set[str]:
        """Tools the permission mode refuses whatever their arguments: plan mode runs reads
        only, and a small model offered a write there tries it again and again."""
        if self.permissions.mode != "plan":
            return set()
        return {
            n for n in self.registry.names() if (t := self.registry.get(n)) and t.kind({}) != "read"
        }

    async def _run_calls(self, calls: list[Call], turn: _Turn) -> None:
        for call in calls:
            call.error = call.error or self.registry.validate(call.name, call.arguments)
            turn.invalid_streak = turn.invalid_streak + 1 if call.error else 0
            if call.error and not self.constrained:
                self._native_invalid += 1
            call.error = call.error or self._ledger.unread_edit(call)
            if self.constrained:
                call.error = call.error or self._ledger.clobbering_write(call)
        answered: set[str] = set()

        def record(call: Call, result: ToolResult) -> None:
            answered.add(call.id)
            self._ledger.observe(call, result)
            note = turn.watch.observe(call, self._ledger.kind(call), result)
            if self.constrained and note == DONE_NOTE:
                note = ""  # the turn ends with the report now; a small model would copy the note
            self._add({"role": "tool", "tool_call_id": call.id, "content": result.output + note})

        try:
            await self._runner.run(calls, turn.emit, record)
        finally:
            # Every call gets a result message, also when the turn was cancelled midway.
            for call in calls:
                if call.id not in answered:
                    record(call, ToolResult("Cancelled by the user.", is_error=True))
        self._maybe_switch_mode(turn.emit)
        if turn.watch.stuck:
            raise _Stop("tool_failures", turn.watch.stuck)
        if turn.invalid_streak >= MAX_INVALID_STREAK:
            raise _Stop(
                "tool_failures",
                f"Stopped: {MAX_INVALID_STREAK} invalid tool calls in a "
                f"row; the last: {calls[-1].error}",
            )

    def _maybe_switch_mode(self, emit: EventSink) -> None:
        if self.config.tool_mode == "auto" and not self.constrained:
            if self._native_invalid >= NATIVE_INVALID_SWITCH:
                self.constrained = True
                self.messages[0] = {
                    **self.messages[0],
                    "content": self.messages[0]["content"] + STEP_GUIDE,
                }
                emit(Notice("The model's tool calls were invalid; switching to constrained steps."))

    async def _compact(self, emit: EventSink, *, force: bool) -> None:
        if not force:
            if self.n_ctx is None:
                return
            used = await asyncio.to_thread(self._used_tokens)
            if not should_compact(used, self.n_ctx):
                return
        emit(Notice(await self.compact()))

    def _used_tokens(self) -> int:
        return self.counter.count_messages(self.messages) + self.counter.count_tools(
            self.registry.schemas()
        )

    async def compact(self) -> str:
        """Summarize old turns into one message (keeping recent ones verbatim); when there is
        nothing old to summarize, shorten long tool results instead. Returns a one-line note."""
        before = len(self.messages)
        compacted = await compact(self.messages, self._summarize)
        if len(compacted) == before:
            compacted = [_trimmed(m) for m in self.messages]
            if compacted == self.messages:
                return "Nothing to compact: the conversation is one short exchange."
        self.messages = compacted
        self.session.append({"type": "compaction", "messages": self.messages[1:]})
        return f"Compacted the conversation: {before} messages -> {len(self.messages)}."

    async def _summarize(self, old: list[dict[str, Any]]) -> str:
        reply = Reply()
        stream = self.model.stream(summary_request(old), [], constrained=False)
        await collect(stream, lambda _event: None, reply, constrained=False, tool_names=())
        return reply.text

    def _add(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        self.session.append({"type": "message", "message": message})


def _names(schemas: list[dict[str, Any]]) -> list[str]:
    return [s["function"]["name"] for s in schemas]


def _trimmed(message: dict[str, Any]) -> dict[str, Any]:
    if message.get("role") != "tool" or len(str(message.get("content"))) <= TRIMMED_RESULT_CHARS:
        return message
    return {**message, "content": trim_tool_result(str(message["content"]), TRIMMED_RESULT_CHARS)}


def _assistant_message(reply: Reply) -> dict[str, Any]:
    """The reply with its calls; arguments re-serialized from the parsed object, so malformed
    JSON never goes back to the server."""
    calls = [
        {
            "id": c.id,
            "type": "function",
            "function": {"name": c.name, "arguments": json.dumps(c.arguments or {})},
        }
        for c in reply.calls
    ]
    return {"role": "assistant", "content": reply.text, "tool_calls": calls}
