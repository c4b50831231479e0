"""Python's full garbage collections held off while a reply streams.

A full collection walks every object the process holds: with a long session on screen (every
block a widget, every drawn row a cached strip) one took 0.1-0.35 s, and a fast stream made
several, at any moment of it: in one 4,000-token reply after 30 answers they were 40% of the
app's CPU and the longest stalls of the stream. Textual can hold the collector off likewise
while a scroll animates (``App.PAUSE_GC_ON_SCROLL``). While a reply streams, what the app held
before is frozen (not walked) and full collections come ten times less often; the young
generations are collected as always, so what dies within a frame or two is freed at once, and
what reaches the old generation waits at most ten times the usual count of collections: some
15 MB at 2,000 tok/s (a 16,000-token stream with no full collection at all grew 46 MB over 326
middle-generation collections; one now comes every 100). Both are undone once the reply's last
frame is out: the full collection the release lets come, soon after, walks everything again.
"""

from __future__ import annotations

import gc

RARER = 10  # full collections this many times rarer while a reply streams

_holders: set[int] = set()  # the streaming conversations (the collector is the process's)
_saved: list[tuple[int, int, int]] = []  # the thresholds to restore when the last one stops


def hold(owner: object) -> None:
    """``owner`` streams a reply: hold full collections off (again is a no-op)."""
    if not _holders:
        young, middle, old = gc.get_threshold()
        _saved[:] = [(young, middle, old)]
        gc.freeze()
        gc.set_threshold(young, middle, old * RARER)
    _holders.add(id(owner))


def release(owner: object) -> None:
    """``owner`` stopped streaming (or never did): undo the hold once no one streams."""
    if id(owner) in _holders:
        _holders.discard(id(owner))
        if not _holders:
            gc.set_threshold(*_saved.pop())
            gc.unfreeze()


def holding() -> bool:
    return bool(_holders)
