"""A server `beecode server up` left running, as its record says (server.process.state.running).

Apart from the record's module: it needs typing, which `server up` does not import before the
spawn, and it is made only when a server runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple


class RunningServer(NamedTuple):
    """A recorded server whose supervisor is alive."""

    url: str
    host: str
    port: int
    pid: int | None  # llama-server's (None while the supervisor restarts it)
    supervisor_pid: int
    profile: str
    argv: list[str]
    log_path: Path
    status: str  # starting | loading | healthy | restarting | failed
    restarts: int
    record: dict[str, Any]  # everything else: engine, dialect, model, draft, ctx, cache types

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> RunningServer:
        return cls(
            url=record["url"],
            host=record["host"],
            port=int(record["port"]),
            pid=record.get("server_pid"),
            supervisor_pid=int(record["supervisor_pid"]),
            profile=record["profile"],
            argv=list(record["argv"]),
            log_path=Path(record["log"]),
            status=record.get("status", "starting"),
            restarts=int(record.get("restarts", 0)),
            record=record,
        )
