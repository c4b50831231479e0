"""QuickScrollBar draws what Textual's ScrollBar draws, row for row, wherever the view is."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from agent.tui.widgets.scrollbar import QuickScrollBar, QuickScrolling


class QuickScroll(QuickScrolling, VerticalScroll):
    pass


class SideBySide(App[None]):
    CSS = "VerticalScroll { width: 1fr; scrollbar-size-vertical: 1; }"

    def compose(self) -> ComposeResult:
        with Horizontal():
            for scroll in (VerticalScroll(), QuickScroll()):
                with scroll:
                    yield Static("\n".join(f"line {i}" for i in range(137)))


def _drawn(bar: Widget) -> list[list[tuple[str, object, object]]]:
    strips: list[Strip] = bar.render_lines(bar.size.region)
    return [
        [
            (segment.text, style.clear_meta_and_links(), style.meta)
            for segment in row
            if (style := segment.style) is not None
        ]
        for row in strips
    ]


async def test_it_draws_what_a_scrollbar_draws() -> None:
    app = SideBySide()
    async with app.run_test(size=(60, 30)) as pilot:
        textual, quick = app.query(VerticalScroll)
        assert type(quick.vertical_scrollbar) is QuickScrollBar
        assert type(textual.vertical_scrollbar) is not QuickScrollBar
        for y in (0, 1, 7, 40, 63.5, 107, 200):
            textual.scroll_to(y=y, animate=False)
            quick.scroll_to(y=y, animate=False)
            await pilot.pause()
            drawn = _drawn(quick.vertical_scrollbar)
            assert len(drawn) == 30 and len({str(row) for row in drawn}) > 1  # a thumb on it
            assert drawn == _drawn(textual.vertical_scrollbar), y
        assert not quick.vertical_scrollbar._styles_cache._cache  # drawn its own way throughout
        quick.vertical_scrollbar.mouse_over = textual.vertical_scrollbar.mouse_over = True
        await pilot.pause()
        assert _drawn(quick.vertical_scrollbar) == _drawn(textual.vertical_scrollbar)
