"""/fork under Pilot, on the real runtime and session files: the conversation goes on in a new
session with the same history, the app names both ids, and the original's file is never written."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable

from agent.faces.contract import ConnectRequest
from agent.model.scripted import Hold
from agent.sessions.replay import read_records
from agent.sessions.store import Session
from agent.tui.screens.info import TableScreen
from tests.factory import ScriptedRuntime, answer
from tests.tui.harness import running, send, shown, turn, until


async def test_fork_goes_on_in_a_new_session_and_leaves_the_original(workspace: Path) -> None:
    runtime = ScriptedRuntime(workspace, [answer("one"), answer("two")])
    async with running(runtime) as (app, pilot):
        await turn(app, pilot, "hello")
        assert app.core is not None and app.core.session_id is not None
        original = app.core.session_id
        before = Session.open(original).path.read_bytes()
        await send(pilot, "/fork")
        await until(pilot, lambda: app.core is not None and app.core.session_id != original)
        assert app.core is not None and app.core.session_id is not None
        fork = app.core.session_id
        assert runtime.requests[-1] == ConnectRequest(resume=original, fork=True)
        await until(pilot, lambda: f"new session {fork}" in shown(app))
        assert f"the original {original} is left as it was (/resume {original}" in shown(app)
        assert "hello" in shown(app) and "one" in shown(app)  # the view holds the same talk

        await turn(app, pilot, "again")
        sent = [(m["role"], m["content"]) for m in runtime.model.requests[-1].messages[1:]]
        assert sent == [("user", "hello"), ("assistant", "one"), ("user", "again")]
        assert Session.open(original).path.read_bytes() == before  # the original, untouched
        assert Session.open(fork).messages()[-1]["content"] == "two"
        assert [
            r["id"] for r in read_records(Session.open(fork).path) if r["type"] == "forked_from"
        ] == [original]

        await send(pilot, "/sessions")
        await until(pilot, lambda: isinstance(app.screen, TableScreen))
        table = app.screen.query_one(DataTable)
        rows = [table.get_row_at(i) for i in range(table.row_count)]
        assert any(row[0] == fork and f"(fork of {original})" in row[3] for row in rows)
        assert any(row[0] == original and "fork of" not in row[3] for row in rows)


async def test_fork_waits_for_a_running_turn(workspace: Path, tmp_path: Path) -> None:
    hold = Hold()
    async with running(ScriptedRuntime(workspace, [[hold, *answer("done")]])) as (app, pilot):
        await send(pilot, "hello")
        await until(pilot, hold.reached.is_set)
        await send(pilot, "/fork")
        assert "/fork: a turn is running (esc cancels it)" in shown(app)
        hold.release.set()
        await until(pilot, lambda: app.main.turns_finished == 1 and not app.main.busy)
        assert len(list((tmp_path / "data" / "sessions").glob("*.jsonl"))) == 1  # no copy
