"""Fault tests: every test here injects one fault and checks what the user is left with."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "data"
    monkeypatch.setenv("BEECODE_DATA_DIR", str(path))
    monkeypatch.setenv("BEECODE_CONFIG_DIR", str(tmp_path / "config"))
    return path


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    return path.resolve()
