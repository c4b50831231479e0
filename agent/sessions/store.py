"""Sessions on disk: one JSONL file per session, one record per line, fsync'd per record.

A kill -9 loses at most the record being written. Records (each gets "ts", UTC ISO, if missing):
  {"type": "meta", "id", "workspace", "started", "beecode"}   first line, written by create()
  {"type": "message", "message": {OpenAI chat message}}
  {"type": "compaction", "messages": [the whole history after compacting]}
  {"type": "rewind", "to": byte offset}                      the history as it was at that record
  {"type": "forked_from", "id", "messages"}  a fork's copy of its source ends here (.fork)
  {"type": "permission" | "stats" | ..., ...}                 kept for the log, not the history
"""

from __future__ import annotations

import json
import os
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from agent.context.images import words
from agent.context.mentions import typed_part
from agent.sessions.durable import write_synced
from agent.sessions.images import restored, stored_record
from agent.sessions.replay import INTERRUPTED as INTERRUPTED  # re-exported: callers' name
from agent.sessions.replay import (
    forked_from,
    message_of,
    placed_records,
    read_records,
    repair_tool_calls,
    replay,
)
from server.paths import data_dir
from tools.redact import redact

_ID = re.compile(r"\d{8}-\d{6}-[0-9a-f]{4}")
_TITLE_CHARS = 60


class SessionError(Exception):
    """A session that does not exist, or a session file that cannot be read or written."""


@dataclass(frozen=True)
class SessionInfo:
    id: str
    workspace: Path
    started: str  # UTC ISO time
    updated: float  # file mtime (epoch seconds)
    title: str  # the first user message, shortened to one line
    n_messages: int
    path: Path
    forked_from: str | None = None  # the session this one is a fork of


def sessions_dir() -> Path:
    path = data_dir() / "sessions"
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def images_dir() -> Path:
    """Where the sessions' images are kept, one file per image (``agent.sessions.images``)."""
    return sessions_dir() / "images"


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def beecode_version() -> str:
    """The installed beecode's version (``beecode --version``, each session's meta record)."""
    try:
        return version("beecode")
    except PackageNotFoundError:
        return "unknown"


class Session:
    def __init__(self, session_id: str, path: Path, workspace: Path) -> None:
        self.id = session_id
        self.path = path
        self.workspace = workspace
        self._checked_tail = False
        self.skipped: list[str] = []  # why messages() left records out, for the faces to show
        # Where the latest user message's record starts in the file: names the turn for
        # checkpoints, and is where /rewind cuts the conversation back to.
        self.turn_mark: int | None = None

    @classmethod
    def create(cls, workspace: Path) -> Session:
        workspace = workspace.resolve()
        session_id, path = reserve()
        session = cls(session_id, path, workspace)
        session.append(
            {
                "type": "meta",
                "id": session_id,
                "workspace": str(workspace),
                "started": now(),
                "beecode": beecode_version(),
            }
        )
        return session

    @classmethod
    def open(cls, session_id: str) -> Session:
        """The session with this id, or the one whose id starts with it (SessionError when none
        or several do: the one line names them)."""
        session_id = _unique_id(session_id)
        path = sessions_dir() / f"{session_id}.jsonl"
        meta = _meta(path)
        if meta is None:
            raise SessionError(f"session {session_id} has no meta record: {path} is damaged")
        return cls(session_id, path, Path(meta["workspace"]))

    @classmethod
    def latest(cls, workspace: Path) -> Session | None:
        """The workspace's most recently written session, for --continue."""
        found = _session_files(workspace)
        return cls.open(found[0][0].stem) if found else None

    def append(self, record: dict[str, Any]) -> None:
        if "type" not in record:
            raise ValueError("a session record needs a type")
        try:  # images go beside the sessions, the record names them (agent.sessions.images)
            record = stored_record(record, images_dir())
        except OSError as err:
            raise SessionError(f"cannot write an image of {self.path}: {err}") from None
        # Secrets never reach the disk: by pattern and by the values kept from commands' env.
        data = encoded(redact({**record, "ts": record.get("ts") or now()})) + b"\n"
        if not self._checked_tail:
            # A kill mid-write leaves a line without its newline; start on a fresh line so the
            # torn record stays one skipped line instead of corrupting this one.
            self._checked_tail = True
            if self.path.stat().st_size and not self._ends_with_newline():
                data = b"\n" + data
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                if _is_user_message(record):
                    self.turn_mark = os.fstat(fd).st_size + data.startswith(b"\n")
                write_synced(fd, data)
            finally:
                os.close(fd)
        except OSError as err:
            raise SessionError(f"cannot write {self.path}: {err.strerror}") from None

    def append_message(self, message: dict[str, Any]) -> None:
        self.append({"type": "message", "message": message})

    def messages(self) -> list[dict[str, Any]]:
        """The OpenAI history: messages in order, restarted at each compaction, repaired.
        Messages of the wrong shape are left out; ``skipped`` says which and why."""
        notes: dict[str, None] = {}
        history = replay(placed_records(self.path), notes)
        self.skipped = list(notes)
        folder = images_dir()
        return repair_tool_calls([restored(m, folder) for m in history])

    def _ends_with_newline(self) -> bool:
        with self.path.open("rb") as file:
            file.seek(-1, os.SEEK_END)
            return file.read(1) == b"\n"

    def rewind(self, mark: int) -> None:
        """Cut the conversation back to before the record at byte ``mark`` (a turn's user
        message): recorded, so a resume sees the cut history too; nothing is deleted."""
        self.append({"type": "rewind", "to": mark})


