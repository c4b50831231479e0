"""A skill end to end: headless beecode on the real `tiny` server (Qwen2.5-Coder 0.5B on CPU,
constrained steps, greedy) loads a project skill with the skill tool and follows it.

The task asks to "load the skill NAME": the 0.5B model then calls the tool; asked only to "use
the greeting-file skill" or to "create the greeting file" it wrote a file of its own idea (tried
by hand, 2026-12-01). What it writes comes from the skill's body."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agent.headless_run import headless_json

pytestmark = pytest.mark.real_server

SKILL = """\
---
name: greeting-file
description: Create the greeting file. Use whenever the user asks for the greeting file.
---
Write the file greeting.txt with exactly this content: hello from the skill
"""


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    ws = tmp_path / "ws"
    (ws / ".beecode").mkdir(parents=True)
    (ws / ".beecode" / "config.toml").write_text("temperature = 0.0\n")
    skill = ws / ".agents" / "skills" / "greeting-file" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(SKILL)
    monkeypatch.setenv("BEECODE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("BEECODE_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return ws


def test_the_model_activates_a_skill_and_follows_it(tiny_server: str, workspace: Path) -> None:
    result = headless_json(
        workspace, tiny_server, "Load the skill greeting-file and follow it.", max_steps=6
    )
    calls = result["tool_calls"]
    assert isinstance(calls, list)
    loaded = [c for c in calls if c["name"] == "skill" and not c["is_error"]]
    assert loaded and loaded[0]["arguments"] == {"name": "greeting-file"}, calls
    assert "hello from the skill" in loaded[0]["output"]
    written = (workspace / "greeting.txt").read_text()
    assert written.strip() == "hello from the skill", calls
