"""Rewinding in a fork: the workspace (and its checkpoints) are shared, the conversations are not.
A rewind cuts only the fork's own file; a turn from before the fork has its files restored and
the conversation left as it is; the source's session and the checkpoint entries already written
are never changed (the entries file is only appended to)."""

from __future__ import annotations

from pathlib import Path

from agent.checkpoints.rewind import rewind
from agent.checkpoints.store import Checkpoints
from agent.model.scripted import call, text
from agent.sessions.fork import fork_session
from agent.sessions.store import Session
from tests.scripted import make_agent


async def test_a_rewind_in_a_fork_never_writes_the_sources_records(ws: Path) -> None:
    source, _ = make_agent(
        ws, [call("write", {"path": "a.txt", "content": "A\n"}), text("wrote a")], system="s"
    )
    await source.run_turn("write a.txt", lambda _e: None)
    source_history = list(source.messages)
    fork = fork_session(Session.open(source.session.id))
    forked, _ = make_agent(
        ws,
        [call("write", {"path": "b.txt", "content": "B\n"}), text("wrote b")],
        session=fork,
        system="s",
    )
    assert forked.messages == source_history
    await forked.run_turn("write b.txt", lambda _e: None)
    session_bytes = source.session.path.read_bytes()
    log = Checkpoints(ws).log
    entries = log.read_bytes()
    turns = [(e["session"], e["kind"]) for e in Checkpoints(ws).entries()]
    assert turns == [(source.session.id, "turn"), (fork.id, "turn")]

    line = rewind(ws, fork.id, forked.messages, 1)  # the fork's own turn
    assert "back to before that turn" in line
    assert not (ws / "b.txt").exists() and (ws / "a.txt").exists()
    assert forked.messages == source_history
    assert Session.open(fork.id).messages() == source_history[1:]

    line = rewind(ws, fork.id, forked.messages, 1)  # a turn taken before the fork
    assert "left as it is: that turn was in another session" in line
    assert not (ws / "a.txt").exists()  # the shared workspace's files are restored
    assert forked.messages == source_history

    assert source.session.path.read_bytes() == session_bytes
    assert log.read_bytes().startswith(entries)  # the earlier entries, unchanged
    resumed, _ = make_agent(ws, [], session=Session.open(source.session.id), system="s")
    assert resumed.messages == source_history
