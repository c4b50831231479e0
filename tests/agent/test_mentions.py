"""Files named in a message are attached to it and count as read."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.context.mentions import MARK, MAX_BYTES, attach_mentions, typed_part
from agent.model.scripted import call, text
from agent.sessions.store import list_sessions
from tests.scripted import make_agent


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BEECODE_DATA_DIR", str(tmp_path / "data"))


def test_named_files_are_attached_numbered(tmp_path: Path) -> None:
    (tmp_path / "config.ini").write_text("[server]\nport = 8080\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\n")
    said = "In config.ini, change the port; see src/a.py. (not hello.py)"
    content, paths = attach_mentions(said, tmp_path)
    assert content == (
        said + MARK + "config.ini:\n1\t[server]\n2\tport = 8080\n\nsrc/a.py:\n1\tx = 1"
    )
    assert paths == [tmp_path / "config.ini", tmp_path / "src" / "a.py"]
    assert typed_part(content) == said


def test_big_binary_outside_and_missing_files_are_not_attached(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "big.txt").write_text("x" * (MAX_BYTES + 1))
    (ws / "blob.bin").write_bytes(b"\0\1\2")
    (tmp_path / "secret.txt").write_text("no")
    said = "look at big.txt blob.bin ../secret.txt missing.py and the folder ."
    assert attach_mentions(said, ws) == (said, [])


async def test_a_named_file_can_be_edited_without_reading_it_first(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "config.ini").write_text("port = 8080\n")
    agent, model = make_agent(
        ws,
        [call("edit", {"path": "config.ini", "old": "8080", "new": "9090"}), text("Done.")],
        system="s",
    )
    await agent.run_turn("Change the port in config.ini to 9090", lambda _: None)

    assert (ws / "config.ini").read_text() == "port = 9090\n"
    assert "1\tport = 8080" in model.requests[0].messages[1]["content"]
    assert list_sessions(ws)[0].title == "Change the port in config.ini to 9090"
