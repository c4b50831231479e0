"""A small model's task read once into its intent (``agent.small.intent``), the same in every
language."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.model.scripted import text
from agent.small.intent import read_intent
from tests.agent.loop_kit import Face, make_agent, offered, results, step

DONE = '"done"'
UTILS = "def foo():\n    return 1\n\n\nprint(foo())\n"


def test_the_intent_holds_files_and_texts(ws: Path) -> None:
    (ws / "test_calc.py").write_text("assert True\n")
    (ws / "calc.py").write_text("x = 1\n")
    intent = read_intent(
        "test_calc.py fails; fix calc.py so it prints 'ok' and write out/log.txt", ws
    )
    assert intent.files == ("test_calc.py", "calc.py", "out/log.txt")
    assert intent.existing == ("test_calc.py", "calc.py") and intent.new == ("out/log.txt",)
    assert intent.texts == ("ok",) and not intent.question


@pytest.mark.parametrize(
    ("task", "texts"),
    [
        ("Create greeting.txt containing exactly: 'Hello, world'", ("Hello, world",)),
        ("Erstelle greeting.txt mit dem Inhalt „Hello, world“", ("Hello, world",)),
        ("Crée greeting.txt avec « Hello, world »", ("Hello, world",)),
        ('make greeting.txt say "Hello, world"', ("Hello, world",)),
        ("put `Hello, world` into greeting.txt", ("Hello, world",)),
        ("don't touch greeting.txt", ()),  # an apostrophe is no quote
    ],
)
def test_texts_are_read_in_any_quotes(ws: Path, task: str, texts: tuple[str, ...]) -> None:
    assert read_intent(task, ws).texts == texts


def test_a_question_is_its_mark_in_any_language(ws: Path) -> None:
    assert read_intent("¿Cuántas líneas tiene notes.txt?", ws).question
    assert read_intent("Wie viele Zeilen hat notes.txt?", ws).question
    assert not read_intent("count the lines of notes.txt", ws).question


@pytest.mark.parametrize(
    "task", ["Rename the function `foo` to `bar` in utils.py", "utils.py: `foo` heißt jetzt `bar`"]
)
async def test_a_run_is_not_the_change_the_task_asks_for(ws: Path, task: str) -> None:
    """The 0.5B model ran utils.py, chose done and said "renamed"."""
    (ws / "utils.py").write_text(UTILS)
    run = step("bash", command="python3 utils.py")
    replies = [
        run,
        step("edit", path="utils.py", old="foo", new="bar", replace_all=True),
        run,  # the same run with the same result: the turn ends with the report
        step("answer", text="Renamed foo to bar in utils.py."),
    ]
    agent, model = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    finished = await agent.run_turn(task, Face())

    # The value the task gives is not in place yet (agent.small.task_end), nor any change.
    assert results(agent)[0] == "1\n[exit code 0]\n[utils.py still holds 'foo', not 'bar'.]"
    assert "answer" not in offered(model.requests[1])  # a tool step, not the choice of done
    assert results(agent)[2] == "1\n[exit code 0]"  # changed since: no note
    assert (ws / "utils.py").read_text() == UTILS.replace("foo", "bar")
    assert finished.final_text == "Renamed foo to bar in utils.py."


def test_the_text_after_a_last_colon(ws: Path) -> None:
    intent = read_intent("Create greeting.txt containing exactly: Hello, world", ws)
    assert (intent.texts, intent.said) == ((), "Hello, world")
