"""One sub-agent run: its own context and tools, the main agent's rules, one answer back.

A sub-agent is the plain loop (``agent.loop.Agent``) started fresh: its system prompt (beecode's
rules, the project's instructions, the definition's own part), the task as its one user
message, and the tools its definition names out of the main agent's (never ``task``: no
recursion). Its permissions, permission mode, tool context and PreToolUse/PostToolUse hooks are
the main agent's objects, so plan mode still only reads and a prompt goes to the same face,
labelled with the sub-agent. Its session is the main one seen through ``SubSession``: the same
id and turn, so its changes are in the turn's checkpoint and facts, and its records kept apart,
so a resume never reads them as the conversation.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from agent.events import (
    Event,
    EventSink,
    Notice,
    PermissionRequest,
    ReasoningDelta,
    StepStats,
    SubagentFinished,
    SubagentStarted,
    SubagentStep,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
)
from agent.hooks.session import Hooks
from agent.loop.agent import Agent
from agent.loop.policy import StepPolicy
from agent.loop.turn import TurnState
from agent.sessions.store import Session
from agent.subagents.definitions import NEVER, AgentDef
from tools.output import cap_text
from tools.registry import ToolRegistry
from tools.tool import ToolContext, ToolResult

if TYPE_CHECKING:
    from agent.subagents.slots import SlotGuard

RESULT_MAX_CHARS = 12_000  # of a sub-agent's answer, as the main agent reads it
_ids = itertools.count(1)


class SubSession(Session):
    """The main session as a sub-agent writes to it: its records go in as ``subagent`` records
    (kept, redacted, never replayed as the conversation); the turn is the main one's."""

    def __init__(self, main: Session, task_id: str, agent: str) -> None:
        super().__init__(main.id, main.path, main.workspace)
        self.main, self.task_id, self.agent = main, task_id, agent

    @property
    def turn_mark(self) -> int | None:
        return self.main.turn_mark

    @turn_mark.setter
    def turn_mark(self, value: int | None) -> None:
        pass  # the turn is the main agent's

    def append(self, record: dict[str, Any]) -> None:
        self.main.append(
            {"type": "subagent", "task": self.task_id, "agent": self.agent, "record": record}
        )

    def messages(self) -> list[dict[str, Any]]:
        return []  # a sub-agent starts with a fresh context


class SubHooks(Hooks):
    """The main agent's hooks for the sub-agent's tool calls; no Stop or end-of-turn ones."""

    def __init__(self, main: Hooks) -> None:
        super().__init__(main.found, main.workspace, main.session_id, main.transcript, main.mode)
        self.notify_argv = main.notify_argv  # a permission prompt still notifies
        self._started = True  # SessionStart was the main agent's

    async def stop(self, answer: str, emit: EventSink) -> str | None:
        return None

    async def turn_over(self, answer: str, emit: EventSink) -> None:
        return None


class SubAgent(Agent):
    """The loop with a task in place of a user's prompt: no UserPromptSubmit, no mentions."""

    async def _turn(
        self, user_text: str, turn: TurnState, images: Sequence[tuple[str, bytes]] = ()
    ) -> TurnFinished:
        self.policy.start_turn(user_text)
        self._runner.start_turn()
        self._add({"role": "user", "content": user_text})
        return await self._steps(turn)


def relay(task_id: str, name: str, emit: EventSink) -> EventSink:
    """The sub-agent's events as the main face gets them: its tool calls and figures as
    ``SubagentStep``, its prompts labelled, its text and turn end kept to itself."""

    def sink(event: Event) -> None:
        match event:
            case ToolCallStarted() | ToolCallFinished() | StepStats():
                emit(SubagentStep(task_id, name, event))
            case PermissionRequest():
                emit(dataclasses.replace(event, agent=name))
            case Notice():
                emit(dataclasses.replace(event, message=f"{name}: {event.message}"))
            case TextDelta() | ReasoningDelta() | TurnFinished():
                pass
            case _:
                emit(event)

    return sink


def sub_registry(main: ToolRegistry, agent: AgentDef, notes: list[str]) -> ToolRegistry:
    """The definition's tools out of the main agent's, in the main agent's order."""
    names = [n for n in main.names() if n not in NEVER]
    if agent.tools is not None:
        missing = [t for t in agent.tools if t not in names]
        if missing:
            notes.append(f"agent {agent.name}: no tool {', '.join(missing)} here (left out)")
        names = [n for n in names if n in agent.tools]
    return ToolRegistry(t for n in names if (t := main.get(n)) is not None)


@dataclasses.dataclass
class Spawner:
    """What a sub-agent is made of: the main agent (model, rules, context) and the session's
    own parts; ``guard`` keeps the main conversation's prompt cache while one runs."""

    main: Agent
    ctx: ToolContext
    policy: Callable[[], StepPolicy]
    memory: str
    guard: SlotGuard | None = None

    async def run(
        self, agent: AgentDef, description: str, task: str, emit: EventSink
    ) -> ToolResult:
        from agent.context.prompt import system_prompt

        main, task_id, notes = self.main, f"task-{next(_ids)}", list[str]()
        registry = sub_registry(main.registry, agent, notes)
        emit(SubagentStarted(task_id, agent.name, description[:120]))
        for note in notes:
            emit(Notice(note, "warning"))
        system = system_prompt(self.memory, "") + f"\n\n# Your role: {agent.name}\n{agent.prompt}"
        sub = SubAgent(
            main.model if self.guard is None else self.guard.model_for_subagent(main.model),
            registry,
            main.permissions,
            SubSession(main.session, task_id, agent.name),
            main.config,
            self.ctx,
            system=system.strip(),
            n_ctx=main.n_ctx,
            counter=main.counter,
            policy=self.policy(),
            vision=main.vision,
            hooks=SubHooks(main.hooks),
        )
        sub._notices = []  # the session was told its policy and workspace already
        try:
            finished = await self._turn(sub, task, relay(task_id, agent.name, emit), emit)
        except asyncio.CancelledError:
            emit(SubagentFinished(task_id, agent.name, "cancelled", "", []))
            raise
        result = cap_text(finished.final_text.strip(), RESULT_MAX_CHARS)
        stats, facts = finished.stats, finished.facts
        emit(SubagentFinished(task_id, agent.name, finished.stop_reason, result, stats, facts))
        told = result or "(no answer)"
        if finished.stop_reason not in ("done", "failed"):
            told = f"The {agent.name} agent stopped ({finished.stop_reason}): {told}"
        account = finished.facts.lines()
        if account:
            # From the turn's checkpoint: what the turn changed so far, the sub-agent's included.
            told += "\n\nbeecode's account of this turn so far:\n" + "\n".join(account)
        meta = {"commands": finished.facts.commands, "agent": agent.name}
        return ToolResult(told, is_error=finished.stop_reason == "error", meta=meta)

    async def _turn(
        self, sub: SubAgent, task: str, sink: EventSink, emit: EventSink
    ) -> TurnFinished:
        if self.guard is None:
            return await sub.run_turn(task, sink)
        async with self.guard.kept(self.main, emit):
            return await sub.run_turn(task, sink)
