"""CodeLines draws what a Label of the same content draws (the one MarkdownFence shows), row
for row and style for style: as it grows, with a line wider than the fence, under a selection."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.geometry import Offset
from textual.highlight import HighlightTheme, highlight
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Label

from agent.tui.widgets.code_lines import CodeLines

CODE = '''def greet(name: str) -> str:
    """Say hello,
    politely."""

    return f"hello {name}" + "-" * 3  # a comment long enough to be wider than the forty cells'''


def _content(code: str) -> Content:
    return highlight(code, language="python", theme=HighlightTheme)


class SideBySide(App[None]):
    """The two widgets in fences alike: MarkdownFence's colours, sideways scrolling, padding."""

    CSS = """
    Vertical { height: auto; overflow: scroll hidden; scrollbar-size-horizontal: 0;
               color: rgb(210,210,210); background: black 10%; }
    Vertical > * { padding: 0 2; }
    """

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(_content(CODE), expand=True)
        with Vertical():
            yield CodeLines(_content(CODE))


def _drawn(widget: Widget) -> list[list[tuple[str, object, object]]]:
    """The widget's rows as drawn: each segment's text, style and meta (each cell's offset,
    which the mouse's selection reads), without the link id each style is given."""
    width, height = widget.outer_size
    strips: list[Strip] = widget.render_lines(widget.outer_size.region)
    assert len(strips) == height and all(strip.cell_length == width for strip in strips)
    return [
        [
            (segment.text, style.clear_meta_and_links(), style.meta)
            for segment in row
            if (style := segment.style) is not None
        ]
        for row in strips
    ]


async def test_it_draws_what_a_label_draws() -> None:
    app = SideBySide()
    async with app.run_test(size=(40, 20)) as pilot:
        label, code = app.query_one(Label), app.query_one(CodeLines)
        assert code.outer_size == label.outer_size
        assert code.outer_size.width > 40  # its widest line, wider than the screen
        assert _drawn(code) == _drawn(label)

        for end in (30, 31, 60, len(CODE) - 40, len(CODE)):  # the block growing, line by line
            label.update(_content(CODE[:end]))
            code.update(_content(CODE[:end]))  # every line compared: a whole highlight
            await pilot.pause()
            assert code.outer_size == label.outer_size
            assert _drawn(code) == _drawn(label)

        selection = Selection(Offset(4, 1), Offset(10, 3))
        app.screen.selections = {label: selection, code: selection}
        await pilot.pause()
        assert _drawn(code) == _drawn(label)
        assert code.get_selection(selection) == label.get_selection(selection)
        assert code.get_selection(Selection(None, None)) == (CODE, "\n")
