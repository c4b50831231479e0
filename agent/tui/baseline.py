"""The profile's measured no-speculation decode speed, from the latest `beecode bench` run.

`beecode bench` leaves <data>/bench/<timestamp>/summary.json with one row per prompt and mode;
the baseline mode's median tok/s over the prompts is what the throughput line's speed-up divides
by. No run for the profile: no speed-up is shown.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

from server.bench_stats import BASELINE_MODE


def measured_baseline(profile: str, bench_dir: Path) -> float | None:
    for summary in sorted(bench_dir.glob("*/summary.json"), reverse=True):  # newest first
        try:
            data = json.loads(summary.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # a run that was interrupted while writing
        if not isinstance(data, dict) or data.get("profile") != profile:
            continue
        speeds = [
            row["tok_s"]["median"]
            for row in data.get("rows", [])
            if isinstance(row, dict)
            and row.get("mode") == BASELINE_MODE
            and isinstance((row.get("tok_s") or {}).get("median"), int | float)
        ]
        if speeds:
            return float(statistics.median(speeds))
    return None
