"""How many decode steps drafted: the server's /metrics counters around a request, taken only
when they moved by exactly that request's figures, and said in a turn's figures only when some
steps surely went without a draft."""

from __future__ import annotations

from dataclasses import replace

from agent.model.stats import TurnFigures, combine, least_steps, with_drafted_steps
from tests.factory import stats

BEFORE = {
    "tokens_predicted_total": 1000.0,
    "spec_decode_num_draft_tokens_total": 500.0,
    "spec_decode_num_drafts_total": 10.0,
}


def after(predicted: int, drafted_tokens: int, drafts: int) -> dict[str, float]:
    moved = (predicted, drafted_tokens, drafts)
    return {key: value + step for (key, value), step in zip(BEFORE.items(), moved, strict=True)}


def test_the_counters_give_the_drafted_steps_and_the_least_steps() -> None:
    # 300 tokens, 120 drafted in 3 drafts, 90 accepted: the first token comes with the prompt,
    # so the other 299 took at least 299 - 90 = 209 steps.
    request = stats(100.0, 300, (120, 90))
    counted = with_drafted_steps(request, BEFORE, after(300, 120, 3))
    assert (counted.drafted_steps, counted.least_steps) == (3, 209)
    assert least_steps(request) == 209


def test_counters_moved_by_another_request_are_not_used() -> None:
    request = stats(100.0, 300, (120, 90))
    for other in (after(340, 120, 3), after(300, 180, 4), {"tokens_predicted_total": 1300.0}):
        counted = with_drafted_steps(request, BEFORE, other)
        assert (counted.drafted_steps, counted.least_steps) == (None, None)


def test_a_request_the_client_measured_gets_no_steps() -> None:
    client = replace(stats(100.0, 300), source="client")
    assert with_drafted_steps(client, BEFORE, after(300, 0, 0)).drafted_steps is None


def test_a_turn_knows_its_steps_only_when_every_request_does() -> None:
    known = replace(stats(50.0, 100, (80, 60)), drafted_steps=2, least_steps=39)
    other = replace(stats(100.0, 300, (120, 90)), drafted_steps=3, least_steps=209)
    turn = combine([known, other])
    assert turn is not None and (turn.drafted_steps, turn.least_steps) == (5, 248)
    partial = combine([known, stats(100.0, 300, (120, 90))])
    assert partial is not None and (partial.drafted_steps, partial.least_steps) == (None, None)


def test_the_line_says_drafting_held_back_only_when_the_counts_show_it() -> None:
    held = replace(stats(100.0, 300, (120, 90)), drafted_steps=3, least_steps=209)
    figures = TurnFigures.of(held, speculative=True)
    assert " · drafted in 3 of ≥209 steps" in figures.line()
    assert (figures.as_json()["drafted_steps"], figures.as_json()["least_steps"]) == (3, 209)
    # Every step may have drafted (the count of steps is a floor): nothing is claimed.
    every = replace(held, drafted_steps=209)
    assert "steps" not in TurnFigures.of(every, speculative=True).line()
    # Unknown counts (a server without /metrics) say nothing either.
    assert "steps" not in TurnFigures.of(stats(100.0, 300, (120, 90)), speculative=True).line()
