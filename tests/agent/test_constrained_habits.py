"""The habits the constrained policy keeps for small models: failing tools taken away, answers
set aside until a change is checked, whole-file rewrites sent twice."""

from __future__ import annotations

import json
from pathlib import Path

from agent.loop.agent import Agent
from agent.loop.repeats import REPEAT_NOTE
from agent.model.scripted import ScriptedModel, text
from agent.small.habits import FIX_NOTE, WRITTEN_NOTE, TurnWatch
from tests.agent.loop_kit import Face, make_agent, offered, results
from tools.registry import ToolRegistry, default_registry

FAIL = '{"name": "bash", "arguments": {"command": "python3 broken.py"}}'
FIXED = '{"name": "answer", "arguments": {"text": "Fixed."}}'
DONE = '"done"'  # the choice after a step that may have finished the task


async def fix_broken(ws: Path, *middle: str) -> tuple[Agent, ScriptedModel]:
    """A turn on a broken script: the run fails twice, ``middle`` steps, a run, the choice
    (done), the answer."""
    (ws / "broken.py").write_text("print(1 + x)\n")  # a NameError: no syntax error's line to give
    replies = [text(s) for s in (FAIL, FAIL, *middle, FAIL, DONE, FIXED)]
    agent, model = make_agent(ws, replies, tool_mode="constrained")
    assert (await agent.run_turn("fix broken.py", Face())).final_text == "Fixed."
    return agent, model


async def test_a_call_failing_twice_takes_its_tool_away_until_a_file_changes(ws: Path) -> None:
    read = '{"name": "read", "arguments": {"path": "broken.py"}}'
    fix = '{"name": "edit", "arguments": {"path": "broken.py", "old": "1 + x", "new": "1"}}'
    agent, model = await fix_broken(ws, read, fix)

    steps = [offered(r) for r in model.requests if r.reply_format.name == "step"]
    assert "bash" in steps[1]
    assert "bash" not in steps[2] and "bash" not in steps[3]
    assert {"read", "edit", "answer"} <= steps[2]  # only the failing tool is taken away
    assert "bash" in steps[4]  # the edit changed the file
    assert model.requests[2].tools == model.requests[0].tools  # the prompt prefix is unchanged
    said = results(agent)
    assert said[1].endswith(REPEAT_NOTE) and said[-1].startswith("1")


async def test_an_answer_while_a_call_keeps_failing_is_set_aside_once(ws: Path) -> None:
    give_up = '{"name": "answer", "arguments": {"text": "It is broken."}}'
    fix = '{"name": "write", "arguments": {"path": "broken.py", "content": "print(1)\\n"}}'
    agent, model = await fix_broken(ws, give_up, fix)

    assert (ws / "broken.py").read_text() == "print(1)\n"
    step = offered(model.requests[3])
    assert "answer" not in step and "bash" not in step and "write" in step
    assert "It is broken." not in [m.get("content") for m in agent.messages]


async def test_a_step_with_every_tool_banned_may_still_answer(ws: Path) -> None:
    registry = ToolRegistry()
    bash = default_registry().get("bash")
    assert bash is not None
    registry.add(bash)
    fail = '{"name": "bash", "arguments": {"command": "exit 3"}}'
    give_up = '{"name": "answer", "arguments": {"text": "It fails."}}'
    replies = [text(fail), text(fail), text(give_up), text(give_up)]
    agent, model = make_agent(ws, replies, registry=registry, tool_mode="constrained")
    finished = await agent.run_turn("run it", Face())

    # The answer was set aside for a tool step, but the failing bash is the only tool: an
    # empty schema (no grammar at all) would have gone to the server.
    assert offered(model.requests[3]) == {"answer"}
    assert finished.final_text == "It fails."


