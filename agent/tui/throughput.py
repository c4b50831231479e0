"""The throughput line: a turn's figures (``agent.model.stats``, the same in every face) styled,
the live estimate while a reply streams, and the session's sparkline."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agent.events import RequestStats
from agent.model.stats import TurnFigures
from agent.tui import format as fmt


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
    history: Sequence[float],
    speculative: bool | None = None,
) -> list[tuple[str, str]]:
    """The throughput line as (text, style) pieces; styles are Textual style strings."""
    parts: list[tuple[str, str]] = []
    if turn is None and live is None:
        parts.append(("no turn yet", "dim"))
    elif turn is None and live is not None:
        parts.append((f"~{live.tok_s:.1f} tok/s", "bold"))
        parts.append((f" · {live.deltas} tok streaming", "dim"))
    elif turn is not None:
        parts.extend(_turn_parts(turn, speculative))
        if live is not None:
            parts.append((f" · now ~{live.tok_s:.1f} tok/s", "dim"))
    if history:
        parts.append(("  " + fmt.sparkline(history), "$accent"))
    return parts


# How the throughput line styles each role of the figures' pieces.
_STYLES = {"rate": "bold", "note": "dim", "gain": "$success", "drafts": "", "prompt": "dim"}


def _turn_parts(turn: RequestStats, speculative: bool | None) -> list[tuple[str, str]]:
    figures = TurnFigures.of(turn, speculative=speculative)
    return [(text, _STYLES.get(role, "")) for text, role in figures.pieces()]


def speedup_source(turn: RequestStats | None, speculative: bool | None) -> str | None:
    """The turn's speed-up with the rate it divides by and how that was measured; None where
    the line shows no speed-up."""
    return TurnFigures.of(turn, speculative=speculative).speedup_line() if turn else None
