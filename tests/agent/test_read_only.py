"""A workspace nothing can be written in (a real read-only tmpfs where this test may mount one,
else a folder without write permission): the user is told once, before the first write; a write's
error names the user's file and the reason by errno (never beecode's temporary file, never a
hint to retry); the second such write stops the turn; a name too long to look up is a tool error,
not a crash."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.events import Notice, ToolCallFinished
from agent.model.scripted import call, text
from tests.agent.loop_kit import Face, make_agent


@pytest.fixture
def locked(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A folder that cannot be written, and the reason its writes give."""
    folder = tmp_path / "locked"
    folder.mkdir()
    mounted = os.geteuid() == 0 and (
        subprocess.run(["mount", "-t", "tmpfs", "-o", "ro", "tmpfs", str(folder)]).returncode == 0
    )
    if not mounted:
        if os.geteuid() == 0:
            pytest.fail(
                "root without mount: no folder root cannot write (run as a user, or allow mount)"
            )
        folder.chmod(0o555)
    try:
        yield folder, "is on a read-only file system" if mounted else "permission denied"
    finally:
        if mounted:
            subprocess.run(["umount", str(folder)], check=True)
        folder.chmod(0o755)


async def test_a_read_only_workspace_is_said_once_and_its_writes_stop_the_turn(
    locked: tuple[Path, str],
) -> None:
    folder, reason = locked
    writes = [call("write", {"path": p, "content": "print('hi')\n"}) for p in ("hello.py", "h2.py")]
    agent, model = make_agent(folder, [*writes, call("ls", {}), text("unused")])
    face = Face()
    finished = await agent.run_turn("Create a file hello.py", face)

    [told] = [n for n in face.of(Notice) if "not writable" in n.message]
    assert told.message.startswith(f"{folder} is not writable (")
    assert face.events.index(told) < face.events.index(face.of(ToolCallFinished)[0])
    first, second = face.of(ToolCallFinished)
    assert first.output.startswith("cannot write hello.py: the workspace ")
    assert reason in first.output and first.is_error
    assert (
        ".tmp" not in first.output and "again" not in first.output and "retry" not in first.output
    )
    assert second.output.startswith("cannot write h2.py: ")
    assert finished.stop_reason == "tool_failures"  # the second refused write ends it
    assert model.replies  # the ls and the answer were never asked for
    assert list(folder.iterdir()) == []

    later = Face()
    await agent.run_turn("list it then", later)  # said once per agent, not per turn
    assert not [n for n in later.of(Notice) if "not writable" in n.message]


async def test_a_name_too_long_to_look_up_is_a_tool_error_not_a_crash(
    ws: Path,
) -> None:
    long = "a" * 300 + ".py"
    agent, _ = make_agent(ws, [call("write", {"path": long, "content": "x\n"}), text("gave up")])
    finished = await agent.run_turn("write it", Face())
    assert finished.final_text == "gave up"
    assert "File name too long" in [m for m in agent.messages if m["role"] == "tool"][0]["content"]
