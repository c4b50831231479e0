"""Sessions on real files in a tmp data dir, including a writer killed with SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent.sessions.replay import read_records, repair_tool_calls
from agent.sessions.store import INTERRUPTED, Session, SessionError, list_sessions

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "data"
    monkeypatch.setenv("BEECODE_DATA_DIR", str(path))
    return path


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def call(call_id: str, name: str = "read") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}


def assistant_calling(*ids: str) -> dict[str, Any]:
    return {"role": "assistant", "content": "", "tool_calls": [call(i) for i in ids]}


def result(call_id: str, text: str = "ok") -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": text}


def assert_valid_history(history: list[dict[str, Any]]) -> None:
    """Every tool call answered right after its assistant message, and no stray tool message."""
    index = 0
    while index < len(history):
        message = history[index]
        assert message["role"] != "tool", f"orphan tool message at {index}"
        index += 1
        ids = [c["id"] for c in message.get("tool_calls") or []]
        answered = [m["tool_call_id"] for m in history[index : index + len(ids)]]
        assert answered == ids
        index += len(ids)


def test_create_writes_meta_and_messages_round_trip(tmp_path: Path, data_dir: Path) -> None:
    session = Session.create(tmp_path)
    assert session.path == data_dir / "sessions" / f"{session.id}.jsonl"
    assert session.path.stat().st_mode & 0o777 == 0o600
    history = [
        user("hi ünïcode"),
        assistant_calling("c1"),
        result("c1"),
        {"role": "assistant", "content": "done"},
    ]
    for message in history:
        session.append_message(message)
    session.append({"type": "permission", "tool": "bash", "verdict": "allow"})
    records = read_records(session.path)
    assert records[0]["type"] == "meta" and records[0]["workspace"] == str(tmp_path.resolve())
    assert all("ts" in r for r in records)
    assert Session.open(session.id).messages() == history


def test_ids_sort_by_time_and_are_unique(tmp_path: Path) -> None:
    ids = [Session.create(tmp_path).id for _ in range(5)]
    assert len(set(ids)) == 5
    assert all(len(i) == len("20261130-104512-ab12") for i in ids)
    assert sorted(ids, key=lambda i: i[:15]) == ids  # the time part never goes back


def test_open_unknown_or_malformed_id(tmp_path: Path) -> None:
    with pytest.raises(SessionError, match="no session '20990101-000000-abcd'"):
        Session.open("20990101-000000-abcd")
    with pytest.raises(SessionError):
        Session.open("../../etc/passwd")


def test_a_unique_start_of_an_id_opens_its_session(tmp_path: Path) -> None:
    first, second = Session.create(tmp_path), Session.create(tmp_path)
    first.append_message(user("hello"))
    assert Session.open(first.id).id == first.id  # the whole id still does
    common = os.path.commonprefix([first.id, second.id])
    for session in (first, second):
        shortest = session.id[: len(common) + 1]
        assert Session.open(shortest).id == session.id
    assert Session.open(first.id[: len(common) + 1]).messages() == [user("hello")]


def test_an_ambiguous_or_unknown_start_is_one_line_naming_them(tmp_path: Path) -> None:
    made = sorted(Session.create(tmp_path).id for _ in range(7))
    prefix = os.path.commonprefix(made)
    with pytest.raises(SessionError) as ambiguous:
        Session.open(prefix)
    told = str(ambiguous.value)
    assert "\n" not in told and f"'{prefix}' is ambiguous: 7 sessions" in told
    assert all(i in told for i in made[:5]) and told.endswith("and 2 more")
    for missing in ("2099", "zz", ""):
        with pytest.raises(SessionError, match="no session"):
            Session.open(missing)


def test_compaction_replaces_what_came_before(tmp_path: Path) -> None:
    session = Session.create(tmp_path)
    for text in ("one", "two", "three"):
        session.append_message(user(text))
    summary = [user("Summary of earlier conversation: counted"), user("three")]
    session.append({"type": "compaction", "messages": summary})
    session.append_message(user("four"))
    assert session.messages() == [*summary, user("four")]


def test_torn_last_line_is_skipped_and_next_append_starts_clean(tmp_path: Path) -> None:
    session = Session.create(tmp_path)
    session.append_message(user("kept"))
    with session.path.open("ab") as file:
        file.write(b'{"type": "message", "message": {"role": "user", "cont')
    reopened = Session.open(session.id)
    assert reopened.messages() == [user("kept")]
    reopened.append_message(user("after"))
    assert Session.open(session.id).messages() == [user("kept"), user("after")]


def test_dangling_tool_calls_are_completed_as_interrupted(tmp_path: Path) -> None:
    session = Session.create(tmp_path)
    for message in (user("go"), assistant_calling("a", "b"), result("a")):
        session.append_message(message)
    history = session.messages()
    assert history[-1] == {"role": "tool", "tool_call_id": "b", "content": INTERRUPTED}
    assert_valid_history(history)
    # Resuming appends after the gap; the rebuilt history is the same bytes, then the new turn.
    session.append_message(user("again"))
    assert session.messages() == [*history, user("again")]


def test_repair_drops_orphans_and_duplicates() -> None:
    history = [
        result("x"),
        user("go"),
        assistant_calling("a"),
        result("a"),
        result("a", "dup"),
        result("z"),
    ]
    assert repair_tool_calls(history) == [user("go"), assistant_calling("a"), result("a")]


def test_list_and_latest_per_workspace(tmp_path: Path) -> None:
    ws1, ws2 = tmp_path / "one", tmp_path / "two"
    ws1.mkdir()
    ws2.mkdir()
    assert Session.latest(ws1) is None
    old = Session.create(ws1)
    old.append_message(user("fix   the\nbuild " + "x" * 80))
    new = Session.create(ws1)
    other = Session.create(ws2)
    os.utime(old.path, (1_000, 1_000))  # set the clock explicitly: mtimes can tie within a tick
    os.utime(new.path, (2_000, 2_000))
    latest = Session.latest(ws1)
    assert latest is not None and latest.id == new.id and latest.workspace == ws1.resolve()
    infos = list_sessions(ws1)
    assert [i.id for i in infos] == [new.id, old.id]
    assert infos[1].title.startswith("fix the build xxx") and len(infos[1].title) == 60
    assert infos[1].n_messages == 1 and infos[0].title == ""
    assert {i.id for i in list_sessions()} == {old.id, new.id, other.id}


WRITER = """
import sys
from pathlib import Path
from agent.sessions.store import Session

