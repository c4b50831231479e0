"""What `beecode bench` measured on this machine, for the throughput line and /bench.

`beecode bench` leaves <data>/bench/<timestamp>/summary.json with one row per prompt and mode
and the speed-up of each speculative mode. The baseline mode's median tok/s over the prompts is
what the throughput line's speed-up divides by. Where no run exists for a speculating profile,
``measure_baseline`` takes one itself, once per profile and machine, before beecode first starts
that profile's server: the bench's quick prompt on the profile's no-speculation twin (one more
model load; on one card the two servers never run at once).
"""

from __future__ import annotations

import io
import json
import socket
import statistics
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from server.bench.report import speed_notes
from server.bench.stats import BASELINE_MODE


def summaries(bench_dir: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    """(run folder, summary), newest first; runs cut short while writing are skipped."""
    for path in sorted(bench_dir.glob("*/summary.json"), reverse=True):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            yield path.parent, data


def _baseline(data: dict[str, Any]) -> float | None:
    speeds = [
        row["tok_s"]["median"]
        for row in data.get("rows", [])
        if isinstance(row, dict)
        and row.get("mode") == BASELINE_MODE
        and isinstance((row.get("tok_s") or {}).get("median"), int | float)
    ]
    return float(statistics.median(speeds)) if speeds else None


def measured_baseline(profile: str, bench_dir: Path) -> float | None:
    for _folder, data in summaries(bench_dir):
        if data.get("profile") == profile and (baseline := _baseline(data)) is not None:
            return baseline
    return None


def bench_report(profile: str | None, bench_dir: Path) -> list[str]:
    """/bench: how to measure, and the latest run's verdict for the profile."""
    lines = [
        "`beecode bench` compares decode speed with and without speculation on this machine,",
        "same server build, same prompts (run it in a terminal; it takes minutes).",
        "",
    ]
    for folder, data in summaries(bench_dir):
        if profile is not None and data.get("profile") != profile:
            continue
        lines.append(
            f"Latest run {folder.name}: profile {data.get('profile')}, {data.get('model')}"
        )
        baseline = _baseline(data)
        if baseline is not None:
            lines.append(f"  no speculation: {baseline:.1f} tok/s")
        speedups = data.get("speedup_by_mode") or {}
        for mode, speedup in sorted(speedups.items(), key=lambda item: -float(item[1])):
            lines.append(f"  {mode}: ×{float(speedup):.2f} over no speculation")
        means = {str(mode): float(value) for mode, value in speedups.items()}
        return [*lines, *(f"  {note}" for note in speed_notes(means))]
    return [*lines, f"No run yet{f' for profile {profile}' if profile else ''}."]


def measure_baseline(profile: str, bench_dir: Path, say: Callable[[str], None]) -> float | None:
    """The profile's no-speculation decode speed: from a bench run on record, else measured now
    (once: a run that failed is not tried again on every start). None for a profile that does
    not speculate, or when it could not be measured."""
    from rich.console import Console

    from server.bench.command import parse_args, run
    from server.errors import ServerError
    from server.profiles.catalog import get_profile

    if (known := measured_baseline(profile, bench_dir)) is not None:
        return known
    try:
        launch = get_profile(profile)
    except ServerError:  # an unknown profile: starting its server says so
        return None
    marker = bench_dir / f"baseline-{profile}@{socket.gethostname()}.tried"
    if (launch.spec_type is None and launch.draft is None) or marker.exists():
        return None
    say(f"measuring {profile}'s speed without speculation, once on this machine")
    out = bench_dir / time.strftime("%Y%m%d-%H%M%S-baseline")
    args = ["--profile", profile, "--modes", "none", "--quick", "--no-lossless", "--out", str(out)]
    try:
        bench_dir.mkdir(parents=True, exist_ok=True)
        marker.touch()
        quiet = Console(file=io.StringIO())  # the report is in the run folder; a TUI is on screen
        run(parse_args(args), quiet, quiet)
    except (ServerError, OSError) as error:
        say(f"could not measure {profile} without speculation: {error}")
        return None
    return measured_baseline(profile, bench_dir)


def profile_speculates(profile: str) -> bool | None:
    """Whether the managed profile's launch speculates (None: the profile is gone from
    profiles.toml since its server started)."""
    from server.errors import ServerError
    from server.profiles.catalog import get_profile

    try:
        launch = get_profile(profile)
    except ServerError:
        return None
    return launch.spec_type is not None or launch.draft is not None
