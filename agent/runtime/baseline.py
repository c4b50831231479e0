"""What `beecode bench` measured on this machine, for /bench.

`beecode bench` leaves <data>/bench/<timestamp>/summary.json with one row per prompt and mode
and the speed-up of each speculative mode. A turn's own speed-up is not taken from here: runs on
record were measured under other conditions (load, build, context), so the turn figures use the
rate without drafting that the speculation brake measures on the server itself (server.brake).
"""

from __future__ import annotations

import json
import os
import statistics
from collections.abc import Iterator
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


def conditions(data: dict[str, Any]) -> list[str]:
    """What a run was measured under, as its summary keeps it, and the load now: its figures
    hold for those conditions, not for another build, machine or load."""
    machine = data["machine"] if isinstance(data.get("machine"), dict) else {}
    where = [f"measured {data['date']}"] if isinstance(data.get("date"), str) else []
    if machine.get("cores") and machine.get("cpu"):
        where.append(f"on {machine['cores']} cores, {machine['cpu']}")
    if isinstance(machine.get("load_avg_1m"), int | float):
        where.append(f"load {machine['load_avg_1m']} (now {os.getloadavg()[0]:.2f})")
    if isinstance(data.get("interleaved"), bool):
        where.append("modes interleaved" if data["interleaved"] else "one mode after another")
    servers = data["servers"] if isinstance(data.get("servers"), list) else []
    builds = {str(s["build_info"]) for s in servers if isinstance(s, dict) and s.get("build_info")}
    lines = ["  " + ", ".join(where)] if where else []
    return lines + ([f"  engine {', '.join(sorted(builds))}"] if builds else [])


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
        notes = [f"  {note}" for note in speed_notes(means)]
        return [*lines, *notes, *conditions(data), f"  from {folder / 'summary.json'}"]
    return [*lines, f"No run yet{f' for profile {profile}' if profile else ''}."]


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
