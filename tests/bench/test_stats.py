"""The bench's arithmetic: token agreement, medians with spread, speed-ups, the best mode."""

from __future__ import annotations

import pytest

from server.bench.stats import (
    Sample,
    agreement,
    agreement_counts,
    as_json,
    best_mode,
    brake_by_mode,
    speedup_by_mode,
    summarize,
)


def sample(
    prompt: str,
    mode: str,
    rep: int,
    tok_s: float,
    draft: int | None = None,
    accepted: int | None = None,
) -> Sample:
    return Sample(prompt, mode, rep, 0.0, 100, tok_s, 100 / tok_s, 20, 0, draft, accepted)


def test_identical_outputs_agree_fully() -> None:
    assert agreement_counts([1, 2, 3], [1, 2, 3]) == (3, 1.0, 1.0)


def test_empty_outputs_agree() -> None:
    assert agreement_counts([], []) == (0, 1.0, 1.0)


def test_divergence_counts_prefix_and_matching_blocks() -> None:
    # Differs at index 2, then both continue with the same four tokens.
    prefix, prefix_share, matching = agreement_counts([1, 2, 3, 4, 5, 6, 7], [1, 2, 9, 4, 5, 6, 7])
    assert prefix == 2
    assert prefix_share == pytest.approx(2 / 7)
    assert matching == pytest.approx(6 / 7)


def test_shorter_output_is_measured_against_the_longer() -> None:
    result = agreement("p", "ngram-mod", [1, 2, 3, 4], [1, 2])
    assert (result.same_prefix, result.baseline_tokens, result.tokens) == (2, 4, 2)
    assert result.prefix_share == 0.5 and result.matching_share == 0.5


def test_summary_reports_median_spread_and_speedup() -> None:
    samples = [
        sample("a", "none", 0, 20.0),
        sample("a", "none", 1, 22.0),
        sample("a", "none", 2, 30.0),
        sample("a", "ngram-mod", 0, 40.0, 100, 90),
        sample("a", "ngram-mod", 1, 66.0, 100, 50),
        sample("a", "ngram-mod", 2, 50.0, 200, 100),
        sample("a", "ngram-mod", -1, 999.0),  # the greedy check run is not a timed row
    ]
    base, spec = summarize(samples)
    assert (base.mode, base.reps, base.speedup, base.draft_n) == ("none", 3, None, None)
    assert (base.tok_s.median, base.tok_s.low, base.tok_s.high) == (22.0, 20.0, 30.0)
    assert spec.reps == 3
    assert spec.speedup == pytest.approx(50.0 / 22.0)
    assert spec.speedup_best == pytest.approx(66.0 / 30.0)
    assert base.speedup_best is None
    assert spec.draft_n is not None and spec.draft_n.median == 100
    assert spec.acceptance is not None
    assert (spec.acceptance.low, spec.acceptance.median, spec.acceptance.high) == (0.5, 0.5, 0.9)


def test_no_baseline_means_no_speedup() -> None:
    (row,) = summarize([sample("a", "as configured", 0, 10.0)])
    assert row.speedup is None
    assert best_mode([row]) is None


def test_best_mode_uses_the_geometric_mean_over_prompts() -> None:
    samples = [
        sample("a", "none", 0, 10.0),
        sample("b", "none", 0, 10.0),
        sample("a", "x", 0, 40.0),
        sample("b", "x", 0, 10.0),  # 4x, 1x -> 2x
        sample("a", "y", 0, 25.0),
        sample("b", "y", 0, 25.0),  # 2.5x, 2.5x -> 2.5x
    ]
    rows = summarize(samples)
    assert speedup_by_mode(rows) == pytest.approx({"x": 2.0, "y": 2.5})
    assert speedup_by_mode(rows, best=True) == pytest.approx({"x": 2.0, "y": 2.5})  # one rep each
    assert best_mode(rows) == "y"


def test_rows_serialize_to_plain_json() -> None:
    (row,) = summarize([sample("a", "none", 0, 10.0)])
    data = as_json([row])
    assert data[0]["tok_s"] == {"median": 10.0, "low": 10.0, "high": 10.0}
    assert data[0]["draft_n"] is None


def test_the_brake_s_work_is_counted_per_mode_and_absent_where_it_did_none() -> None:
    braked = [
        Sample("p", "dflash", 0, 0.0, 100, 50.0, 2.0, 20, 0, None, None, True, 0.5),
        Sample("p", "dflash", 1, 0.0, 100, 100.0, 1.0, 20, 0, None, None, True),
        Sample("p", "dflash", -1, 0.0, 100, 100.0, 1.0, 20, 0, None, None, True),  # the T=0 check
        sample("p", "none", 0, 100.0),
    ]
    assert brake_by_mode(braked) == {"dflash": {"requests": 2, "paused": 2, "probe_s": 0.5}}