async def test_a_write_keeping_none_of_a_files_lines_must_be_sent_twice(ws: Path) -> None:
    (ws / "m.py").write_text("def add(a, b):\n    return a + b\n")
    only_new = (
        '{"name": "write", "arguments": {"path": "m.py", "content": '
        '"def mul(a, b):\\n    return a * b\\n"}}'
    )
    both = (
        '{"name": "write", "arguments": {"path": "m.py", "content": '
        '"def add(a, b):\\n    return a + b\\n\\n\\ndef mul(a, b):\\n    return a * b\\n"}}'
    )
    done = '{"name": "answer", "arguments": {"text": "Added mul."}}'
    agent, model = make_agent(
        ws, [text(only_new), text(both), text(done), text(done)], tool_mode="constrained"
    )
    await agent.run_turn("add mul to m.py", Face())

    assert "would replace all of m.py" in results(agent)[0]
    # The refusal holds the content that keeps the file's lines, for the model to copy.
    kept = "def add(a, b):\n    return a + b\n\ndef mul(a, b):\n    return a * b\n"
    step = json.dumps({"name": "write", "arguments": {"path": "m.py", "content": kept}})
    assert results(agent)[0].startswith("Error: this write would replace all of m.py")
    assert f"To add to the file, send: {step}" in results(agent)[0]
    assert "send the same write again" in results(agent)[0]  # replacing it all may be meant
    assert "def add" in (ws / "m.py").read_text() and "def mul" in (ws / "m.py").read_text()


async def test_the_same_clobbering_write_again_goes_through(ws: Path) -> None:
    (ws / "notes.txt").write_text("old\nnotes\n")
    new = '{"name": "write", "arguments": {"path": "notes.txt", "content": "new\\n"}}'
    done = '{"name": "answer", "arguments": {"text": "Replaced."}}'
    agent, _ = make_agent(
        ws, [text(new), text(new), text(done), text(done)], tool_mode="constrained"
    )
    await agent.run_turn("replace notes.txt with new", Face())
    said = results(agent)
    assert "would replace all of notes.txt" in said[0]
    assert not said[1].startswith("Error")
    assert (ws / "notes.txt").read_text() == "new\n"


async def test_the_same_write_twice_asks_for_a_check_instead_of_ending(ws: Path) -> None:
    write = '{"name": "write", "arguments": {"path": "hello.py", "content": "print(1)"}}'
    run = '{"name": "bash", "arguments": {"command": "python3 hello.py"}}'
    done = '{"name": "answer", "arguments": {"text": "It prints 1."}}'
    agent, model = make_agent(
        ws, [text(write), text(write), text(run), text(DONE), text(done)], tool_mode="constrained"
    )
    finished = await agent.run_turn("create hello.py printing 1, then run it", Face())

    assert finished.final_text == "It prints 1."
    said = results(agent)
    assert said[1].endswith(WRITTEN_NOTE) and said[2].startswith("1")
    step = offered(model.requests[2])
    assert {"write", "edit"}.isdisjoint(step) and "bash" in step


async def test_a_changed_config_file_is_not_run_its_edit_is_the_check(ws: Path) -> None:
    (ws / "app.ini").write_text("port = 8080\n")
    read = '{"name": "read", "arguments": {"path": "app.ini"}}'
    change = '{"name": "edit", "arguments": {"path": "app.ini", "old": "8080", "new": "9090"}}'
    done = '{"name": "answer", "arguments": {"text": "Set."}}'
    agent, model = make_agent(
        ws, [text(read), text(change), text(DONE), text(done)], tool_mode="constrained"
    )
    finished = await agent.run_turn("set the port in app.ini to 9090", Face())

    # Told to run a config file it had changed rightly, the 0.5B model ran `python3 config.ini`
    # and undid the change: the edit's result is the check, so the next request is the choice.
    assert model.requests[2].reply_format.name == "choice"
    assert finished.final_text == "Set." and (ws / "app.ini").read_text() == "port = 9090\n"


