"""Plain-text formatting of figures and tool calls for the widgets (no Textual, easy to test)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agent.model.stats import percent as percent  # the figures' own formatting
from agent.model.stats import tokens as tokens

SPARK = "▁▂▃▄▅▆▇█"


def duration(seconds: float) -> str:
    if seconds < 1:
        return f"{seconds * 1000:.0f}ms"
    if seconds < 10:
        return f"{seconds:.1f}s"
    if seconds < 60:
        return f"{seconds:.0f}s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}m{rest:02d}s"


def one_line(text: str, width: int) -> str:
    """The first line of ``text`` cut to ``width`` cells, with an ellipsis when cut."""
    lines = text.strip().splitlines()
    line = lines[0] if lines else ""
    if len(line) > width or len(lines) > 1:
        return line[: max(width - 1, 0)] + "…"
    return line


# Which argument says what a call is about, per tool; others fall back to compact JSON.
_SUBJECT_KEYS = ("command", "path", "pattern", "action", "query", "url")


def tool_subject(arguments: dict[str, Any], width: int = 60) -> str:
    for key in _SUBJECT_KEYS:
        value = arguments.get(key)
        if isinstance(value, str) and value:
            if key == "action" and isinstance(arguments.get("path"), str):
                value = f"{value} {arguments['path']}"
            return one_line(value, width)
    if not arguments:
        return ""
    return one_line(json.dumps(arguments, ensure_ascii=False, sort_keys=True), width)


def sparkline(values: Sequence[float], width: int = 16) -> str:
    """Unicode bars for the last ``width`` values, scaled to their maximum."""
    shown = list(values)[-width:]
    top = max(shown, default=0.0)
    if top <= 0:
        return SPARK[0] * len(shown)
    last = len(SPARK) - 1
    return "".join(SPARK[min(last, round(v / top * last))] for v in shown)


def tail(text: str, lines: int) -> tuple[str, int]:
    """The last ``lines`` lines of ``text`` and how many were left out above them."""
    parts = text.rstrip("\n").splitlines()
    if len(parts) <= lines:
        return "\n".join(parts), 0
    return "\n".join(parts[-lines:]), len(parts) - lines
