"""The agent loop: ask the model, run the tools it calls, repeat until it answers.

One user turn is a sequence of steps. A step streams one model reply (``agent.model.reply``); if the
reply calls tools, each call is checked (arguments, permissions), run (``agent.loop.calls``) and its
result appended; otherwise the reply is the answer. Every message, permission decision and stat
goes to the session as it happens. The loop never prints: faces get typed events.

What differs between models (the tools offered, the reply's format, answers set aside, a
closing step) is the step policy's (``agent.loop.policy``): the loop asks it and never knows
which one it has. What holds for every model is here: the repeat guard, read before edit, the
turn's facts and the doubts they make certain (``agent.loop.citations``).

Stops: the answer (done), ``max_steps``, three invalid calls in a row or the same call with the
same result three times (tool_failures), a model error (error), or ``cancel()`` (cancelled).
History stays valid in every case: no call is left without a result, no bad JSON is sent back.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from typing import Any

from agent.config import Config
from agent.context.mentions import attach_mentions
from agent.context.prefill import PrefillRate, announce_costly
from agent.context.prompt import TokenCounter, should_compact
from agent.events import (
    ErrorEvent,
    EventSink,
    Notice,
    RequestStats,
    StepStats,
    StopReason,
    TurnFinished,
)
from agent.loop.calls import CallRunner, images_message, text_only
from agent.loop.citations import cited_doubts
from agent.loop.compaction import shorter_history
from agent.loop.policy import Step, StepPolicy, Surroundings
from agent.loop.reads import Reads
from agent.loop.record import FactsRecorder
from agent.loop.turn import TurnState, TurnStop, stop_after_calls
from agent.model.endpoint import ChatModel, ContextOverflow, ModelError
from agent.model.reply import Call, Reply, collect
from agent.permissions.rules import Permissions
from agent.sessions.store import Session, SessionError
from tools.registry import ToolRegistry
from tools.tool import Image, ToolContext, ToolResult


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
        policy: StepPolicy | None = None,
        vision: bool = False,
        prefill: PrefillRate | None = None,
    ) -> None:
        """``policy``: the session's step policy (native when None; ``agent.small`` makes the
        small models'). ``vision``: the model reads images, so those tools return are shown to
        it. ``prefill``: the server's measured prefill rate, which prices what is sent."""
        self.model, self.registry, self.session, self.config = model, registry, session, config
        self.permissions = permissions  # faces change its mode at run time
        self.n_ctx, self.vision = n_ctx, vision
        self.counter = counter or TokenCounter(None)
        self.prefill = prefill
        self._unpriced: list[dict[str, Any]] = []  # added since the last request was priced
        self._reads = Reads(registry, ctx.workspace)
        self.policy = policy or StepPolicy()
        self.policy.bind(Surroundings(registry, permissions, self._reads, ctx.workspace))
        self._notice = self.policy.notice  # said once, at the first turn
        self._system = system
        self.messages: list[dict[str, Any]] = [self._system_message()]
        # The system prompt is rebuilt each run; sessions hold the conversation after it.
        kept = [m for m in session.messages() if m.get("role") != "system"]
        self.messages += kept if vision else [text_only(m) for m in kept]  # resumed elsewhere
        self._runner = CallRunner(registry, permissions, ctx, session)
        self._task: asyncio.Task[TurnFinished] | None = None
        # Read the next request's figures once (the runtime checks a prompt-cache restore).
        self.on_next_stats: Callable[[RequestStats], Notice | None] | None = None
        self._tools_sent: list[dict[str, Any]] = []

    async def run_turn(self, user_text: str, emit: EventSink) -> TurnFinished:
        """One user turn: model and tool steps until the model answers or the turn stops."""
        workspace, self._cancelled = self._reads.workspace, False
        turn = TurnState(emit, FactsRecorder(workspace))
        if self._notice:
            emit(Notice(self._notice))
            self._notice = ""
        self.policy.start_turn(user_text)
        self._runner.start_turn()
        content, attached = attach_mentions(user_text, workspace)
        self._reads.seen.update(attached)
        self._add({"role": "user", "content": content})
        self._task = asyncio.create_task(self._steps(turn))
        try:
            finished = await self._task
        except asyncio.CancelledError:
            if not self._cancelled:
                raise
            finished = self._finished(turn, "cancelled", "Cancelled by the user.")
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

    async def _steps(self, turn: TurnState) -> TurnFinished:
        try:
            for turn.step in range(self.config.max_steps):
                reply = await self._ask(turn, self.policy.step(self.registry.schemas()))
                if not reply.calls:
                    answer = self.policy.answer(reply, turn.emit)
                    finished = (
                        None if answer is None else self._finish(turn, answer, reply.reasoning)
                    )
                    if finished:
                        cut = reply.finish_reason == "length"
                        return dataclasses.replace(finished, cut=cut) if cut else finished
                    continue  # set aside, or sent back: the policy asks for another step
                self._add(reply.message())
                await self._run_calls(reply.calls, turn)
                if (closing := self.policy.closing(self.registry.schemas())) is not None:
                    reply = await self._ask(turn, closing)
                    if finished := self._finish(turn, self.policy.closing_words(reply, turn.emit)):
                        return finished
            raise TurnStop(
                "max_steps", f"Stopped: reached the step limit ({self.config.max_steps})."
            )
        except TurnStop as stop:
            turn.emit(Notice(str(stop), "warning"))
            return self._finished(turn, stop.reason, str(stop))
        except (ModelError, SessionError) as e:  # SessionError: the disk is full, say
            turn.emit(ErrorEvent(str(e)))
            return self._finished(turn, "error", str(e))

    def _finish(self, turn: TurnState, answer: str, reasoning: str = "") -> TurnFinished | None:
        """The answer, checked against the facts, kept as the policy shows it (see _finished);
        None where the policy sends it back to the model with what contradicts it."""
        seen = turn.facts
        facts = seen.facts(self.session.id, self.session.turn_mark)
        said = "\n".join([*map(_text, self.messages), *seen.outputs])
        found = cited_doubts(answer, facts, seen.workspace, said, seen.earlier)
        found += self.policy.doubts(answer, facts, seen)
        last = turn.step + 1 >= self.config.max_steps  # no step left to answer again in
        if found and not last and (again := self.policy.doubted(answer, found)):
            seen.told.append(again)  # beecode's words: an answer that copies them is no account
            return None
        facts = dataclasses.replace(facts, doubts=found)
        answer, facts = self.policy.kept_answer(answer, facts, turn.emit)
        # Reasoning goes back too: Qwen 3.6's template with preserve_thinking then re-reads
        # the reply as generated, and the prefix holds.
        thought = {"reasoning_content": reasoning} if reasoning else {}
        self._add({"role": "assistant", "content": answer, **thought})
        return TurnFinished(turn.stats, "failed" if facts.failed else "done", answer, facts)

    def _finished(self, turn: TurnState, reason: StopReason, text: str) -> TurnFinished:
        """The turn's end with its facts; after an unrecovered failed step, ``failed``."""
        facts = turn.facts.facts(self.session.id, self.session.turn_mark)
        reason = "failed" if reason == "done" and facts.failed else reason
        return TurnFinished(turn.stats, reason, text, facts)

    async def _ask(self, turn: TurnState, step: Step) -> Reply:
        """One model reply, read by the policy; compacts first when the history nears the
        context size, and once more (then gives up) when the server still says it does not fit."""
        self._tools_sent = step.tools  # a summary request sends them too: the same prefix
        await self._compact(turn.emit, force=False)
        await self._announce_costly(turn.emit)
        for attempt in range(2):
            reply = Reply()
            messages = self.messages
            if step.instruction:  # for this request only: the user never said it
                messages = [*messages, {"role": "user", "content": step.instruction}]
            stream = self.model.stream(messages, step.tools, reply_format=step.reply_format)
            try:
                # With their schemas: a call written as text gets its values typed by them.
                names = self.registry.parameters()
                await collect(
                    stream, turn.emit, reply, reply_format=step.reply_format, tool_names=names
                )
            except ContextOverflow as e:
                if attempt:
                    raise ModelError(f"the conversation does not fit the context: {e}") from None
                await self._compact(turn.emit, force=True)
                continue
            except asyncio.CancelledError:
                # What was said before the cancel stays, as a plain message; calls are dropped.
                if reply.text.strip() and step.reply_format.free:
                    self._add({"role": "assistant", "content": reply.text})
                raise
            if reply.stats is not None:
                if self.prefill is not None:
                    self.prefill.observe(reply.stats)
                turn.stats.append(reply.stats)
                turn.emit(StepStats(reply.stats))  # the stream's end, told before it is written
                self.session.append({"type": "stats", **dataclasses.asdict(reply.stats)})
                if self.on_next_stats is not None:
                    note, self.on_next_stats = self.on_next_stats(reply.stats), None
                    if note is not None:
                        turn.emit(note)
            self.policy.read(reply)
            return reply
        raise AssertionError("unreachable")

    async def _run_calls(self, calls: list[Call], turn: TurnState) -> None:
        for call in calls:
            call.error = call.error or self.registry.validate(call.name, call.arguments)
            turn.invalid_streak = turn.invalid_streak + 1 if call.error else 0
            call.error = call.error or self._reads.unread_edit(call)
            if not call.error and (asked := self.policy.refusal(call)):
                call.error = asked
                turn.facts.excused.add(call.id)  # a question to the model, not a failed step
        answered: set[str] = set()
        images: list[Image] = []

        def record(call: Call, result: ToolResult) -> None:
            answered.add(call.id)
            images.extend(result.images if self.vision else ())
            self._reads.observe(call, result)
            kind = self._reads.kind(call)
            note = self.policy.note(call, kind, result)
            turn.facts.observe(call, kind, result, note)
            self._add({"role": "tool", "tool_call_id": call.id, "content": result.output + note})

        try:
            await self._runner.run(calls, turn.emit, record)
        finally:
            # Every call gets a result message, also when the turn was cancelled midway.
            for call in calls:
                if call.id not in answered:
                    record(call, ToolResult("Cancelled by the user.", is_error=True))
        if images:  # after every result: a tool message holds text only in the chat API
            self._add(images_message(images))
        self.policy.after_calls()
        stop_after_calls(turn, self._runner.denied_again, self.policy.stuck, calls[-1].error)

    def _system_message(self) -> dict[str, Any]:
        return {"role": "system", "content": self.policy.system(self._system)}

    async def _compact(self, emit: EventSink, *, force: bool) -> None:
        if not force:
            if self.n_ctx is None:
                return
            schemas = self.registry.schemas()
            used = await asyncio.to_thread(self.counter.count_request, self.messages, schemas)
            if not should_compact(used, self.n_ctx):
                return
        emit(Notice(await self.compact()))

    async def _announce_costly(self, emit: EventSink) -> None:
        new, self._unpriced = self._unpriced, []  # priced once, when first sent
        limit = self.config.prefill_notice_s
        await announce_costly(new, self.messages, self.counter, self.prefill, limit, emit)

    async def compact(self) -> str:
        """Shorten the history (``agent.loop.compaction``); returns a one-line note."""
        before = len(self.messages)
        shorter = await shorter_history(self.messages, self.model, self._tools_sent)
        if shorter is None:
            return "Nothing to compact: the conversation is one short exchange."
        self.messages = shorter
        self.session.append({"type": "compaction", "messages": self.messages[1:]})
        return f"Compacted the conversation: {before} messages -> {len(self.messages)}."

    def _add(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        self._unpriced.append(message)
        self.session.append({"type": "message", "message": message})


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):  # parts: text and images
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""
