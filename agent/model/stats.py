"""A request's figures, and a turn's as every face shows them: the one source of those figures.

A request's come from the server's own ``timings`` when it sends them (source "server"), else
from usage and a client clock (source "client"). ``TurnFigures`` is what the TUI's throughput
line, the headless text mode's closing line and its JSON ``figures`` all show, so they agree.

How many decode steps drafted comes from the server's /metrics counters read around each request
(``with_drafted_steps``), so a turn can say when drafting held back in some of its steps.

llama-server reports ``draft_n`` only for a request that drafted something, so a missing count
means "off" only when the server does not speculate at all (its /slots say so). It drafts under
a grammar as well (server-context.cpp: drafting does not look at the request's grammar; the
grammar sampler judges every drafted token), so a constrained step with no drafts is labelled
as such, not as speculation off.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from agent.events import RequestStats
from agent.model.speedup import Baseline, interleaved

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
    timings: dict[str, Any] | None,
    usage: dict[str, Any] | None,
    clock: StreamClock,
    *,
    constrained: bool = False,
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
            prompt_tok_s=float(timings.get("prompt_per_second") or 0.0),
            constrained=constrained,
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
        constrained=constrained,
    )


# The server's /metrics counters (without `llamacpp:`) that say how many decode steps drafted.
_PREDICTED = "tokens_predicted_total"
_DRAFT_TOKENS = "spec_decode_num_draft_tokens_total"
_DRAFTS = "spec_decode_num_drafts_total"  # verification steps: one per draft


def least_steps(stats: RequestStats) -> int:
    """The decode steps a reply took, at least. Each step emits its sampled token plus the draft
    tokens it accepted, and the first token comes with the prompt; a stop inside an accepted
    draft drops the rest from the output but not from the accepted count, so this can fall
    short of the steps taken, never exceed them."""
    return max(stats.predicted_n - 1 - (stats.draft_accepted or 0), 0)


def with_drafted_steps(
    stats: RequestStats, before: Mapping[str, float], after: Mapping[str, float]
) -> RequestStats:
    """``stats`` with its drafted steps, from the server's counters read before and after the
    request: only when they moved by exactly this request's tokens and drafted tokens, since
    anything else means another request ran in between (then ``stats`` comes back unchanged)."""
    keys = (_PREDICTED, _DRAFT_TOKENS, _DRAFTS)
    if stats.source != "server" or any(k not in before or k not in after for k in keys):
        return stats
    moved = {k: after[k] - before[k] for k in keys}
    if moved[_PREDICTED] != stats.predicted_n or moved[_DRAFT_TOKENS] != (stats.draft_n or 0):
        return stats
    return dataclasses.replace(
        stats, drafted_steps=int(moved[_DRAFTS]), least_steps=least_steps(stats)
    )


def _sum_known(values: Iterable[int | None]) -> int | None:
    """The sum, or None when any value is unknown: a partial count is no count."""
    total = 0
    for value in values:
        if value is None:
            return None
        total += value
    return total


def combine(steps: Sequence[RequestStats]) -> RequestStats | None:
    """One turn's requests as one figure: tok/s over the summed decode time, drafts summed
    (``None`` when no request drafted), prefill rate over the summed prefill time, measured by
    the server only if every request was, constrained only if every request was."""
    if not steps:
        return None
    timed = [s for s in steps if s.decode_tok_s > 0]  # a one-token reply has no decode rate
    decode_s = sum(s.predicted_n / s.decode_tok_s for s in timed)
    prefilled = [s for s in steps if s.prompt_tok_s > 0 and s.prompt_n > 0]
    prefill_s = sum(s.prompt_n / s.prompt_tok_s for s in prefilled)
    drafted = [s for s in steps if s.draft_n is not None]
    return RequestStats(
        source="server" if all(s.source == "server" for s in steps) else "client",
        decode_tok_s=sum(s.predicted_n for s in timed) / decode_s if decode_s > 0 else 0.0,
        predicted_n=sum(s.predicted_n for s in steps),
        prompt_n=sum(s.prompt_n for s in steps),
        cache_n=sum(s.cache_n for s in steps),
        draft_n=sum(s.draft_n or 0 for s in drafted) if drafted else None,
        draft_accepted=sum(s.draft_accepted or 0 for s in drafted) if drafted else None,
        wall_s=sum(s.wall_s for s in steps),
        prompt_tok_s=sum(s.prompt_n for s in prefilled) / prefill_s if prefill_s > 0 else 0.0,
        constrained=all(s.constrained for s in steps),
        drafted_steps=_sum_known(s.drafted_steps for s in steps),
        least_steps=_sum_known(s.least_steps for s in steps),
        drafting=next((s.drafting for s in reversed(steps) if s.drafting), None),
    )


def tokens(n: int) -> str:
    if n < 1000:
        return str(n)
    if n < 10_000:
        return f"{n / 1000:.1f}k"
    return f"{n / 1000:.0f}k"


def percent(share: float) -> str:
    return f"{share * 100:.0f}%"


# What a turn's drafting was: "on" (drafts were made), "paused" (beecode's brake sent it with
# drafting off, server.brake), "idle" / "idle_constrained" (the server speculates but drafted
# nothing, in free or only in schema-held steps), "off" (the server does not speculate),
# "unknown" (no drafts, and the server's setting is not known).
Speculation = Literal["on", "paused", "idle", "idle_constrained", "off", "unknown"]
_SPECULATION_WORDS = {
    "idle": "0 drafted",
    "idle_constrained": "0 drafted in constrained steps",
    "off": "speculation off",
    "unknown": "no drafts reported",
}


@dataclasses.dataclass(frozen=True)
class TurnFigures:
    """A turn's figures as every face shows them (``TurnFigures.of``, then ``pieces`` or
    ``as_json``)."""

    requests: int
    source: Literal["server", "client"]
    decode_tok_s: float
    output_tokens: int
    drafted: int | None
    accepted: int | None
    acceptance: float | None  # accepted / drafted
    output_from_drafts: float | None  # accepted / output tokens
    speculation: Speculation
    # The decode rate without drafting, measured on this server at this context by the brake's
    # probe pairs and its requests sent with drafting off (server.brake); None: not measured.
    baseline_tok_s: float | None
    speedup: float | None  # decode_tok_s / baseline_tok_s, only for a turn that drafted
    speedup_source: Baseline | None  # where the speed-up's divisor comes from; None: no speed-up
    drafting: str | None  # the brake's word: "drafting paused: 0.55x"; None: no brake
    prompt_cached: int
    prompt_new: int
    prefill_s: float | None  # seconds the server spent on the new prompt tokens
    wall_s: float
    drafted_steps: int | None = None  # decode steps that verified a draft; None: not known
    least_steps: int | None = None  # decode steps taken, at least (stats.least_steps)

    @classmethod
    def of(
        cls,
        turn: RequestStats,
        *,
        requests: int = 1,
        speculative: bool | None = None,
    ) -> TurnFigures:
        """``turn``: one request or a turn's requests combined (``combine``); ``speculative``:
        whether the server drafts at all (None: not known). A speed-up is given only for a turn
        that drafted, against the rate without drafting the brake measured like for like."""
        note = turn.drafting
        speculation: Speculation = "on"
        if not turn.draft_n:
            if note is not None and note.paused:
                speculation = "paused"
            elif speculative is None:
                speculation = "unknown"
            elif not speculative:
                speculation = "off"
            else:
                speculation = "idle_constrained" if turn.constrained else "idle"
        baseline_tok_s = note.off_tok_s if note is not None else None
        # Like for like: the server's own decode rate, on a turn that drafted, over its rate
        # without drafting measured on the same server and context.
        measured = speculation == "on" and turn.source == "server" and turn.decode_tok_s > 0
        source = interleaved(note) if measured else None
        speedup = round(turn.decode_tok_s / source.baseline_tok_s, 3) if source else None
        counts_unknown = speculation in ("off", "unknown")
        return cls(
            requests=requests,
            source=turn.source,
            decode_tok_s=round(turn.decode_tok_s, 2),
            output_tokens=turn.predicted_n,
            drafted=None if counts_unknown else turn.draft_n or 0,
            accepted=None if counts_unknown else turn.draft_accepted or 0,
            acceptance=turn.acceptance,
            output_from_drafts=turn.accepted_share if turn.draft_n else None,
            speculation=speculation,
            baseline_tok_s=baseline_tok_s,
            speedup=speedup,
            speedup_source=source,
            drafting=note.describe() if note is not None else None,
            prompt_cached=turn.cache_n,
            prompt_new=turn.prompt_n,
            prefill_s=round(turn.prompt_n / turn.prompt_tok_s, 3) if turn.prompt_tok_s else None,
            wall_s=round(turn.wall_s, 3),
            drafted_steps=turn.drafted_steps if speculation == "on" else None,
            least_steps=turn.least_steps if speculation == "on" else None,
        )

    def pieces(self) -> list[tuple[str, str]]:
        """The figures as (text, role) pieces; a face styles each role its own way
        (roles: rate, note, gain, drafts, prompt)."""
        parts = [(f"{self.decode_tok_s:.1f} tok/s", "rate")]
        if self.source == "client":
            parts.append((" (client-measured)", "note"))
        if self.speedup is not None:
            parts.append((f" ×{self.speedup:.2f} vs no-spec", "gain"))
        if self.speculation == "on":
            rate = f" ({percent(self.acceptance)})" if self.acceptance is not None else ""
            parts.append((f" · draft {self.accepted}/{self.drafted}{rate}", "drafts"))
            if self.output_from_drafts is not None:
                parts.append((f" · {percent(self.output_from_drafts)} of output from drafts", ""))
            if self.drafted_steps is not None and self.least_steps is not None:
                # Said only when some steps surely went without a draft (the engine found
                # nothing to draft, or its brake held drafting back).
                if self.drafted_steps < self.least_steps:
                    steps = f"{self.drafted_steps} of ≥{self.least_steps} steps"
                    parts.append((f" · drafted in {steps}", "drafts"))
        elif self.speculation == "paused" and self.drafting is not None:
            parts.append((f" · {self.drafting}", "note"))
        else:
            parts.append((f" · {_SPECULATION_WORDS[self.speculation]}", "note"))
        prefill = f" ({self.prefill_s:.1f} s prefill)" if self.prefill_s is not None else ""
        cached, new = tokens(self.prompt_cached), tokens(self.prompt_new)
        parts.append((f" · prompt {cached} cached / {new} new{prefill}", "prompt"))
        return parts

    def speedup_line(self) -> str | None:
        """The speed-up with its source, for a face to show on request; None: no speed-up."""
        if self.speedup is None or self.speedup_source is None:
            return None
        return f"×{self.speedup:.2f} vs no-spec: {self.speedup_source.describe(self.decode_tok_s)}"

    def as_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def line(self) -> str:
        return "".join(text for text, _role in self.pieces())
