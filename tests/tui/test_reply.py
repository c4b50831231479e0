"""A streamed reply's code block in the real app: its lines in a CodeLines, which renders again
only the lines an append changed, and each finished block highlighted whole."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.highlight import HighlightTheme, highlight
from textual.strip import Strip
from textual.widgets.markdown import MarkdownFence

from agent.tui.widgets.code_lines import CodeLines
from agent.tui.widgets.reply import GrowingFence
from tests.factory import ScriptedRuntime
from tests.tui.harness import running, until

LINES = [f"value_{i} = compute({i}, 'k{i}')  # step {i}" for i in range(11)]
CODE = "\n".join(LINES)


async def test_an_append_renders_only_the_lines_it_changed(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rendered: list[int] = []  # the rows asked for, in order (Textual asks for those it
    render_line = CodeLines.render_line  # has no finished row of: padding and colours on)

    def counted(self: CodeLines, y: int) -> Strip:
        rendered.append(y)
        return render_line(self, y)

    monkeypatch.setattr(CodeLines, "render_line", counted)
    async with running(ScriptedRuntime(workspace)) as (app, pilot):
        conversation = app.main.conversation
        await conversation.text("Here:\n\n```python\n")
        per_append: list[list[int]] = []
        for line in LINES:
            for piece in (line[:9], line[9:] + "\n"):  # a line begun, then finished
                await conversation.text(piece)
                await until(pilot, lambda: conversation.query(CodeLines))  # the append is in
                await pilot.pause()
                per_append.append(list(rendered))
                rendered.clear()
        code = conversation.query_one(CodeLines)
        assert str(code.content) == CODE
        assert code.size.height == len(LINES)  # one row a line
        # each append drew the one line it wrote, once: none of the block's earlier lines, as
        # the block grows a row (Textual's own rows kept) and its line is rendered again
        # (the first, which shows the block, may draw its line twice as the block settles in)
        assert set(per_append[0]) == {0}
        assert per_append[1:] == [[index // 2] for index in range(1, 2 * len(LINES))]

        await conversation.text("```\n\nDone.")
        await conversation.close_streams()
        fence = conversation.query_one(GrowingFence)
        await until(pilot, lambda: fence.settled)  # after the reply's last frame
        whole = highlight(CODE, language="python", theme=HighlightTheme)
        assert fence._highlighted_code.spans == whole.spans
        assert str(fence.query_one(CodeLines).content) == CODE


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