session = Session.create(Path(sys.argv[1]))
print(session.id, flush=True)
n = 0
while True:
    session.append_message({"role": "user", "content": f"task {n}"})
    session.append_message({"role": "assistant", "content": "", "tool_calls": [
        {"id": f"c{n}", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]})
    session.append_message({"role": "tool", "tool_call_id": f"c{n}", "content": "x" * 5000})
    print(n, flush=True)
    n += 1
"""


def test_history_survives_sigkill_mid_write(tmp_path: Path) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(tmp_path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert child.stdout is not None
        session_id = child.stdout.readline().strip()
        acknowledged = -1
        while acknowledged < 30:  # each acknowledged round is fsync'd: it must survive
            acknowledged = int(child.stdout.readline())
    finally:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    session = Session.open(session_id)
    lines = session.path.read_bytes().split(b"\n")
    assert all(json.loads(line) for line in lines[:-1])  # only the last line may be torn
    history = session.messages()
    assert_valid_history(history)
    users = [m["content"] for m in history if m["role"] == "user"]
    assert users[: acknowledged + 1] == [f"task {n}" for n in range(acknowledged + 1)]


def test_record_without_type_is_refused(tmp_path: Path) -> None:
    session = Session.create(tmp_path)
    with pytest.raises(ValueError, match="needs a type"):
        session.append({"role": "user", "content": "x"})
    assert len(read_records(session.path)) == 1


def test_unwritable_data_dir_is_a_session_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("BEECODE_DATA_DIR", str(blocker / "data"))
    with pytest.raises(SessionError, match="cannot create a session file"):
        Session.create(tmp_path)
