"""A code block's lines, one row each, every row rendered once and kept until its line changes.

A ``Label`` renders all of its lines whenever it changes (and wraps them all again to learn its
height and width), ~0.2-0.3 ms a line: the code block a reply is writing changes with every
append, so its lines were rendered again each frame, most of them unchanged. ``CodeLines``
keeps each line's rendered row (a ``Strip``), keyed by the line's text and spans, and knows its
size without rendering: a code block's lines do not wrap (its fence scrolls sideways, and the
widget is as wide as its longest line), so it is one row per line. An update renders only the
lines that changed, usually the last one or two. What it draws is what a ``Label`` of the same
content, expanded to the fence's width, draws: the same rows, styles and selection.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.segment import Segment
from textual.content import Content
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.style import Style
from textual.widget import Widget

if TYPE_CHECKING:
    from textual.selection import Selection

TAB_SIZE = 8  # as Content renders a line (its tabs expanded to 8 cells)


class CodeLines(Widget):
    """The lines of ``content``, one row each, as wide as the widest or the container."""

    DEFAULT_CSS = """
    CodeLines { width: auto; height: auto; min-height: 1; }
    """  # a Label's sizing

    def __init__(self, content: Content) -> None:
        super().__init__()
        self.auto_links = False  # code has no links (MarkdownFence turns them off too)
        self._content = Content("")
        self._lines: list[Content] = []
        self._starts: list[int] = []  # where each line starts in the content's text
        self._widths: list[int] = []  # each line's cells, its tabs expanded
        self._rows: dict[int, Strip] = {}  # each line's rendered row, while valid
        self._rows_key: tuple[object, ...] = ()  # what the rows were rendered for
        self._replace_lines(content, 0)

    @property
    def content(self) -> Content:
        """What is shown."""
        return self._content

    def update(self, content: Content, stable_lines: int = 0) -> None:
        """Show ``content``; its first ``stable_lines`` lines are known to be as they were
        (the growing block's highlight kept them), so they are not compared again."""
        count, width = len(self._lines), max(self._widths, default=0)
        changed = self._replace_lines(content, stable_lines)
        if not changed and len(self._lines) == count:
            return
        resized = len(self._lines) != count or max(self._widths, default=0) != width
        if not self.is_mounted:
            return
        first, last = min(changed, default=0), max(changed, default=0)
        rows = Region(0, first, max(self.size.width, 1), last - first + 1)
        self.refresh(rows, layout=resized)  # a resize makes every row dirty again anyway

    def _replace_lines(self, content: Content, stable_lines: int) -> list[int]:
        """Take ``content``'s lines; return the indices of those that differ from before."""
        plain, before = content.plain, self._content.plain
        keep = max(0, min(stable_lines, len(self._lines) - 1))
        if keep and not plain.startswith(before[: self._starts[keep]]):
            keep = 0  # not the text it was said to keep
        start = self._starts[keep] if keep else 0
        tail = content[start:] if start else content
        new = tail.split(allow_blank=True)  # the lines a Label renders
        old = self._lines[keep:]
        changed = [
            keep + index
            for index, line in enumerate(new)
            if index >= len(old) or not _same(old[index], line)
        ]
        for index in range(keep + len(new), len(self._lines)):
            self._rows.pop(index, None)  # lines gone
        for index in changed:
            self._rows.pop(index, None)
        starts = [start]
        for line in new[:-1]:
            starts.append(starts[-1] + len(line.plain) + 1)
        self._content = content
        self._lines[keep:] = new
        self._starts[keep:] = starts
        self._widths[keep:] = [line.expand_tabs(TAB_SIZE).cell_length for line in new]
        return changed

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return max(container.width, max(self._widths, default=0))  # a Label with expand=True

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines) if width else 0

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        """Keep Textual's finished rows (padding and colours on) when only the height changed:
        a resize throws them all away, and a growing block grows a row with most appends
        (~0.035 ms a row shown, a screenful each frame). Without a top or bottom gutter a
        row does not depend on the height; those rows still to draw stay marked so."""
        cache, styles = self._styles_cache, self.styles
        taller = size.width == self._size.width and not (styles.gutter.top or styles.gutter.bottom)
        kept = (dict(cache._cache), set(cache._dirty_lines)) if taller else None
        resized = super()._size_updated(size, virtual_size, container_size, layout)
        if kept is not None:
            rows, dirty = kept
            cache._cache = {y: row for y, row in rows.items() if y < size.height}
            cache._dirty_lines = dirty
        return resized

    def render_line(self, y: int) -> Strip:
        style = self.visual_style
        key = (style, self.app.theme, self.app.ansi_color)  # a row is drawn to its line's width
        if key != self._rows_key:  # restyled: every row is drawn again
            self._rows.clear()
            self._rows_key = key
        if y >= len(self._lines):
            return Strip.blank(self.size.width, style.rich_style)
        selection = self.text_selection
        if selection is not None:
            return self._render_row(y, style, selection)  # not kept, as in Log
        row = self._rows.get(y)
        if row is None:
            row = self._rows[y] = self._render_row(y, style, None)
        return row

    def _render_row(self, y: int, style: Style, selection: Selection | None) -> Strip:
        """Line ``y`` as Content renders it in a Label (``Content.render_strips`` for a line
        that fits): styled, the selection shown, each cell's offset in its style's meta (where
        the mouse's selection finds it). Built here, not by ``render_strips``: that marks
        every row as row 0, and marking it again costs as much as rendering it."""
        line = self._lines[y]
        if selection is not None and (span := selection.get_span(y)) is not None:
            start, end = span
            selected = self.screen.get_component_styles("screen--selection")
            line = line.stylize(Style.from_styles(selected), start, len(line) if end < 0 else end)
        line = line.expand_tabs(TAB_SIZE)
        segments, x = [], 0
        for text, text_style in line.render(style, end="", parse_style=self._get_style):
            segments.append(Segment(text, (style + text_style).rich_style_with_offset(x, y)))
            x += len(text)
        return Strip(segments, line.cell_length)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        return selection.extract(self._content.plain), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()


def _same(before: Content, now: Content) -> bool:
    return before.plain == now.plain and before.spans == now.spans
