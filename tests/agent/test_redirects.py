"""A command that replaces a file's text with > is asked about once, in constrained mode; where
its line sets a key the file has among others, it is refused every time with the edit to send."""

from __future__ import annotations

import json
from pathlib import Path

from agent.loop.reads import Reads
from agent.model.reply import Call
from agent.model.scripted import text
from agent.small.habits import SmallLedger
from agent.small.redirects import clobbering_redirect
from tests.agent.loop_kit import Face, arguments_schema, make_agent, offered, results, step
from tools.registry import default_registry

DONE = '"done"'
SETTINGS = "name = 'app'\ndebug = false\n"


async def test_a_redirect_over_a_file_is_refused_with_the_edit(ws: Path) -> None:
    """The 0.5B model ran `echo 'debug = true' > settings.toml`: name = 'app' was gone."""
    (ws / "settings.toml").write_text(SETTINGS)
    edit = {"path": "settings.toml", "old": "debug = false", "new": "debug = true"}
    clobber = step("bash", command="echo 'debug = true' > settings.toml")
    replies = [
        clobber,
        clobber,  # sent again, refused again: the model sent it twice and name was lost
        step("edit", **edit),
        DONE,
        step("answer", text="debug is now true."),
    ]
    agent, model = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn("in settings.toml turn debug on (it is false now)", Face())
    assert offered(model.requests[1]) == {"edit"}  # the step after the refusal: that edit
    assert arguments_schema(model.requests[1], "edit")["new"]["const"] == "debug = true"
    refused = (
        "Error: this command replaces all 2 lines of settings.toml. Send: "
        f"{json.dumps({'name': 'edit', 'arguments': edit})}"
    )
    assert results(agent)[0].startswith(refused) and results(agent)[1].startswith(refused)
    assert (ws / "settings.toml").read_text() == "name = 'app'\ndebug = true\n"


def test_a_redirect_of_a_line_the_file_has_is_refused_every_time(ws: Path) -> None:
    """The 0.5B model echoed `debug = false` over settings.toml twice: name = 'app' was lost."""
    (ws / "settings.toml").write_text(SETTINGS)
    ledger = SmallLedger(Reads(default_registry(), ws))
    call = Call("c", "bash", {"command": "echo 'debug = false' > settings.toml"})
    refused = (
        "this command replaces all 2 lines of settings.toml. settings.toml has that line already"
    )
    assert clobbering_redirect(call, ledger) == refused
    assert clobbering_redirect(call, ledger) == refused


async def test_the_same_redirect_again_goes_through(ws: Path) -> None:
    (ws / "notes.txt").write_text("old\n")
    again = step("bash", command="echo new > notes.txt")
    replies = [again, again, DONE, step("answer", text="Replaced.")]
    agent, _ = make_agent(ws, [text(r) for r in replies], tool_mode="constrained")
    await agent.run_turn("replace the text of notes.txt with new", Face())
    assert "To add a line, use >>" in results(agent)[0]
    assert (ws / "notes.txt").read_text() == "new\n"


def test_appends_new_files_and_stderr_are_not_asked(ws: Path) -> None:
    (ws / "notes.txt").write_text("old\n")
    ledger = SmallLedger(Reads(default_registry(), ws))
    for command in [
        "echo more >> notes.txt",
        "echo x > fresh.txt",
        "python3 -c 'import sys' 2> /dev/null",
        "ls > /dev/null",
        "echo x > ../outside.txt",
    ]:
        assert clobbering_redirect(Call("c", "bash", {"command": command}), ledger) is None, command
    assert clobbering_redirect(Call("c", "bash", {"command": "echo x > notes.txt"}), ledger)
