"""A streamed reply's code block in the real app: its lines in labels of CHUNK_LINES, the full
labels left as they are while the block grows, and each finished block highlighted whole."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.highlight import HighlightTheme, highlight
from textual.widgets import Label
from textual.widgets.markdown import MarkdownFence

from agent.tui.widgets import reply
from agent.tui.widgets.reply import GrowingFence
from tests.factory import ScriptedRuntime
from tests.tui.harness import running, until

LINES = [f"value_{i} = compute({i}, 'k{i}')  # step {i}" for i in range(11)]
CODE = "\n".join(LINES)


async def test_full_labels_stay_as_the_block_grows(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reply, "CHUNK_LINES", 3)
    async with running(ScriptedRuntime(workspace)) as (app, pilot):
        conversation = app.main.conversation
        await conversation.text("Here:\n\n```python\n")
        first: list[object] = []
        for line in LINES:
            await conversation.text(line + "\n")
            await until(pilot, lambda: conversation.query(GrowingFence))  # the append is in
            await pilot.pause()
            labels = list(conversation.query_one(GrowingFence).query_children(Label))
            if len(labels) > 1 and not first:
                first = [labels[0], labels[0].content]  # the first full label, as shown
        labels = list(conversation.query_one(GrowingFence).query_children(Label))
        assert [str(label.content).count("\n") + 1 for label in labels] == [3, 3, 3, 2]
        assert labels[0] is first[0] and labels[0].content is first[1]  # never updated
        assert "\n".join(str(label.content) for label in labels) == CODE

        await conversation.text("```\n\nDone.")
        await conversation.close_streams()
        fence = conversation.query_one(GrowingFence)
        await until(pilot, lambda: fence.settled)  # after the reply's last frame
        whole = highlight(CODE, language="python", theme=HighlightTheme)
        assert fence._highlighted_code.spans == whole.spans
        shown = [label.content for label in fence.query_children(Label)]
        assert "\n".join(str(content) for content in shown) == CODE


async def test_a_code_block_is_highlighted_again_only_for_a_new_theme(workspace: Path) -> None:
    async with running(ScriptedRuntime(workspace)) as (app, pilot):
        conversation = app.main.conversation
        await conversation.replay([{"role": "assistant", "content": f"```python\n{CODE}\n```"}])
        await pilot.pause()
        fence = conversation.query_one(MarkdownFence)
        before = fence._highlighted_code
        await conversation.note("a block after it: the fence is no longer the last child")
        app.main.conversation.add_class("-restyled")  # restyles everything below
        await pilot.pause()
        assert fence._highlighted_code is before  # Textual's own fence lexes it again here
        app.theme = "textual-light"
        await pilot.pause()
        light = MarkdownFence.highlight(CODE, "python", ansi=app.native_ansi_color, dark=False)
        assert fence._highlighted_code is not before
        assert fence._highlighted_code.spans == light.spans
