"""A turn's facts: what it created, changed and deleted (also by commands, from its checkpoint),
each command with its exit status, the failed steps it did not recover; the stop reason after
an unrecovered failure."""

from __future__ import annotations

from pathlib import Path

from agent.events import TurnFinished
from agent.facts import CommandRun
from agent.loop.record import FactsRecorder
from agent.model.reply import Call
from agent.model.scripted import Step, call, text
from tests.agent.loop_kit import Face, make_agent
from tools.tool import ToolResult


async def test_files_a_command_made_count_beside_the_tools_changes(ws: Path) -> None:
    (ws / "old.txt").write_text("old\n")
    (ws / "keep.txt").write_text("keep\n")
    agent, _ = make_agent(
        ws,
        [
            call("write", {"path": "new.py", "content": "print(5)\n"}),
            call("bash", {"command": "rm old.txt && echo more >> keep.txt && python3 new.py"}),
            text("Done."),
        ],
    )
    face = Face()
    finished = await agent.run_turn("go", face)

    facts = finished.facts
    assert (facts.created, facts.changed, facts.deleted) == (["new.py"], ["keep.txt"], ["old.txt"])
    assert facts.commands == [
        CommandRun("rm old.txt && echo more >> keep.txt && python3 new.py", 0, "5\n[exit code 0]")
    ]
    assert facts.failed == [] and facts.doubts == []
    assert finished.stop_reason == "done"
    assert face.of(TurnFinished) == [finished]
    assert facts.lines() == [
        "created new.py",
        "changed keep.txt",
        "deleted old.txt",
        "ran `rm old.txt && echo more >> keep.txt && python3 new.py` (exit 0)",
    ]


async def test_a_turn_that_only_reads_has_no_facts_to_show(ws: Path) -> None:
    (ws / "a.txt").write_text("a\n")
    agent, _ = make_agent(ws, [call("read", {"path": "missing.txt"}), text("It is not there.")])
    finished = await agent.run_turn("read missing.txt", Face())

    assert finished.facts.lines() == []
    assert finished.stop_reason == "done"


def failed_edit(ws: Path) -> list[list[Step]]:
    """config.py read, then an edit of it whose old text is not there."""
    (ws / "config.py").write_text("debug = False\n")
    return [
        call("read", {"path": "config.py"}),
        call("edit", {"path": "config.py", "old": "debug = no", "new": "debug = True"}),
    ]


async def test_a_failed_edit_not_recovered_ends_the_turn_as_failed(ws: Path) -> None:
    run_it = call("bash", {"command": "python3 config.py"})
    agent, _ = make_agent(ws, [*failed_edit(ws), run_it, text("I could not find the text.")])
    finished = await agent.run_turn("set debug to True", Face())

    assert finished.stop_reason == "failed"
    assert len(finished.facts.failed) == 1
    assert finished.facts.failed[0].startswith("edit config.py: ")
    assert finished.facts.changed == [] and finished.facts.doubts == []
    assert finished.facts.commands[0].exit_code == 0


async def test_a_failed_edit_redone_by_a_write_of_the_file_is_recovered(ws: Path) -> None:
    write = call("write", {"path": "config.py", "content": "debug = True\n"})
    agent, _ = make_agent(ws, [*failed_edit(ws), write, text("debug is True now.")])
    finished = await agent.run_turn("set debug to True", Face())

    assert (finished.stop_reason, finished.facts.failed) == ("done", [])
    assert finished.facts.doubts == []


async def test_a_failed_edit_of_a_file_then_moved_away_is_no_failure(ws: Path) -> None:
    (ws / "notes.txt").write_text("first\n")
    rename = call("edit", {"path": "notes.txt", "old": "notes.txt", "new": "todo.txt"})
    read = call("read", {"path": "notes.txt"})
    move = call("bash", {"command": "mv notes.txt todo.txt"})
    agent, _ = make_agent(ws, [read, rename, move, text("Renamed it.")])
    finished = await agent.run_turn("rename notes.txt to todo.txt", Face())

    facts = finished.facts
    assert (facts.created, facts.deleted, facts.failed) == (["todo.txt"], ["notes.txt"], [])
    assert finished.stop_reason == "done"


async def test_a_failed_run_fixed_and_run_again_is_recovered(ws: Path) -> None:
    (ws / "b.py").write_text("print(1\n")
    agent, _ = make_agent(
        ws,
        [
            call("bash", {"command": "python3 b.py"}),
            call("write", {"path": "b.py", "content": "print(1)\n"}),
            call("bash", {"command": "python3 b.py"}),
            text("Fixed b.py; it prints 1."),
        ],
    )
    finished = await agent.run_turn("fix b.py", Face())

    assert finished.stop_reason == "done"
    assert finished.facts.failed == [] and finished.facts.doubts == []
    assert [run.exit_code for run in finished.facts.commands] == [1, 0]
    assert finished.facts.changed == ["b.py"]


