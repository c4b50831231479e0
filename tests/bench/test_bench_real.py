"""`beecode bench --quick` and the benchmark runners, for real, against the `tiny` profile's server.

No timing is asserted: the figures are whatever this machine gives; what must hold is that the
files, fields and draft counts are there and that the runners exit 0.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent.cli import main as beecode

ROOT = Path(__file__).resolve().parents[2]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
ROW_FIELDS = {
    "prompt",
    "mode",
    "reps",
    "completion_tokens",
    "tok_s",
    "gen_s",
    "draft_n",
    "accepted",
    "acceptance",
    "speedup",
}

pytestmark = pytest.mark.real_server


@pytest.fixture
def own_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Fresh state and config dirs, so the default engine (the fixture's) and built-in profiles
    are used; the engine and model cache stay shared."""
    for var in ("BEECODE_STATE_DIR", "BEECODE_CONFIG_DIR", "BEECODE_DATA_DIR"):
        (tmp_path / var).mkdir()
        monkeypatch.setenv(var, str(tmp_path / var))
    return tmp_path


def test_quick_bench_writes_table_chart_summary_and_reads_drafts(
    engine: Any, qwen_path: Path, own_dirs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = own_dirs / "bench"
    modes = ["--modes", "none,ngram-simple", "--no-brake"]  # drafts on every request, as launched
    status = beecode(["bench", "--quick", "--profile", "tiny", *modes, "--out", str(out)])
    assert status == 0, capsys.readouterr().err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["profile"] == "tiny" and summary["reps"] == 1 and not summary["interleaved"]
    assert summary["brake"] is False and summary["brake_by_mode"] == {}
    assert {"date", "machine", "servers", "rows", "agreement", "samples"} <= set(summary)
    rows = {row["mode"]: row for row in summary["rows"]}
    assert set(rows) == {"none", "ngram-simple"}
    assert all(ROW_FIELDS <= set(row) for row in rows.values())
    assert rows["none"]["draft_n"] is None and rows["none"]["speedup"] is None
    assert rows["ngram-simple"]["draft_n"]["median"] > 0  # read back from timings.draft_n
    assert rows["ngram-simple"]["speedup"] > 0
    assert [s["speculative"] for s in summary["servers"]] == [False, True]
    (check,) = summary["agreement"]
    assert check["mode"] == "ngram-simple" and 0 <= check["prefix_share"] <= 1
    assert (out / "chart.png").read_bytes()[:8] == PNG_MAGIC
    report = (out / "report.txt").read_text()
    assert "speed-up" in report and "ngram-simple" in report
    assert (out / "raw" / "ngram-simple" / "quick-rename-r1.json").is_file()
    assert (out / "logs" / "none.log").is_file()


def test_a_drafter_that_never_pays_goes_through_the_brake(
    engine: Any, smollm2_path: Path, own_dirs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = own_dirs / "bench"
    modes = ["--modes", "none,dflash", "--reps", "2", "--max-tokens", "48", "--no-lossless"]
    status = beecode(["bench", "--quick", "--profile", "smol-dflash", *modes, "--out", str(out)])
    assert status == 0, capsys.readouterr().err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["brake"] is True
    dflash = [s for s in summary["samples"] if s["mode"] == "dflash"]
    assert [s["paused"] for s in dflash] == [True, True]  # the first probe pair paused it
    assert dflash[0]["probe_s"] > 0 and dflash[1]["probe_s"] == 0
    assert all(s["draft_n"] is None for s in dflash)
    # the probe pair's time is counted against the request it came before
    assert dflash[0]["tok_s"] == pytest.approx(dflash[0]["completion_tokens"] / dflash[0]["gen_s"])
    brake = summary["brake_by_mode"]["dflash"]
    assert brake["requests"] == 2 and brake["paused"] == 2 and brake["probe_s"] > 0
    assert (
        "dflash: the brake sent 2 of 2 requests with drafting off"
        in (out / "report.txt").read_text()
    )


def test_quick_bench_of_an_endpoint_runs_it_as_configured(
    tiny_server: str, own_dirs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = own_dirs / "bench"
    status = beecode(["bench", "--quick", "--endpoint", tiny_server, "--out", str(out)])
    assert status == 0, capsys.readouterr().err
    summary = json.loads((out / "summary.json").read_text())
    (row,) = summary["rows"]
    assert (row["mode"], row["speedup"], summary["profile"]) == ("as configured", None, None)
    assert summary["agreement"] == [] and summary["servers"][0]["endpoint"] == tiny_server
    assert row["completion_tokens"]["median"] > 0 and summary["servers"][0]["build_info"]


@pytest.mark.timeout(1800)  # ~20K prompt tokens: 1-2 min on 2 idle cores, far more under load
def test_the_agent_suite_runs_its_whole_history_on_tiny(
    tiny_server: str, own_dirs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The tool-call history goes through the real chat template, and the context grows from
    about a thousand tokens to most of tiny's 8K."""
    out = own_dirs / "bench"
    args = ["bench", "--suite", "agent", "--endpoint", tiny_server, "--reps", "1"]
    status = beecode([*args, "--max-tokens", "8", "--out", str(out)])
    assert status == 0, capsys.readouterr().err
    summary = json.loads((out / "summary.json").read_text())
    rows = summary["rows"]
    assert [row["prompt"] for row in rows] == [f"agent-{i}" for i in range(1, 6)]
    contexts = [row["context"] for row in rows]
    assert contexts == sorted(contexts) and contexts[0] > 300 and 4000 < contexts[-1] < 8192
    assert "acceptance_by_context" in summary
    assert "context" in (out / "report.txt").read_text()


def test_bench_refuses_a_mode_the_profile_cannot_serve(
    own_dirs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = beecode(
        [
            "bench",
            "--quick",
            "--profile",
            "tiny",
            "--modes",
            "none,dflash",
            "--out",
            str(own_dirs / "bench"),
        ]
    )
    err = capsys.readouterr().err
    assert status == 1
    assert err.startswith("beecode: mode dflash needs a draft model") and err.count("\n") == 1


@pytest.mark.parametrize(
    ("script", "args", "expect"),
    [
        (
            "spec_cpu.py",
            ["--quick", "--reps", "1", "--modes", "none,ngram-simple"],
            "best draftless type for tiny:",
        ),
        ("startup.py", ["--reps", "1"], "of by hand to /health"),
        ("agent_overhead.py", ["--tasks", "1", "--max-tokens", "24"], "TUI (frames written):"),
        (
            "agent_overhead.py",
            ["--paced", "500", "--tasks", "1", "--max-tokens", "300"],
            "TUI (frames written): user/server tok/s median",
        ),
    ],
)
def test_runners_exit_zero_and_print_their_ratios(
    engine: Any, qwen_path: Path, own_dirs: Path, script: str, args: list[str], expect: str
) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *args],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert expect in done.stdout
    assert done.stdout.startswith(f"# {script.removesuffix('.py')} ·")
