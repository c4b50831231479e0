"""`beecode -r ID --fork -p ...` and `-c --fork` as a user runs them, against a scripted
llama-server (``tests.agent.sse_server``): the request carries the source's history, the run goes
on in a new session, and the source's file is never written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent import cli
from agent.sessions.replay import read_records
from agent.sessions.store import Session
from tests.agent.sse_server import Script, chunk

pytestmark = pytest.mark.usefixtures("beecode_dirs")


@pytest.fixture
def here(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The workspace, as the current folder (where beecode runs)."""
    monkeypatch.chdir(workspace)
    return workspace


def source(workspace: Path) -> Session:
    session = Session.create(workspace)
    session.append_message({"role": "user", "content": "what is 6 times 7?"})
    session.append_message({"role": "assistant", "content": "42"})
    return session


def forked_run(
    endpoint: str, capsys: pytest.CaptureFixture[str], *which: str
) -> tuple[int, dict[str, object], str]:
    """One headless run with ``which`` (-r ID or -c) and --fork: its status, result and stderr."""
    Script.body = [chunk({"content": "84"}), chunk({}, finish="stop"), "[DONE]"]
    argv = [*which, "--fork", "-p", "and twice that?", "--endpoint", endpoint]
    status = cli.main([*argv, "--output-format", "json"])
    captured = capsys.readouterr()
    return status, json.loads(captured.out), captured.err


def test_a_forked_run_sends_the_history_and_goes_on_in_a_new_session(
    here: Path, endpoint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    original = source(here)
    before = original.path.read_bytes()
    status, result, err = forked_run(endpoint, capsys, "-r", original.id)
    assert status == 0 and result["result"] == "84"
    fork = str(result["session_id"])
    assert fork != original.id
    [request] = [r for r in Script.requests if "messages" in r]
    sent = [(m["role"], m["content"]) for m in request["messages"][1:]]
    assert sent == [
        ("user", "what is 6 times 7?"),
        ("assistant", "42"),
        ("user", "and twice that?"),
    ]
    assert original.path.read_bytes() == before  # the source is left as it was
    assert f"new session {fork}; the original {original.id} is left as it was" in err
    records = read_records(Session.open(fork).path)
    assert [r["id"] for r in records if r["type"] == "forked_from"] == [original.id]
    assert [m["content"] for m in Session.open(fork).messages()][-2:] == ["and twice that?", "84"]

    assert cli.main(["sessions"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert any(line.startswith(fork) and f"(fork of {original.id})" in line for line in listed)
    assert any(line.startswith(original.id) and "fork of" not in line for line in listed)


def test_continue_with_fork_copies_the_latest_session(
    here: Path, endpoint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    original = source(here)
    before = original.path.read_bytes()
    status, result, _ = forked_run(endpoint, capsys, "-c")
    assert status == 0 and result["session_id"] != original.id
    assert Session.open(str(result["session_id"])).messages()[:2] == original.messages()
    assert original.path.read_bytes() == before


def test_fork_without_a_session_or_of_an_unknown_one_is_one_line(
    here: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["--fork", "-p", "x", "--endpoint", "http://127.0.0.1:9"]) == 2
    assert capsys.readouterr().err == "beecode: --fork needs a session to fork: -r ID or -c\n"
    argv = ["-r", "20990101-000000-abcd", "--fork", "-p", "x", "--endpoint", "http://127.0.0.1:9"]
    assert cli.main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("beecode: no session '20990101-000000-abcd'") and err.count("\n") == 1
    assert list((tmp_path / "data" / "sessions").glob("*.jsonl")) == []  # no copy was made
