"""``python -I -S guard.py BEECODE_PID COMMAND ARGS...``: runs a stdio MCP server and takes its
whole process group down when beecode dies, even by SIGKILL (then nobody is left to stop it).

The SDK starts each server in a session of its own and, on close, kills that process group. A
beecode that is killed cannot, and a server that does not exit when its stdin closes (hung,
mid-call, or a wrapper like npx or uvx whose child holds on) would run on with nobody to stop
it. This guard is the group's leader: the server is its child, in the same group, with the
guard's stdin, stdout and stderr. It waits for either to end: the server (the guard then
SIGTERMs what is left of the group and exits with the server's status, so the SDK sees what it
would have seen) or beecode, its parent (the guard then SIGTERMs the group, gives it
``GRACE_S``, then SIGKILLs it, itself included).

On Linux it waits on pidfds (woken the moment either process ends; the parent's pidfd watches
the process, not the thread that forked, unlike PR_SET_PDEATHSIG); elsewhere it polls getppid().
Standard library only, run with -I -S: it starts in ~20 ms and never sees the user's site.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time

GRACE_S = 2.0  # SIGTERM to SIGKILL, as the SDK gives a server it stops
POLL_S = 0.25  # where there are no pidfds


def _watch(parent: int, server: subprocess.Popen[bytes]) -> None:
    """Return when the server has exited or the parent is gone."""
    try:
        fds = [os.pidfd_open(parent), os.pidfd_open(server.pid)]
    except (AttributeError, OSError):  # not Linux, or the parent is already gone
        fds = []
    while server.poll() is None and os.getppid() == parent:
        if fds:
            select.select(fds, [], [])
        else:
            time.sleep(POLL_S)


def _stop_group(server: subprocess.Popen[bytes]) -> None:
    os.killpg(0, signal.SIGTERM)  # the guard's own handler ignores it
    deadline = time.monotonic() + GRACE_S
    while server.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(0, signal.SIGKILL)  # what is left of the group, the guard last


def main(argv: list[str]) -> int:
    parent, argv = int(argv[0]), argv[1:]
    if os.getppid() != parent:
        return 1  # beecode died before the guard ran: start nothing
    if os.getpgrp() != os.getpid():
        os.setpgid(0, 0)  # the group is the guard's own, never its parent's
    # A SIGTERM to the group (the SDK stopping the server) is the server's to act on; the guard
    # exits with it. A Python handler, not SIG_IGN: the server must not inherit an ignore.
    signal.signal(signal.SIGTERM, lambda number, frame: None)
    try:
        server = subprocess.Popen(argv)
    except OSError as error:
        sys.stderr.write(f"cannot run {argv[0]}: {error.strerror}\n")
        return 127
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)  # the pipes are the server's: the guard holds none of them open
    _watch(parent, server)
    if server.poll() is None:
        _stop_group(server)
    else:  # what the server left in its group (a wrapper's child) goes with it
        os.killpg(0, signal.SIGTERM)
    code = server.wait()
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
