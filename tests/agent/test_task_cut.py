"""A task that removes one line of a file, held to that line (``agent.small.task_cut``)."""

from __future__ import annotations

from pathlib import Path

from agent.model.scripted import text
from agent.small.task_cut import LineCut
from agent.small.task_end import TaskEnd
from tests.agent.loop_kit import Face, make_agent, results, step

NOTES = "first\nsecond\nthird\n"


def test_the_line_a_task_removes_is_read_from_its_words() -> None:
    start: dict[str, str | None] = {"notes.txt": NOTES}
    for task, number in (
        ("remove the second line of notes.txt", 2),
        ("delete line 3 from notes.txt", 3),
        ("Delete the last line in the file notes.txt", 3),
    ):
        cut = LineCut(task, start)
        assert (cut.name, cut.number) == ("notes.txt", number), task
    assert LineCut("delete the fifth line of notes.txt", start).name == ""  # no such line
    assert LineCut("remove the word second from notes.txt", start).name == ""


def test_a_sed_of_another_line_or_of_the_line_again_is_refused() -> None:
    cut = LineCut("remove the second line of notes.txt", {"notes.txt": NOTES})
    assert cut.refused("sed -i '1d' notes.txt", NOTES) == (
        "the task removes line 2 of notes.txt, not 1. Send: "
        '{"name": "bash", "arguments": {"command": "sed -i \'2d\' notes.txt"}}'
    )
    assert cut.refused("sed -i -e '$d' ./notes.txt", NOTES) is not None  # the last, line 3
    assert cut.refused("sed -i '2d' notes.txt", NOTES) is None
    assert cut.refused("sed '1d' notes.txt", NOTES) is None  # prints, changes nothing
    assert cut.refused("sed -i '1d' other.txt", NOTES) is None
    again = cut.refused("sed -i '2d' notes.txt", "first\nthird\n")
    assert again == "line 2 of notes.txt is removed already; answer now"


def test_a_file_that_lost_another_line_is_shown_the_write_that_ends_it() -> None:
    cut = LineCut("remove the second line of notes.txt", {"notes.txt": NOTES})
    assert cut.left("second\nthird\n") == (
        "\n[notes.txt is not its text without line 2. Send: "
        '{"name": "write", "arguments": {"path": "notes.txt", "content": "first\\nthird\\n"}}]'
    )
    assert cut.left("first\nthird\n") == ""  # as asked
    assert cut.left(NOTES) == ""  # not changed yet: not this note's to say
    assert cut.left("first\nnew\n") == ""  # a line of its own: not beecode's to judge


async def test_a_turn_that_removes_the_wrong_line_is_held_to_the_right_one(ws: Path) -> None:
    """delete-line-2: the 0.5B model ran `sed -i '1d' notes.txt`, then said line two was gone."""
    (ws / "notes.txt").write_text(NOTES)
    replies = [
        step("bash", command="sed -i '1d' notes.txt"),  # refused: the first line
        step("bash", command="sed -i '2d' notes.txt"),
        '"continue"',  # the choice after a command that exited 0: not done
        step("bash", command="sed -i '2d' notes.txt"),  # refused: it would take "third"
        step("answer", text="Removed the second line."),  # set aside: the change unread
        step("read", path="notes.txt"),
        step("answer", text="Removed the second line."),
    ]
    agent, _ = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn("remove the second line of notes.txt", Face())

    assert results(agent)[0].startswith("Error: the task removes line 2 of notes.txt, not 1.")
    assert results(agent)[2].startswith("Error: line 2 of notes.txt is removed already")
    assert (ws / "notes.txt").read_text() == "first\nthird\n"
    assert agent.messages[-1] == {"role": "assistant", "content": "Removed the second line."}


def test_the_task_end_holds_the_next_step_to_that_write(ws: Path) -> None:
    (ws / "notes.txt").write_text(NOTES)
    end = TaskEnd("remove the second line of notes.txt", ws)  # reads the file as it begins
    (ws / "notes.txt").write_text("second\nthird\n")  # the first line removed instead
    note, held = end.left()
    assert note.startswith("\n[notes.txt is not its text without line 2.")
    assert held == ("write", {"path": "notes.txt"})
    assert end.left() == ("", None)  # said once a turn
