"""A task that asks for a change is not finished before something changed, in constrained
mode: a command that exits 0 leads to the done-or-continue choice only where the task asks to
run something, or once a change was made."""

from __future__ import annotations

import subprocess
from pathlib import Path

from agent.model.scripted import text
from agent.small.task_change import NOT_DONE_NOTE, asks_after_change, asks_change, workspace_state
from tests.agent.loop_kit import Face, make_agent, offered, results, step

DONE = '"done"'
UTILS = "def foo():\n    return 1\n\n\nprint(foo())\n"


def test_which_tasks_ask_for_a_change() -> None:
    assert asks_change("Rename the function foo to bar in utils.py")
    assert asks_change("create hello.sh that echoes hi, make it executable and run it")
    assert not asks_change("Run python3 -c 'print(6 * 7)' and tell me what it printed")
    assert not asks_change("what does python3 -c 'print(2**10)' print?")
    assert not asks_change("count the lines in notes.txt")


def test_what_counts_as_a_change(ws: Path) -> None:
    task = "make notes.txt executable"
    (ws / "notes.txt").write_text("x\n")
    before = workspace_state(task, ws)
    assert workspace_state(task, ws) == before
    (ws / "notes.txt").chmod(0o755)
    assert workspace_state(task, ws) != before
    before = workspace_state(task, ws)
    (ws / "docs").mkdir()  # a folder made
    assert workspace_state(task, ws) != before
    before = workspace_state(task, ws)
    (ws / "__pycache__").mkdir()  # what a run leaves is no change
    assert workspace_state(task, ws) == before
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    subprocess.run(["git", "add", "-A"], cwd=ws, check=True)
    before = workspace_state(task, ws)
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c"],
        cwd=ws,
        check=True,
    )
    assert workspace_state(task, ws) != before  # the last commit moved


async def test_a_run_is_not_the_change_the_task_asks_for(ws: Path) -> None:
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
    finished = await agent.run_turn("Rename the function foo to bar in utils.py", Face())

    assert results(agent)[0] == f"1\n[exit code 0]{NOT_DONE_NOTE}"
    # A tool step, not the choice of done, and not the same run again (told once, the 0.5B
    # model ran it again).
    assert not offered(model.requests[1]) & {"answer", "bash"}
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
    finished = await agent.run_turn("fix calc.py so double doubles", Face())
    assert "answer" not in offered(model.requests[1])  # set aside: a tool step
    assert (ws / "calc.py").read_text() == "def double(x):\n    return x * 2\n"
    assert finished.final_text == "Fixed calc.py."


async def test_the_answer_set_aside_is_taken_the_second_time(ws: Path) -> None:
    (ws / "calc.py").write_text("def double(x):\n    return x + 2\n")
    said = "I could not find the bug."
    replies = [step("answer", text="Done."), step("answer", text=said)]
    agent, _ = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    finished = await agent.run_turn("fix calc.py so double doubles", Face())
    assert finished.final_text == said


def test_which_tasks_ask_a_question_after_their_change() -> None:
    assert asks_after_change("append fourth to notes.txt and then tell me how many lines it has")
    assert asks_after_change("create a.py and tell me what it prints")
    assert not asks_after_change("what is the third line of notes.txt?")  # a question only
    assert not asks_after_change("append fourth to notes.txt, then commit")


async def test_a_change_is_not_the_end_of_a_task_that_asks_about_it_after(ws: Path) -> None:
    """The 0.5B model appended the line, chose done, and said the command worked."""
    (ws / "notes.txt").write_text("first\nsecond\nthird\n")
    replies = [
        step("bash", command="echo fourth >> notes.txt"),
        step("bash", command="wc -l notes.txt"),
        '"done"',
        step("answer", text="notes.txt has 4 lines."),
    ]
    agent, model = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    task = "append fourth to notes.txt and then tell me how many lines it has"
    finished = await agent.run_turn(task, Face())

    assert "answer" not in offered(model.requests[1])  # not the choice: a step that finds it
    assert model.requests[2].reply_format.schema != model.requests[1].reply_format.schema
    assert finished.final_text == "notes.txt has 4 lines."
