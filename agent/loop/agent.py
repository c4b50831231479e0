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
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.config import Config
from agent.context.images import ImageAttacher
from agent.context.mentions import attach_mentions
from agent.context.prefill import PrefillRate, announce_costly
from agent.context.prompt import TokenCounter, should_compact
from agent.context.repomap.session import SessionMap
from agent.events import (
    ErrorEvent,
    EventSink,
    Notice,
    RequestStats,
    StepStats,
    StopReason,
    TurnFinished,
)
from agent.feedback.run import Feedback
from agent.hooks.load import HookSet
from agent.hooks.session import Hooks
from agent.loop.calls import CallRunner, images_message, message_text, text_only
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
from tools.paths import unwritable
from tools.registry import ToolRegistry
from tools.textfiles import reader
from tools.tool import Image, ToolContext, ToolResult

if TYPE_CHECKING:  # tree-sitter loads only when a map is built
    from agent.context.repomap import RepoMap


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
        vision: bool | None = False,
        prefill: PrefillRate | None = None,
        repo_map: RepoMap | None = None,
        hooks: Hooks | None = None,
    ) -> None:
        """``policy``: the session's step policy (native when None; ``agent.small`` makes the
        small models'). ``vision``: the model reads images, so those tools return are shown to
        it (None: not known, another OpenAI-compatible server: the user's own images are sent
        to it, those of tools described). ``prefill``: the server's measured prefill rate,
        which prices what is sent.
        ``repo_map``: the repository map, the system prompt's last block (``SessionMap``).
        ``hooks``: the session's hooks (``agent.hooks``; none when None)."""
        self.model, self.registry, self.session, self.config = model, registry, session, config
        self.permissions = permissions  # faces change its mode at run time
        self.n_ctx, self.vision = n_ctx, vision
        self.counter = counter or TokenCounter(None)
        self.prefill = prefill
        self._unpriced: list[dict[str, Any]] = []  # added since the last request was priced
        self._reads = Reads(registry, ctx.workspace)
        self.policy = policy or StepPolicy()
        self.policy.bind(Surroundings(registry, permissions, self._reads, ctx.workspace))
        # Said once, at the first turn: the step policy's notice, a workspace nothing can be
        # written in (before a write fails on it).
        self._notices = [Notice(self.policy.notice)] if self.policy.notice else []
        if (read_only := unwritable(ctx.workspace)) is not None:
            self._notices.append(Notice(read_only, "warning"))
        self._system = system
        self.repo_map = SessionMap(repo_map, session) if repo_map is not None else None
        self.messages: list[dict[str, Any]] = [self._system_message()]
        # The system prompt is rebuilt each run; sessions hold the conversation after it.
        kept = [m for m in session.messages() if m.get("role") != "system"]
        self.messages += [text_only(m) for m in kept] if vision is False else kept  # elsewhere
        self.hooks = hooks or Hooks(HookSet(), ctx.workspace, session.id)
        self._runner = CallRunner(registry, permissions, ctx, session, self.hooks)
        self.feedback = Feedback(config, ctx, permissions, session)  # the project's checks
        self._task: asyncio.Task[TurnFinished] | None = None
        # Read the next request's figures once (the runtime checks a prompt-cache restore).
        self.on_next_stats: Callable[[RequestStats], Notice | None] | None = None
        self._tools_sent: list[dict[str, Any]] = []
        self._images = ImageAttacher(ctx.workspace)  # the images a message names (@path)

    async def run_turn(
        self, user_text: str, emit: EventSink, images: Sequence[tuple[str, bytes]] = ()
    ) -> TurnFinished:
        """One user turn: model and tool steps until the model answers or the turn stops.
        ``images``: (name, bytes) sent with the message beside those it names (an editor's)."""
        self._cancelled, emit = False, self.hooks.watching(emit)
        turn = TurnState(emit, FactsRecorder(self._reads.workspace))
        for notice in self._notices:
            emit(notice)
        self._notices = []
        self._task = asyncio.create_task(self._turn(user_text, turn, images))
        try:
            finished = await self._task
        except asyncio.CancelledError:
            if not self._cancelled:
                raise
            finished = self._finished(turn, "cancelled", "Cancelled by the user.")
        finally:
            self._task = None
        if self.repo_map is not None:
            self.repo_map.add_focus(finished.facts.files)
        if finished.stop_reason != "cancelled":
            await self.hooks.turn_over(finished.final_text, emit)
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
        self.feedback.close()

    async def _turn(
        self, user_text: str, turn: TurnState, images: Sequence[tuple[str, bytes]]
    ) -> TurnFinished:
        """The prompt's hooks, then the steps; a prompt they block is neither sent nor kept."""
        said = await self.hooks.start_turn(user_text, len(self.messages) > 1, turn.emit)
        if said.blocked or said.halt:
            why = said.halt or said.block_text()
            return self._finished(turn, "blocked", f"A hook blocked the prompt: {why}")
        self.policy.start_turn(user_text)
        self._runner.start_turn()
        self.feedback.start_turn()
        editor = reader(self._runner.ctx)  # under ACP: the unsaved buffers the tools read
        workspace = self._reads.workspace
        content, attached = await asyncio.to_thread(attach_mentions, user_text, workspace, editor)
        self._reads.seen.update(attached)
        await self._refresh_map(attached)
        text = "\n\n".join([content, *said.context])
        sent = self._images.content(user_text, text, self.vision, turn.emit, images)
        self._add({"role": "user", "content": sent})
        return await self._steps(turn)

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
                        if reply.finish_reason == "length":  # cut at the token limit
                            finished = dataclasses.replace(finished, cut=True)
                        if not await self._sent_on(turn, finished):
                            return finished
                    continue  # set aside, sent back, or on by a Stop hook: another step
                self._add(reply.message())
                await self._run_calls(reply.calls, turn)
                if (closing := self.policy.closing(self.registry.schemas())) is not None:
                    reply = await self._ask(turn, closing)
                    finished = self._finish(turn, self.policy.closing_words(reply, turn.emit))
                    if finished and not await self._sent_on(turn, finished):
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

    async def _sent_on(self, turn: TurnState, finished: TurnFinished) -> bool:
        """Whether the model is sent on, told why in the next user message: the project's checks
        failed on the turn's changes while a step is left to fix them in (``agent.feedback``),
        or a Stop hook says so."""
        told = None
        if turn.step + 1 < self.config.max_steps:
            changed = [*finished.facts.created, *finished.facts.changed]
            told = await self.feedback.after_turn(changed, turn.emit)
        if told is None:
            reason = await self.hooks.stop(finished.final_text, turn.emit)
            told = None if reason is None else f"Stop hook feedback: {reason}"
        if told is not None:
            self._add({"role": "user", "content": told}, within_turn=True)
        return told is not None

    def _finish(self, turn: TurnState, answer: str, reasoning: str = "") -> TurnFinished | None:
        """The answer, checked against the facts, kept as the policy shows it (see _finished);
        None where the policy sends it back to the model with what contradicts it."""
        seen = turn.facts
        facts = seen.facts(self.session.id, self.session.turn_mark)
        said = "\n".join([*map(message_text, self.messages), *seen.outputs])
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
        new, self._unpriced = self._unpriced, []  # priced once, when first sent
        limit = self.config.prefill_notice_s
        await announce_costly(new, self.messages, self.counter, self.prefill, limit, turn.emit)
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
            self._add(images_message(images), within_turn=True)
        self.policy.after_calls()
        stuck, denied = self.policy.stuck, self._runner.denied_again
        stop_after_calls(turn, denied, stuck, calls[-1].error, self.hooks.halt)

    def _system_message(self) -> dict[str, Any]:
        text = self.repo_map.text if self.repo_map is not None else ""
        prompt = self._system + (f"\n\n{text.rstrip()}" if text else "")
        return {"role": "system", "content": self.policy.system(prompt)}

    async def _refresh_map(self, named: list[Path], *, rewritten: bool = False) -> None:
        """The map follows the tree only where the prompt cache is lost anyway: before a
        conversation's first message, or once compaction ``rewritten`` it (``SessionMap``)."""
        if self.repo_map is not None:
            cache_lost = rewritten or len(self.messages) == 1
            if await asyncio.to_thread(self.repo_map.update, named, cache_lost):
                self.messages[0] = self._system_message()

    async def _compact(self, emit: EventSink, *, force: bool) -> None:
        if not force:
            if self.n_ctx is None:
                return
            schemas = self.registry.schemas()
            used = await asyncio.to_thread(self.counter.count_request, self.messages, schemas)
            if not should_compact(used, self.n_ctx):
                return
        emit(Notice(await self.compact()))

    async def compact(self) -> str:
        """Shorten the history (``agent.loop.compaction``); returns a one-line note."""
        before = len(self.messages)
        shorter = await shorter_history(self.messages, self.model, self._tools_sent)
        if shorter is None:
            return "Nothing to compact: the conversation is one short exchange."
        self.messages = shorter
        self.session.append({"type": "compaction", "messages": self.messages[1:]})
        await self._refresh_map([], rewritten=True)
        return f"Compacted the conversation: {before} messages -> {len(self.messages)}."

    def _add(self, message: dict[str, Any], *, within_turn: bool = False) -> None:
        """``within_turn``: a user-role message of beecode's, which starts no turn."""
        self.messages.append(message)
        self._unpriced.append(message)
        flag = {"within_turn": True} if within_turn else {}
        self.session.append({"type": "message", "message": message, **flag})
