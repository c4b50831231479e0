"""The checks with a real model (the `tiny` profile on the real llama-server, greedy): whatever it
writes, a failing test command goes back to it as a message, at most ``check_rounds`` times, and
the headless run reports every check. Properties only, never what the model chose to say."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.sessions.replay import read_records
from agent.sessions.store import Session
from tests.agent.headless_run import headless_json

pytestmark = [pytest.mark.real_server, pytest.mark.project_checks]


def test_a_failing_check_reaches_the_real_model_within_the_round_limit(
    tiny_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "config").mkdir()  # the user's config: an untrusted project may not name test_cmd
    (tmp_path / "config" / "config.toml").write_text(
        'temperature = 0.0\ntest_cmd = "echo demo check failed; exit 1"\nauto_test = true\n'
        "check_rounds = 1\nlsp = false\n"
    )
    monkeypatch.setenv("BEECODE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("BEECODE_CONFIG_DIR", str(tmp_path / "config"))
    result = headless_json(ws, tiny_server, "create notes.txt that says hello", max_steps=8)

    checks = result["checks"]
    if not result["changes"]["created"] + result["changes"]["changed"]:
        pytest.skip("the model changed no file, so no check had anything to run on")
    assert checks and all(c["kind"] == "test" and c["status"] == "failed" for c in checks)
    assert all("demo check failed" in c["output"] for c in checks)
    records = read_records(Session.open(result["session_id"]).path)
    told = [r for r in records if r.get("within_turn")]
    assert len(told) == 1  # check_rounds: once, however often the model answered
    assert "demo check failed" in told[0]["message"]["content"]
    assert len(checks) <= 2  # the round sent back, and the last (shown, not sent)
