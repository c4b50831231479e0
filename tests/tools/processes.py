"""Probes for real processes and files that tests wait on."""

from __future__ import annotations

import socket
import subprocess
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


def wait_listening(
    port: int, proc: subprocess.Popen[bytes], log: Path, within_s: float = 60
) -> None:
    """Until ``proc`` accepts connections on 127.0.0.1:``port``; its log when it dies first."""
    deadline = time.monotonic() + within_s
    while True:
        assert proc.poll() is None, log.read_text()
        assert time.monotonic() < deadline, f"nothing listened on port {port}"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
