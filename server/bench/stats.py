"""What `beecode bench` computes from its requests: medians with spread, speed-ups, token agreement.

Pure functions over plain data, so the arithmetic is tested without a server.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

BASELINE_MODE = "none"


@dataclass(frozen=True)
class Sample:
    """One completion request, as the server timed it."""

    prompt: str
    mode: str
    rep: int  # 0-based repetition; the extra greedy run of a sampled prompt is -1
    temperature: float
    completion_tokens: int
    tok_s: float  # timings.predicted_per_second
    gen_s: float  # timings.predicted_ms / 1000
    prompt_n: int
    cache_n: int
    draft_n: int | None  # None: nothing was drafted (the server omits the field)
    draft_accepted: int | None
    paused: bool = False  # the brake sent this request with drafting off (server.brake)
    probe_s: float = 0.0  # the brake's probe pair before it, counted in gen_s and tok_s


@dataclass(frozen=True)
class Spread:
    median: float
    low: float
    high: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread:
        return cls(statistics.median(values), min(values), max(values))


@dataclass(frozen=True)
class Row:
    """One prompt under one mode, over its repetitions."""

    prompt: str
    mode: str
    reps: int
    completion_tokens: Spread
    tok_s: Spread
    gen_s: Spread
    draft_n: Spread | None
    accepted: Spread | None
    acceptance: Spread | None  # accepted / drafted, per repetition
    speedup: float | None  # median tok/s over the baseline's median tok/s for the same prompt
    # Best over best: other load on the machine only ever slows a run down, so on a busy machine
    # the fastest repetition is the closest to the undisturbed speed (as timeit takes the minimum).
    speedup_best: float | None
    context: int = 0  # prompt tokens the server held (cached included), median over repetitions


@dataclass(frozen=True)
class Agreement:
    """A speculative mode's greedy output against the baseline's, token by token."""

    prompt: str
    mode: str
    baseline_tokens: int
    tokens: int
    same_prefix: int  # tokens identical before the first difference
    prefix_share: float  # same_prefix / the longer output
    matching_share: float  # tokens in matching blocks (difflib) / the longer output


def agreement_counts(baseline: Sequence[int], other: Sequence[int]) -> tuple[int, float, float]:
    """(identical prefix length, prefix share, matching share); two empty outputs agree fully."""
    longest = max(len(baseline), len(other))
    if longest == 0:
        return 0, 1.0, 1.0
    prefix = 0
    for a, b in zip(baseline, other, strict=False):
        if a != b:
            break
        prefix += 1
    matcher = SequenceMatcher(None, list(baseline), list(other), autojunk=False)
    matched = sum(block.size for block in matcher.get_matching_blocks())
    return prefix, prefix / longest, matched / longest


def agreement(prompt: str, mode: str, baseline: Sequence[int], other: Sequence[int]) -> Agreement:
    prefix, prefix_share, matching_share = agreement_counts(baseline, other)
    return Agreement(prompt, mode, len(baseline), len(other), prefix, prefix_share, matching_share)


def _optional_spread(values: Iterable[float | None]) -> Spread | None:
    present = [v for v in values if v is not None]
    return Spread.of(present) if present else None


def _acceptance(sample: Sample) -> float | None:
    if not sample.draft_n or sample.draft_accepted is None:
        return None
    return sample.draft_accepted / sample.draft_n


def summarize(samples: Sequence[Sample], baseline: str = BASELINE_MODE) -> list[Row]:
    """Rows in first-seen prompt and mode order; greedy extra runs (rep -1) are not timed rows."""
    timed = [s for s in samples if s.rep >= 0]
    prompts = list(dict.fromkeys(s.prompt for s in timed))
    modes = list(dict.fromkeys(s.mode for s in timed))
    rows: list[Row] = []
    for prompt in prompts:
        base = [s.tok_s for s in timed if s.prompt == prompt and s.mode == baseline]
        base_median = statistics.median(base) if base else None
        base_best = max(base) if base else None
        for mode in modes:
            group = [s for s in timed if s.prompt == prompt and s.mode == mode]
            if not group:
                continue
            tok_s = Spread.of([s.tok_s for s in group])
            speedup = tok_s.median / base_median if base_median else None
            best = tok_s.high / base_best if base_best else None
            rows.append(
                Row(
                    prompt=prompt,
                    mode=mode,
                    reps=len(group),
                    completion_tokens=Spread.of([s.completion_tokens for s in group]),
                    tok_s=tok_s,
                    gen_s=Spread.of([s.gen_s for s in group]),
                    draft_n=_optional_spread(s.draft_n for s in group),
                    accepted=_optional_spread(s.draft_accepted for s in group),
                    acceptance=_optional_spread(_acceptance(s) for s in group),
                    speedup=None if mode == baseline else speedup,
                    speedup_best=None if mode == baseline else best,
                    context=round(statistics.median(s.prompt_n + s.cache_n for s in group)),
                )
            )
    return rows


def acceptance_by_context(rows: Sequence[Row]) -> dict[str, list[tuple[int, float]]]:
    """Per drafting mode, (context tokens, median acceptance) from the shortest context up."""
    found: dict[str, list[tuple[int, float]]] = {}
    for row in sorted(rows, key=lambda r: r.context):
        if row.acceptance is not None:
            found.setdefault(row.mode, []).append((row.context, row.acceptance.median))
    return found


def speedup_by_mode(rows: Sequence[Row], best: bool = False) -> dict[str, float]:
    """Geometric mean over prompts of each speculative mode's speed-up (the one-number verdict),
    of the medians or, with best, of the best repetitions."""
    by_mode: dict[str, list[float]] = {}
    for row in rows:
        value = row.speedup_best if best else row.speedup
        if value is not None and value > 0:
            by_mode.setdefault(row.mode, []).append(value)
    return {
        mode: math.exp(sum(math.log(v) for v in values) / len(values))
        for mode, values in by_mode.items()
    }


def brake_by_mode(samples: Sequence[Sample]) -> dict[str, dict[str, float]]:
    """Per mode the brake held: timed requests, those sent with drafting off, probe seconds."""
    found: dict[str, dict[str, float]] = {}
    for s in samples:
        if s.rep >= 0:
            row = found.setdefault(s.mode, {"requests": 0, "paused": 0, "probe_s": 0.0})
            row["requests"] += 1
            row["paused"] += s.paused
            row["probe_s"] = round(row["probe_s"] + s.probe_s, 3)
    return {mode: row for mode, row in found.items() if row["paused"] or row["probe_s"]}


def best_mode(rows: Sequence[Row]) -> str | None:
    """The speculative mode with the highest mean speed-up, or None when none ran."""
    means = speedup_by_mode(rows)
    return max(means, key=lambda mode: means[mode]) if means else None


def as_json(value: Any) -> Any:
    """Dataclasses (nested) to plain JSON-ready dicts."""
    if hasattr(value, "__dataclass_fields__"):
        return {name: as_json(getattr(value, name)) for name in value.__dataclass_fields__}
    if isinstance(value, list | tuple):
        return [as_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): as_json(v) for k, v in value.items()}
    return value
