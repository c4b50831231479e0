"""Forking a session on real files: the copy replays to the source's history (compactions,
rewinds, repository maps), ends with its forked_from record, and the source's file is only read,
also when it is damaged or holds a secret."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.context.repomap.session import RECORD
from agent.sessions.fork import ancestors, fork_session
from agent.sessions.replay import read_records
from agent.sessions.store import Session, SessionError, list_sessions
from tests.agent.test_sessions import data_dir, user  # noqa: F401  (the fixture, shared)

SECRET = "sk-" + "a1B2" * 8


def reply(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def source_session(workspace: Path) -> Session:
    """Two turns, a line torn by a kill, a compaction, a cut back to before a third turn, a map
    and figures."""
    session = Session.create(workspace)
    for n in (1, 2):
        session.append_message(user(f"question {n}"))
        session.append_message(reply(f"answer {n}"))
    with session.path.open("ab") as file:  # the copy leaves it out: the offsets after it move
        file.write(b'{"type": "message", "message": {"role": "user", "cont')
    session = Session.open(session.id)
    session.append({"type": "compaction", "messages": [user("summary"), reply("answer 2")]})
    session.append({"type": RECORD, "text": "map of the tree", "focus": ["a.py"]})
    session.append_message(user("question 3"))
    assert session.turn_mark is not None
    mark = session.turn_mark
    session.append_message(reply("answer 3"))
    session.append({"type": "stats", "prompt_n": 12, "cache_n": 30})
    session.rewind(mark)
    session.append_message(user("question 4"))
    return session


def test_a_fork_replays_to_the_same_history_and_says_where_it_came_from(tmp_path: Path) -> None:
    source = source_session(tmp_path)
    before = source.path.read_bytes()
    history = source.messages()
    assert history == [user("summary"), reply("answer 2"), user("question 4")]

    fork = fork_session(Session.open(source.id))
    assert fork.id != source.id and fork.workspace == source.workspace
    assert source.path.read_bytes() == before  # the source is only read
    reopened = Session.open(fork.id)
    assert reopened.messages() == history  # the rewind still cuts "question 3" out
    records = read_records(fork.path)
    assert records[0]["type"] == "meta" and records[0]["id"] == fork.id
    assert records[-1]["type"] == "forked_from"
    assert (records[-1]["id"], records[-1]["messages"]) == (source.id, 3)
    kinds = [r["type"] for r in records]
    for kind in ("compaction", RECORD, "stats", "rewind"):
        assert kind in kinds
    copied = read_records(source.path)[1:]
    assert [r["ts"] for r in records[1:-1]] == [r["ts"] for r in copied]  # times kept

    # The fork goes on on its own; the source never sees it.
    reopened.append_message(reply("answer 4 in the fork"))
    assert Session.open(source.id).messages() == history
    assert source.path.read_bytes() == before
    [row] = [i for i in list_sessions(tmp_path) if i.id == fork.id]
    assert row.forked_from == source.id and row.title == "question 1"
    assert next(i for i in list_sessions(tmp_path) if i.id == source.id).forked_from is None


def test_a_rewind_in_the_fork_cuts_the_fork_only(tmp_path: Path) -> None:
    source = source_session(tmp_path)
    before = source.path.read_bytes()
    fork = fork_session(source)
    fork.append_message(user("question 5"))
    assert fork.turn_mark is not None
    mark = fork.turn_mark
    fork.append_message(reply("answer 5"))
    fork.rewind(mark)
    assert fork.messages() == source.messages()
    assert source.path.read_bytes() == before


def test_a_fork_of_a_fork_names_both_sources(tmp_path: Path) -> None:
    source = source_session(tmp_path)
    first = fork_session(source)
    first.append_message(reply("said in the first fork"))
    second = fork_session(first)
    assert ancestors(second.path) == [first.id, source.id]
    assert second.messages() == first.messages()
    assert ancestors(source.path) == []


def test_a_torn_last_line_of_the_source_is_skipped(tmp_path: Path) -> None:
    source = Session.create(tmp_path)
    source.append_message(user("kept"))
    with source.path.open("ab") as file:
        file.write(b'{"type": "message", "message": {"role": "user", "cont')
    before = source.path.read_bytes()
    fork = fork_session(Session.open(source.id))
    assert fork.messages() == [user("kept")]
    assert all(line.endswith(b"}") for line in fork.path.read_bytes().splitlines())
    assert source.path.read_bytes() == before


def test_an_unknown_or_damaged_source_is_one_line_and_makes_nothing(tmp_path: Path) -> None:
    with pytest.raises(SessionError, match="no session"):
        Session.open("20990101-000000-abcd")
    damaged = Session.create(tmp_path)
    damaged.path.write_bytes(b'{"type": "meta", "work')
    with pytest.raises(SessionError, match="damaged"):
        Session.open(damaged.id)
    assert [p.name for p in damaged.path.parent.iterdir()] == [damaged.path.name]


def test_the_copy_writes_no_secret_the_source_did_not(tmp_path: Path) -> None:
    source = Session.create(tmp_path)
    source.append_message(user(f"my key is {SECRET}"))  # redacted as it is written
    # A line written by hand (or an older beecode) that kept one: the copy redacts it too.
    line = json.dumps({"type": "message", "message": reply(f"the key {SECRET} works")})
    with source.path.open("a") as file:
        file.write(line + "\n")
    fork = fork_session(source)
    assert SECRET.encode() not in fork.path.read_bytes()
    assert [m["content"] for m in fork.messages()] == [
        "my key is [redacted]",
        "the key [redacted] works",
    ]


def test_a_copy_that_cannot_be_written_is_one_line_and_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = source_session(tmp_path)
    before = source.path.read_bytes()
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("BEECODE_DATA_DIR", str(blocker / "data"))  # no folder can be made there
    with pytest.raises(SessionError, match="cannot create a session file"):
        fork_session(source)
    assert source.path.read_bytes() == before
