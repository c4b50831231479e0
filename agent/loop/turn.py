"""One turn's state in the loop (``agent.loop.agent``) and how a turn stops early."""

from __future__ import annotations

import dataclasses
from typing import Literal

from agent.loop.events import EventSink, RequestStats
from agent.loop.facts import FactsRecorder
from agent.loop.guard import WorkGuard

MAX_INVALID_STREAK = 3  # invalid calls in a row before the turn stops


class TurnStop(Exception):
    """Ends the turn early with a stop reason and a message for the user."""

    def __init__(self, reason: Literal["max_steps", "tool_failures", "done"], message: str) -> None:
        super().__init__(message)
        self.reason: Literal["max_steps", "tool_failures", "done"] = reason


@dataclasses.dataclass
class TurnState:
    emit: EventSink
    facts: FactsRecorder
    guard: WorkGuard
    stats: list[RequestStats] = dataclasses.field(default_factory=list)
    invalid_streak: int = 0
