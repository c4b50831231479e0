"""benchmarks/gpu_check.sh's CPU half: each measuring step on the CPU engine, a tiny target."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from server.engine.build import Engine

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.real_server
def test_the_measuring_run_reports_every_step(
    engine: Engine, smollm2_path: Path, tmp_path: Path
) -> None:
    env = {**os.environ, "OUT": str(tmp_path / "out"), "GPU_CHECK_CPU": "1", "GPU_CHECK_QUICK": "1"}
    done = subprocess.run(
        ["bash", "benchmarks/gpu_check.sh", "measure"], cwd=ROOT, env=env, capture_output=True,
        text=True, timeout=540,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["cpu"] and summary["models"]["drafter_arch"] == "dflash"
    steps = summary["steps"]
    assert set(steps) == {"plan", "bench-brake", "bench-raw", "slot", "agent"}
    assert all(step["status"] == 0 for step in steps.values())
    # the random drafter never pays: the brake holds drafting back, the raw run shows the cost
    assert steps["bench-brake"]["brake_by_mode"]["dflash"]["paused"] == 4
    assert steps["bench-raw"]["speedup_by_mode"]["dflash"] < 1
    assert steps["slot"]["figures"]["with"]["n_restored"] > 0
    assert steps["agent"]["figures"]["headless"]
    assert (tmp_path / "out" / "summary.md").read_text().startswith("# gpu_check (CPU half)")
