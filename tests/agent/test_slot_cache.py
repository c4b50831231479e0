"""A session's saved prompt cache without a server: which saved prefix matches what will be sent
(and why not), how the folder is pruned, and how the next request's figures tell whether a
restore took effect."""

from __future__ import annotations

import os
import time
from dataclasses import asdict
from pathlib import Path

from agent.config import load_config
from agent.events import RequestStats
from agent.runtime.slot_cache import SlotCache, mismatch, prefix_of, restore_effect
from server.paths import write_json

SYSTEM = {"role": "system", "content": "You are beecode."}
TOOLS = [{"type": "function", "function": {"name": "read_file", "parameters": {}}}]
HISTORY = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]


def test_a_saved_prefix_matches_the_same_start_and_says_what_changed() -> None:
    saved = prefix_of("qwen", [SYSTEM, *HISTORY], TOOLS)
    assert saved.n_messages == 2
    longer = [SYSTEM, *HISTORY, {"role": "user", "content": "next"}]
    assert mismatch(saved, "qwen", longer, TOOLS) == ""
    assert mismatch(saved, "gemma", longer, TOOLS) == "the model changed"
    other_system = [{"role": "system", "content": "You are beecode. More."}, *HISTORY]
    assert mismatch(saved, "qwen", other_system, TOOLS) == "the system prompt changed"
    assert mismatch(saved, "qwen", longer, []) == "the tools changed"
    assert mismatch(saved, "qwen", [SYSTEM, HISTORY[0]], TOOLS) == "the history differs"
    edited = [SYSTEM, HISTORY[0], {"role": "assistant", "content": "hullo"}]
    assert mismatch(saved, "qwen", edited, TOOLS) == "the history differs"


def _slot(folder: Path, session: str, size: int, age_s: float) -> None:
    path = folder / f"{session}.slot"
    path.write_bytes(b"\0" * size)
    write_json(folder / f"{session}.json", asdict(prefix_of("m", [SYSTEM], [])))
    when = time.time() - age_s
    os.utime(path, (when, when))


def test_the_folder_is_pruned_by_age_then_oldest_first_past_the_size_cap(tmp_path: Path) -> None:
    mib = 1024 * 1024
    _slot(tmp_path, "new", mib, 10)
    _slot(tmp_path, "older", mib, 100)
    _slot(tmp_path, "oldest", mib, 1000)
    _slot(tmp_path, "stale", 1, 3 * 86_400)
    cache = SlotCache("http://127.0.0.1:9", tmp_path, max_mb=2, max_days=2)
    assert cache.saved("stale") is not None
    assert cache.prune() == {"oldest", "stale"}
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "new.json",
        "new.slot",
        "older.json",
        "older.slot",
    ]
    assert cache.saved("oldest") is None and cache.saved("new") is not None


def test_a_note_without_its_slot_file_or_of_another_shape_is_no_saved_prefix(
    tmp_path: Path,
) -> None:
    write_json(tmp_path / "a.json", asdict(prefix_of("m", [SYSTEM], [])))
    (tmp_path / "b.slot").write_bytes(b"x")
    write_json(tmp_path / "b.json", {"model": "m"})
    cache = SlotCache("http://127.0.0.1:9", tmp_path, max_mb=1, max_days=1)
    assert cache.saved("a") is None and cache.saved("b") is None
    # Nothing saved: restoring asks no server and says nothing.
    assert cache.restore("a", "m", [SYSTEM], []) == (0, "")


def test_saving_is_off_with_a_zero_cap(tmp_path: Path) -> None:
    cache = SlotCache("http://127.0.0.1:9", tmp_path, max_mb=0, max_days=1)
    assert cache.save("s", prefix_of("m", [SYSTEM], [])) == ""  # no server was asked
    assert list(tmp_path.iterdir()) == []


def _stats(prompt_n: int, cache_n: int) -> RequestStats:
    return RequestStats("server", 20.0, 10, prompt_n, cache_n, None, None, 1.0)


def test_the_next_request_tells_whether_a_restore_took_effect() -> None:
    took = restore_effect(1000, _stats(prompt_n=12, cache_n=990))
    assert took.level == "info" and "took effect: 990 tokens reused, 12 read in" in took.message
    none = restore_effect(1000, _stats(prompt_n=1002, cache_n=0))
    assert none.level == "warning"
    assert "had no effect: 1000 tokens restored, 0 reused, 1002 read in again" in none.message


def test_the_cache_limits_are_settings(tmp_path: Path, beecode_dirs: None) -> None:
    (tmp_path / ".beecode").mkdir()
    (tmp_path / ".beecode" / "config.toml").write_text("slot_cache_mb = 0\nslot_cache_days = 2\n")
    config = load_config(tmp_path)
    assert (config.slot_cache_mb, config.slot_cache_days) == (0, 2.0)
