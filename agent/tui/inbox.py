"""Agent events on their way to the widgets: queued in order, adjacent text deltas joined.

The agent emits from its own thread (``agent.tui.agent_loop``); the screen drains the queue in one
message handler, so a burst of thousands of tokens becomes a few appends instead of one UI update
per token.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from agent.events import Event, ReasoningDelta, TextDelta


def coalesce(events: list[Event]) -> list[Event]:
    """Join runs of ``TextDelta`` and runs of ``ReasoningDelta``; keep everything else in order."""
    out: list[Event] = []
    for event in events:
        last = out[-1] if out else None
        if isinstance(event, TextDelta) and isinstance(last, TextDelta):
            out[-1] = TextDelta(last.text + event.text)
        elif isinstance(event, ReasoningDelta) and isinstance(last, ReasoningDelta):
            out[-1] = ReasoningDelta(last.text + event.text)
        else:
            out.append(event)
    return out


class Inbox:
    """Events waiting for the UI, put from any thread. ``wake`` is called once per burst, not
    once per event (from the putting thread: it must be thread-safe)."""

    def __init__(self, wake: Callable[[], object]) -> None:
        self._queue: deque[Event] = deque()
        self._wake = wake
        self._awake = False
        self.received = 0  # text and reasoning deltas seen, for the live tok/s estimate

    def put(self, event: Event) -> None:
        if isinstance(event, TextDelta | ReasoningDelta):
            self.received += 1
        self._queue.append(event)
        if not self._awake:
            self._awake = True
            self._wake()

    def take(self) -> list[Event]:
        """Everything queued so far, joined; the next ``put`` wakes the reader again. Cleared
        before the queue is read: an event put meanwhile is taken now or wakes the reader."""
        self._awake = False
        events: list[Event] = []
        while self._queue:
            events.append(self._queue.popleft())
        return coalesce(events)
