"""A file the task runs, held to its run (``agent.small.task_run``)."""

from __future__ import annotations

from pathlib import Path

from agent.model.reply import Call
from agent.model.scripted import text
from agent.small.task_run import RunLeft
from tests.agent.loop_kit import Face, make_agent, results, step

TASK = "create hello.sh that echoes hi, make it executable and run it"


def bash(command: str) -> Call:
    return Call(id="1", name="bash", arguments={"command": command})


def test_the_file_a_task_runs_is_read_from_its_words() -> None:
    assert RunLeft(TASK, ["hello.sh"]).name == "hello.sh"
    assert RunLeft("write hi.py printing hi and execute it", ["hi.py"]).name == "hi.py"
    assert RunLeft("make a.py, then run b.py", ["a.py", "b.py"]).name == "b.py"
    assert RunLeft("run echo $((3+4)) and tell me the output", []).name == ""
    assert RunLeft("create notes.txt, then run it", ["notes.txt"]).name == ""  # runs nothing


def test_a_file_not_run_yet_is_said_with_the_run_to_send(tmp_path: Path) -> None:
    run = RunLeft("create hi.py printing hi, then run it", ["hi.py"])
    assert run.left(tmp_path) is None  # not written yet: nothing to run
    (tmp_path / "hi.py").write_text("print('hi')\n")
    run.saw(bash("cat hi.py && chmod +x ./hi.py"))  # reads and changes it: no run
    note, held = run.left(tmp_path) or ("", None)
    assert note.startswith("\n[hi.py has not run yet; the task runs it. Send: ")
    assert held == ("bash", {"command": "python3 hi.py"})
    run.saw(bash("cd . && python3 ./hi.py"))
    assert run.left(tmp_path) is None


def test_a_file_the_task_makes_executable_is_run_once_it_is(tmp_path: Path) -> None:
    run = RunLeft(TASK, ["hello.sh"])
    (tmp_path / "hello.sh").write_text("echo hi\n")
    chmod = run.left(tmp_path)  # the chmod comes first
    assert chmod is not None and chmod[1] == ("bash", {"command": "chmod +x hello.sh"})
    assert chmod[0].startswith("\n[hello.sh is not executable yet; the task makes it so.")
    (tmp_path / "hello.sh").chmod(0o755)
    assert run.left(tmp_path) == (
        "\n[hello.sh has not run yet; the task runs it. Send: "
        '{"name": "bash", "arguments": {"command": "./hello.sh"}}]',
        ("bash", {"command": "./hello.sh"}),
    )


async def test_a_turn_that_skips_the_run_is_held_to_it(ws: Path) -> None:
    """multi-4: the 0.5B model ran chmod first, wrote hello.sh, ran chmod again and answered."""
    replies = [
        step("bash", command="chmod +x hello.sh"),  # fails: not written yet
        step("write", path="hello.sh", content="echo hi\n"),
        step("bash", command="chmod +x hello.sh"),  # sent again, now the file exists
        step("bash", command="./hello.sh"),  # the run the note asks for
        '"done"',
        step("answer", text="Created hello.sh; running it printed hi."),
    ]
    agent, _ = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn(TASK, Face())

    assert "hello.sh has not run yet" in results(agent)[2]
    assert results(agent)[3] == "hi\n[exit code 0]"
    assert agent.messages[-1]["content"] == "Created hello.sh; running it printed hi."
