"""The detached supervisor: `python -m server.process.supervise --state FILE`.

`beecode server up` (server.process.detached) leaves this process behind: it runs one ManagedServer
from the recorded launch, reports its status into the record, and exits, stopping its server, when
the state file goes away or it gets SIGTERM. The server dies with it even on SIGKILL
(PR_SET_PDEATHSIG), so no llama-server is ever left that nobody owns.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from pathlib import Path

from server.errors import ServerError
from server.process.managed import ManagedServer
from server.process.state import read_record, update_record


def wait_for_record(path: Path, token: str) -> bool:
    """Until the record carrying token is written (`server up` starts this process before it has
    planned the launch); False when the command that started it is gone first."""
    parent = os.getppid()
    started = time.monotonic()
    while (read_record(path) or {}).get("token") != token:
        if os.getppid() != parent:
            return False
        # Quick polls while a cached plan takes a fraction of a second; slower through a build.
        time.sleep(0.005 if time.monotonic() - started < 5 else 0.2)
    return True


def supervise(path: Path, token: str | None = None) -> int:
    """The detached supervisor: run the recorded launch until its record goes away or SIGTERM."""
    if token is not None and not wait_for_record(path, token):
        return 1
    record = read_record(path)
    if record is None:
        return 1
    token = record["token"]
    _output_to(Path(record["log"]))

    def report(server: ManagedServer, status: str) -> None:
        update_record(
            path,
            token,
            status=status,
            server_pid=server.pid,
            restarts=server.restarts,
            error=server.failure,
        )

    server = ManagedServer(
        record["argv"],
        log_path=Path(record["log"]),
        host=record["host"],
        port=int(record["port"]),
        on_change=report,
    )
    stop = threading.Event()

    def on_signal(*_: object) -> None:
        stop.set()
        server.request_stop()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    if not update_record(path, token, supervisor_pid=os.getpid()) or stop.is_set():
        return 1
    try:
        server.start(
            float(record.get("timeout_s", 300)), progress=lambda _: report(server, "loading")
        )
    except ServerError as exc:
        update_record(path, token, status="failed", error=str(exc))
        return 1
    while not stop.wait(0.5):
        if server.failure or (read_record(path) or {}).get("token") != token:
            break
    server.stop()
    return 1 if server.failure else 0


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
    parser.add_argument("--token", help="wait for the record that carries this token")
    args = parser.parse_args(argv)
    return supervise(args.state, args.token)


if __name__ == "__main__":
    sys.exit(main())
