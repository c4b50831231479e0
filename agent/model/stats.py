"""A request's figures: the server's own ``timings`` when it sends them (source "server"),
else usage and a client clock (source "client")."""

from __future__ import annotations

import time
from typing import Any

from agent.loop.events import RequestStats

# What odd values in a reply's timings or usage raise in turn_stats (a string, inf, a list).
UNUSABLE_STATS = (TypeError, ValueError, OverflowError, AttributeError)


class StreamClock:
    """Client-side figures for endpoints that send no ``timings``."""

    def __init__(self) -> None:
        self.start = time.monotonic()
        self.first: float | None = None
        self.last: float | None = None
        self.deltas = 0

    def tick(self) -> None:
        now = time.monotonic()
        self.first = self.first if self.first is not None else now
        self.last = now
        self.deltas += 1

    def wall(self) -> float:
        return time.monotonic() - self.start


def turn_stats(
    timings: dict[str, Any] | None, usage: dict[str, Any] | None, clock: StreamClock
) -> RequestStats:
    """Stats from the server's ``timings`` (source "server") or from usage and the clock."""
    if timings:
        draft_n = timings.get("draft_n")
        return RequestStats(
            source="server",
            decode_tok_s=float(timings.get("predicted_per_second") or 0.0),
            predicted_n=int(timings.get("predicted_n") or 0),
            prompt_n=int(timings.get("prompt_n") or 0),
            cache_n=int(timings.get("cache_n") or 0),
            draft_n=int(draft_n) if draft_n is not None else None,
            draft_accepted=int(timings.get("draft_n_accepted") or 0)
            if draft_n is not None
            else None,
            wall_s=clock.wall(),
        )
    usage = usage or {}
    details = usage.get("prompt_tokens_details") or {}
    cached = int(details.get("cached_tokens") or 0)
    predicted = int(usage.get("completion_tokens") or clock.deltas)
    span = (clock.last - clock.first) if clock.first is not None and clock.last is not None else 0.0
    return RequestStats(
        source="client",
        # The first token is free (it ends the prefill), so the rate counts the ones after it.
        decode_tok_s=(predicted - 1) / span if span > 0 and predicted > 1 else 0.0,
        predicted_n=predicted,
        prompt_n=max(int(usage.get("prompt_tokens") or 0) - cached, 0),
        cache_n=cached,
        draft_n=None,
        draft_accepted=None,
        wall_s=clock.wall(),
    )
