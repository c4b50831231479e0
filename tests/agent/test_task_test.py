"""The test a task names, in constrained mode: run before the change (a change before it is
refused with the run to send), and run after it (a run of another file is not the end)."""

from __future__ import annotations

import json
from pathlib import Path

from agent.model.scripted import text
from agent.small.intent import read_intent
from agent.small.task_test import run_of
from tests.agent.loop_kit import Face, arguments_schema, make_agent, offered, results, step

DONE = '"done"'
TASK = "test_calc.py fails; fix calc.py so it passes"
CALC = "def double(x):\n    return x + 2\n"
TEST = "from calc import double\n\nassert double(4) == 8\nprint('ok')\n"
RUN_TEST = {"name": "bash", "arguments": {"command": "python3 test_calc.py"}}


def test_the_test_a_task_names(ws: Path) -> None:
    (ws / "test_calc.py").write_text(TEST)
    assert read_intent(TASK, ws).test == "test_calc.py"
    assert read_intent("test_calc.py schlägt fehl; repariere calc.py", ws).test == "test_calc.py"
    assert read_intent("tests/test_x.py fails; fix x.py", ws).test is None  # no such file


def test_a_file_of_test_functions_runs_under_pytest(ws: Path) -> None:
    (ws / "test_calc.py").write_text("def test_double():\n    assert True\n")
    assert run_of("test_calc.py", ws) == {"command": "python3 -m pytest -q test_calc.py"}
    (ws / "test_calc.py").write_text(TEST)
    assert run_of("test_calc.py", ws) == {"command": "python3 test_calc.py"}


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


async def test_a_pytest_run_is_a_run_of_the_test(ws: Path) -> None:
    """ "make test_parser.py pass": a correct `pytest -q` ran it; no other run is asked for."""
    (ws / "calc.py").write_text(CALC)
    (ws / "test_calc.py").write_text(
        "from calc import double\n\ndef test_d():\n    assert double(4) == 8\n"
    )
    replies = [
        step("bash", command="python3 -m pytest -q"),
        step("read", path="calc.py"),
        step("edit", path="calc.py", old="x + 2", new="x * 2"),
        step("bash", command="python3 -m pytest -q"),
        DONE,
        step("answer", text="Fixed."),
    ]
    agent, _ = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn("make test_calc.py pass", Face())
    assert not any("task's test" in r or "test first" in r for r in results(agent))
