"""server.paths: write_json atomic, its mode from creation, nothing left behind on a failure; the
XDG folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from server.paths import write_json


def test_the_file_is_written_whole_with_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "key.json"
    write_json(target, {"key": "k"}, mode=0o600)
    assert json.loads(target.read_text()) == {"key": "k"}
    assert target.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["key.json"]


def test_a_failed_rename_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "record.json"
    target.mkdir()  # a folder in the way: os.replace fails
    with pytest.raises(OSError):
        write_json(target, {"a": 1})
    assert [p.name for p in tmp_path.iterdir()] == ["record.json"]


def test_data_that_is_not_json_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "record.json"
    write_json(target, {"a": 1})
    with pytest.raises(TypeError):
        write_json(target, {"a": object()})
    assert json.loads(target.read_text()) == {"a": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["record.json"]


def test_the_dirs_follow_xdg_and_a_relative_xdg_path_counts_as_unset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from server.paths import cache_dir, config_dir, data_dir, state_dir

    for name in ("CACHE", "CONFIG", "DATA", "STATE"):
        monkeypatch.delenv(f"BEECODE_{name}_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", "")
    assert state_dir() == tmp_path / "state" / "beecode"
    assert cache_dir() == tmp_path / "home" / ".cache" / "beecode"
    assert config_dir() == tmp_path / "home" / ".config" / "beecode"
    assert data_dir() == tmp_path / "home" / ".local" / "share" / "beecode"
    assert all(folder.is_dir() for folder in (state_dir(), cache_dir(), config_dir(), data_dir()))
    monkeypatch.setenv("BEECODE_STATE_DIR", str(tmp_path / "mine"))
    assert state_dir() == tmp_path / "mine"