def test_asking_whether_an_answer_waits_changes_nothing() -> None:
    watch = TurnWatch()
    watch.unchecked_edit, watch.failing = True, frozenset({"bash"})
    assert watch.answer_waits() and watch.answer_waits()
    watch.set_answer_aside()  # for the unchecked change
    assert watch.answer_waits()  # the failing call still sets one aside
    watch.set_answer_aside()
    assert not watch.answer_waits()


async def test_a_changes_result_fed_back_as_input_ends_the_turn_with_the_report(ws: Path) -> None:
    write = '{"name": "write", "arguments": {"path": "notes.txt", "content": "buy milk\\n"}}'
    echo = '{"name": "bash", "arguments": {"command": "echo \\"created notes.txt (1 line)\\""}}'
    said = '{"name": "answer", "arguments": {"text": "notes.txt holds buy milk."}}'
    replies = [text(write), text('"continue"'), text(echo), text(said)]
    agent, model = make_agent(ws, replies, tool_mode="constrained")
    finished = await agent.run_turn("create notes.txt containing buy milk", Face())

    assert finished.final_text == "notes.txt holds buy milk."
    assert offered(model.requests[3]) == {"answer"}  # the report, right after the near-repeat
    assert (ws / "notes.txt").read_text() == "buy milk\n"


async def test_calls_each_a_small_variation_of_the_last_end_the_turn_with_the_report(
    ws: Path,
) -> None:
    def echo(words: str) -> str:
        return '{"name": "bash", "arguments": {"command": "echo ' + words + '"}}'

    failing = '{"name": "bash", "arguments": {"command": "cat nothing.txt"}}'
    retry = '{"name": "bash", "arguments": {"command": "cat nothing2.txt"}}'
    said = '{"name": "answer", "arguments": {"text": "Said hi; the cat failed."}}'
    go_on = '"continue"'
    replies = [failing, retry, echo("hi"), go_on, echo("hi!"), go_on, echo("hi!!"), said]
    agent, model = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    finished = await agent.run_turn("say hi", Face())

    # The retry of the failing cat is no repeat; the third echo in a row is one.
    assert finished.final_text == "Said hi; the cat failed."
    assert len(results(agent)) == 5
    assert offered(model.requests[-1]) == {"answer"}
    assert model.requests[-1].reply_format.name == "step"


async def test_writing_a_text_file_leads_straight_to_the_choice(ws: Path) -> None:
    """The issue's notes.txt: done by the first call, then set aside for more steps, the model
    looped and wrote a tool result over the file. A text file's write is its own check."""
    write = '{"name": "write", "arguments": {"path": "notes.txt", "content": "buy milk\\n"}}'
    said = '{"name": "answer", "arguments": {"text": "notes.txt holds buy milk."}}'
    agent, model = make_agent(ws, [text(write), text(DONE), text(said)], tool_mode="constrained")
    finished = await agent.run_turn("create notes.txt containing buy milk", Face())

    assert [r.reply_format.name for r in model.requests] == ["step", "choice", "step"]
    assert finished.final_text == "notes.txt holds buy milk."
    assert (ws / "notes.txt").read_text() == "buy milk\n"


async def test_a_look_repeated_while_a_failure_waits_for_its_fix_asks_for_the_fix(
    ws: Path,
) -> None:
    """Told to fix a syntax error, the 0.5B model ran the file twice, read it twice and stopped
    as if done: the second read means it is stuck, not finished."""
    read = '{"name": "read", "arguments": {"path": "broken.py"}}'
    fix = '{"name": "edit", "arguments": {"path": "broken.py", "old": "1 + x", "new": "1"}}'
    agent, model = await fix_broken(ws, read, read, fix)

    said = results(agent)
    assert said[3].endswith(FIX_NOTE)
    step = offered(model.requests[4])
    assert "read" not in step and "bash" not in step and "edit" in step
    assert (ws / "broken.py").read_text() == "print(1)\n"
