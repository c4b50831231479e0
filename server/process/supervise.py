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
from pathlib import Path

from server.errors import ServerError
from server.process.managed import ManagedServer
from server.process.state import read_record, update_record


def supervise(path: Path) -> int:
    """The detached supervisor: run the recorded launch until its record goes away or SIGTERM."""
    record = read_record(path)
    if record is None:
        return 1
    token = record["token"]

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m server.process.supervise")
    parser.add_argument("--state", required=True, type=Path, help="the server record to run")
    return supervise(parser.parse_args(argv).state)


if __name__ == "__main__":
    sys.exit(main())
