"""beecode's speculation brake: requests go with drafting off where drafting loses on this server.

Drafting pays only while drafts are accepted; a drafter that stops paying (a long session, new
kinds of text, a random test drafter) makes decoding slower than no speculation at all, and the
engines' own controllers shorten drafts without ever stopping them. The brake measures both ways
on the server itself, like for like: a probe pair (the same request, ``PROBE_TOKENS`` long, once
with drafting off and once with it on) per context-length band, refreshed every ``PROBE_EVERY``
requests in the band, and every real request's own rate. Where drafting's rate is below the
rate without it, requests go with ``OFF_FIELDS``. A real request that drafted and lost was timed
at another moment than the rate it lost to (a build on the same cores slows one and not the
other), so it asks for a fresh pair before the next request, and the pair decides; a second
loss right after a pair that said drafting pays pauses at once. A request that drafted nothing
(a reply held to a schema, nothing to continue) is no measure of drafting. Drafts never
accepted pause at once too (BeeLlama reads ``speculative.n_max`` per request; beecode's upstream
builds are patched to, see server.engine.patches). A server that drafts anyway is marked as one
the brake cannot hold, and is not asked again.

The agent's model client and ``beecode bench`` send the real requests and report each back;
``probe_pair`` sends a probe pair.
"""

from __future__ import annotations

import bisect
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from server.client import Timings, complete
from server.errors import ServerError

OFF_FIELDS: dict[str, Any] = {"speculative.n_max": 0}
PROBE_TOKENS = 16  # a probe's length: short, since a losing drafter's probe is the brake's cost
PROBE_EVERY = 16  # requests in a band between probe pairs
BANDS = (8192, 16384, 32768, 65536, 98304)  # context tokens where a band ends (Bee's own bands)
PROBE_TIMEOUT_S = 300.0
MIN_TOKENS = 8  # a request with fewer decoded tokens says nothing about rates
WINDOW = 4  # real requests per way that make the band's current rate

Way = Literal["on", "off"]


@dataclass(frozen=True)
class Measure:
    """One request's decode: tokens in seconds, with drafting on or off."""

    way: Way
    tokens: int
    seconds: float
    drafted: int | None = None
    accepted: int | None = None


@dataclass
class _Band:
    on: list[Measure] = field(default_factory=list)
    off: list[Measure] = field(default_factory=list)
    since_probe: int | None = None  # real requests since the last probe pair; None: never probed
    paused: bool = False
    doubted: bool = False  # a drafted request lost: a fresh pair decides before the next one
    upheld: bool = False  # the last pair was asked for by a loss and said drafting pays


@dataclass(frozen=True)
class BrakeState:
    """What a face shows: whether drafting is paused here, and the like-for-like ratio."""

    paused: bool
    ratio: float | None  # drafting's decode rate over the rate without it, this band; None: unknown
    band: int  # the band's upper context bound in tokens; 0 past the last one
    held: bool = True  # False: this server drafts even when asked not to
    off_tok_s: float | None = None  # the decode rate without drafting, measured in this band
    never_accepted: bool = False  # paused since no draft was accepted, whatever the rates say


def _rate(measures: list[Measure]) -> float | None:
    tokens = sum(m.tokens for m in measures)
    seconds = sum(m.seconds for m in measures)
    return tokens / seconds if tokens >= MIN_TOKENS and seconds > 0 else None


