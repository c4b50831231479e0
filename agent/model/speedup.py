"""A turn's speed-up: against which rate without drafting, measured how (``Baseline``).

The one source of that rate is beecode's speculation brake (server.brake): on the same server,
in the same context band, drafting off per request between the session's own requests, so the
load, build, model and context are those of the turn it is set against. A rate kept from an
earlier measurement is not used: taken under other load, build or context, it claimed speed-ups
that drafting did not give (x5.70 on a turn with nothing drafted, against a rate measured once
under load).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agent.events import DraftingNote

INTERLEAVED = (
    "this server, this context band, drafting off per request between this session's requests "
    "(beecode's speculation brake: probe pairs and requests sent with drafting off)"
)


@dataclass(frozen=True)
class Baseline:
    """The rate a speed-up divides by, and how it was measured (``kind``, ``conditions``)."""

    kind: Literal["interleaved"]
    baseline_tok_s: float
    ratio: float | None  # drafting's rate over it in the band's recent requests (the brake's)
    conditions: str

    def describe(self, decode_tok_s: float) -> str:
        return (
            f"{decode_tok_s:.1f} tok/s this turn against {self.baseline_tok_s:.1f} tok/s without "
            f"drafting, measured {self.kind}: {self.conditions}"
        )


def interleaved(note: DraftingNote | None) -> Baseline | None:
    """The brake's rate without drafting as a baseline; None where it has measured none."""
    if note is None or not note.off_tok_s:
        return None
    return Baseline("interleaved", note.off_tok_s, note.ratio, INTERLEAVED)