def reserve() -> tuple[str, Path]:
    """A new session id and its file, created empty (SessionError when it cannot be)."""
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    try:
        while True:  # ids are unique by construction: O_EXCL refuses an existing file
            session_id = f"{stamp}-{secrets.token_hex(2)}"
            path = sessions_dir() / f"{session_id}.jsonl"
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
                return session_id, path
            except FileExistsError:
                continue
    except OSError as err:
        raise SessionError(f"cannot create a session file: {err}") from None


def _is_user_message(record: dict[str, Any]) -> bool:
    """A user's message, which starts a turn (and its checkpoint mark); not one beecode adds
    within a turn (``within_turn``: the images tools returned, what the project's checks found)."""
    message = record.get("message")
    return (
        record["type"] == "message"
        and isinstance(message, dict)
        and message.get("role") == "user"
        and not record.get("within_turn")
    )


def encoded(record: dict[str, Any]) -> bytes:
    """One JSON line; text that is not valid Unicode (a lone surrogate from a file name) is
    written escaped, so the record survives instead of failing the write."""
    try:
        return json.dumps(record, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        return json.dumps(record).encode()
    except (ValueError, RecursionError) as err:  # a circular or absurdly deep record
        raise SessionError(f"cannot record a {record.get('type')} record: {err}") from None


def _meta(path: Path) -> dict[str, Any] | None:
    with path.open("rb") as file:
        try:
            record = json.loads(file.readline())
        except ValueError:
            return None
    ok = isinstance(record, dict) and record.get("type") == "meta" and "workspace" in record
    return record if ok else None


def _title(records: list[dict[str, Any]]) -> str:
    for record in records:
        message = message_of(record)
        if message is not None and message.get("role") == "user":
            text = " ".join(typed_part(words(message.get("content"))).split())
            return text if len(text) <= _TITLE_CHARS else text[: _TITLE_CHARS - 1] + "…"
    return ""


def message_text(message: dict[str, Any]) -> str:
    """A message's text content; of content parts, the text ones joined."""
    content = message.get("content")
    if isinstance(content, list):
        return " ".join(str(p["text"]) for p in content if isinstance(p, dict) and "text" in p)
    return str(content or "")


def _unique_id(prefix: str) -> str:
    if _ID.fullmatch(prefix) and (sessions_dir() / f"{prefix}.jsonl").is_file():
        return prefix
    ids = sorted(p.stem for p in sessions_dir().glob("*.jsonl") if _ID.fullmatch(p.stem))
    found = [i for i in ids if i.startswith(prefix)] if prefix else []
    if len(found) == 1:
        return found[0]
    if not found:
        raise SessionError(f"no session {prefix!r}; `beecode sessions` lists them")
    shown = ", ".join(found[:5]) + (f" and {len(found) - 5} more" if len(found) > 5 else "")
    raise SessionError(
        f"session id {prefix!r} is ambiguous: {len(found)} sessions start so: {shown}"
    )


def _session_files(workspace: Path | None) -> list[tuple[Path, dict[str, Any]]]:
    """(file, meta record) of each session, most recently written first; one workspace's only
    when given."""
    wanted = str(workspace.resolve()) if workspace is not None else None
    found = []
    for path in sessions_dir().glob("*.jsonl"):
        meta = _meta(path) if _ID.fullmatch(path.stem) else None
        if meta is not None and wanted in (None, meta["workspace"]):
            found.append((path.stat().st_mtime, path.stem, path, meta))
    return [(path, meta) for *_, path, meta in sorted(found, reverse=True)]


def list_sessions(workspace: Path | None = None) -> list[SessionInfo]:
    """Sessions, most recently written first; only the workspace's when one is given."""
    infos = []
    for path, meta in _session_files(workspace):
        records = read_records(path)
        infos.append(
            SessionInfo(
                id=path.stem,
                workspace=Path(meta["workspace"]),
                started=str(meta.get("started", "")),
                updated=path.stat().st_mtime,
                title=_title(records),
                n_messages=sum(1 for r in records if message_of(r) is not None),
                path=path,
                forked_from=next(iter(forked_from(records)), None),
            )
        )
    return infos
