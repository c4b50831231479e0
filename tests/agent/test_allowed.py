"""Rules chosen "allow always" outlive the session: kept per workspace in the user's data dir."""

from __future__ import annotations

import json
from pathlib import Path

from agent.permissions.allowed import AllowedRules
from agent.permissions.rules import Permissions


def test_always_allowed_rules_are_kept_for_the_next_session(tmp_path: Path) -> None:
    ws, other = tmp_path / "ws", tmp_path / "other"
    ws.mkdir()
    other.mkdir()
    store = tmp_path / "data" / "allowed.json"
    first = AllowedRules(ws, store)
    p = Permissions("ask", [], [], ws, [], remember=first.add)
    p.allow_always("bash", "git status -s")
    p.allow_always("bash", "ls -la")

    later = AllowedRules(ws, store).load()
    assert later == ["bash(git status)", "bash(git status *)", "bash(ls -la)"]
    again = Permissions("ask", later, [], ws, [])
    assert again.check("bash", "execute", "git status", []).verdict == "allow"
    assert AllowedRules(other, store).load() == []  # another project is not affected


def test_a_damaged_store_is_set_aside_not_lost(tmp_path: Path) -> None:
    store = tmp_path / "allowed.json"
    store.write_text("{not json")
    rules = AllowedRules(tmp_path, store)
    assert rules.load() == []
    rules.add(["bash(make*)"])
    assert (tmp_path / "allowed.json.bad").read_text() == "{not json"
    assert rules.load() == ["bash(make*)"]


def test_malformed_entries_are_skipped(tmp_path: Path) -> None:
    store = tmp_path / "allowed.json"
    store.write_text(json.dumps({str(tmp_path.resolve()): ["bash(ls*)", 3, "bad(("]}))
    assert AllowedRules(tmp_path, store).load() == ["bash(ls*)"]
