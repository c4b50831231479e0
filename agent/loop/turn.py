"""One turn's state in the loop (``agent.loop.agent``) and how a turn stops early."""

from __future__ import annotations

import dataclasses
from typing import Literal

from agent.events import EventSink, RequestStats
from agent.loop.record import FactsRecorder

MAX_INVALID_STREAK = 3  # invalid calls in a row before the turn stops
Reason = Literal["max_steps", "tool_failures", "done", "blocked"]


class TurnStop(Exception):
    """Ends the turn early with a stop reason and a message for the user."""

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason: Reason = reason


@dataclasses.dataclass
class TurnState:
    emit: EventSink
    facts: FactsRecorder
    stats: list[RequestStats] = dataclasses.field(default_factory=list)
    invalid_streak: int = 0
    step: int = 0  # the step the turn is at, from 0


def stop_after_calls(
    turn: TurnState,
    denied_again: str | None,
    stuck: str | None,
    last_error: str | None,
    halted: str | None = None,
) -> None:
    """Raise ``TurnStop`` where the turn cannot go on after a step's calls: a hook said not to
    go on (``halted``: its stopReason), the model asked again for what the user denied (their
    next word decides), the same call kept giving the same result, or too many invalid calls
    in a row."""
    if halted:
        raise TurnStop("blocked", f"Stopped by a hook: {halted}")
    if denied_again:
        raise TurnStop(
            "done",
            f"Stopped: the model asked again for what you denied ({denied_again}); "
            "say how to go on.",
        )
    if stuck:
        raise TurnStop("tool_failures", stuck)
    if turn.invalid_streak >= MAX_INVALID_STREAK:
        raise TurnStop(
            "tool_failures",
            f"Stopped: {MAX_INVALID_STREAK} invalid tool calls in a row; the last: {last_error}",
        )
