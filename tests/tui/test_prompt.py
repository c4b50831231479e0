"""The prompt under Pilot: multi-line entry, history, completion, and the quit keys."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from agent.config import Config
from agent.model.scripted import Hold
from agent.tui.app import BeeApp
from agent.tui.widgets.prompt import CompletionMenu, Prompt, PromptInput
from tests.factory import ENDPOINT, ScriptedRuntime, answer
from tests.tui.harness import running, send, shown, turn, until

OKS = [answer("ok")] * 3  # enough answers for the turns of any test here
NOTES_SERVER = Path(__file__).parents[1] / "mcp" / "notes_mcp.py"


def text_of(app: BeeApp) -> str:
    return app.main.query_one(PromptInput).text


def menu_options(app: BeeApp) -> list[str]:
    menu = app.main.query_one(CompletionMenu)
    if not menu.display:
        return []
    return [str(menu.get_option_at_index(i).id) for i in range(menu.option_count)]


class TestEntry:
    async def test_newline_keys_and_backslash_continue_the_prompt(self, workspace: Path) -> None:
        runtime = ScriptedRuntime(workspace, OKS)
        async with running(runtime) as (app, pilot):
            await pilot.press("a", "ctrl+j", "b", "\\", "enter", "c")  # two ways to a new line
            assert text_of(app) == "a\nb\nc"
            await pilot.press("enter")
            await until(pilot, lambda: app.main.turns_finished == 1)
            assert runtime.agent is not None
            assert runtime.agent.messages[1]["content"] == "a\nb\nc"
            assert text_of(app) == ""

    async def test_blank_prompt_is_not_sent(self, workspace: Path) -> None:
        runtime = ScriptedRuntime(workspace, OKS)
        async with running(runtime) as (app, pilot):
            await pilot.press("space", "enter")
            await pilot.pause()
            assert runtime.agent is not None and len(runtime.agent.messages) == 1  # the system's
            assert runtime.model.requests == []


class TestHistory:
    async def test_up_and_down_walk_the_history(self, workspace: Path) -> None:
        async with running(ScriptedRuntime(workspace, OKS)) as (app, pilot):
            await turn(app, pilot, "first")
            await turn(app, pilot, "second")
            await pilot.press(*"draft", "up")
            assert text_of(app) == "second"
            await pilot.press("up")
            assert text_of(app) == "first"
            await pilot.press("down", "down")
            assert text_of(app) == "draft"

    async def test_history_is_kept_for_the_next_run(self, workspace: Path) -> None:
        async with running(ScriptedRuntime(workspace, OKS)) as (app, pilot):
            await turn(app, pilot, "remember me")
        saved = (workspace.parent / "history.jsonl").read_text().splitlines()
        assert [json.loads(entry) for entry in saved] == ["remember me"]
        async with running(ScriptedRuntime(workspace, OKS)) as (app, pilot):
            await pilot.press("up")
            assert text_of(app) == "remember me"


class TestCompletion:
    async def test_at_path_completes_through_directories(self, workspace: Path) -> None:
        (workspace / "src").mkdir()
        (workspace / "src" / "main.py").write_text("")
        async with running(ScriptedRuntime(workspace, OKS)) as (app, pilot):
            await pilot.press(*"fix @sr")
            assert menu_options(app) == ["@src/"]
            await pilot.press("tab")  # a directory: the menu stays for its entries
            assert text_of(app) == "fix @src/"
            assert menu_options(app) == ["@src/main.py"]
            await pilot.press("enter")  # enter accepts while the menu is open
            assert text_of(app) == "fix @src/main.py "
            assert menu_options(app) == []

    async def test_slash_commands_complete_and_escape_closes(self, workspace: Path) -> None:
        runtime = ScriptedRuntime(workspace, OKS)
        async with running(runtime) as (app, pilot):
            await pilot.press(*"/mo")
            assert menu_options(app) == ["/model", "/mode"]
            await pilot.press("down", "tab")
            assert text_of(app) == "/mode "
            await pilot.press("backspace", "escape")
            assert menu_options(app) == [] and text_of(app) == "/mode"
            # Escape closed the menu and did nothing else: no command ran, nothing was sent.
            assert app.core is not None and app.core.permissions is not None
            assert app.core.permissions.mode == "ask" and runtime.model.requests == []

    async def test_mcp_prompts_and_resources_complete(
        self, workspace: Path, beecode_dirs: None
    ) -> None:
        notes = {"command": sys.executable, "args": [str(NOTES_SERVER)]}
        config = Config(endpoint=ENDPOINT, tool_mode="native", mcp_servers={"notes": notes})
        runtime = ScriptedRuntime(workspace, OKS, config)
        async with running(runtime) as (app, pilot):
            # The server starts in the background; once it is up, a poll hands its offers over.
            await asyncio.to_thread(runtime.settle_mcp, lambda key, line: None)
            app.poll_server()
            await until(pilot, lambda: app.main.query_one(Prompt).mcp.prompts)
            await pilot.press(*"/notes")
            assert menu_options(app) == ["/notes:review"]
            await pilot.press("tab")
            assert text_of(app) == "/notes:review "
            app.main.query_one(PromptInput).clear()
            await pilot.press(*"see @notes:notes://r")
            assert menu_options(app) == ["@notes:notes://readme"]
            await pilot.press("backspace")
            assert menu_options(app) == ["@notes:notes://readme", "@notes:notes://logo"]
            await pilot.press("down", "tab")
            assert text_of(app) == "see @notes:notes://logo "


class TestQuitKeys:
    async def test_one_ctrl_c_warns_two_quit(self, workspace: Path) -> None:
        async with running(ScriptedRuntime(workspace, OKS)) as (app, pilot):
            await pilot.press("ctrl+c")
            await pilot.pause()
            assert app.is_running
            assert any("Ctrl+C again" in n.message for n in app._notifications)
            await pilot.press("ctrl+c")
            await until(pilot, lambda: not app.is_running)

    async def test_ctrl_c_also_cancels_a_running_turn(self, workspace: Path) -> None:
        runtime = ScriptedRuntime(workspace, [[Hold()]])
        async with running(runtime) as (app, pilot):
            await send(pilot, "long")
            await until(pilot, lambda: app.main.busy)
            await pilot.press("ctrl+c")
            await until(pilot, lambda: "turn cancelled" in shown(app))
            assert app.is_running
