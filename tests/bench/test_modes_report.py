"""Mode parsing, mode -> profile variants, the request schedule, and the report's table, bars
and PNG chart."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from server.bench.modes import BenchError, default_modes, mode_profile, parse_mode, parse_modes
from server.bench.prompts import BenchPrompt
from server.bench.report import print_report, speed_notes, write_chart
from server.bench.requests import GREEDY_REP, BenchRun, schedule
from server.bench.stats import Sample, agreement, summarize
from server.profiles.catalog import get_profile


def test_modes_parse_types_combinations_and_draft_max() -> None:
    assert parse_mode("none").types == ()
    combined = parse_mode("ngram-mod+dflash@8")
    assert (combined.types, combined.draft_max, combined.uses_draft) == (
        ("dflash", "ngram-mod"),
        8,
        True,
    )
    assert [m.label for m in parse_modes("none, ngram-mod,dflash@4")] == [
        "none",
        "ngram-mod",
        "dflash@4",
    ]


@pytest.mark.parametrize(
    "bad",
    ["", "none@3", "none+ngram-mod", "ngram-mod+ngram-mod", "Dflash", "dflash@0", "none,none"],
)
def test_bad_modes_get_one_line_errors(bad: str) -> None:
    with pytest.raises(BenchError) as error:
        parse_modes(bad)
    assert "\n" not in str(error.value)


def test_default_modes_follow_the_profile() -> None:
    tiny = [m.label for m in default_modes(get_profile("tiny"))]
    assert tiny[0] == "none" and {"ngram-mod", "ngram-cache", "ngram-simple", "ngram-map-k"} <= set(
        tiny
    )
    assert [m.label for m in default_modes(get_profile("smol-dflash"))] == ["none", "dflash"]


def test_mode_profiles() -> None:
    smol = get_profile("smol-dflash")
    assert mode_profile(smol, parse_mode("none")).spec_type is None
    assert mode_profile(smol, parse_mode("none")).draft is None
    ngram = mode_profile(smol, parse_mode("ngram-mod"), draft_max=6)
    assert (ngram.spec_type, ngram.draft, ngram.draft_max) == ("ngram-mod", None, 6)
    dflash = mode_profile(smol, parse_mode("dflash@4"), draft_max=6)
    assert (dflash.spec_type, dflash.draft, dflash.draft_max) == ("dflash", smol.draft, 4)
    with pytest.raises(BenchError, match="smol-dflash"):
        mode_profile(get_profile("tiny"), parse_mode("dflash"))


def test_report_renders_table_bars_agreement_and_png(tmp_path: Path) -> None:
    samples = [
        Sample(p, m, r, 0.0, 100, speed + r, 4.0, 30, 0, draft, accepted)
        for p in ("rename", "docstrings")
        for m, speed, draft, accepted in (("none", 20.0, None, None), ("ngram-mod", 60.0, 90, 80))
        for r in range(2)
    ]
    rows = summarize(samples)
    console = Console(record=True, width=140)
    print_report(console, rows, [agreement("rename", "ngram-mod", [1, 2, 3], [1, 2, 4])], "t")
    text = console.export_text()
    assert "rename" in text and "docstrings" in text
    assert "2.95x" in text  # median 60.5 over median 20.5
    assert "89" in text  # acceptance 80/90
    assert "█" in text and "67" in text  # a bar, and the agreement's prefix share
    chart = write_chart(rows, tmp_path / "chart.png", "t")
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_schedule_adds_a_greedy_check_only_for_sampled_prompts(tmp_path: Path) -> None:
    sampled = BenchPrompt("sampled", "x", 10, 0.7)
    greedy = BenchPrompt("greedy", "y", 10, 0.0)
    plan = schedule(BenchRun(tmp_path, (sampled, greedy), reps=2, lossless=True))
    assert [(p.name, rep) for p, rep in plan] == [
        ("sampled", 0),
        ("sampled", 1),
        ("sampled", GREEDY_REP),
        ("greedy", 0),
        ("greedy", 1),
    ]
    unchecked = schedule(BenchRun(tmp_path, (sampled,), reps=1, lossless=False))
    assert [(p.name, rep) for p, rep in unchecked] == [("sampled", 0)]


def test_a_mode_slower_than_none_is_called_out() -> None:
    samples = [
        Sample("new-code", m, r, 0.0, 100, speed, 4.0, 30, 0, draft, accepted)
        for m, speed, draft, accepted in (("none", 20.0, None, None), ("ngram-mod", 19.0, 90, 8))
        for r in range(2)
    ]
    console = Console(record=True, width=300)
    print_report(console, summarize(samples), [], "t")
    text = console.export_text()
    assert "ngram-mod costs speed on these prompts (0.95x of none): n-gram drafts pay only" in text
    assert speed_notes({"dflash": 2.1, "ngram-mod": 1.4}) == []
    assert speed_notes({"dflash": 0.8}) == ["dflash costs speed on these prompts (0.80x of none)"]
