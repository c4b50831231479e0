"""The conversation under Pilot: streamed text, reasoning, tool blocks, diffs, stats, cancel."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Collapsible, Markdown

from agent.loop.events import (
    ErrorEvent,
    Notice,
    ReasoningDelta,
    StepStats,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
)
from agent.tui.widgets.blocks import ToolBlock
from agent.tui.widgets.conversation import SHOWN, SLACK, EarlierBlocks
from tests.tui.harness import line, running, send, shown, turn, until
from tests.tui.scripted import Hold, ScriptedBackend, stats

DIFF = "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"


class TestStreaming:
    async def test_prompt_streams_into_one_markdown_block(self, workspace: Path) -> None:
        words = [TextDelta(f"word{i} ") for i in range(200)]
        backend = ScriptedBackend(workspace, [[*words, StepStats(stats(55.5, 200))]])
        async with running(backend) as (app, pilot):
            await turn(app, pilot, "write two hundred words")
            replies = app.main.conversation.query(Markdown).results()
            assert [m.source for m in replies] == ["".join(w.text for w in words)]
            assert "write two hundred words" in shown(app)
            assert backend.agent is not None
            assert backend.agent.messages[1] == {
                "role": "user",
                "content": "write two hundred words",
            }

    async def test_throughput_and_status_follow_the_turn(self, workspace: Path) -> None:
        script = [
            [TextDelta("a"), StepStats(stats(80, 100, (60, 45), prompt=50, cache=950))],
            [TextDelta("b"), StepStats(stats(40, 100))],
        ]
        backend = ScriptedBackend(workspace, script, baseline_tok_s=40.0)
        async with running(backend) as (app, pilot):
            await turn(app, pilot, "one")
            first = line(app, "#throughput")
            assert first.startswith("80.0 tok/s ×2.00 vs no-spec · draft 45/60 (75%)")
            assert "45% of output from drafts" in first and "prompt 950 cached / 50 new" in first
            status = line(app, "#status")
            assert status == (
                "qwen2.5-coder-0.5b (tiny) · ctx 1.1k/8.2k (13%) · mode ask · server external"
            )
            await turn(app, pilot, "two")
            second = line(app, "#throughput")
            assert "speculation off" in second and second.endswith("█▅")  # 40 of 80: bar 4 of 0..7

    async def test_live_estimate_while_streaming(self, workspace: Path) -> None:
        backend = ScriptedBackend(workspace, [[TextDelta("x")] * 30 + [Hold()]])
        async with running(backend) as (app, pilot):
            await send(pilot, "go")
            await until(pilot, lambda: app.main.inbox.received == 30)
            app.main.clock.now += 2.0  # type: ignore[attr-defined]
            app.main.refresh_lines()
            assert line(app, "#throughput") == "~15.0 tok/s · 30 tok streaming"
            assert "working (esc cancels)" in line(app, "#status")

    async def test_reasoning_is_collapsed_and_separate(self, workspace: Path) -> None:
        script = [[ReasoningDelta("think "), ReasoningDelta("hard"), TextDelta("answer")]]
        async with running(ScriptedBackend(workspace, script)) as (app, pilot):
            await turn(app, pilot, "q")
            box = app.main.conversation.query_one(".reasoning", Collapsible)
            assert box.collapsed
            assert box.query_one(Markdown).source == "think hard"
            assert app.main.conversation.query_one(".assistant", Markdown).source == "answer"


class TestToolBlocks:
    async def test_edit_shows_its_diff_expanded(self, workspace: Path) -> None:
        script = [
            [
                ToolCallStarted("c1", "edit", {"path": "app.py", "old": "x = 1", "new": "x = 2"}),
                ToolCallFinished(
                    "c1", "edit", "edited", False, 0.25, {"diff": DIFF, "path": "app.py"}
                ),
                TextDelta("done"),
            ]
        ]
        async with running(ScriptedBackend(workspace, script)) as (app, pilot):
            await turn(app, pilot, "bump x")
            block = app.main.conversation.query_one(ToolBlock)
            assert str(block.title) == "✓ edit  app.py  done · 250ms"
            assert not block.collapsed
            assert "+x = 2" in str(block.query_one(".diff").content)  # type: ignore[attr-defined]

    async def test_bash_shows_exit_code_and_collapses_output(self, workspace: Path) -> None:
        script = [
            [
                ToolCallStarted("c1", "bash", {"command": "make test"}),
                ToolCallFinished("c1", "bash", "1 failed", False, 3.5, {"exit_code": 2}),
            ]
        ]
        async with running(ScriptedBackend(workspace, script)) as (app, pilot):
            await turn(app, pilot, "run the tests")
            block = app.main.conversation.query_one(ToolBlock)
            assert str(block.title) == "✗ bash  make test  failed · 3.5s · exit 2"
            assert block.collapsed and block.has_class("-failed")
            assert str(block.query_one(".output").content) == "1 failed"  # type: ignore[attr-defined]

    async def test_running_call_shows_as_running(self, workspace: Path) -> None:
        script = [[ToolCallStarted("c1", "read", {"path": "a.py"}), Hold()]]
        async with running(ScriptedBackend(workspace, script)) as (app, pilot):
            await send(pilot, "read it")
            await until(pilot, lambda: app.main.conversation.query(ToolBlock))
            assert str(app.main.conversation.query_one(ToolBlock).title) == "… read  a.py  running"


class TestCancelAndErrors:
    async def test_escape_cancels_the_running_turn(self, workspace: Path) -> None:
        backend = ScriptedBackend(workspace, [[TextDelta("partial"), Hold()]])
        async with running(backend) as (app, pilot):
            await send(pilot, "long task")
            await until(pilot, lambda: "partial" in shown(app))
            assert app.main.busy
            await pilot.press("escape")
            await until(pilot, lambda: not app.main.busy and "turn cancelled" in shown(app))
            assert backend.agent is not None and backend.agent.cancelled.is_set()

    async def test_prompt_during_a_turn_is_kept_for_later(self, workspace: Path) -> None:
        backend = ScriptedBackend(workspace, [[Hold()]])
        async with running(backend) as (app, pilot):
            await send(pilot, "first")
            await until(pilot, lambda: app.main.busy)
            await send(pilot, "second")
            await pilot.pause()
            assert app.main.query_one("#prompt-input").text == "second"  # type: ignore[attr-defined]
            assert "second" not in shown(app)

    async def test_notices_and_errors_are_shown(self, workspace: Path) -> None:
        script = [[Notice("switching to constrained steps"), ErrorEvent("server said 500")]]
        async with running(ScriptedBackend(workspace, script)) as (app, pilot):
            await turn(app, pilot, "q")
            assert app.main.conversation.query_one(".note.-info").content  # type: ignore[attr-defined]
            error = app.main.conversation.query_one(".note.-error")
            assert str(error.content) == "server said 500"  # type: ignore[attr-defined]

    async def test_an_agent_crash_is_reported_and_the_app_lives_on(self, workspace: Path) -> None:
        backend = ScriptedBackend(workspace, [[TextDelta("ok")]])
        async with running(backend) as (app, pilot):

            async def broken(user_text: str, emit: object) -> None:
                raise RuntimeError("connection reset")

            assert backend.agent is not None
            backend.agent.run_turn = broken  # type: ignore[method-assign, assignment]
            await turn(app, pilot, "q")
            assert "the turn failed: connection reset" in shown(app)
            assert app.is_running


class TestLongSessions:
    async def test_older_blocks_are_hidden_and_come_back_at_the_top(self, workspace: Path) -> None:
        async with running(ScriptedBackend(workspace)) as (app, pilot):
            view = app.main.conversation
            for number in range(SHOWN + SLACK + 1):
                await view.note(f"note {number}")
            await pilot.pause()
            shown = [note for note in view.query(".note.-info") if note.display]
            assert len(shown) == SHOWN  # the newest; the others wait above
            earlier = view.query_one(EarlierBlocks)
            assert earlier.display and "▲ 11 earlier blocks" in str(earlier.content)
            view.scroll_home(animate=False)  # the user scrolls to the top
            await until(pilot, lambda: not earlier.display)
            assert all(note.display for note in view.query(".note.-info"))
