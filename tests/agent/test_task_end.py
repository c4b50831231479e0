"""What the task says its files end as (``agent.small.task_end``), in constrained mode: after a
step that worked, a file that lacks the text the task names, a rename not made, or a key the task
sets still at its old value is said so with the step to send, and the next step is held to it."""

from __future__ import annotations

from pathlib import Path

from agent.facts import TurnFacts
from agent.model.reply import Call
from agent.model.scripted import text
from agent.small.claims import doubts
from agent.small.task_end import TaskEnd
from agent.small.task_values import changed_value
from agent.small.task_words import asked_text
from tests.agent.loop_kit import Face, arguments_schema, make_agent, offered, results, step

DONE = '"done"'


def test_the_text_a_task_names_is_read_to_its_plain_end() -> None:
    task = "Create a file greeting.txt containing exactly: Hello, world"
    assert asked_text(task, "greeting.txt", sure=True) == "Hello, world"
    assert asked_text("make a.txt with the text: 'hi there'; then commit", "a.txt") == "hi there"
    # Unquoted before "and", the text may go on: not sure enough to hold a file to it.
    assert asked_text("make a.txt containing salt and pepper", "a.txt") == "salt"
    assert asked_text("make a.txt containing salt and pepper", "a.txt", sure=True) is None


def test_the_value_a_task_sets_is_the_files_old_one(ws: Path) -> None:
    """ "set port to 9090" names no old value: the file the task names gives it."""
    task = "set port to 9090 in config.ini"
    assert changed_value(task) is None
    (ws / "config.ini").write_text("[server]\nhost = localhost\nport = 8080\n")
    assert changed_value(task, ws) == ("8080", "9090")
    (ws / "settings.toml").write_text("name = 'app'\ndebug = false\n")
    assert changed_value("in settings.toml set debug to true", ws) == ("false", "true")
    assert changed_value("set it to 3 in settings.toml", ws) is None  # no key named so


