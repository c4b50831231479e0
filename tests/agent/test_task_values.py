"""The value a task changes ("from 8080 to 9090"), held against the calls that change it, in
constrained mode: an edit of the wrong line is refused with the edit to send, and a step that left
the old value in place is not taken for the end of the task."""

from __future__ import annotations

from pathlib import Path

from agent.model.scripted import text
from agent.small.task_values import changed_value
from tests.agent.loop_kit import Face, arguments_schema, make_agent, offered, results, step

DONE = '"done"'
TASK = "In config.ini change the port from 8080 to 9090"
CONFIG = "[server]\nhost = localhost\nport = 8080\n"


def test_the_values_a_task_names() -> None:
    assert changed_value(TASK) == ("8080", "9090")
    assert changed_value("replace 'foo' with \"bar\" in a.py") == ("foo", "bar")
    assert changed_value("set the version from 1.5 to 2.0. Then commit") == ("1.5", "2.0")
    assert changed_value("copy it from a.txt to b.txt") == ("a.txt", "b.txt")
    assert changed_value("change the port to 9090") is None
    assert changed_value("from 1 to 1") is None


def test_a_switch_a_task_turns_takes_the_words_of_its_file(tmp_path: Path) -> None:
    """config-3: "turn debug on (it is false now)"; on and off in the file's own words."""
    (tmp_path / "a.toml").write_text("name = 'app'\ndebug = false\n")
    (tmp_path / "b.py").write_text("VERBOSE = True\ncache = 'on'\n")
    assert changed_value("in a.toml turn debug on (it is false now)", tmp_path) == (
        "false",
        "true",
    )
    assert changed_value("switch VERBOSE off in b.py", tmp_path) == ("True", "False")
    assert changed_value("disable the cache in b.py", tmp_path) == ("on", "off")
    assert changed_value("enable the cache in b.py", tmp_path) is None  # on already
    assert changed_value("turn name on in a.toml", tmp_path) is None  # 'app' is no switch


async def test_an_edit_of_the_wrong_line_is_refused_with_the_right_one(ws: Path) -> None:
    """The 0.5B model put 9090 in place of the host's value, one line above the port."""
    (ws / "config.ini").write_text(CONFIG)
    right = step("edit", path="config.ini", old="port = 8080", new="port = 9090")
    replies = [
        step("read", path="config.ini"),
        step("edit", path="config.ini", old="host = localhost", new="host = 9090"),
        right,
        DONE,
        step("answer", text="The port is 9090 now."),
    ]
    agent, model = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    finished = await agent.run_turn(TASK, Face())

    # Asked once, the 0.5B model sent the same edit again: the next step's grammar holds old.
    assert offered(model.requests[2]) == {"edit"}
    held = arguments_schema(model.requests[2], "edit")
    assert held["path"]["const"] == "config.ini" and held["old"]["const"] == "port = 8080"
    assert "const" not in held["new"]
    assert results(agent)[1] == (
        f"Error: old 'host = localhost' does not hold '8080', which the task changes. Send: "
        f"{right}. Fix the call and try again."
    )
    assert (ws / "config.ini").read_text() == CONFIG.replace("8080", "9090")
    assert finished.stop_reason == "done" and finished.facts.doubts == []


async def test_a_step_that_left_the_old_value_says_so_and_is_not_the_end(ws: Path) -> None:
    """A sed whose spacing matched nothing exits 0: no choice of done follows, the note gives
    the edit, and the model's copy of it is not refused as beecode's words."""
    (ws / "config.ini").write_text(CONFIG)
    right = step("edit", path="config.ini", old="port = 8080", new="port = 9090")
    replies = [
        step("bash", command="sed -i 's/port=8080/port=9090/' config.ini"),
        right,
        DONE,
        step("answer", text="The port is 9090 now."),
    ]
    agent, model = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    finished = await agent.run_turn(TASK, Face())

    assert results(agent)[0].endswith(
        f"[exit code 0]\n[config.ini still holds '8080', not '9090'. Send: {right}]"
    )
    # Not the done-or-continue choice: the edit, its path and old held (told once, the 0.5B
    # model ran the same sed again).
    assert offered(model.requests[1]) == {"edit"}
    assert arguments_schema(model.requests[1], "edit")["old"]["const"] == "port = 8080"
    assert (ws / "config.ini").read_text() == CONFIG.replace("8080", "9090")
    assert finished.stop_reason == "done"


async def test_an_edit_in_a_task_that_renames_the_file_is_refused_with_the_mv(ws: Path) -> None:
    """Told to rename notes.txt to todo.txt, the 0.5B model edited the first line to "todo"."""
    (ws / "notes.txt").write_text("first\nsecond\n")
    mv = "mv notes.txt todo.txt"
    replies = [
        step("edit", path="notes.txt", old="first", new="todo", replace_all=True),
        step("bash", command=mv),
        DONE,
        step("answer", text="Renamed notes.txt to todo.txt."),
    ]
    agent, model = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn("rename notes.txt to todo.txt", Face())

    assert results(agent)[0] == (
        'Error: the task renames notes.txt, not its text. Send: {"name": "bash", "arguments": '
        '{"command": "mv notes.txt todo.txt"}}. Fix the call and try again.'
    )
    assert offered(model.requests[1]) == {"bash"}
    assert arguments_schema(model.requests[1], "bash")["command"]["const"] == mv
    assert (ws / "todo.txt").read_text() == "first\nsecond\n" and not (ws / "notes.txt").exists()


async def test_an_edit_of_the_key_without_its_value_is_refused_with_the_edit(ws: Path) -> None:
    """config-3: told to turn debug on, the 0.5B model replaced the key itself, "debug", with
    "False" in every place: the line's key, not its value. Refused, with the edit that sets it."""
    (ws / "settings.toml").write_text("name = 'app'\ndebug = false\n")
    right = step("edit", path="settings.toml", old="debug = false", new="debug = true")
    replies = [
        step("edit", path="settings.toml", old="debug", new="False", replace_all=True),
        right,
        DONE,
        step("answer", text="debug is true now."),
    ]
    agent, model = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn("in settings.toml turn debug on (it is false now)", Face())

    assert results(agent)[0] == (
        f"Error: old 'debug' does not hold 'false', which the task changes. Send: {right}. "
        "Fix the call and try again."
    )
    assert arguments_schema(model.requests[1], "edit")["old"]["const"] == "debug = false"
    assert (ws / "settings.toml").read_text() == "name = 'app'\ndebug = true\n"


async def test_an_edit_of_another_line_that_keeps_the_value_is_not_this_refusal(ws: Path) -> None:
    """An edit elsewhere in the file (not the value's line, not the new value) is the model's
    own business: the task may ask for more than the value."""
    (ws / "config.ini").write_text(CONFIG)
    replies = [
        step("edit", path="config.ini", old="host = localhost", new="host = example.org"),
        '"continue"',
        step("edit", path="config.ini", old="port = 8080", new="port = 9090"),
        DONE,
        step("answer", text="Done."),
    ]
    agent, _ = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn(TASK + " and the host to example.org", Face())

    assert not results(agent)[0].startswith("Error")
    assert (ws / "config.ini").read_text() == "[server]\nhost = example.org\nport = 9090\n"
