"""Capping long output: keep the head and the tail, count what was left out of the middle."""

from __future__ import annotations

# Room for the "... [N chars omitted] ..." line, so a capped text stays within its limit.
_MARKER_ROOM = 40


class HeadTail:
    """Collects a stream of text in bounded memory: the first and last characters, and a count."""

    def __init__(self, limit: int) -> None:
        room = max(limit - _MARKER_ROOM, limit // 2, 2)
        self.head_limit = room // 2
        self.tail_limit = room - self.head_limit
        self.head = ""
        self.tail = ""
        self.total = 0

    def feed(self, text: str) -> None:
        self.total += len(text)
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += text[:room]
            text = text[room:]
        if text:
            self.tail += text
            # Trim only now and then so feeding many small pieces stays linear.
            if len(self.tail) > 4 * self.tail_limit:
                self.tail = self.tail[-self.tail_limit :]

    def text(self) -> str:
        tail = self.tail[-self.tail_limit :]
        omitted = self.total - len(self.head) - len(tail)
        if omitted <= 0:
            return self.head + tail
        return f"{self.head}\n... [{omitted} chars omitted] ...\n{tail}"


def cut_line(text: str, limit: int, length: int | None = None) -> str:
    """The first ``limit`` characters and a count of the rest (for one over-long line);
    ``length``: the line's full length when ``text`` is already only its start."""
    length = len(text) if length is None else length
    if length <= limit:
        return text
    return f"{text[:limit]}... [{length - limit} chars omitted]"


def cap_text(text: str, limit: int) -> str:
    """At most ``limit`` characters: the head and the tail kept, the middle counted."""
    if len(text) <= limit:
        return text
    capped = HeadTail(limit)
    capped.feed(text)
    return capped.text()
