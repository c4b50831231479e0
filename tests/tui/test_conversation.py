"""The conversation under Pilot, on the real agent: streamed text, reasoning, tool blocks from
real tool calls, diffs, stats, cancel and errors. Only the model's replies are scripted."""

from __future__ import annotations

import re
from pathlib import Path

from textual.widgets import Collapsible, Markdown, Static

from agent.config import Config
from agent.events import DraftingNote
from agent.model.endpoint import ModelError, ReasoningPiece, TextPiece
from agent.model.scripted import Hold, Step, call
from agent.sessions.store import Session
from agent.tui.widgets.blocks import ToolBlock
from agent.tui.widgets.conversation import KEEP_WIDGETS, EarlierBlocks
from agent.tui.widgets.prompt import PromptInput
from tests.factory import ENDPOINT, ScriptedRuntime, answer, stats
from tests.tui.harness import clock, line, running, send, shown, turn, until

AUTO_EDIT = Config(endpoint=ENDPOINT, permission_mode="auto-edit")
YOLO = Config(endpoint=ENDPOINT, permission_mode="yolo")


class TestStreaming:
    async def test_prompt_streams_into_one_markdown_block(self, workspace: Path) -> None:
        words = [f"word{i} " for i in range(200)]
        runtime = ScriptedRuntime(workspace, [answer(*words, figures=stats(55.5, 200))])
        async with running(runtime) as (app, pilot):
            await turn(app, pilot, "write two hundred words")
            replies = app.main.conversation.query(Markdown).results()
            assert [m.source for m in replies] == ["".join(words)]
            assert "write two hundred words" in shown(app)
            assert runtime.agent is not None
            saved = Session.open(runtime.agent.session.id).messages()
            assert [m["content"] for m in saved] == ["write two hundred words", "".join(words)]

    async def test_throughput_and_status_follow_the_turn(
        self, workspace: Path, tiny_config: Config
    ) -> None:
        note = DraftingNote(False, 2.0, True, 40)  # the brake measured 40 tok/s without drafting
        script = [
            answer("a", figures=stats(80, 100, (60, 45), 50, 950, note)),
            answer("b", figures=stats(40, 100)),
        ]
        async with running(ScriptedRuntime(workspace, script, tiny_config)) as (app, pilot):
            await turn(app, pilot, "one")
            first = line(app, "#throughput")
            assert first.startswith("80.0 tok/s ×2.00 vs no-spec · draft 45/60 (75%)")
            assert "45% of output from drafts" in first and "prompt 950 cached / 50 new" in first
            status = line(app, "#status")
            assert status == (
                "qwen2.5-coder-0.5b (tiny) · ctx 1.1k/8.2k (13%) · mode ask · server down"
            )
            await turn(app, pilot, "two")
            second = line(app, "#throughput")
            # tiny speculates (ngram-mod): a turn without drafts drafted 0, speculation is on.
            assert "· 0 drafted ·" in second and second.endswith("█▅")  # 40 of 80: bar 4 of 0..7

    async def test_live_estimate_while_streaming(self, workspace: Path) -> None:
        runtime = ScriptedRuntime(workspace, [[TextPiece("x")] * 30 + [Hold()]])
        async with running(runtime) as (app, pilot):
            await send(pilot, "go")
            await until(pilot, lambda: app.main.inbox.received == 30)
            clock(app).now += 2.0
            app.main.refresh_lines()
            assert line(app, "#throughput") == "~15.0 tok/s · 30 tok streaming"
            assert line(app, "#status").startswith("working (esc cancels) · ")

    async def test_reasoning_is_collapsed_and_separate(self, workspace: Path) -> None:
        reply = [ReasoningPiece("think "), ReasoningPiece("hard"), *answer("answer")]
        async with running(ScriptedRuntime(workspace, [reply])) as (app, pilot):
            await turn(app, pilot, "q")
            box = app.main.conversation.query_one(".reasoning", Collapsible)
            assert box.collapsed
            assert box.query_one(Markdown).source == "think hard"
            assert app.main.conversation.query_one(".assistant", Markdown).source == "answer"


class TestToolBlocks:
    async def test_edit_shows_its_diff_expanded(self, workspace: Path) -> None:
        (workspace / "app.py").write_text("x = 1\n")
        read = call("read", {"path": "app.py"})  # edit refuses a file the model has not read
        bump = call("edit", {"path": "app.py", "old": "x = 1", "new": "x = 2"})
        script = [read, bump, answer("done")]
        async with running(ScriptedRuntime(workspace, script, AUTO_EDIT)) as (app, pilot):
            await turn(app, pilot, "bump x")
            reading, block = app.main.conversation.query(ToolBlock)
            assert reading.collapsed and str(reading.title).startswith("✓ read  app.py  done")
            assert re.fullmatch(r"✓ edit  app\.py  done · \d+ms", str(block.title))
            assert not block.collapsed
            assert "-x = 1\n+x = 2" in str(block.query_one(".diff", Static).content)
            assert (workspace / "app.py").read_text() == "x = 2\n"

    async def test_bash_shows_exit_code_and_collapses_output(self, workspace: Path) -> None:
        failing = call("bash", {"command": "echo '1 failed'; exit 2"})
        async with running(ScriptedRuntime(workspace, [failing, answer("no")], YOLO)) as (
            app,
            pilot,
        ):
            await turn(app, pilot, "run the tests")
            block = app.main.conversation.query_one(ToolBlock)
            title = str(block.title)
            assert title.startswith("✗ bash  echo '1 failed'; exit 2  failed · ")
            assert title.endswith(" · exit 2")
            assert block.collapsed and block.has_class("-failed")
            output = str(block.query_one(".output", Static).content)
            assert "1 failed" in output

    async def test_running_call_shows_as_running(self, workspace: Path) -> None:
        slow = call("bash", {"command": "sleep 30"})
        async with running(ScriptedRuntime(workspace, [slow], YOLO)) as (app, pilot):
            await send(pilot, "wait")
            await until(pilot, lambda: app.main.conversation.query(ToolBlock))
            block = app.main.conversation.query_one(ToolBlock)
            assert str(block.title) == "… bash  sleep 30  running"
            await pilot.press("escape")  # the real bash is killed, not left for 30 s
            await until(pilot, lambda: not app.main.busy)


