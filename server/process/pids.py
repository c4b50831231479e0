"""Whether a process is alive, what it runs, and stopping its process group: the one place for it.

A zombie (exited, not yet reaped: in a container PID 1 may never reap it) counts as dead.
psutil is imported where it is used: `server up` with no server recorded needs none of it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time


def alive(pid: int | None) -> bool:
    if not pid:
        return False
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def cmdline(pid: int) -> list[str]:
    """The process's argv; [] when it is gone, a zombie or not ours to read."""
    import psutil

    try:
        return psutil.Process(pid).cmdline()
    except psutil.Error:
        return []


def start_ticks(pid: int) -> int | None:
    """When the process started, in clock ticks since boot (/proc/PID/stat's field 22): with the
    pid it names one process, so a reused pid is told apart. None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return int(stat.read().rsplit(b")", 1)[1].split()[19])  # after the (name)
    except (OSError, ValueError, IndexError):
        return None


def group_alive(pgid: int) -> bool:
    """Whether any live process is in the process group."""
    import psutil

    for proc in psutil.process_iter():
        with contextlib.suppress(psutil.Error, ProcessLookupError):
            if os.getpgid(proc.pid) == pgid and proc.status() != psutil.STATUS_ZOMBIE:
                return True
    return False


def kill_group(pid: int, grace_s: float = 10.0) -> None:
    """SIGTERM the process group led by pid, then SIGKILL what is left after grace_s."""
    for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)  # reap it if it is our child
            if not group_alive(pid):
                return
            time.sleep(0.05)
