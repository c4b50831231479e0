"""The server start's progress for a face without a screen (headless mode): one line on stderr
each, a build's or a download's bar at most every so often."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TextIO

PROGRESS_EVERY_S = 10.0  # a build's or a download's bar on stderr, at most this often


class ProgressLines:
    """The start's progress on stderr, one line each: a step at once; a build's or a download's
    bar the first time, then at most every ``every_s`` seconds (a build reports hundreds of
    steps), and its latest state before any other line, so its end is never left out."""

    def __init__(
        self,
        err: TextIO,
        every_s: float = PROGRESS_EVERY_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.err, self.every_s, self.clock = err, every_s, clock
        self._printed: dict[str, float] = {}  # key -> when its last line was printed
        self._held: dict[str, str] = {}  # key -> its latest line, not printed yet
        self._lock = threading.Lock()  # a Progress may be called from any thread

    def __call__(self, key: str, line: str) -> None:
        with self._lock:
            now = self.clock()
            last = self._printed.get(key)
            if key != "step" and last is not None and now - last < self.every_s:
                self._held[key] = line
                return
            self._held.pop(key, None)
            self._flush()
            self._printed[key] = now
            print(f"beecode: {line}", file=self.err, flush=True)

    def flush(self) -> None:
        """Print the held lines (each bar's latest state)."""
        with self._lock:
            self._flush()

    def _flush(self) -> None:
        for key, line in self._held.items():
            self._printed[key] = self.clock()
            print(f"beecode: {line}", file=self.err, flush=True)
        self._held.clear()
