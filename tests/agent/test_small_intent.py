"""A small model's task read once into its intent (``agent.small.intent``), the same in every
language, and what it says of a change asked for (``agent.small.task_change``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent.model.scripted import text
from agent.small.intent import Intent, read_intent
from agent.small.task_change import asks_change, workspace_state
from tests.agent.loop_kit import Face, make_agent, offered, results, step

DONE = '"done"'
UTILS = "def foo():\n    return 1\n\n\nprint(foo())\n"


def test_the_intent_holds_files_texts_and_the_test(ws: Path) -> None:
    (ws / "test_calc.py").write_text("assert True\n")
    (ws / "calc.py").write_text("x = 1\n")
    intent = read_intent(
        "test_calc.py fails; fix calc.py so it prints 'ok' and write out/log.txt", ws
    )
    assert intent.files == ("test_calc.py", "calc.py", "out/log.txt")
    assert intent.existing == ("test_calc.py", "calc.py") and intent.new == ("out/log.txt",)
    assert intent.texts == ("ok",) and intent.test == "test_calc.py" and not intent.question


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


def test_which_tasks_ask_for_a_change(ws: Path) -> None:
    (ws / "config.ini").write_text("port = 8080\n")
    (ws / "utils.py").write_text(UTILS)

    def asks(task: str) -> bool:
        return asks_change(read_intent(task, ws), ws)

    assert asks("create hello.sh that echoes hi")  # a file not there yet
    assert asks("config.ini: port 9090")  # a value the file lacks
    assert asks("in utils.py, `foo` soll `bar` heißen")
    assert not asks("what is the port in config.ini?")  # a question
    assert not asks("run python3 utils.py and tell me the output")  # nothing it lacks
    assert not asks("Run python3 -c 'print(6 * 7)'")  # no file


def test_what_counts_as_a_change(ws: Path) -> None:
    intent = Intent("make notes.txt executable", files=("notes.txt",))
    (ws / "notes.txt").write_text("x\n")
    before = workspace_state(intent, ws)
    assert workspace_state(intent, ws) == before
    (ws / "notes.txt").chmod(0o755)
    assert workspace_state(intent, ws) != before
    before = workspace_state(intent, ws)
    (ws / "docs").mkdir()  # a folder made
    assert workspace_state(intent, ws) != before
    before = workspace_state(intent, ws)
    (ws / "__pycache__").mkdir()  # what a run leaves is no change
    assert workspace_state(intent, ws) == before
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    subprocess.run(["git", "add", "-A"], cwd=ws, check=True)
    before = workspace_state(intent, ws)
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c"],
        cwd=ws,
        check=True,
    )
    assert workspace_state(intent, ws) != before  # the last commit moved


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


async def test_a_run_task_may_be_done_by_its_run(ws: Path) -> None:
    replies = [step("bash", command="echo 42"), DONE, step("answer", text="It printed 42.")]
    agent, _ = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    finished = await agent.run_turn("run echo 42 and tell me the output", Face())
    assert results(agent)[0] == "42\n[exit code 0]"
    assert finished.final_text == "It printed 42."


async def test_an_answer_before_the_change_is_set_aside_once(ws: Path) -> None:
    """The 0.5B model ran calc.py, sent an edit that was refused, and answered: the fix the task
    asks for was never tried. The answer waits once for a tool step."""
    (ws / "calc.py").write_text("def double(x):\n    return x + 2\n")
    replies = [
        step("answer", text="The task was completed successfully."),
        step("edit", path="calc.py", old="x + 2", new="x * 2"),
        step("bash", command="python3 calc.py"),
        DONE,
        step("answer", text="Fixed calc.py."),
    ]
    agent, model = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    finished = await agent.run_turn("make double in calc.py return `x * 2`", Face())
    assert "answer" not in offered(model.requests[1])  # set aside: a tool step
    assert (ws / "calc.py").read_text() == "def double(x):\n    return x * 2\n"
    assert finished.final_text == "Fixed calc.py."


async def test_the_answer_set_aside_is_taken_the_second_time(ws: Path) -> None:
    (ws / "calc.py").write_text("def double(x):\n    return x + 2\n")
    said = "I could not find the bug."
    replies = [step("answer", text="Done."), step("answer", text=said)]
    agent, _ = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    finished = await agent.run_turn("make double in calc.py return `x * 2`", Face())
    assert finished.final_text == said


def test_the_text_after_a_last_colon(ws: Path) -> None:
    intent = read_intent("Create greeting.txt containing exactly: Hello, world", ws)
    assert (intent.texts, intent.said) == ((), "Hello, world")
