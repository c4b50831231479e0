"""Forking a session: a new session (new id) whose file holds a copy of the source's records, so
it replays to the same history; the source's file is only read.

The copy keeps every record after the source's meta line (messages, compactions, rewinds,
repository maps, stats, the log's records) with its time, redacted again as every record is
written, and ends with ``{"type": "forked_from", "id": SOURCE, "messages": N}``: where it came
from and how many history messages it held then. A rewind record names a byte offset in its own
file, so each is moved to the offset its cut point has in the copy. Torn or garbled lines of the
source are skipped, as a replay skips them. The file is written whole and put in place at once: a
kill mid-copy leaves no half session.
"""

from __future__ import annotations

import os
from bisect import bisect_left
from pathlib import Path
from typing import Any

from agent.sessions.durable import write_synced
from agent.sessions.replay import (
    FORKED_FROM,
    forked_from,
    placed_records,
    repair_tool_calls,
    replay,
)
from agent.sessions.store import Session, SessionError, beecode_version, encoded, now, reserve
from tools.redact import redact


def fork_session(source: Session) -> Session:
    """A new session holding a copy of ``source``'s history (SessionError with one line when the
    source cannot be read or the copy cannot be written)."""
    try:
        records = placed_records(source.path)
    except OSError as err:
        raise SessionError(f"cannot read {source.path}: {err.strerror}") from None
    n_messages = len(repair_tool_calls(replay(records, {})))
    session_id, path = reserve()
    meta = {"type": "meta", "id": session_id, "workspace": str(source.workspace)}
    lines = [encoded({**meta, "started": now(), "beecode": beecode_version(), "ts": now()})]
    temporary = path.with_name(f".{session_id}.fork")
    try:
        lines += _copied(records, len(lines[0]) + 1)
        mark = {"type": FORKED_FROM, "id": source.id, "messages": n_messages, "ts": now()}
        lines.append(encoded(mark))
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            write_synced(fd, b"".join(line + b"\n" for line in lines))
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except BaseException as err:  # nothing half-made is left: no copy, no empty session
        temporary.unlink(missing_ok=True)
        path.unlink(missing_ok=True)
        if isinstance(err, OSError):
            raise SessionError(f"cannot write the forked session {path}: {err.strerror}") from None
        raise
    return Session(session_id, path, source.workspace)


def _copied(records: list[tuple[int, dict[str, Any]]], start: int) -> list[bytes]:
    """The source's records after its meta line, encoded for a file where they begin at byte
    ``start``; rewind records re-pointed into the copy."""
    lines: list[bytes] = []
    olds: list[int] = []  # each copied record's offset in the source, ascending
    news: list[int] = []  # and in the copy
    at = start
    for offset, record in records:
        if record.get("type") == "meta":
            continue
        if record.get("type") == "rewind" and isinstance(record.get("to"), int):
            # Replay keeps the records before the cut: the first copied one at or after it.
            index = bisect_left(olds, record["to"])
            record = {**record, "to": news[index] if index < len(news) else at}
        line = encoded(redact(record))
        olds.append(offset)
        news.append(at)
        lines.append(line)
        at += len(line) + 1
    return lines


def forked_line(session_id: str, source_id: str) -> str:
    """What the faces say about a fork just made."""
    return (
        f"forked: this conversation goes on in the new session {session_id}; the original "
        f"{source_id} is left as it was (`beecode -r {source_id}` goes back to it)"
    )


def ancestors(path: Path) -> list[str]:
    """``forked_from`` of a session file (none when it cannot be read)."""
    try:
        return forked_from([record for _, record in placed_records(path)])
    except OSError:
        return []
