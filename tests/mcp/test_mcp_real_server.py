"""End to end: a headless run (``beecode -p``, a subprocess, as a user runs it) on the real
`tiny` server, in a project whose ``.mcp.json`` names a real stdio server, approved with
``beecode mcp approve``; the model's tool call reaches that server and its answer comes back.
Sampling is greedy (temperature 0), so the run repeats."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agent.mcp_command import main as mcp_main
from tests.agent.headless_run import headless_json

pytestmark = [pytest.mark.real_server, pytest.mark.usefixtures("beecode_dirs")]
NOTES = str(Path(__file__).with_name("notes_mcp.py"))
COLOUR = "teal-7"  # only the server knows it: from its config's env


def test_a_headless_turn_calls_a_project_mcp_server(
    tiny_server: str, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (workspace / ".beecode").mkdir()
    (workspace / ".beecode" / "config.toml").write_text("temperature = 0.0\n")
    entry = {"command": sys.executable, "args": [NOTES], "env": {"NOTE_COLOUR": COLOUR}}
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"notes": entry}}))
    monkeypatch.chdir(workspace)
    assert mcp_main(["approve", "notes"]) == 0
    task = "Call the notes_env_var tool with name NOTE_COLOUR, then tell me the value it returns."
    result = headless_json(workspace, tiny_server, task, max_steps=4)
    calls = [c for c in result["tool_calls"] if c["name"] == "notes_env_var"]
    assert calls and calls[0]["arguments"] == {"name": "NOTE_COLOUR"}, result["tool_calls"]
    assert calls[0]["output"] == COLOUR and not calls[0]["is_error"]
    assert result["stop_reason"] == "done"
    assert COLOUR in result["result"], result