class TestCancelAndErrors:
    async def test_escape_cancels_the_running_turn(self, workspace: Path) -> None:
        runtime = ScriptedRuntime(workspace, [[TextPiece("partial"), Hold()]])
        async with running(runtime) as (app, pilot):
            await send(pilot, "long task")
            await until(pilot, lambda: "partial" in shown(app))
            assert app.main.busy
            await pilot.press("escape")
            await until(pilot, lambda: not app.main.busy and "turn cancelled" in shown(app))
            assert runtime.agent is not None
            # What was said before the cancel stays in the history, as a plain message.
            assert runtime.agent.messages[-1] == {"role": "assistant", "content": "partial"}

    async def test_prompt_during_a_turn_is_kept_for_later(self, workspace: Path) -> None:
        runtime = ScriptedRuntime(workspace, [[Hold()]])
        async with running(runtime) as (app, pilot):
            await send(pilot, "first")
            await until(pilot, lambda: app.main.busy)
            await send(pilot, "second")
            await pilot.pause()
            assert app.main.query_one("#prompt-input", PromptInput).text == "second"
            assert "second" not in shown(app)
            assert len(runtime.model.requests) == 1  # the model never saw "second"

    async def test_a_model_error_is_shown_and_the_turn_ends(self, workspace: Path) -> None:
        failing: list[Step] = [TextPiece("Let me look"), ModelError("server said 500")]
        async with running(ScriptedRuntime(workspace, [failing, answer("back")])) as (app, pilot):
            await turn(app, pilot, "q")
            error = app.main.conversation.query_one(".note.-error", Static)
            assert str(error.content) == "server said 500"
            await turn(app, pilot, "again")  # the app and the agent live on
            assert "back" in shown(app)

    async def test_the_step_limit_is_a_warning(self, workspace: Path) -> None:
        config = Config(endpoint=ENDPOINT, permission_mode="yolo", max_steps=1)
        looping = call("bash", {"command": "true"})
        async with running(ScriptedRuntime(workspace, [looping], config)) as (app, pilot):
            await turn(app, pilot, "loop")
            warning = str(app.main.conversation.query_one(".note.-warning", Static).content)
            assert warning == "Stopped: reached the step limit (1)."

    async def test_an_agent_crash_is_reported_and_the_app_lives_on(self, workspace: Path) -> None:
        runtime = ScriptedRuntime(workspace, [[RuntimeError("connection reset")], answer("fine")])
        async with running(runtime) as (app, pilot):
            await turn(app, pilot, "q")
            assert "the turn failed: connection reset" in shown(app)
            await turn(app, pilot, "again")
            assert "fine" in shown(app) and app.is_running


class TestLongSessions:
    async def test_older_blocks_are_hidden_and_come_back_at_the_top(self, workspace: Path) -> None:
        async with running(ScriptedRuntime(workspace)) as (app, pilot):
            view = app.main.conversation
            for number in range(KEEP_WIDGETS + 10):
                await view.note(f"note {number}")
            await pilot.pause()  # laid out: the blocks' heights are known
            await view.note("the newest")  # a new block hides what is past the budget
            await pilot.pause()
            visible = [note for note in view.query(".note.-info") if note.display]
            assert len(visible) == KEEP_WIDGETS  # the newest; the others wait above
            newest = visible[-1]
            assert isinstance(newest, Static) and str(newest.content) == "the newest"
            earlier = view.query_one(EarlierBlocks)
            assert earlier.display and "▲ 11 earlier blocks" in str(earlier.content)
            view.scroll_home(animate=False)  # the user scrolls to the top
            await until(pilot, lambda: not earlier.display)
            assert all(note.display for note in view.query(".note.-info"))

    async def test_a_long_reply_keeps_only_its_end_displayed(self, workspace: Path) -> None:
        paragraphs = [f"paragraph {number}\n\n" for number in range(3 * KEEP_WIDGETS)]
        runtime = ScriptedRuntime(workspace, [answer(*paragraphs)])
        async with running(runtime) as (app, pilot):
            await turn(app, pilot, "write a lot")
            view = app.main.conversation
            reply = view.query_one(".assistant", Markdown)
            assert reply.source == "".join(paragraphs)  # all of it, though not all displayed
            blocks = list(reply.children)
            assert len(blocks) == len(paragraphs) and blocks[-1].display
            hidden = [block for block in blocks if not block.display]
            assert hidden and hidden == blocks[: len(hidden)]  # the oldest, above the screen
            assert not view.query_one(".user").display  # the prompt above the reply too
            earlier = view.query_one(EarlierBlocks)
            assert f"▲ {len(hidden) + 1} earlier blocks" in str(earlier.content)
            while earlier.display:  # the user scrolls to the top, again and again
                view.scroll_home(animate=False)
                await pilot.pause()
            assert all(block.display for block in blocks)
