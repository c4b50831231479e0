"""A container that renders one background row and repeats it draws every row Textual draws."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from agent.tui.widgets.background import SameRows


class Rows(SameRows, VerticalScroll):
    DEFAULT_CSS = """
    Rows { height: 1fr; background: $boost; color: $text-muted; }
    Rows.-padded { padding: 2 3 1 2; }
    Rows.-bordered { border: round $accent; border-title-align: center; }
    Rows.-outlined { outline: heavy $error; }
    Rows.-hatched { hatch: cross $success; }
    Static { margin: 1 0 0 0; }
    """


class Holder(App[None]):
    def __init__(self, classes: str) -> None:
        super().__init__()
        self.classes_of_rows = classes

    def compose(self) -> ComposeResult:
        with Rows(classes=self.classes_of_rows) as rows:
            rows.border_title = "title"
            yield Static("one")
            yield Static("two")


def rows_of(strips: list[Strip]) -> list[list[tuple[str, object]]]:
    return [[(segment.text, segment.style) for segment in strip] for strip in strips]


@pytest.mark.parametrize("classes", ["", "-padded", "-padded -bordered", "-outlined", "-hatched"])
async def test_every_crop_is_drawn_as_textual_draws_it(classes: str) -> None:
    app = Holder(classes)
    async with app.run_test(size=(30, 12)) as pilot:
        await pilot.pause()
        rows = app.query_one(Rows)
        width, height = rows.region.size
        crops = [Region(0, y, width, h) for y in range(height) for h in (1, 2, 5, height - y)]
        crops.append(Region(3, 1, width - 5, height - 2))
        for crop in crops:
            if crop.bottom > height:
                continue
            rows._styles_cache.clear()  # each render from nothing, as after a resize
            ours = rows.render_lines(crop)
            rows._styles_cache.clear()
            textuals = Widget.render_lines(rows, crop)
            assert rows_of(ours) == rows_of(textuals), crop
