"""What the task's intent says its files end as (``agent.small.task_end``), in constrained mode:
after a step that worked, the file the task makes without the text it quotes, a value the task
gives not yet in place, or a named file left unparsable is said so with the step to send, and
the next step is held to it. The same in any language: nothing here reads the task's words."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.model.scripted import text
from agent.small.intent import read_intent
from agent.small.task_end import TaskEnd
from tests.agent.loop_kit import Face, arguments_schema, make_agent, offered, results, step

DONE = '"done"'
CONFIG = "[server]\nhost = localhost\nport = 8080\n"


@pytest.mark.parametrize(
    "task",
    [
        "make a directory out and put a file out/log.txt in it saying 'empty'",
        "Leg den Ordner out an, mit einer Datei out/log.txt, die 'empty' enthält",
        "crea out/log.txt con el texto: empty",
    ],
)
async def test_a_file_left_without_its_text_is_said_and_the_write_held(ws: Path, task: str) -> None:
    """`mkdir out && touch out/log.txt` for a file "saying empty": the 0.5B model chose done."""
    replies = [
        step("bash", command="mkdir out && touch out/log.txt"),
        step("write", path="out/log.txt", content="empty\n"),
        DONE,
        step("answer", text="Made out/log.txt."),
    ]
    agent, model = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    finished = await agent.run_turn(task, Face())

    send = '{"name": "write", "arguments": {"path": "out/log.txt", "content": "empty\\n"}}'
    assert results(agent)[0].endswith(
        f"[out/log.txt does not hold 'empty'; the task asks for: {send}]"
    )
    assert offered(model.requests[1]) == {"write"}  # not the done-or-continue choice
    assert arguments_schema(model.requests[1], "write")["path"]["const"] == "out/log.txt"
    assert (ws / "out" / "log.txt").read_text() == "empty\n"
    assert finished.stop_reason == "done" and finished.facts.doubts == []


@pytest.mark.parametrize(
    "task",
    [
        "In config.ini change the port from 8080 to 9090",
        "config.ini: port 9090, bitte",
        "cambia el port de config.ini a 9090",
    ],
)
def test_the_value_a_task_changes_is_read_from_its_values_and_the_file(ws: Path, task: str) -> None:
    (ws / "config.ini").write_text(CONFIG)
    end = TaskEnd(read_intent(task, ws), ws)  # then a sed whose pattern matched nothing
    edit = '{"name": "edit", "arguments": {"path": "config.ini", "old": "port = 8080", '
    note, held = end.left()
    assert note == (
        f"\n[config.ini still holds '8080', not '9090'. Send: {edit}\"new\": \"port = 9090\"}}}}]"
    )
    assert held == ("edit", {"path": "config.ini", "old": "port = 8080"})
    assert end.left() == ("", None)  # said once


def test_no_value_is_read_where_the_task_does_not_give_one_plainly(ws: Path) -> None:
    (ws / "config.ini").write_text(CONFIG)
    for task in ("what is the port in config.ini?", "set both ports to 1 and 2 in config.ini"):
        assert TaskEnd(read_intent(task, ws), ws).left() == ("", None)
