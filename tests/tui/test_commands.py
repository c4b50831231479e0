"""Slash commands under Pilot, each against the real thing it drives: the permissions object,
session files, workspace files, a git repository, the palette."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, OptionList, Static

from agent.faces.contract import ConnectRequest
from agent.loop.events import StepStats, TextDelta, ToolCallFinished, ToolCallStarted
from agent.sessions.store import Session
from agent.tui.bars import build_line
from agent.tui.screens.info import PickScreen, TableScreen, TextScreen
from agent.tui.widgets.server_panel import ServerPanel
from tests.tui.harness import SIZE, line, make_app, running, send, shown, turn, until
from tests.tui.scripted import Effect, ScriptedBackend, stats


def screen_text(app: object) -> str:
    body = app.screen.query_one("#body Static")  # type: ignore[attr-defined]
    return str(body.content)


class TestModeAndHelp:
    async def test_mode_sets_the_permission_mode(self, workspace: Path) -> None:
        async with running(ScriptedBackend(workspace)) as (app, pilot):
            await send(pilot, "/mode yolo")
            assert app.core is not None and app.core.permissions is not None
            assert app.core.permissions.mode == "yolo"
            assert "mode yolo" in line(app, "#status")
            await send(pilot, "/mode sideways")
            assert "unknown mode 'sideways'" in shown(app)

    async def test_mode_without_argument_offers_a_pick_and_shift_tab_cycles(
        self, workspace: Path
    ) -> None:
        async with running(ScriptedBackend(workspace)) as (app, pilot):
            await send(pilot, "/mode")
            await until(pilot, lambda: isinstance(app.screen, PickScreen))
            await pilot.press("down", "down", "enter")  # ask -> auto-edit -> yolo
            await until(pilot, lambda: "mode yolo" in line(app, "#status"))
            await pilot.press("shift+tab")  # yolo -> plan
            assert "mode plan" in line(app, "#status")

    async def test_help_lists_keys_and_commands(self, workspace: Path) -> None:
        async with running(ScriptedBackend(workspace)) as (app, pilot):
            await pilot.press("f1")
            await until(pilot, lambda: isinstance(app.screen, TextScreen))
            text = screen_text(app)
            assert "/undo" in text and "esc" in text and "ctrl+j" in text
            await pilot.press("escape")
            await until(pilot, lambda: not isinstance(app.screen, TextScreen))

    async def test_unknown_command_says_so(self, workspace: Path) -> None:
        async with running(ScriptedBackend(workspace)) as (app, pilot):
            await send(pilot, "/frobnicate")
            assert "unknown command /frobnicate (/help lists them)" in shown(app)

    async def test_palette_holds_every_slash_command(self, workspace: Path) -> None:
        async with running(ScriptedBackend(workspace)) as (app, _pilot):
            titles = {c.title for c in app.get_system_commands(app.screen)}
            assert {"/help", "/undo", "/stats", "/quit"} <= titles


class TestSessions:
    async def test_clear_starts_a_new_session_and_empties_the_view(self, workspace: Path) -> None:
        backend = ScriptedBackend(workspace, [[TextDelta("one")]])
        async with running(backend) as (app, pilot):
            await turn(app, pilot, "hello")
            first = app.core.session_id if app.core else None
            await send(pilot, "/clear")
            await until(pilot, lambda: app.core is not None and app.core.session_id != first)
            await until(pilot, lambda: "hello" not in shown(app))
            assert backend.requests[-1] == ConnectRequest()

    async def test_resume_replays_an_earlier_session(self, workspace: Path) -> None:
        earlier = Session.create(workspace)
        earlier.append({"type": "message", "message": {"role": "user", "content": "old question"}})
        earlier.append(
            {"type": "message", "message": {"role": "assistant", "content": "old answer"}}
        )
        async with running(ScriptedBackend(workspace)) as (app, pilot):
            await send(pilot, "/resume")
            await until(pilot, lambda: isinstance(app.screen, PickScreen))
            assert app.screen.query_one(OptionList).option_count == 2  # earlier + this one
            await pilot.press("escape")
            await send(pilot, f"/resume {earlier.id}")
            await until(pilot, lambda: app.core is not None and app.core.session_id == earlier.id)
            await until(pilot, lambda: "old answer" in shown(app))
            assert "old question" in shown(app)

    async def test_sessions_lists_them_in_a_table(self, workspace: Path) -> None:
        async with running(ScriptedBackend(workspace)) as (app, pilot):
            await turn(app, pilot, "titled by this")
            await send(pilot, "/sessions")
            await until(pilot, lambda: isinstance(app.screen, TableScreen))
            table = app.screen.query_one(DataTable)
            assert table.row_count == 1 and "titled by this" in table.get_row_at(0)

    async def test_compact_reports_what_the_agent_did(self, workspace: Path) -> None:
        async with running(ScriptedBackend(workspace)) as (app, pilot):
            await send(pilot, "/compact")
            await until(pilot, lambda: "Compacted the conversation" in shown(app))


class TestFilesAndStats:
    async def test_undo_reverts_the_last_turns_edit(self, workspace: Path) -> None:
        target = workspace / "app.py"
        target.write_text("x = 1\n")
        script = [
            [
                ToolCallStarted("c1", "edit", {"path": "app.py", "old": "x = 1", "new": "x = 2"}),
                Effect(lambda: target.write_text("x = 2\n")),  # what the edit tool does
                ToolCallFinished("c1", "edit", "edited", False, 0.1, {"path": "app.py"}),
            ]
        ]
        async with running(ScriptedBackend(workspace, script)) as (app, pilot):
            await turn(app, pilot, "bump x")
            assert target.read_text() == "x = 2\n"
            await send(pilot, "/undo")
            assert target.read_text() == "x = 1\n"
            assert "restored app.py" in shown(app)
            await send(pilot, "/undo")
            assert "nothing to undo" in shown(app)

    async def test_diff_shows_uncommitted_changes(self, changed_repo: Path) -> None:
        async with running(ScriptedBackend(changed_repo)) as (app, pilot):
            await send(pilot, "/diff")
            await until(pilot, lambda: isinstance(app.screen, TextScreen))
            assert "-one\n+two" in screen_text(app)

    async def test_diff_outside_git_says_why(self, workspace: Path) -> None:
        async with running(ScriptedBackend(workspace)) as (app, pilot):
            await send(pilot, "/diff")
            await until(pilot, lambda: "not inside a git repository" in shown(app))

    async def test_stats_table_has_a_row_per_turn(self, workspace: Path) -> None:
        script = [
            [TextDelta("a"), StepStats(stats(50, 100, (40, 30), prompt=200, cache=1000))],
            [TextDelta("b"), StepStats(stats(25, 50))],
        ]
        async with running(ScriptedBackend(workspace, script)) as (app, pilot):
            await turn(app, pilot, "one")
            await turn(app, pilot, "two")
            await send(pilot, "/stats")
            await until(pilot, lambda: isinstance(app.screen, TableScreen))
            table = app.screen.query_one(DataTable)
            assert table.get_row_at(0) == ["1", "50.0", "100", "30/40", "30%", "1.0k/200", "3.0s"]
            assert table.get_row_at(1) == ["2", "25.0", "50", "off", "-", "0/300", "3.0s"]


class TestServerAndExtras:
    async def test_startup_progress_shows_in_the_server_panel(self, workspace: Path) -> None:
        backend = ScriptedBackend(workspace, managed=True)
        backend.progress_lines = [("build", build_line(3, 10)), ("step", "loading model")]
        backend.gate.clear()
        app = make_app(backend)
        async with app.run_test(size=SIZE) as pilot:
            panel = app.main.query_one(ServerPanel)
            log = panel.query_one("#server-log", Static)
            await until(pilot, lambda: "loading model" in str(log.content))
            assert panel.display
            assert str(log.content).startswith("building llama-server ██████░")
            assert "server starting" in str(panel.query_one("#server-summary", Static).content)
            backend.gate.set()
            await until(pilot, lambda: app.core is not None)
            assert not panel.display  # opened for the start, closed after it
            assert "server down" in line(app, "#status")  # nothing runs in the tests' state dir

    async def test_server_panel_toggles_and_shows_the_endpoint(self, workspace: Path) -> None:
        async with running(ScriptedBackend(workspace)) as (app, pilot):
            panel = app.main.query_one(ServerPanel)
            assert not panel.display
            await send(pilot, "/server")
            assert panel.display
            await until(
                pilot, lambda: "external" in str(panel.query_one("#server-summary").content)
            )  # type: ignore[attr-defined]
            await pilot.press("f2")
            assert not panel.display

    async def test_model_with_a_fixed_endpoint_has_nothing_to_switch(self, workspace: Path) -> None:
        async with running(ScriptedBackend(workspace)) as (app, pilot):
            await send(pilot, "/model")
            await until(pilot, lambda: "no profiles to switch to" in shown(app))

    async def test_bench_says_how_and_what_was_measured(self, workspace: Path) -> None:
        async with running(ScriptedBackend(workspace)) as (app, pilot):
            await send(pilot, "/bench")
            await until(pilot, lambda: isinstance(app.screen, TextScreen))
            text = screen_text(app)
            assert text.startswith("`beecode bench` compares") and text.endswith("No run yet.")

    async def test_skills_lists_the_bundled_ones(self, workspace: Path) -> None:
        async with running(ScriptedBackend(workspace)) as (app, pilot):
            await send(pilot, "/skills")
            await until(pilot, lambda: isinstance(app.screen, TextScreen))
            assert "write-tests  [bundled]" in screen_text(app)

    async def test_quit(self, workspace: Path) -> None:
        async with running(ScriptedBackend(workspace)) as (app, pilot):
            await send(pilot, "/quit")
            await until(pilot, lambda: not app.is_running)
