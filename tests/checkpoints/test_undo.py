"""Undo through the real loop: changes by write, edit, bash and git, created and deleted files,
N turns back, redo, rewind of the conversation, and what is never touched."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.checkpoints import command
from agent.checkpoints.rewind import rewind
from agent.checkpoints.store import Checkpoints
from agent.model.scripted import call, calls, text
from agent.sessions.store import Session
from tests.checkpoints.conftest import files, git
from tests.scripted import make_agent


async def test_undo_and_redo_cover_every_kind_of_change(ws: Path) -> None:
    start = files(ws)
    assert git(ws, "status", "--short") == "?? notes.txt\n"
    index_before = (ws / ".git" / "index").read_bytes()
    agent, _ = make_agent(
        ws,
        [
            call("read", {"path": "kept.txt"}, "r1"),  # reads take no checkpoint
            calls(
                ("write", {"path": "new/made.txt", "content": "made\n"}, "w1"),
                ("edit", {"path": "kept.txt", "old": "v1", "new": "v2"}, "e1"),
            ),
            text("turn 1 done"),
            call("bash", {"command": "rm notes.txt && printf 'by bash\\n' > bashed.txt"}, "b1"),
            call("git", {"action": "add", "paths": ["bashed.txt"]}, "g1"),
            text("turn 2 done"),
        ],
        system="s",
    )
    await agent.run_turn("one", lambda _e: None)
    after_one = files(ws)
    assert after_one["kept.txt"] == b"kept v2\n" and after_one["new/made.txt"] == b"made\n"
    await agent.run_turn("two", lambda _e: None)
    after_two = files(ws)
    assert "notes.txt" not in after_two and after_two["bashed.txt"] == b"by bash\n"
    checkpoints = Checkpoints(ws)
    assert [line.split("before: ")[1] for line in checkpoints.listing()] == [
        "bash rm notes.txt && printf 'by bash\\n' > bashed.txt",
        "write new/made.txt",
    ]

    undone = checkpoints.undo(1)
    assert files(ws) == after_one
    assert undone.written == ["notes.txt"] and undone.deleted == ["bashed.txt"]
    checkpoints.undo(1)  # and one more turn back
    assert files(ws) == start and not (ws / "new").exists()
    checkpoints.redo()
    assert files(ws) == after_one
    checkpoints.redo()
    assert files(ws) == after_two
    assert checkpoints.listing()[0].startswith("  1")

    # Never the user's git state: the index has bashed.txt staged by the agent, as it was left.
    assert (ws / ".git" / "index").read_bytes() != index_before
    assert (
        git(ws, "stash", "list") == ""
        and git(ws, "status", "--short", "kept.txt") == " M kept.txt\n"
    )
    assert (ws / "build" / "out.bin").read_bytes() == b"ignored build output"


async def test_undo_n_goes_back_n_turns_and_survives_a_new_process(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent, _ = make_agent(
        ws,
        [
            call("write", {"path": "a.txt", "content": "1\n"}),
            text("ok"),
            call("write", {"path": "a.txt", "content": "2\n"}),
            text("ok"),
            text("a turn without changes takes no checkpoint"),
            call("write", {"path": "a.txt", "content": "3\n"}),
            text("ok"),
        ],
        system="s",
    )
    for prompt in ("one", "two", "talk", "three"):
        await agent.run_turn(prompt, lambda _e: None)
    # The command line, as after a quit or a crash: nothing but what is on disk.
    assert command.main(["--list"], ws) == 0
    listed = capsys.readouterr().out.splitlines()
    assert [line.split("before: ")[1] for line in listed] == ["write a.txt"] * 3
    assert command.main(["2"], ws) == 0
    assert (ws / "a.txt").read_text() == "1\n"
    assert "restored a.txt" in capsys.readouterr().out
    assert command.main(["5"], ws) == 1
    assert "only 1 turn to undo" in capsys.readouterr().err
    assert command.main(["--redo"], ws) == 0 and (ws / "a.txt").read_text() == "3\n"


async def test_rewind_cuts_the_conversation_and_a_resume_sees_the_cut(ws: Path) -> None:
    agent, _ = make_agent(
        ws,
        [
            text("hello"),
            call("write", {"path": "a.txt", "content": "A\n"}),
            text("wrote it"),
        ],
        system="s",
    )
    await agent.run_turn("hi", lambda _e: None)
    kept = list(agent.messages)
    await agent.run_turn("write a.txt", lambda _e: None)
    line = rewind(ws, agent.session.id, agent.messages, 1)
    assert "back to before that turn" in line and "not undone" in line
    assert not (ws / "a.txt").exists()
    assert agent.messages == kept
    resumed, _ = make_agent(ws, [], session=Session.open(agent.session.id), system="s")
    assert resumed.messages == kept
