"""The test a task names, in constrained mode: run before the change (a change before it is
refused with the run to send), and run after it (a run of another file is not the end)."""

from __future__ import annotations

import json
from pathlib import Path

from agent.model.scripted import text
from agent.small.task_test import fixed_file, named_test
from tests.agent.loop_kit import Face, arguments_schema, make_agent, offered, results, step

DONE = '"done"'
TASK = "test_calc.py fails; fix calc.py so it passes"
CALC = "def double(x):\n    return x + 2\n"
TEST = "from calc import double\n\nassert double(4) == 8\nprint('ok')\n"
RUN_TEST = {"name": "bash", "arguments": {"command": "python3 test_calc.py"}}


def test_the_test_a_task_names(ws: Path) -> None:
    (ws / "test_calc.py").write_text(TEST)
    assert named_test(TASK, ws) == "test_calc.py"
    assert named_test("make python3 test_calc.py pass by fixing calc.py", ws) == "test_calc.py"
    assert named_test("read test_calc.py", ws) is None  # not said to fail or pass
    assert named_test("tests/test_x.py fails; fix x.py", ws) is None  # no such file


async def test_the_test_runs_before_the_change_and_after_it(ws: Path) -> None:
    """The 0.5B model edited calc.py blind, ran calc.py, and chose done."""
    (ws / "calc.py").write_text(CALC)
    (ws / "test_calc.py").write_text(TEST)
    fix = step("edit", path="calc.py", old="x + 2", new="x * 2")
    replies = [
        fix,
        step("bash", command="python3 test_calc.py"),
        fix,
        step("bash", command="python3 calc.py"),
        step("bash", command="python3 test_calc.py"),
        DONE,
        step("answer", text="test_calc.py passes now."),
    ]
    agent, model = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    finished = await agent.run_turn(TASK, Face())

    told = results(agent)
    assert told[0] == (
        f"Error: run the test first, to see how it fails. Send: {json.dumps(RUN_TEST)}. "
        "Fix the call and try again."
    )
    assert offered(model.requests[1]) == {"bash"}
    assert arguments_schema(model.requests[1], "bash")["command"]["const"] == "python3 test_calc.py"
    assert "AssertionError" in told[1]
    again = f"[This did not run the task's test. Send: {json.dumps(RUN_TEST)}]"
    assert told[3] == f"(no output)\n[exit code 0]\n{again}"
    assert told[4] == "ok\n[exit code 0]"
    assert finished.final_text == "test_calc.py passes now."


async def test_a_task_without_a_test_is_not_held(ws: Path) -> None:
    (ws / "calc.py").write_text(CALC)
    replies = [
        step("edit", path="calc.py", old="x + 2", new="x * 2"),
        step("bash", command="python3 calc.py"),
        DONE,
        step("answer", text="Fixed."),
    ]
    agent, _ = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn("fix calc.py so double doubles", Face())
    assert results(agent)[0].startswith("edited calc.py")
    assert "test" not in results(agent)[1]


def test_the_file_a_task_says_to_fix(ws: Path) -> None:
    (ws / "calc.py").write_text(CALC)
    assert fixed_file(TASK, "test_calc.py", ws) == "calc.py"
    wording = "make python3 test_calc.py pass by fixing the bug in calc.py"
    assert fixed_file(wording, "test_calc.py", ws) == "calc.py"
    assert fixed_file("make test_calc.py pass", "test_calc.py", ws) is None  # no file to fix
    assert fixed_file("fix app.py", None, ws) is None  # not in the workspace


async def test_a_change_of_the_test_is_refused_where_the_task_names_the_file_to_fix(
    ws: Path,
) -> None:
    """The 0.5B model changed `double(4)` to `double(8)` in test_calc.py, twice."""
    (ws / "calc.py").write_text(CALC)
    (ws / "test_calc.py").write_text(TEST)
    replies = [
        json.dumps(RUN_TEST),
        step("edit", path="test_calc.py", old="double(4)", new="double(8)"),
        step("edit", path="calc.py", old="x + 2", new="x * 2"),
        json.dumps(RUN_TEST),
        DONE,
        step("answer", text="test_calc.py passes now."),
    ]
    agent, model = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    finished = await agent.run_turn(TASK, Face())

    assert results(agent)[1] == (
        "Error: test_calc.py is the test; the task says to fix calc.py: edit calc.py. "
        "Fix the call and try again."
    )
    assert offered(model.requests[2]) == {"edit"}
    assert arguments_schema(model.requests[2], "edit")["path"]["const"] == "calc.py"
    assert (ws / "test_calc.py").read_text() == TEST
    assert finished.final_text == "test_calc.py passes now." and finished.facts.doubts == []
