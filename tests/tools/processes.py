"""Probes for real processes and files that tests wait on."""

from __future__ import annotations

import time
from pathlib import Path

from server.process.pids import alive


def wait_until_dead(pid: int, within_s: float = 10.0) -> bool:
    # SIGKILL is delivered asynchronously; this bounds the wait, it does not measure speed.
    deadline = time.monotonic() + within_s
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def wait_for_file(path: Path, within_s: float = 10.0) -> str:
    deadline = time.monotonic() + within_s
    while not (path.exists() and path.read_text().strip()):
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)
    return path.read_text().strip()
