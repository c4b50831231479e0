"""Writes the constrained policy refuses: a file named like a folder (the file the task names in
it is meant), and a file's lines given with the numbers of the view that showed them."""

from __future__ import annotations

from pathlib import Path

from agent.loop.reads import Reads
from agent.model.reply import Call
from agent.model.scripted import text
from agent.small.habits import SmallLedger
from tests.agent.loop_kit import Face, arguments_schema, make_agent, results, step
from tools.registry import default_registry

DONE = '"done"'


async def test_a_folder_like_name_is_the_folder_of_the_file_the_task_names(ws: Path) -> None:
    """Told "send the same write again" to write a file named so, the 0.5B model did: where the
    task names a new file, the write of the folder's name is refused every time and the next
    step held to the file's path."""
    as_file = step("write", path="logs", content="log files go here\n")
    in_folder = step("write", path="logs/README.txt", content="log files go here\n")
    version = step("write", path="VERSION", content="version 2\n")
    replies = [version, '"continue"', as_file, in_folder, DONE, step("answer", text="x")]
    agent, model = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn("Leg einen Ordner logs an, darin README.txt: log files go here", Face())

    assert results(agent)[1] == (
        "Error: logs has no suffix: write logs/README.txt, the file the task names (in its "
        "folder). Fix the call and try again."
    )
    assert arguments_schema(model.requests[3], "write")["path"]["const"] == "logs/README.txt"
    assert (ws / "logs/README.txt").read_text() == "log files go here\n"
    assert (ws / "VERSION").is_file()  # a name in capitals is a file's


async def test_the_same_write_of_a_folder_like_name_again_goes_through(ws: Path) -> None:
    as_file = step("write", path="hosts", content="a\n")
    replies = [as_file, as_file, DONE, step("answer", text="x")]
    agent, _ = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn("write hosts", Face())
    assert (ws / "hosts").read_text() == "a\n"
    assert results(agent)[0].startswith(
        "Error: hosts has no suffix. For a folder hosts with a file in it, write a path in it: "
        "hosts/ and the file's name (the folder"
    )


async def test_a_file_the_task_names_in_the_folder_is_the_path_offered(ws: Path) -> None:
    # The answer right after the refused write is set aside once, and once more since nothing
    # changed yet: it is sent three times.
    replies = [step("write", path="out", content="empty\n")] + [step("answer", text="x")] * 3
    agent, _ = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn("make a directory out and put a file out/log.txt in it", Face())
    assert "write out/log.txt, the file the task names" in results(agent)[0]


async def test_a_files_lines_with_the_reads_numbers_are_refused_with_the_step(ws: Path) -> None:
    """Told to put DRAFT on top of readme.txt, the 0.5B model wrote the file as its numbered view
    showed it."""
    (ws / "readme.txt").write_text("line one\nline two\n")
    numbered = step("write", path="readme.txt", content="DRAFT\n1 line one\n2\tline two")
    right = step("write", path="readme.txt", content="DRAFT\nline one\nline two")
    replies = [numbered, right, DONE, step("answer", text="Added DRAFT.")]
    agent, _ = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn("Ajoute la ligne DRAFT tout en haut de readme.txt", Face())

    assert results(agent)[0] == (
        f"Error: the numbers before the lines are the read's, not the file's. Send: {right}. "
        "Fix the call and try again."
    )
    assert (ws / "readme.txt").read_text() == "DRAFT\nline one\nline two"


def test_numbers_that_are_the_files_own_are_not_the_reads(ws: Path) -> None:
    (ws / "steps.md").write_text("1. install\n2. run\n")
    ledger = SmallLedger(Reads(default_registry(), ws))
    own = Call("c", "write", {"path": "steps.md", "content": "1. install\n2. run\n3. test\n"})
    assert ledger.numbered_copy(own) is None