async def test_an_edit_sent_again_that_finds_its_own_result_is_no_failure(ws: Path) -> None:
    (ws / "u.py").write_text("def foo():\n    return 6\n\n\nprint(foo())\n")
    rename = call("edit", {"path": "u.py", "old": "foo", "new": "bar", "replace_all": True})
    run_it = call("bash", {"command": "python3 u.py"})
    agent, _ = make_agent(ws, [rename, rename, run_it, text("Renamed foo to bar.")])
    finished = await agent.run_turn("rename foo to bar in u.py", Face())

    # The second edit failed only because the first had made the change: the task is done.
    assert (finished.stop_reason, finished.facts.failed) == ("done", [])
    agent, _ = make_agent(ws, [rename, text("Renamed.")])
    finished = await agent.run_turn("rename foo to bar in u.py", Face())
    # Found made, but not by this turn: it may be swapped, so it stays a failure.
    assert finished.stop_reason == "failed" and "new is there already" in finished.facts.failed[0]


async def test_a_cancelled_or_stopped_turn_still_has_its_facts(ws: Path) -> None:
    agent, _ = make_agent(
        ws,
        [call("bash", {"command": "touch t.txt"})] * 3,
        max_steps=2,
    )
    finished = await agent.run_turn("go", Face())

    assert finished.stop_reason in ("max_steps", "tool_failures")
    assert finished.facts.created == ["t.txt"]
    assert finished.facts.doubts == []  # the stop message is beecode's, not a claim


async def test_a_write_that_sets_a_key_twice_is_a_failed_step_while_the_file_stays_so(
    ws: Path,
) -> None:
    (ws / "config.ini").write_text("[server]\nport = 8080\n")
    twice = call("write", {"path": "config.ini", "content": "[server]\nport = 8080\nport = 9090\n"})
    agent, _ = make_agent(ws, [twice, text("The port is set to 9090.")])
    finished = await agent.run_turn("set port to 9090 in config.ini", Face())

    assert finished.stop_reason == "failed"
    assert finished.facts.failed == [
        "write config.ini left it broken: line 3: option 'port' in section 'server' is set twice"
    ]


async def test_a_command_that_leaves_a_file_unparsable_is_a_failed_step(ws: Path) -> None:
    """The 0.5B model appended `debug = true` under `debug = false` and said debug was on."""
    (ws / "settings.toml").write_text("name = 'app'\ndebug = false\n")
    append = call("bash", {"command": "echo 'debug = true' >> settings.toml"})
    agent, _ = make_agent(ws, [append, text("Debug mode is enabled in settings.toml.")])
    finished = await agent.run_turn("in settings.toml turn debug on", Face())

    assert finished.stop_reason == "failed"
    assert finished.facts.changed == ["settings.toml"]
    assert len(finished.facts.failed) == 1
    assert finished.facts.failed[0].startswith("settings.toml was left unparsable: line 3")


async def test_a_file_broken_before_the_turn_is_not_the_turns_failure(ws: Path) -> None:
    (ws / "settings.toml").write_text("debug = false\ndebug = true\n")
    append = call("bash", {"command": "echo 'name = 1' >> settings.toml"})
    agent, _ = make_agent(ws, [append, text("Added name.")])
    finished = await agent.run_turn("add name = 1 to settings.toml", Face())

    assert (finished.stop_reason, finished.facts.failed) == ("done", [])


async def test_a_broken_file_a_command_mends_is_no_failure(ws: Path) -> None:
    (ws / "settings.toml").write_text("debug = false\n")
    twice = call(
        "edit",
        {"path": "settings.toml", "old": "debug = false", "new": "debug = false\ndebug = true"},
    )
    mend = call("bash", {"command": "sed -i '1d' settings.toml"})
    look = call("read", {"path": "settings.toml"})
    agent, _ = make_agent(ws, [look, twice, mend, text("debug is now true.")])
    finished = await agent.run_turn("set debug to true", Face())

    assert (finished.stop_reason, finished.facts.failed) == ("done", [])
    assert (ws / "settings.toml").read_text() == "debug = true\n"


def test_a_refused_commands_words_are_beecodes_not_the_programs(ws: Path) -> None:
    """The 0.5B model's answer was the refusal of its echo of the task, copied whole."""
    seen = FactsRecorder(ws)
    refused = ToolResult("Error: this repeats the task's words: run echo fourth", is_error=True)
    seen.observe(Call("1", "bash", {"command": "echo 'append fourth'"}), "run", refused)
    failed = ToolResult("ls: cannot access 'x'", is_error=True, meta={"exit_code": 2})
    seen.observe(Call("2", "bash", {"command": "ls x"}), "run", failed)
    assert refused.output in seen.told and failed.output not in seen.told
