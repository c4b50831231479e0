"""The step policy: how the loop asks for each step and reads what comes back.

The loop (``agent.loop.agent``) is the same for every model; what differs between models is
here. This base class is the native policy, the one every model of 3B parameters or more gets,
and it does nothing special: the registry's tools go to the server as they are, the reply is
free (text and native calls, streamed to the face as they come), the answer is kept as it came.
It reads no English: nothing here looks at the words of the task or of the answer. The policy
for small models is ``agent.small``, which the loop never imports: the runtime picks a policy
once per session and hands it in.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.events import EventSink
from agent.facts import TurnFacts
from agent.loop.reads import Reads
from agent.loop.record import FactsRecorder
from agent.loop.repeats import Repeats
from agent.model.endpoint import FREE, ReplyFormat
from agent.model.reply import Call, Reply
from agent.permissions.rules import Permissions
from tools.registry import ToolRegistry
from tools.tool import ToolResult


@dataclass(frozen=True)
class Step:
    """One request's shape: the tools the chat template describes, the reply's format, and an
    instruction sent as a last user message with this request only (never kept or saved)."""

    tools: list[dict[str, Any]]
    reply_format: ReplyFormat = FREE
    instruction: str | None = None


@dataclass(frozen=True)
class Surroundings:
    """What a policy may look at: the session's tools, permissions, reads and workspace."""

    registry: ToolRegistry
    permissions: Permissions
    reads: Reads
    workspace: Path


class StepPolicy:
    """The native policy; ``agent.small`` changes the steps of the models that need it."""

    notice = ""  # said once, at the session's first turn: why this policy, where it is not plain

    def __init__(self) -> None:
        self.watch = Repeats()

    def bind(self, around: Surroundings) -> None:
        """The session's surroundings, given once, before the first turn."""

    def system(self, prompt: str) -> str:
        """The system prompt as this policy sends it."""
        return prompt

    def start_turn(self, task: str) -> None:
        """A new turn on the user's words ``task``."""
        self.watch = Repeats()

    def step(self, tools: list[dict[str, Any]]) -> Step:
        """The next request's shape, given the registry's tool schemas."""
        return Step(tools)

    def read(self, reply: Reply) -> None:
        """Turn a reply held to this policy's format into its calls or its answer text."""

    def refusal(self, call: Call) -> str | None:
        """Why this policy refuses a call the loop found valid, or None."""
        return None

    def note(self, call: Call, kind: str | None, result: ToolResult) -> str:
        """Record a result; returns a note to append to it for the model (or "")."""
        return self.watch.observe(call, kind, result)

    @property
    def stuck(self) -> str | None:
        """Why the turn must stop (the same call with the same result too often), or None."""
        return self.watch.stuck

    def answer(self, reply: Reply, emit: EventSink) -> str | None:
        """The answer in a reply without calls, shown to the face unless the stream showed it;
        None: set aside unshown and unkept, for a step that must call a tool."""
        return reply.text

    def doubts(self, answer: str, facts: TurnFacts, record: FactsRecorder) -> list[str]:
        """This policy's own doubts about the answer, beside the loop's (none here)."""
        return []

    def doubted(self, answer: str, doubts: list[str]) -> str:
        """The words that send an answer the facts contradict back to the model, its next step
        the answer again; "" to keep it (here it was streamed already: the user has read it)."""
        return ""

    def kept_answer(self, answer: str, facts: TurnFacts, emit: EventSink) -> tuple[str, TurnFacts]:
        """The answer as kept and shown, given the facts and their doubts about it. Here it was
        streamed as it came, so it stays, and the doubts are said beside it."""
        return answer, facts

    def closing(self, tools: list[dict[str, Any]]) -> Step | None:
        """A last request, after a step's calls, whose reply ends the turn (None: go on)."""
        return None

    def closing_words(self, reply: Reply, emit: EventSink) -> str:
        """The turn's answer from the closing request's reply."""
        return reply.text

    def after_calls(self) -> None:
        """A step's calls are all answered."""
