"""A PreToolUse hook blocks a real tool call: `beecode -p` as a user runs it, on the real
llama-server with the `tiny` profile, a user-level hook in beecode's config (TOML, Claude Code's
shape) refusing every call with exit 2. Whatever the model chose to call, nothing ran, and the
model was told the hook's reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.agent.headless_run import headless_json
from tests.agent.hook_kit import given, hook_script

pytestmark = pytest.mark.real_server


def test_a_pre_tool_use_hook_blocks_a_real_tool_call(
    tiny_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws, config = tmp_path / "ws", tmp_path / "config"
    (ws / ".beecode").mkdir(parents=True)
    (ws / ".beecode" / "config.toml").write_text("temperature = 0.0\n")
    config.mkdir()
    monkeypatch.setenv("BEECODE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("BEECODE_CONFIG_DIR", str(config))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    command, log = hook_script(
        tmp_path / "hooks", "guard", "sys.stderr.write('held by policy')\nsys.exit(2)"
    )
    toml = '[[hooks.PreToolUse]]\nmatcher = "*"\n[[hooks.PreToolUse.hooks]]\ncommand = '
    (config / "config.toml").write_text(f"{toml}{json.dumps(command)}\n")
    result = headless_json(ws, tiny_server, "create hello.py that prints hello, then run it", 4)

    calls = result["tool_calls"]
    assert calls, "the model called no tool"
    seen = given(log)
    assert [e["tool_use_id"] for e in seen] == [c["id"] for c in calls if "output" in c]
    assert all(c["is_error"] and "held by policy" in c["output"] for c in calls)
    assert not (ws / "hello.py").exists()
    assert any(h["kind"] == "blocked" for h in result["hooks"])
