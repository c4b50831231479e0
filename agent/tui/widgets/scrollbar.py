"""A vertical scrollbar drawn straight from its segments, one row each."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.segment import Segment
from textual.geometry import Region
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip

if TYPE_CHECKING:
    from textual.widget import Widget

    _Mixin = Widget
else:  # a mixin, not a Widget (as SameRows: Textual takes default CSS from the first DOM base)
    _Mixin = object


class QuickScrollBar(ScrollBar):
    """Textual draws a scrollbar as any Rich renderable: through a console into lines, then
    each row through the styles cache, ~1 ms for a 40-row bar. The conversation's moves with
    every frame of a stream (the reply grows under it), so that was ~1 ms of each frame. Its
    rows are the bar's segments, one each, on the widget's own style, with the app's filters:
    what that path draws for a vertical bar with no padding, border or tint, which this is;
    any other is drawn Textual's way."""

    def render_lines(self, crop: Region) -> list[Strip]:
        bar = self.render()
        width, height = self.size
        styles = self.styles
        effects = any(styles.gutter) or styles.tint.a or min(self.opacity, styles.text_opacity) < 1
        whole_rows = crop.column_span == (0, width)
        if effects or not (self.vertical and whole_rows and isinstance(bar, ScrollBarRender)):
            return super().render_lines(crop)
        base = self.visual_style.rich_style
        style = self.app.console.get_style(bar.style)  # as ScrollBarRender's own drawing
        segments = bar.render_bar(
            size=height,
            window_size=bar.window_size,
            virtual_size=bar.virtual_size,
            position=bar.position,
            vertical=True,
            thickness=width,
            **({"back_color": style.bgcolor} if style.bgcolor else {}),
            **({"bar_color": style.color} if style.color else {}),
        ).segments
        background = self.background_colors[1]
        filters = self.get_line_filters()
        rows: dict[Segment, Strip] = {}  # the bar has three or four kinds of row
        lines = []
        for segment in segments[crop.y : crop.bottom]:
            row = rows.get(segment)
            if row is None:
                text, own, _ = segment
                row = Strip([Segment(text, base + own if own else base)], width)
                for line_filter in filters:
                    row = row.apply_filter(line_filter, background)
                rows[segment] = row
            lines.append(row)
        return lines


class QuickScrolling(_Mixin):
    """A scrollable widget whose vertical scrollbar is a ``QuickScrollBar``."""

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        if self._vertical_scrollbar is None:  # as Widget's, with the other class
            self._vertical_scrollbar = QuickScrollBar(
                vertical=True, name="vertical", thickness=self.scrollbar_size_vertical
            )
            self._vertical_scrollbar.display = False
            self.app._start_widget(self, self._vertical_scrollbar)
        return self._vertical_scrollbar
