"""Per-turn speed figures: the model requests of a turn combined, and the throughput line's text."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agent.loop.events import RequestStats
from agent.tui import format as fmt


def combine(steps: Sequence[RequestStats]) -> RequestStats | None:
    """One turn's requests as one figure: tok/s over the summed decode time, drafts summed
    (``None`` when no request speculated), measured by the server only if every request was."""
    if not steps:
        return None
    timed = [s for s in steps if s.decode_tok_s > 0]  # a one-token reply has no decode rate
    decode_s = sum(s.predicted_n / s.decode_tok_s for s in timed)
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
    )


@dataclass(frozen=True)
class LiveRate:
    """Client-side estimate while a request streams, before the server's figures arrive."""

    deltas: int
    seconds: float

    @property
    def tok_s(self) -> float:
        return self.deltas / self.seconds if self.seconds > 0 else 0.0


def throughput_parts(
    turn: RequestStats | None,
    live: LiveRate | None,
    baseline_tok_s: float | None,
    history: Sequence[float],
) -> list[tuple[str, str]]:
    """The throughput line as (text, style) pieces; styles are Textual style strings."""
    parts: list[tuple[str, str]] = []
    if turn is None and live is None:
        parts.append(("no turn yet", "dim"))
    elif turn is None and live is not None:
        parts.append((f"~{live.tok_s:.1f} tok/s", "bold"))
        parts.append((f" · {live.deltas} tok streaming", "dim"))
    elif turn is not None:
        parts.extend(_turn_parts(turn, baseline_tok_s))
        if live is not None:
            parts.append((f" · now ~{live.tok_s:.1f} tok/s", "dim"))
    if history:
        parts.append(("  " + fmt.sparkline(history), "$accent"))
    return parts


def _turn_parts(turn: RequestStats, baseline_tok_s: float | None) -> list[tuple[str, str]]:
    parts = [(f"{turn.decode_tok_s:.1f} tok/s", "bold")]
    if turn.source == "client":
        parts.append((" (client-measured)", "dim"))
    if baseline_tok_s:
        parts.append((f" ×{turn.decode_tok_s / baseline_tok_s:.2f} vs no-spec", "$success"))
    if turn.draft_n is None:
        parts.append((" · speculation off", "dim"))
    else:
        acceptance = turn.acceptance
        rate = f" ({fmt.percent(acceptance)})" if acceptance is not None else ""
        parts.append((f" · draft {turn.draft_accepted}/{turn.draft_n}{rate}", ""))
        share = turn.accepted_share
        if share is not None:
            parts.append((f" · {fmt.percent(share)} of output from drafts", ""))
    parts.append(
        (f" · prompt {fmt.tokens(turn.cache_n)} cached / {fmt.tokens(turn.prompt_n)} new", "dim")
    )
    return parts
