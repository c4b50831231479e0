"""Containers that draw their background once a frame, not once a row."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

if TYPE_CHECKING:
    _Mixin = Widget
else:  # a mixin, not a Widget: Textual takes a widget's default CSS from its first base that
    _Mixin = object  # is a DOM node, and this one would hide the container's own


class SameRows(_Mixin):
    """A container whose rows between its top and bottom gutters are all alike (a background
    under its children): one of them is rendered and repeated. Textual renders a container's
    rows one by one, ~0.05-0.2 ms each, whenever it is resized or scrolled, which a streaming
    reply and the conversation around it are every frame: a reply of a few screens cost more
    to paint than its text. The rows drawn are the ones Textual draws, so is what is shown."""

    def render_lines(self, crop: Region) -> list[Strip]:
        styles = self.styles
        varied = styles.outline_top[0] or styles.outline_bottom[0] or styles.has_rule("hatch")
        if varied or styles.has_rule("keyline") or not self.is_container:
            return super().render_lines(crop)  # rows that may differ: drawn as Textual does
        top, _, bottom, _ = styles.gutter
        alike = Region(crop.x, top, crop.width, self.region.height - top - bottom)
        middle = crop.intersection(alike)
        if middle.height <= 1:
            return super().render_lines(crop)
        above = Region(crop.x, crop.y, crop.width, middle.y - crop.y)
        below = Region(crop.x, middle.bottom, crop.width, crop.bottom - middle.bottom)
        row = super().render_lines(middle._replace(height=1))
        return [
            *(super().render_lines(above) if above.height else []),
            *row * middle.height,
            *(super().render_lines(below) if below.height else []),
        ]