class Brake:
    """One server's brake. ``plan`` before a request, ``record`` after each request it sent."""

    def __init__(self) -> None:
        self._bands: dict[int, _Band] = {}
        self.held = True  # False once an off request came back with drafts
        self._context = 0  # the context the last request reached: where the next one starts

    def _band_of(self, context: int | None) -> tuple[int, _Band]:
        tokens = self._context if context is None else context
        index = bisect.bisect_right(BANDS, tokens)
        return index, self._bands.setdefault(index, _Band())

    def needs_probe(self, context: int | None = None) -> bool:
        """Whether a probe pair should go before the next request (the band has no fresh one)."""
        if not self.held:
            return False
        _, band = self._band_of(context)
        return band.since_probe is None or band.since_probe >= PROBE_EVERY or band.doubted

    def fields(self, context: int | None = None) -> dict[str, Any]:
        """The extra request fields for the next real request: drafting off while paused."""
        _, band = self._band_of(context)
        return dict(OFF_FIELDS) if self.held and band.paused else {}

    def record_probe(self, off: Measure, on: Measure, context: int | None = None) -> None:
        """A probe pair's two measures; the band's verdict is taken from them afresh. A pair
        whose drafting half drafted nothing (an n-gram drafter finds nothing to continue in a
        few tokens) says nothing about drafting: the band drafts again, and its requests judge
        (one asked for by a request that lost: that request's rate, against the pair's fresh
        rate without drafting)."""
        _, band = self._band_of(context)
        band.since_probe = 0
        doubted, band.doubted = band.doubted, False
        if not self._check_held(off):
            return
        band.off = [off]
        if on.drafted or not doubted:  # else the requests' own drafting is drafting's measure
            band.on = [on] if on.drafted else []
        band.paused = self._never_accepted(band) or self._losing(band)
        band.upheld = doubted and not band.paused

    def record_probe_failed(self, context: int | None = None) -> None:
        """A probe pair that got no answer: the band keeps its verdict until the next one (a
        request that lost and asked for it: paused)."""
        _, band = self._band_of(context)
        band.since_probe = 0
        band.paused, band.doubted = band.paused or band.doubted, False

    def record(self, measure: Measure, context_after: int, context: int | None = None) -> None:
        """A real request's measure; ``context_after``: the tokens its slot holds now."""
        _, band = self._band_of(context)
        self._context = context_after
        if band.since_probe is not None:
            band.since_probe += 1
        if measure.tokens < MIN_TOKENS or not self._check_held(measure):
            return
        if measure.way == "on" and not measure.drafted:
            return  # nothing drafted (a schema-held reply, nothing to continue): no measure of it
        ways = band.on if measure.way == "on" else band.off
        ways.append(measure)
        del ways[:-WINDOW]
        if measure.way == "on" and not band.paused:  # only a probe pair resumes drafting
            upheld, band.upheld = band.upheld, False
            if self._never_accepted(band):
                band.paused = True
            elif self._losing(band):  # timed apart from the rate it lost to: a pair decides
                band.paused, band.doubted = upheld, not upheld

    def _check_held(self, measure: Measure) -> bool:
        if measure.way == "off" and measure.drafted:
            self.held = False  # the server ignored the request's drafting off
        return self.held

    @staticmethod
    def _never_accepted(band: _Band) -> bool:
        """Drafts that are never accepted cannot pay, whatever the rates say."""
        drafted = sum(m.drafted or 0 for m in band.on)
        return drafted >= PROBE_TOKENS and not any(m.accepted for m in band.on)

    @staticmethod
    def _losing(band: _Band) -> bool:
        on, off = _rate(band.on), _rate(band.off)
        return on is not None and off is not None and on < off

    def state(self, context: int | None = None) -> BrakeState:
        index, band = self._band_of(context)
        on, off = _rate(band.on), _rate(band.off)
        ratio = round(on / off, 3) if on is not None and off else None
        bound = BANDS[index] if index < len(BANDS) else 0
        off_rate = round(off, 2) if off is not None else None
        paused = band.paused and self.held
        unaccepted = paused and self._never_accepted(band)
        return BrakeState(paused, ratio, bound, self.held, off_rate, unaccepted)


def measure_of(timings: Timings, way: Way) -> Measure:
    return Measure(
        way, timings.predicted_n, timings.predicted_ms / 1000, timings.draft_n,
        timings.draft_n_accepted,
    )  # fmt: skip


@dataclass(frozen=True)
class Probed:
    """What a probe pair cost: its seconds, and the prompt tokens it read in (and their
    seconds), which the request after it then finds cached: they are that request's cost."""

    seconds: float
    prompt_n: int = 0
    prompt_s: float = 0.0


def probe_pair(
    brake: Brake, url: str, body: dict[str, Any], api_key: str | None, context: int | None = None
) -> Probed:
    """Send ``body`` twice, ``PROBE_TOKENS`` long, drafting off then on, and give the brake both
    measures. A server that refuses the off field is marked as one the brake cannot hold."""
    probe = {k: v for k, v in body.items() if k not in ("stream", "stream_options")}
    probe.update(stream=False, max_tokens=PROBE_TOKENS, cache_prompt=True)
    start = time.monotonic()
    measures: list[Measure] = []
    prompt_n, prompt_s = 0, 0.0
    pair: tuple[tuple[Way, dict[str, Any]], ...] = (("off", OFF_FIELDS), ("on", {}))
    for way, extra in pair:
        try:
            reply = complete(url, {**probe, **extra}, api_key=api_key, timeout_s=PROBE_TIMEOUT_S)
            timings = Timings.from_json(reply["timings"])
        except (ServerError, KeyError, TypeError):
            if way == "off":
                brake.held = False
            brake.record_probe_failed(context)
            return Probed(time.monotonic() - start, prompt_n, prompt_s)
        measures.append(measure_of(timings, way))
        prompt_n, prompt_s = prompt_n + timings.prompt_n, prompt_s + timings.prompt_ms / 1000
    brake.record_probe(measures[0], measures[1], context)
    return Probed(time.monotonic() - start, prompt_n, prompt_s)
