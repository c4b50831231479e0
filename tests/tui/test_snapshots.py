"""SVG snapshots of the main states, one class per feature. Each docstring says what the reviewer
should see. The real agent runs on a scripted model. Deterministic: fixed size, scripted replies,
a hand-moved clock, tool calls that take 250 ms by the loop's clock, no cursor blink.
Update with `pytest tests/tui/test_snapshots.py --snapshot-update` and look at the SVGs."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets.markdown import MarkdownBlock, MarkdownFence

from agent.config import Config
from agent.events import DraftingNote
from agent.model.endpoint import ModelError, TextPiece
from agent.model.scripted import Hold, Step, call
from agent.tui.app import BeeApp
from agent.tui.widgets import reply
from agent.tui.widgets.prompt import PromptInput
from tests.factory import ScriptedRuntime, answer, stats
from tests.tui.harness import SIZE, clock, make_app, send, until

pytestmark = pytest.mark.usefixtures("quarter_second_tools")
APP_PY = "import sys\nx = 1\nprint(x)\n"
READ = call("read", {"path": "app.py"})  # edit refuses a file the model has not read
EDIT = call("edit", {"path": "app.py", "old": "x = 1", "new": "x = 2"})
REPLY = (
    "Here is the plan:\n\n1. read `app.py`\n2. change **x**\n\n```python\nx = 2\n```\n\nThen run"
)
CODE_REPLY = (
    'Done:\n\n```python\ndef f(x: int) -> str:\n    """Say x,\n    then x\n    again.\n    """\n'
    '    return f"{x}{x}"  # both\n```\n\nThat is all.'
)
Snap = Callable[..., bool]


def ready(app: BeeApp, then: Callable[[Pilot[None]], Awaitable[None]] | None = None) -> Any:
    """run_before: wait for the agent, stop the cursor blinking, then do ``then``."""

    async def run_before(pilot: Pilot[None]) -> None:
        await until(pilot, lambda: app.core is not None)
        app.main.query_one(PromptInput).cursor_blink = False
        if then is not None:
            await then(pilot)
        await pilot.pause()

    return run_before


def reply_in(app: BeeApp) -> bool:
    """The streamed REPLY is in its widget: its last block holds the reply's last words (the
    deltas reach the inbox first, then a frame's drain, then the Markdown stream's append)."""
    blocks = app.main.conversation.query(MarkdownBlock).filter(".assistant > *")
    return bool(blocks) and "Then run" in (blocks.last().source or "")


def finished(app: BeeApp, count: int) -> Callable[[], bool]:
    return lambda: app.main.turns_finished >= count and not app.main.busy


class TestEmpty:
    def test_first_screen(self, snap_compare: Snap, workspace: Path) -> None:
        """Empty conversation, the prompt's placeholder, 'no turn yet', the status line with
        the model, ctx 0/8.2k, mode ask, server external (an --endpoint has no profile); footer
        keys."""
        app = make_app(ScriptedRuntime(workspace))
        assert snap_compare(app, terminal_size=SIZE, run_before=ready(app))


class TestStreaming:
    def test_mid_stream(self, snap_compare: Snap, workspace: Path) -> None:
        """A Markdown reply streaming (list, code block), the live '~N tok/s · N tok streaming'
        estimate and 'working (esc cancels)' in the status line."""
        deltas = [TextPiece(REPLY[i : i + 4]) for i in range(0, len(REPLY), 4)]
        app = make_app(ScriptedRuntime(workspace, [[*deltas, Hold()]]))

        async def stream(pilot: Pilot[None]) -> None:
            await send(pilot, "change x to 2")  # enter sends the prompt
            await until(pilot, lambda: reply_in(app))  # not only queued: in its widget
            await pilot.pause()
            clock(app).now += 2.0
            app.main.refresh_lines()

        assert snap_compare(app, terminal_size=SIZE, run_before=ready(app, stream))

    def test_code_streamed_in_pieces(self, snap_compare: Snap, workspace: Path) -> None:
        """A reply with a Python block streamed into the conversation three characters at a
        time, each piece appended on its own, then the same reply replayed whole below it: the
        two look the same (the docstring over four lines, one expression in Pygments, styled
        as a docstring in both; the streamed block's lines in a CodeLines, the replayed one's in
        Textual's Label)."""
        app = make_app(ScriptedRuntime(workspace))

        async def stream_then_replay(pilot: Pilot[None]) -> None:
            conversation = app.main.conversation
            for start in range(0, len(CODE_REPLY), 3):
                await conversation.text(CODE_REPLY[start : start + 3])
                await pilot.pause()  # the stream appends this piece alone
            await conversation.close_streams()
            await until(pilot, lambda: conversation.query_one(reply.GrowingFence).settled)
            await conversation.replay([{"role": "assistant", "content": CODE_REPLY}])
            await pilot.pause()
            streamed, whole = conversation.query(MarkdownFence)
            assert streamed.code == whole.code
            assert streamed._highlighted_code.spans == whole._highlighted_code.spans

        assert snap_compare(app, terminal_size=SIZE, run_before=ready(app, stream_then_replay))


class TestToolCall:
    def test_tool_blocks(self, snap_compare: Snap, workspace: Path, tiny_config: Config) -> None:
        """A read (collapsed, done), an edit with its coloured diff expanded, a bash call that
        exited 1 (red, collapsed), the answer, and the throughput line with draft figures and
        the speed-up against the 40 tok/s the brake measured without drafting."""
        (workspace / "app.py").write_text(APP_PY)
        script = [
            READ,
            EDIT,
            call("bash", {"command": "echo '1 failed'; exit 1"}),
            answer(
                "Changed `x`; one test still fails.",
                figures=stats(96.0, 240, (200, 150), 120, 2900, DraftingNote(False, 2.4, True, 40)),
            ),
        ]
        config = dataclasses.replace(tiny_config, permission_mode="yolo")
        app = make_app(ScriptedRuntime(workspace, script, config))

        async def act(pilot: Pilot[None]) -> None:
            await send(pilot, "set x to 2 and run the tests")
            await until(pilot, finished(app, 1))

        assert snap_compare(app, terminal_size=SIZE, run_before=ready(app, act))


class TestPermission:
    def test_edit_permission_modal(self, snap_compare: Snap, workspace: Path) -> None:
        """The modal over the conversation: 'Allow edit to change files?', the path, the
        coloured diff and the four answers with their keys; the read before it ran unasked."""
        (workspace / "app.py").write_text(APP_PY)
        app = make_app(ScriptedRuntime(workspace, [READ, EDIT]))

        async def act(pilot: Pilot[None]) -> None:
            await send(pilot, "set x to 2")
            await until(pilot, lambda: type(app.screen).__name__ == "PermissionScreen")

        assert snap_compare(app, terminal_size=SIZE, run_before=ready(app, act))


class TestDiff:
    def test_diff_screen(self, snap_compare: Snap, changed_repo: Path) -> None:
        """/diff: the workspace's uncommitted change to a.txt, one -> two, coloured."""
        app = make_app(ScriptedRuntime(changed_repo))

        async def act(pilot: Pilot[None]) -> None:
            await send(pilot, "/diff")
            await until(pilot, lambda: type(app.screen).__name__ == "TextScreen")

        assert snap_compare(app, terminal_size=SIZE, run_before=ready(app, act))


class TestStats:
    def test_stats_table(self, snap_compare: Snap, workspace: Path) -> None:
        """/stats after three turns: speculating, speculation off, speculating again; the
        sparkline of the three speeds is in the throughput line behind the table."""
        script = [
            answer("a", figures=stats(120.0, 300, (240, 200), prompt=800, cache=0)),
            answer("b", figures=stats(40.0, 100, prompt=20, cache=1100)),
            answer("c", figures=stats(90.0, 180, (160, 100), prompt=30, cache=1300)),
        ]
        app = make_app(ScriptedRuntime(workspace, script))

        async def act(pilot: Pilot[None]) -> None:
            for number, prompt in enumerate(("one", "two", "three"), start=1):
                await send(pilot, prompt)
                await until(pilot, finished(app, number))
            await send(pilot, "/stats")
            await until(pilot, lambda: type(app.screen).__name__ == "TableScreen")

        assert snap_compare(app, terminal_size=SIZE, run_before=ready(app, act))


class TestError:
    def test_error_from_the_server(self, snap_compare: Snap, workspace: Path) -> None:
        """A partial answer, then the server's error in bold red; the turn ends, the prompt is
        free again."""
        failing: list[Step] = [
            TextPiece("Let me look"),
            ModelError("the server failed: 500 context exceeded"),
        ]
        app = make_app(ScriptedRuntime(workspace, [failing]))

        async def act(pilot: Pilot[None]) -> None:
            await send(pilot, "read everything")
            await until(pilot, finished(app, 1))

        assert snap_compare(app, terminal_size=SIZE, run_before=ready(app, act))


class TestCompletion:
    def test_slash_menu(self, snap_compare: Snap, workspace: Path) -> None:
        """Typing '/s' opens the menu above the prompt: /sessions, /stats, /server, /skills."""
        app = make_app(ScriptedRuntime(workspace))

        async def act(pilot: Pilot[None]) -> None:
            await pilot.press("/", "s")

        assert snap_compare(app, terminal_size=SIZE, run_before=ready(app, act))
