"""Calls the constrained policy refuses once, as a question to the model: a change of an existing
test (fix the code instead) and a write that copies a file under its own name (move it with mv).
The same call again goes through, and a refusal is no failed step."""

from __future__ import annotations

from pathlib import Path

from agent.model.scripted import text
from tests.agent.loop_kit import Face, make_agent, results, step

DONE = '"done"'
CALC = "def double(x):\n    return x + 2\n"
TEST = "from calc import double\n\nassert double(4) == 8\n"


def calc_files(ws: Path) -> None:
    (ws / "calc.py").write_text(CALC)
    (ws / "test_calc.py").write_text(TEST)


async def test_a_change_of_an_existing_test_is_refused_once(ws: Path) -> None:
    calc_files(ws)
    replies = [
        step("read", path="test_calc.py"),
        step("edit", path="test_calc.py", old="== 8", new="== 6"),  # refused: a test
        step("read", path="calc.py"),
        step("bash", command="python3 test_calc.py"),  # the test first: how it fails
        step("edit", path="calc.py", old="x + 2", new="x * 2"),
        step("bash", command="python3 test_calc.py"),
        DONE,
        step("answer", text="calc.py doubles now; the test passes."),
    ]
    agent, _ = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    finished = await agent.run_turn("test_calc.py fails; fix it", Face())

    assert results(agent)[1] == (
        "Error: test_calc.py is a test: to make it pass, change the code it tests, not the "
        "test. To change the test itself, send the same call again"
    )
    assert (ws / "test_calc.py").read_text() == TEST
    assert "x * 2" in (ws / "calc.py").read_text()
    # Refused as a question, not failed: the turn is done and the answer stands.
    assert finished.stop_reason == "done" and finished.facts.failed == []
    assert finished.final_text == "calc.py doubles now; the test passes."


async def test_the_same_change_of_a_test_again_goes_through(ws: Path) -> None:
    calc_files(ws)
    change = step("edit", path="test_calc.py", old="== 8", new="== 6")
    run = step("bash", command="python3 test_calc.py")
    replies = [
        step("read", path="test_calc.py"),
        change,
        change,
        run,
        DONE,
        step("answer", text="x"),
    ]
    agent, _ = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn("change the test to expect 6", Face())
    assert "== 6" in (ws / "test_calc.py").read_text()


async def test_a_test_this_session_wrote_is_its_own_to_change(ws: Path) -> None:
    replies = [
        step("write", path="test_a.py", content="assert 1 == 2\n"),
        step("edit", path="test_a.py", old="1 == 2", new="1 == 1"),
        step("bash", command="python3 test_a.py"),
        DONE,
        step("answer", text="x"),
    ]
    agent, _ = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn("write a test", Face())
    assert (ws / "test_a.py").read_text() == "assert 1 == 1\n"


async def test_a_write_copying_a_file_under_its_name_is_told_the_mv_command(ws: Path) -> None:
    (ws / "app.py").write_text("print('app')\n")
    copy = step("write", path="lib/app.py", content="print('app')\n")
    move = step("bash", command="mkdir -p lib && mv app.py lib/app.py")
    replies = [copy, move, DONE, step("answer", text="x")]
    agent, _ = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    finished = await agent.run_turn("put app.py into a new lib folder", Face())

    assert results(agent)[0] == (
        "Error: this write copies app.py, which stays. To move it, run in bash: mkdir -p lib "
        "&& mv app.py lib/app.py. To copy it, send the same write again"
    )
    assert not (ws / "app.py").exists() and (ws / "lib/app.py").read_text() == "print('app')\n"
    assert finished.facts.failed == []


async def test_the_same_copying_write_again_goes_through(ws: Path) -> None:
    (ws / "app.py").write_text("print('app')\n")
    copy = step("write", path="lib/app.py", content="print('app')\n")
    run = step("bash", command="python3 lib/app.py")
    replies = [copy, copy, run, DONE, step("answer", text="x")]
    agent, _ = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn("copy app.py into lib", Face())
    assert (ws / "app.py").is_file() and (ws / "lib/app.py").is_file()


async def test_a_new_file_named_like_a_folder_is_asked_about_once(ws: Path) -> None:
    as_file = step("write", path="docs", content="# Docs\n")
    version = step("write", path="VERSION", content="version 2\n")
    replies = [version, '"continue"', as_file, as_file, DONE, step("answer", text="x")]
    agent, _ = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn("create a folder docs with a file index.md containing # Docs", Face())

    assert results(agent)[1] == (
        "Error: docs has no suffix. For a folder docs with a file in it, write docs/index.md "
        "(the folder is made). To write a file named so, send the same write again"
    )
    # The same write again is meant: it goes through.
    assert (ws / "docs").is_file() and len(results(agent)) == 3
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
    assert "with a file in it, write out/log.txt (the folder" in results(agent)[0]