async def test_a_file_left_without_its_text_is_said_and_the_write_held(ws: Path) -> None:
    """`mkdir out && touch out/log.txt` for a file "saying empty": the 0.5B model chose done."""
    task = "make a directory out and put a file out/log.txt in it saying empty"
    replies = [
        step("bash", command="mkdir out && touch out/log.txt"),
        step("write", path="out/log.txt", content="empty\n"),
        DONE,
        step("answer", text="Made out/log.txt saying empty."),
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


async def test_a_rename_not_made_is_said_once_with_the_mv(ws: Path) -> None:
    (ws / "notes.txt").write_text("first\n")
    mv = "mv notes.txt list.txt"
    replies = [
        step("bash", command="ls"),
        step("bash", command=mv),
        DONE,
        step("answer", text="ok"),
    ]
    agent, model = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn("change the name of the file notes.txt to list.txt", Face())

    assert "[notes.txt is not renamed yet. Send: " in results(agent)[0]
    assert arguments_schema(model.requests[1], "bash")["command"]["const"] == mv
    assert (ws / "list.txt").read_text() == "first\n" and not (ws / "notes.txt").exists()


async def test_a_write_of_the_new_name_is_refused_with_the_mv(ws: Path) -> None:
    """Told to change the name of notes.txt to list.txt, the 0.5B model wrote list.txt anew."""
    (ws / "notes.txt").write_text("first\nsecond\n")
    replies = [
        step("write", path="list.txt", content="1\n2\n"),
        step("bash", command="mv notes.txt list.txt"),
        DONE,
        step("answer", text="Renamed notes.txt to list.txt."),
    ]
    agent, _ = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn("change the name of the file notes.txt to list.txt", Face())

    assert results(agent)[0].startswith("Error: the task renames notes.txt, not its text.")
    assert (ws / "list.txt").read_text() == "first\nsecond\n"


async def test_an_edit_of_another_key_is_refused_where_the_task_sets_one(ws: Path) -> None:
    """ "set port to 9090": the 0.5B model put 9090 in place of the host."""
    (ws / "config.ini").write_text("[server]\nhost = localhost\nport = 8080\n")
    right = step("edit", path="config.ini", old="port = 8080", new="port = 9090")
    replies = [
        step("edit", path="config.ini", old="host = localhost", new="host = 9090"),
        right,
        DONE,
        step("answer", text="The port is 9090 now."),
    ]
    agent, _ = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn("set port to 9090 in config.ini", Face())

    assert results(agent)[0].startswith("Error: old 'host = localhost' does not hold '8080'")
    assert (ws / "config.ini").read_text() == "[server]\nhost = localhost\nport = 9090\n"


async def test_a_question_after_an_append_reads_the_file_next(ws: Path) -> None:
    """Told "take the next step", the 0.5B model sent its append again until the turn stopped."""
    (ws / "notes.txt").write_text("first\nsecond\nthird\n")
    replies = [
        step("bash", command="echo fourth >> notes.txt"),
        step("read", path="notes.txt"),
        step("answer", text="notes.txt has 4 lines."),
    ]
    agent, model = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    task = "append fourth to notes.txt and then tell me how many lines it has"
    finished = await agent.run_turn(task, Face())

    assert offered(model.requests[1]) == {"read"}
    assert arguments_schema(model.requests[1], "read")["path"]["const"] == "notes.txt"
    assert finished.final_text == "notes.txt has 4 lines." and finished.facts.doubts == []


def test_an_answer_in_the_shape_of_beecodes_doubts_is_doubted() -> None:
    said = "The answer says 'three' instead of 'three'."
    assert doubts(said, TurnFacts(), []) == [
        "the answer speaks of an answer, in the words of beecode's checks"
    ]
    assert doubts("The answer is three.", TurnFacts(), []) == []


async def test_a_command_that_breaks_a_named_file_is_not_the_end(ws: Path) -> None:
    """`echo 'debug = true' >> settings.toml` set debug twice; the 0.5B model chose done. (That
    echo is refused now, redirects.keyed_append; a sed that appends the line is not.)"""
    (ws / "settings.toml").write_text("name = 'app'\ndebug = false\n")
    replies = [
        step("bash", command="sed -i '$a debug = true' settings.toml"),
        step("read", path="settings.toml"),
        step("write", path="settings.toml", content="name = 'app'\ndebug = true\n"),
        DONE,
        step("answer", text="debug is now true."),
    ]
    agent, model = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    finished = await agent.run_turn("in settings.toml turn debug on (it is false now)", Face())

    assert "[settings.toml no longer parses: line 3: TOMLError: " in results(agent)[0]
    assert "answer" not in offered(model.requests[1])  # not the done-or-continue choice
    assert (ws / "settings.toml").read_text() == "name = 'app'\ndebug = true\n"
    assert finished.stop_reason == "done" and finished.facts.failed == []


async def test_an_append_that_left_the_line_out_is_said_with_the_whole_file(ws: Path) -> None:
    """For "append the line fourth", the 0.5B model put "4" under a blank line, and chose done."""
    (ws / "notes.txt").write_text("first\nsecond\nthird\n")
    want = "first\nsecond\nthird\nfourth\n"
    replies = [
        step("read", path="notes.txt"),
        step("edit", path="notes.txt", old="third", new="third\n\n4"),
        step("write", path="notes.txt", content=want),
        DONE,
        step("answer", text="Appended fourth to notes.txt."),
    ]
    agent, model = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn("append the line fourth to notes.txt", Face())

    send = step("write", path="notes.txt", content=want)
    assert results(agent)[1].endswith(
        f"[notes.txt is not its text with 'fourth' appended. Send: {send}]"
    )
    assert arguments_schema(model.requests[2], "write")["path"]["const"] == "notes.txt"
    assert (ws / "notes.txt").read_text() == want


async def test_a_write_that_would_undo_the_tasks_end_is_refused(ws: Path) -> None:
    """The 0.5B model appended fourth, read notes.txt, then wrote the read's line numbers, or
    echoed the read onto the file."""
    (ws / "notes.txt").write_text("first\nsecond\nthird\n")
    numbers = step("write", path="notes.txt", content="1\n2\n3\n4\nfourth\n")
    replies = [
        step("bash", command="echo fourth >> notes.txt"),
        step("read", path="notes.txt"),
        numbers,
        numbers,  # sent again, it is refused again: the end stays met
        step("bash", command="echo '1 first 2 second 3 third 4 fourth' >> notes.txt"),
        step("answer", text="notes.txt has 4 lines."),  # set aside once: the last step failed
        step("answer", text="notes.txt has 4 lines."),
    ]
    agent, _ = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    task = "append fourth to notes.txt and then tell me how many lines it has"
    await agent.run_turn(task, Face())

    refused = "Error: notes.txt holds what the task asks now; this write would undo it."
    assert results(agent)[2].startswith(refused) and results(agent)[3].startswith(refused)
    assert results(agent)[4].startswith(refused.replace("write", "bash"))  # the read echoed
    assert (ws / "notes.txt").read_text() == "first\nsecond\nthird\nfourth\n"


def test_a_later_change_the_task_asks_for_is_not_an_undo(ws: Path) -> None:
    (ws / "a.txt").write_text("1\n")
    write = Call(id="1", name="write", arguments={"path": "a.txt", "content": "2\n"})
    assert TaskEnd("create a.txt containing 1, then change it to 2", ws).undoes(write) is None
    assert TaskEnd("create a.txt containing 1, then run ls", ws).undoes(write) == (
        "a.txt holds what the task asks now; this write would undo it. Take the next step, or "
        "answer"
    )
    # Nor is its text said to be missing once the later change is made.
    (ws / "a.txt").write_text("2\n")
    assert TaskEnd("create a.txt containing 1, then change it to 2", ws).left() == ("", None)


async def test_a_command_deleting_a_file_the_task_only_changes_is_refused(ws: Path) -> None:
    """Told to remove the second line of notes.txt, the 0.5B model ran `rm notes.txt`, and the
    turn answered "The task was completed successfully."."""
    (ws / "notes.txt").write_text("first\nsecond\nthird\n")
    replies = [
        step("bash", command="rm notes.txt"),
        step("bash", command="cd . && rm -f ./notes.txt"),  # sent again, in another form
        step("edit", path="notes.txt", old="second\n", new=""),
        DONE,
        step("answer", text="Removed the line second."),
    ]
    agent, _ = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn("remove the second line of notes.txt", Face())

    refused = "Error: the task does not ask to delete notes.txt; change its lines with edit"
    assert results(agent)[0].startswith(refused) and results(agent)[1].startswith(refused)
    assert (ws / "notes.txt").read_text() == "first\nthird\n"


def test_a_file_the_task_deletes_renames_or_moves_may_go(ws: Path) -> None:
    (ws / "notes.txt").write_text("first\n")
    rm = Call(id="1", name="bash", arguments={"command": "git rm -q notes.txt"})
    for task in (
        "delete notes.txt",
        "remove the file notes.txt",
        "rename notes.txt to todo.txt",
        "put notes.txt into a new old folder",
    ):
        assert TaskEnd(task, ws).undoes(rm) is None, task
    assert TaskEnd("add a line to notes.txt", ws).undoes(rm) is not None
    assert TaskEnd("remove the line first from a.txt", ws).undoes(rm) is None  # not named
