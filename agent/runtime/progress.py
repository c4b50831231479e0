"""Progress lines for a server's build and download, as the runtime reports them to a face."""

from __future__ import annotations

from server.engine.eta import time_left

MB = 1_000_000


def bar(done: int, total: int, width: int = 20) -> str:
    share = min(max(done / total, 0.0), 1.0) if total > 0 else 0.0
    filled = round(share * width)
    return "█" * filled + "░" * (width - filled) + f" {share * 100:3.0f}%"


def build_line(done: int, total: int, eta_s: float | None = None) -> str:
    if total <= 0:
        return "building llama-server…"
    return f"building llama-server {bar(done, total)} [{done}/{total}{time_left(eta_s)}]"


def download_line(what: str, done: int, total: int) -> str:
    if total <= 0:
        return f"downloading {what} {done / MB:.0f} MB"
    return f"downloading {what} {bar(done, total)} {done / MB:.0f}/{total / MB:.0f} MB"
