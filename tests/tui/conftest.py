"""TUI test fixtures: beecode's data, state and config dirs in tmp, a real workspace folder."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def beecode_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DATA", "STATE", "CONFIG"):
        folder = tmp_path / name.lower()
        folder.mkdir()
        monkeypatch.setenv(f"BEECODE_{name}_DIR", str(folder))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root.resolve()
