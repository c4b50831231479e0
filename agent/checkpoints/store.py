"""Checkpoints: the workspace snapshotted before each turn's first change, undo and redo.

Entries go to ``entries.jsonl`` beside the shadow repository, one fsync'd line each, written
only after the snapshot they name is complete, so a kill at any point leaves a usable list.
  {"kind": "turn", "id", "commit", "session", "mark", "label", "ts"}  before a turn's first change
  {"kind": "undo", "id", "commit", "restored", "from", "ts"}  commit: the files just before it
  {"kind": "redo", "id", "commit", "ts"}                      cancels the latest live undo

The position (which turn's "before" state the files are at) follows from the list: a turn moves
it to the end, an undo to the turn it restored, a redo back to where its undo started. ``undo N``
goes N turns back from there; ``redo`` restores what the latest undo replaced, so undo itself
can be undone. A new turn after an undo starts a new line of history (redo no longer applies).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent.checkpoints.shadow import CheckpointError, ShadowRepo, shadow_dir
from agent.sessions.durable import write_synced
from server.paths import data_dir

CANNOT_RESTORE = (
    "Undo restores the workspace's files (tracked and untracked, not ignored). It cannot undo "
    "effects outside the workspace, ignored files, new files over 50 MiB, git history "
    "(commits, branches, the index, the stash), pushed commits, or anything a command sent "
    "over the network."
)


@dataclass(frozen=True)
class Restored:
    entry_id: int  # the checkpoint restored
    label: str
    written: list[str]
    deleted: list[str]
    session: str | None = None  # the turn's session and where it began there (for /rewind)
    mark: int | None = None


class Checkpoints:
    def __init__(self, workspace: Path, root: Path | None = None) -> None:
        self.workspace = workspace.resolve()
        directory = shadow_dir(root or data_dir(), self.workspace)
        self.repo = ShadowRepo(self.workspace, directory)
        self.log = directory / "entries.jsonl"

    def entries(self) -> list[dict[str, Any]]:
        if not self.log.is_file():
            return []
        found = []
        for line in self.log.read_bytes().splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # a line torn by a kill
            if isinstance(entry, dict) and isinstance(entry.get("commit"), str):
                found.append(entry)
        return found

    def before_change(self, session: str, mark: int | None, label: str) -> bool:
        """Snapshot the workspace unless this turn (session and mark) already has one; True
        when a snapshot was taken."""
        turns = [e for e in self.entries() if e.get("kind") == "turn"]
        if turns and (turns[-1].get("session"), turns[-1].get("mark")) == (session, mark):
            return False
        commit = self.repo.snapshot(f"before: {label}")
        self._append(
            {"kind": "turn", "commit": commit, "session": session, "mark": mark, "label": label}
        )
        return True

    def turn_changes(self, session: str, mark: int | None) -> dict[str, str] | None:
        """What changed since this turn's checkpoint (path -> A, M or D); None without one."""
        commit = self._turn_commit(session, mark)
        return None if commit is None else self.repo.changes_since(commit)

    def turn_before(self, session: str, mark: int | None, path: str) -> bytes | None:
        """``path`` (relative) as it was at this turn's checkpoint; None without one, or where
        the file was not there."""
        commit = self._turn_commit(session, mark)
        try:
            return None if commit is None else self.repo.git("cat-file", "blob", f"{commit}:{path}")
        except CheckpointError:
            return None

    def _turn_commit(self, session: str, mark: int | None) -> str | None:
        """The snapshot taken before this turn's first change, if the last one is this turn's."""
        turns = [e for e in self.entries() if e.get("kind") == "turn"]
        if not turns or (turns[-1].get("session"), turns[-1].get("mark")) != (session, mark):
            return None
        return str(turns[-1]["commit"])

    def undo(self, steps: int = 1) -> Restored:
        turns, index, at, _ = self._where()
        if steps < 1 or index - steps < 0:
            raise CheckpointError(
                f"only {index} turn{'' if index == 1 else 's'} to undo"
                if index
                else "nothing to undo"
            )
        target = turns[index - steps]
        current = self.repo.snapshot("before an undo")
        written, deleted = self.repo.restore(target["commit"], current)
        self._append({"kind": "undo", "commit": current, "restored": target["id"], "from": at})
        return Restored(
            target["id"],
            str(target.get("label", "")),
            written,
            deleted,
            target.get("session"),
            target.get("mark"),
        )

    def redo(self) -> Restored:
        entries = self.entries()
        _, live = _position(entries)
        if not live:
            raise CheckpointError("nothing to redo (no undo since the last turn)")
        undo = live[-1]
        current = self.repo.snapshot("before a redo")
        written, deleted = self.repo.restore(undo["commit"], current)
        self._append({"kind": "redo", "commit": current})
        return Restored(undo["id"], "the files before the last undo", written, deleted)

    def listing(self) -> list[str]:
        """One line per turn checkpoint, newest first, numbered as ``undo N`` counts them."""
        turns, index, _, live = self._where()
        lines = []
        for i in range(index - 1, -1, -1):
            turn = turns[i]
            lines.append(
                f"{index - i:3d}  {turn.get('ts', '')[:19]}  before: {turn.get('label', '')}"
            )
        if live:
            lines.insert(0, "  redo  the files before the last undo")
        return lines

    def _where(self) -> tuple[list[dict[str, Any]], int, int | None, list[dict[str, Any]]]:
        """(the turn checkpoints, how many of them lie behind the files' current state, the
        turn id the files are at or None for after the last, the live undos)."""
        entries = self.entries()
        turns = [e for e in entries if e.get("kind") == "turn"]
        at, live = _position(entries)
        ids = [t["id"] for t in turns]
        index = ids.index(at) if at in ids else len(turns)
        return turns, index, at, live

    def _append(self, entry: dict[str, Any]) -> None:
        ids = [e["id"] for e in self.entries() if isinstance(e.get("id"), int)]
        stamp = datetime.now(UTC).isoformat(timespec="seconds")
        entry = {"id": max(ids, default=0) + 1, **entry, "ts": stamp}
        data = json.dumps(entry).encode() + b"\n"
        try:
            fd = os.open(self.log, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                size = os.fstat(fd).st_size
                if size and os.pread(fd, 1, size - 1) != b"\n":
                    data = b"\n" + data  # a line torn by a kill stays one skipped line
                write_synced(fd, data)
            finally:
                os.close(fd)
        except OSError as error:
            raise CheckpointError(f"cannot write {self.log}: {error.strerror}") from None


def _position(entries: list[dict[str, Any]]) -> tuple[int | None, list[dict[str, Any]]]:
    """(the turn id whose "before" state the files are at, None for after the last turn;
    the live undos, oldest first, that a redo can cancel)."""
    at: int | None = None
    live: list[tuple[dict[str, Any], int | None]] = []
    for entry in entries:
        kind = entry.get("kind")
        if kind == "turn":
            at, live = None, []
        elif kind == "undo":
            live.append((entry, at))
            at = entry.get("restored")
        elif kind == "redo" and live:
            _, at = live.pop()
    return at, [undo for undo, _ in live]


def describe(restored: Restored) -> str:
    """One line for the user: what was restored, and what undo leaves alone."""
    changed = [*restored.written, *(f"{path} (deleted)" for path in restored.deleted)]
    shown = ", ".join(changed[:8]) + (f" and {len(changed) - 8} more" if len(changed) > 8 else "")
    what = f"restored {shown}" if changed else "the files were already as they were"
    return (
        f"{what} (checkpoint {restored.entry_id}, before: {restored.label}). "
        "Files only: effects outside the workspace, ignored files, files over 50 MiB, git "
        "history and pushed commits are not undone."
    )
