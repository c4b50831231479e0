"""Where a key is set in a TOML text, for error messages that name a line."""

from __future__ import annotations

import re


def line_of(text: str, dotted_key: str) -> int:
    """The line setting a key: its own [table] header, else the key after its parent's header."""
    lines = text.splitlines()
    parts = dotted_key.split(".")

    def header_line(depth: int) -> int | None:
        name = r"\s*\.\s*".join(rf"""(?:{re.escape(p)}|"{re.escape(p)}")""" for p in parts[:depth])
        found = (n for n, line in enumerate(lines) if re.match(rf"\s*\[+\s*{name}\s*\]", line))
        return next(found, None)

    own = header_line(len(parts))
    if own is not None:
        return own + 1
    start = next((n for d in range(len(parts) - 1, 0, -1) if (n := header_line(d)) is not None), 0)
    leaf = re.compile(rf"""\s*(["']?){re.escape(parts[-1])}\1\s*[=.]""")
    return next((n + 1 for n in range(start, len(lines)) if leaf.match(lines[n])), start + 1)
