"""The detached supervisor: forked by `beecode server up`, or `python -m server.process.supervise
--state FILE [--go-fd N --report-fd N]` where forking is not safe (a caller with threads).

`beecode server up` (server.process.detached) leaves this process behind: it runs one ManagedServer
from the recorded launch, reports its status into the record, and exits, stopping its server, when
the state file goes away or it gets SIGTERM. The server dies with it even on SIGKILL
(PR_SET_PDEATHSIG), so no llama-server is ever left that nobody owns.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import signal
import sys
import threading
from pathlib import Path

from server.errors import ServerError
from server.process.managed import ManagedServer
from server.process.pids import start_ticks
from server.process.state import read_record, update_record

TYPE_CHECKING = False  # typing's, without importing typing before the spawn (server up)
if TYPE_CHECKING:
    from typing import Any, NoReturn

TITLE = "beecode server supervisor"  # its process title: `beecode server down` stops it


def wait_for_go(go_fd: int) -> str | None:
    """The record's token, which `server up` sends once it has planned the launch and written the
    record; None when it gave up or is gone (the pipe closed without a token)."""
    with os.fdopen(go_fd, "rb") as go:
        return go.readline().decode(errors="replace").strip() or None


class _Report:
    """The pipe `server up` follows the start on: "spawned" and "loading" lines, closed once the
    start is decided (the record then says how). Written from the main thread only, before the
    monitor."""

    def __init__(self, fd: int | None) -> None:
        self._fd = fd

    def spawned(self) -> None:
        self._send(b"spawned\n")

    def loading(self) -> None:
        self._send(b"loading\n")

    def _send(self, line: bytes) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):  # `server up` is gone: the start goes on
                os.write(self._fd, line)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def supervise(
    path: Path, go_fd: int | None = None, report_fd: int | None = None, *, retitle: bool = False
) -> int:
    """Run the recorded launch until its record goes away or SIGTERM; ``retitle``: a forked
    supervisor, whose command line is still the CLI's, takes a process title of its own."""
    stop = threading.Event()
    report = _Report(report_fd)
    try:
        started = _start(path, go_fd, report, stop, retitle)
    finally:
        report.close()
    if started is None:
        return 1
    server, token = started
    while not stop.wait(0.5):
        if server.failure or (read_record(path) or {}).get("token") != token:
            break
    server.stop()
    return 1 if server.failure else 0


def _start(
    path: Path, go_fd: int | None, report: _Report, stop: threading.Event, retitle: bool
) -> tuple[ManagedServer, str] | None:
    """The server healthy, with the record's token; None when it was not started."""
    token = None if go_fd is None else wait_for_go(go_fd)
    record = read_record(path)
    if record is None or (go_fd is not None and record.get("token") != token):
        return None
    token = record["token"]
    _output_to(Path(record["log"]))
    if retitle:
        _title(record)

    def changed(server: ManagedServer, status: str) -> None:
        update_record(
            path,
            token,
            status=status,
            server_pid=server.pid,
            restarts=server.restarts,
            error=server.failure,
        )

    def loading(_: str) -> None:
        changed(server, "loading")
        report.loading()

    server = ManagedServer(
        record["argv"],
        log_path=Path(record["log"]),
        host=record["host"],
        port=int(record["port"]),
        on_change=changed,
    )

    def on_signal(*_: object) -> None:
        stop.set()
        server.request_stop()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    pid = os.getpid()
    # The start time tells this process from a later one given the same pid (state.is_supervisor).
    if not update_record(path, token, supervisor_pid=pid, supervisor_started=start_ticks(pid)):
        return None
    if stop.is_set():
        return None
    try:
        server.start(float(record.get("timeout_s", 300)), progress=loading, spawned=report.spawned)
    except ServerError as exc:
        update_record(path, token, status="failed", error=str(exc))
        return None
    return server, token


def run_forked(path: Path, go_fd: int, report_fd: int) -> NoReturn:
    """The forked supervisor's whole life: detached from the CLI's session, stdio and every other
    file it had open (whoever waits for a pipe the CLI holds, its output captured, must see it
    end), then supervise; it never returns into the CLI's code."""
    code = 1
    try:
        gc.freeze()  # the CLI's objects are never collected here: none closes a reused fd
        for fd in {int(name) for name in os.listdir("/proc/self/fd")} - {go_fd, report_fd}:
            if fd > 2:
                with contextlib.suppress(OSError):  # the listing's own, closed already
                    os.close(fd)
        os.setsid()
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.close(null)
        code = supervise(path, go_fd, report_fd, retitle=True)
    except BaseException:
        import traceback

        traceback.print_exc()  # into the server log once supervise() has pointed stderr there
    finally:
        sys.stderr.flush()
        os._exit(code)  # not the CLI's atexit handlers nor its buffered output


def _title(record: dict[str, Any]) -> None:
    """What ps shows for a forked supervisor, which would otherwise keep the command line of the
    CLI that started it (`beecode -p TASK`, long gone); one started with `python -m
    server.process.supervise` says what it is already."""
    from setproctitle import setproctitle

    where = f"{record.get('host')}:{record.get('port')}"
    setproctitle(f"{TITLE} (profile {record.get('profile')}, llama-server on {where})")


def _output_to(log: Path) -> None:
    """This process's own stdout and stderr (a traceback, if any) go to the server log."""
    log.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o666)  # as open("ab") makes it
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m server.process.supervise")
    parser.add_argument("--state", required=True, type=Path, help="the server record to run")
    parser.add_argument("--go-fd", type=int, help="wait for the record's token on this pipe")
    parser.add_argument("--report-fd", type=int, help="report the start on this pipe")
    args = parser.parse_args(argv)
    return supervise(args.state, args.go_fd, args.report_fd)


if __name__ == "__main__":
    sys.exit(main())
