"""Progress lines for a server's build and download, as the runtime reports them to a face, with
the time left: the build's own estimate (server.engine.cmake_build), a download's from its rate."""

from __future__ import annotations

import time
from collections.abc import Callable

from server.engine.eta import time_left

MB = 1_000_000
# The server code reports bytes, except for a few counts of files (the wheels a model comes in):
# a total under this is such a count. No model file is that small.
COUNT_BELOW = 1_000
ETA_MIN_S = 5.0  # a download's first seconds say little about its rate


def bar(done: int, total: int, width: int = 20) -> str:
    share = min(max(done / total, 0.0), 1.0) if total > 0 else 0.0
    filled = round(share * width)
    return "█" * filled + "░" * (width - filled) + f" {share * 100:3.0f}%"


def build_line(done: int, total: int, eta_s: float | None = None, step: str = "") -> str:
    """``step``: a build step without a count that just ended ("fetch done")."""
    if total <= 0:
        return f"building llama-server ({step})" if step else "building llama-server…"
    left = time_left(eta_s) if done < total else ""  # the last step: nothing left to estimate
    return f"building llama-server {bar(done, total)} [{done}/{total}{left}]"


def download_line(what: str, done: int, total: int, eta_s: float | None = None) -> str:
    """``what`` as the server code names the step ("download X.gguf", "assemble X.gguf", "X from
    huggingface.co/…"); ``done``/``total`` in bytes, or files where ``total`` is a count."""
    if total <= 0:
        return f"{what} {done / MB:.0f} MB" if done > 0 else what
    if total < COUNT_BELOW:
        return f"{what} {bar(done, total)} [{done}/{total}]"
    amount = f"{done / MB:.0f}/{total / MB:.0f} MB"
    return f"{what} {bar(done, total)} {amount}{time_left(eta_s)}"


class DownloadLines:
    """Each download's line, with its time left at the rate of its own bytes so far (counted
    from its first report, so a resumed download's earlier bytes do not speed it up)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._first: dict[str, tuple[float, int]] = {}  # what -> (when, done) at its first report

    def line(self, what: str, done: int, total: int) -> str:
        return download_line(what, done, total, self.eta_s(what, done, total))

    def eta_s(self, what: str, done: int, total: int) -> float | None:
        now = self._clock()
        start, start_done = self._first.setdefault(what, (now, done))
        seconds, got = now - start, done - start_done
        if total < COUNT_BELOW or got <= 0 or seconds < ETA_MIN_S:
            return None
        return round(seconds / got * max(total - done, 0), 1)
