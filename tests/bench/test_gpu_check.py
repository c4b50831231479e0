"""benchmarks/gpu_check.sh's CPU half: the measuring run on the CPU engine with scaled-down random
targets of Gemma 4 and Qwen 3.6, every launch and step reporting its figures."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from server.engine.build import Engine

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ["bash", str(ROOT / "benchmarks" / "gpu_check.sh")]


def test_the_script_without_a_step_says_how_to_use_it(tmp_path: Path) -> None:
    done = subprocess.run(
        SCRIPT, cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "OUT": "x"}
    )  # run from elsewhere: the script finds its checkout itself
    assert done.returncode == 2
    assert "gpu_check.sh build" in done.stdout and "GPU_CHECK_CPU=1" in done.stdout
    assert not (ROOT / "x").exists() and not list(tmp_path.iterdir())  # no result folder made


@pytest.mark.real_server
def test_the_measuring_run_reports_every_step(
    engine: Engine, smollm2_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    env = {**os.environ, "OUT": str(out), "GPU_CHECK_CPU": "1"}
    done = subprocess.run(
        [*SCRIPT, "measure"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=480
    )
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["cpu"] and "draft-mtp" in summary["engine"]["spec_types"]
    models = summary["steps"]["models"]["figures"]
    assert models["gemma4"]["arch"] == "gemma4" and models["gemma4"]["drafter_arch"] == "dflash"
    assert models["qwen36"]["arch"] == models["qwen36-mtp"]["arch"] == "qwen35"
    steps: dict[str, Any] = summary["steps"]
    launches = ["check-gemma4", "check-gemma4-dflash", "check-qwen36", "check-qwen36-dflash"]
    launches.append("check-qwen36-mtp")
    for name in launches:
        figures = steps[name]["figures"]
        assert steps[name]["status"] == 0 and figures["plan"]["fits"], name
        assert figures["prefill"]["tokens"] == 256 and figures["decode"]["tokens"] == 16, name
    assert steps["check-gemma4-dflash"]["figures"]["decode"]["drafted"] > 0
    assert steps["check-qwen36-dflash"]["figures"]["decode"]["drafted"] > 0
    assert steps["check-qwen36-mtp"]["figures"]["decode"]["drafted"] > 0
    for name in ("check-gemma4", "check-qwen36"):
        slot = steps[name]["figures"]["slot"]
        assert slot["tokens"] == slot["restored"] == 256, name
    # a hybrid model's restored slot serves the session continued after it
    assert steps["check-qwen36"]["figures"]["slot"]["then_cache_n"] == 256
    # the random drafter never pays: the brake holds drafting back, the raw run shows the cost
    assert steps["bench-brake"]["figures"]["brake_by_mode"]["dflash"]["paused"] == 4
    assert steps["bench-raw"]["figures"]["speedup_by_mode"]["dflash"] < 1
    assert steps["agent"]["status"] == 0 and steps["agent"]["figures"]["headless"]
    report = (out / "summary.md").read_text()
    assert report.startswith("# gpu_check (CPU half)")
    assert "| check-qwen36-mtp | " in report and "- bench-brake: dflash " in report
