"""Slash commands under Pilot, each against the real thing it drives: the permissions object,
session files, workspace files, a git repository, the palette."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, OptionList, Static

from agent.config import Config
from agent.faces.contract import ConnectRequest
from agent.model.scripted import call
from agent.runtime.progress import build_line
from agent.sessions.store import Session
from agent.tui.app import BeeApp
from agent.tui.commands import COMMANDS
from agent.tui.screens.info import PickScreen, TableScreen, TextScreen
from agent.tui.widgets.server_panel import ServerPanel
from tests.factory import ENDPOINT, ScriptedRuntime, answer, stats
from tests.tui.harness import SIZE, line, make_app, running, send, shown, turn, until


def screen_text(app: BeeApp) -> str:
    return str(app.screen.query_one("#body Static", Static).content)


class TestModeAndHelp:
    async def test_mode_sets_the_permission_mode(self, workspace: Path) -> None:
        runtime = ScriptedRuntime(workspace)
        async with running(runtime) as (app, pilot):
            assert runtime.agent is not None
            asked = runtime.agent.permissions.check("bash", "execute", "make", [])
            assert asked.verdict == "ask"
            await send(pilot, "/mode yolo")
            # The agent's own permissions: the same call now runs without asking.
            allowed = runtime.agent.permissions.check("bash", "execute", "make", [])
            assert allowed.verdict == "allow"
            assert "mode yolo" in line(app, "#status")
            await send(pilot, "/mode sideways")
            assert "unknown mode 'sideways'" in shown(app)

    async def test_mode_without_argument_offers_a_pick_and_shift_tab_cycles(
        self, workspace: Path
    ) -> None:
        async with running(ScriptedRuntime(workspace)) as (app, pilot):
            await send(pilot, "/mode")
            await until(pilot, lambda: isinstance(app.screen, PickScreen))
            await pilot.press("down", "down", "enter")  # ask -> auto-edit -> yolo
            await until(pilot, lambda: "mode yolo" in line(app, "#status"))
            await pilot.press("shift+tab")  # yolo -> plan
            assert "mode plan" in line(app, "#status")

    async def test_help_lists_keys_and_commands(self, workspace: Path) -> None:
        async with running(ScriptedRuntime(workspace)) as (app, pilot):
            await pilot.press("f1")
            await until(pilot, lambda: isinstance(app.screen, TextScreen))
            text = screen_text(app)
            assert "/undo" in text and "esc" in text and "ctrl+j" in text
            await pilot.press("escape")
            await until(pilot, lambda: not isinstance(app.screen, TextScreen))

    async def test_unknown_command_says_so(self, workspace: Path) -> None:
        async with running(ScriptedRuntime(workspace)) as (app, pilot):
            await send(pilot, "/frobnicate")
            assert "unknown command /frobnicate (/help lists them)" in shown(app)

    async def test_palette_holds_every_slash_command(self, workspace: Path) -> None:
        async with running(ScriptedRuntime(workspace)) as (app, _pilot):
            titles = {c.title for c in app.get_system_commands(app.screen)}
            assert {f"/{command.name}" for command in COMMANDS} <= titles
            assert "Quit" in titles  # Textual's own commands stay beside them


class TestSessions:
    async def test_clear_starts_a_new_session_and_empties_the_view(self, workspace: Path) -> None:
        runtime = ScriptedRuntime(workspace, [answer("one")])
        async with running(runtime) as (app, pilot):
            await turn(app, pilot, "hello")
            first = runtime.agent
            assert first is not None
            await send(pilot, "/clear")
            await until(pilot, lambda: runtime.agent is not first and app.core is not None)
            await until(pilot, lambda: "hello" not in shown(app))
            assert runtime.requests[-1] == ConnectRequest()
            assert app.core is not None and app.core.session_id != first.session.id
            assert runtime.agent is not None and len(runtime.agent.messages) == 1  # the system's

    async def test_resume_replays_an_earlier_session(self, workspace: Path) -> None:
        earlier = Session.create(workspace)
        earlier.append({"type": "message", "message": {"role": "user", "content": "old question"}})
        earlier.append(
            {"type": "message", "message": {"role": "assistant", "content": "old answer"}}
        )
        async with running(ScriptedRuntime(workspace)) as (app, pilot):
            await send(pilot, "/resume")
            await until(pilot, lambda: isinstance(app.screen, PickScreen))
            assert app.screen.query_one(OptionList).option_count == 2  # earlier + this one
            await pilot.press("escape")
            await send(pilot, f"/resume {earlier.id}")
            await until(pilot, lambda: app.core is not None and app.core.session_id == earlier.id)
            await until(pilot, lambda: "old answer" in shown(app))
            assert "old question" in shown(app)

    async def test_sessions_lists_them_in_a_table(self, workspace: Path) -> None:
        async with running(ScriptedRuntime(workspace, [answer("ok")])) as (app, pilot):
            await turn(app, pilot, "titled by this")
            await send(pilot, "/sessions")
            await until(pilot, lambda: isinstance(app.screen, TableScreen))
            table = app.screen.query_one(DataTable)
            assert table.row_count == 1 and "titled by this" in table.get_row_at(0)

    async def test_compact_summarizes_the_older_turns(self, workspace: Path) -> None:
        turns = [answer(f"answer {n}") for n in range(4)]
        runtime = ScriptedRuntime(workspace, [*turns, answer("we said hello four times")])
        async with running(runtime) as (app, pilot):
            await send(pilot, "/compact")
            await until(pilot, lambda: "Nothing to compact" in shown(app))
            for number in range(4):
                await turn(app, pilot, f"hello {number}")
            await send(pilot, "/compact")
            await until(pilot, lambda: "Compacted the conversation: 9 messages -> 7." in shown(app))
            assert runtime.agent is not None
            summary = runtime.agent.messages[1]["content"]
            assert "we said hello four times" in summary and summary.endswith("hello 1")


class TestFilesAndStats:
    async def test_undo_reverts_the_last_turns_edit(self, workspace: Path) -> None:
        target = workspace / "app.py"
        target.write_text("x = 1\n")
        script = [
            call("read", {"path": "app.py"}),
            call("edit", {"path": "app.py", "old": "x = 1", "new": "x = 2"}),
            answer("bumped"),
        ]
        config = Config(endpoint=ENDPOINT, permission_mode="auto-edit")
        async with running(ScriptedRuntime(workspace, script, config)) as (app, pilot):
            await turn(app, pilot, "bump x")
            assert target.read_text() == "x = 2\n"
            await send(pilot, "/undo")
            await until(pilot, lambda: "restored app.py" in shown(app))
            assert target.read_text() == "x = 1\n"
            await send(pilot, "/undo")
            await until(pilot, lambda: "nothing to undo" in shown(app))
            await send(pilot, "/redo")
            await until(pilot, lambda: target.read_text() == "x = 2\n")

    async def test_rewind_restores_the_files_and_cuts_the_conversation(
        self, workspace: Path
    ) -> None:
        target = workspace / "made.txt"
        script = [
            answer("hello"),
            call("write", {"path": "made.txt", "content": "made\n"}),
            answer("made it"),
        ]
        config = Config(endpoint=ENDPOINT, permission_mode="auto-edit")
        runtime = ScriptedRuntime(workspace, script, config)
        async with running(runtime) as (app, pilot):
            await turn(app, pilot, "hi")
            assert runtime.agent is not None
            kept = list(runtime.agent.messages)
            await turn(app, pilot, "make a file")
            assert target.exists()
            await send(pilot, "/rewind")
            await until(pilot, lambda: "back to before that turn" in shown(app))
            assert not target.exists() and runtime.agent.messages == kept
            assert Session.open(runtime.agent.session.id).messages() == kept[1:]

    async def test_diff_shows_uncommitted_changes(self, changed_repo: Path) -> None:
        async with running(ScriptedRuntime(changed_repo)) as (app, pilot):
            await send(pilot, "/diff")
            await until(pilot, lambda: isinstance(app.screen, TextScreen))
            assert "-one\n+two" in screen_text(app)

    async def test_diff_outside_git_says_why(self, workspace: Path) -> None:
        async with running(ScriptedRuntime(workspace)) as (app, pilot):
            await send(pilot, "/diff")
            await until(pilot, lambda: "not inside a git repository" in shown(app))

    async def test_stats_table_has_a_row_per_turn(self, workspace: Path) -> None:
        script = [
            answer("a", figures=stats(50, 100, (40, 30), prompt=200, cache=1000)),
            answer("b", figures=stats(25, 50)),
        ]
        async with running(ScriptedRuntime(workspace, script)) as (app, pilot):
            await turn(app, pilot, "one")
            await turn(app, pilot, "two")
            await send(pilot, "/stats")
            await until(pilot, lambda: isinstance(app.screen, TableScreen))
            table = app.screen.query_one(DataTable)
            assert table.get_row_at(0) == ["1", "50.0", "100", "30/40", "30%", "1.0k/200", "3.0s"]
            # An endpoint that does not say whether it speculates: no drafts, not "off".
            assert table.get_row_at(1) == ["2", "25.0", "50", "-", "-", "0/300", "3.0s"]


class TestServerAndExtras:
    async def test_startup_progress_shows_in_the_server_panel(self, workspace: Path) -> None:
        runtime = ScriptedRuntime(workspace, config=Config())  # managed: no endpoint
        runtime.progress_lines = [("build", build_line(3, 10)), ("step", "loading model")]
        runtime.gate.clear()
        app = make_app(runtime)
        async with app.run_test(size=SIZE) as pilot:
            panel = app.main.query_one(ServerPanel)
            log = panel.query_one("#server-log", Static)
            await until(pilot, lambda: "loading model" in str(log.content))
            assert panel.display
            assert str(log.content).startswith("building llama-server ██████░")
            assert "server starting" in str(panel.query_one("#server-summary", Static).content)
            runtime.gate.set()
            await until(pilot, lambda: app.core is not None)
            assert not panel.display  # opened for the start, closed after it
            assert "server down" in line(app, "#status")  # nothing runs in the tests' state dir

    async def test_server_panel_toggles_and_shows_the_endpoint(self, workspace: Path) -> None:
        async with running(ScriptedRuntime(workspace)) as (app, pilot):
            panel = app.main.query_one(ServerPanel)
            assert not panel.display
            await send(pilot, "/server")
            assert panel.display
            summary = panel.query_one("#server-summary", Static)
            await until(pilot, lambda: "external" in str(summary.content))
            await pilot.press("f2")
            assert not panel.display

    async def test_model_with_a_fixed_endpoint_has_nothing_to_switch(self, workspace: Path) -> None:
        async with running(ScriptedRuntime(workspace)) as (app, pilot):
            await send(pilot, "/model")
            await until(pilot, lambda: "no profiles to switch to" in shown(app))

    async def test_bench_says_how_and_what_was_measured(self, workspace: Path) -> None:
        async with running(ScriptedRuntime(workspace)) as (app, pilot):
            await send(pilot, "/bench")
            await until(pilot, lambda: isinstance(app.screen, TextScreen))
            text = screen_text(app)
            assert text.startswith("`beecode bench` compares") and text.endswith("No run yet.")

    async def test_skills_lists_the_bundled_ones(self, workspace: Path) -> None:
        async with running(ScriptedRuntime(workspace)) as (app, pilot):
            await send(pilot, "/skills")
            await until(pilot, lambda: isinstance(app.screen, TextScreen))
            assert "write-tests  [bundled]" in screen_text(app)

    async def test_quit(self, workspace: Path) -> None:
        async with running(ScriptedRuntime(workspace)) as (app, pilot):
            await send(pilot, "/quit")
            await until(pilot, lambda: not app.is_running)
