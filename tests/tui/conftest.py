"""TUI test fixtures: beecode's dirs in tmp for every test, a real git repository, a bench run on
record, a stable tool clock."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from agent.config import Config


@pytest.fixture(autouse=True)
def isolated(beecode_dirs: None) -> None:
    """Every TUI test keeps beecode's dirs in its tmp dir."""


@pytest.fixture
def changed_repo(workspace: Path) -> Path:
    """A real git repository in the workspace: a.txt committed as "one", now "two"."""

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(workspace), *args], check=True, capture_output=True)

    git("init", "-q")
    (workspace / "a.txt").write_text("one\n")
    git("add", "a.txt")
    git("-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "a")
    (workspace / "a.txt").write_text("two\n")
    return workspace


@pytest.fixture
def tiny_measured(beecode_dirs: None) -> Config:
    """A managed config for the `tiny` profile, with a `beecode bench` run on record whose
    no-speculation median is 40 tok/s (no server runs: the server view says "down")."""
    from server.bench.stats import BASELINE_MODE

    run = Path(os.environ["BEECODE_DATA_DIR"]) / "bench" / "20260101-000000"
    run.mkdir(parents=True)
    row = {"mode": BASELINE_MODE, "tok_s": {"median": 40.0}}
    (run / "summary.json").write_text(json.dumps({"profile": "tiny", "rows": [row]}))
    return Config(profile="tiny")


@pytest.fixture
def quarter_second_tools(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every tool call takes 250 ms by the loop's clock, so durations on screen are stable."""
    from agent.loop import calls

    ticks = itertools.count(step=0.25)
    monkeypatch.setattr(calls, "time", SimpleNamespace(monotonic=lambda: next(ticks)))
