"""A session's prompt cache kept across server restarts: llama-server slot files.

Reading a long conversation back in (prefill) is the costly wait on a local machine. When a
session is left (quit, /resume, /clear, a profile change, a server restart) the managed server's
slot is saved to ``<slot dir>/<session id>.slot`` with a note of what it holds: the model, and
digests of the system message, the tools and the history. When the session is resumed the file
is restored if the note's prefix is the start of what will be sent, else the server prefills as
usual. Whether a restore took effect is only known from the next request: the tokens the server
served from its cache (``restore_effect``); hybrid (recurrent) and sliding-window models may
re-read everything anyway. One file per session; the folder is pruned by age and total size.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from agent.config import Config
from agent.events import Notice, RequestStats
from server.client import get_props, slot_file
from server.errors import ServerError
from server.paths import read_json_object, write_json

SLOT_ID = 0  # beecode's profiles serve one slot (-np 1); with more, which one is ours is unknown


@dataclass(frozen=True)
class Prefix:
    """What a request's prompt starts with, as digests (the note kept beside a slot file)."""

    model: str
    system: str
    tools: str
    history: str
    n_messages: int  # history messages the history digest covers


def _digest(value: Any) -> str:
    data = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def prefix_of(
    model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]], n: int | None = None
) -> Prefix:
    """The prefix of a request: ``messages`` (the system message first), the first ``n`` history
    messages of them (all when None), and the tools."""
    history = messages[1:] if n is None else messages[1 : 1 + n]
    return Prefix(model, _digest(messages[:1]), _digest(tools), _digest(history), len(history))


def mismatch(saved: Prefix, model: str, messages: list[dict[str, Any]], tools: list[Any]) -> str:
    """Why the saved prefix is not the start of this request ("" when it is)."""
    now = prefix_of(model, messages, tools, saved.n_messages)
    if saved.model != now.model:
        return "the model changed"
    if saved.system != now.system:
        return "the system prompt changed"
    if saved.tools != now.tools:
        return "the tools changed"
    if now.n_messages < saved.n_messages or saved.history != now.history:
        return "the history differs"
    return ""


class SlotCache:
    """Slot files of one managed server, in its --slot-save-path folder."""

    def __init__(self, url: str, folder: Path, max_mb: int, max_days: float) -> None:
        self.url, self.folder = url, folder
        self.max_bytes = max(max_mb, 0) * 1024 * 1024
        self.max_age_s = max_days * 86_400

    def _note_path(self, session_id: str) -> Path:
        return self.folder / f"{session_id}.json"

    def saved(self, session_id: str) -> Prefix | None:
        note = read_json_object(self._note_path(session_id))
        if note is None or not (self.folder / f"{session_id}.slot").is_file():
            return None
        try:
            return Prefix(**note)
        except TypeError:  # a note of another shape: ignored like a missing one
            return None

    def _one_slot(self) -> bool:
        return get_props(self.url).total_slots == 1

    def save(self, session_id: str, prefix: Prefix) -> str:
        """Save the server's slot for this session; a line saying what happened."""
        if self.max_bytes <= 0:
            return ""
        if self.saved(session_id) == prefix:
            return ""  # the file already holds this prefix
        try:
            if not self._one_slot():
                return ""
            moved = slot_file(self.url, SLOT_ID, "save", f"{session_id}.slot")
        except ServerError as e:
            return f"prompt cache not saved: {e}"
        write_json(self._note_path(session_id), asdict(prefix), mode=0o600)
        dropped = self.prune()
        if session_id in dropped:
            return f"prompt cache not kept: {moved.n_bytes / 2**20:.0f} MiB is over slot_cache_mb"
        return f"saved the prompt cache ({moved.n_tokens} tokens, {moved.n_bytes / 2**20:.0f} MiB)"

    def restore(
        self,
        session_id: str,
        model: str,
        messages: list[dict[str, Any]],
        tools: list[Any],
        sources: list[str] | tuple[str, ...] = (),
    ) -> tuple[int, str]:
        """Restore this session's slot when its prefix is the start of what will be sent, else
        the first of ``sources`` (the sessions it was forked from) whose is: (tokens restored,
        0 when none, and a line saying what happened or why not). A source's file is only
        read: the session's own is saved under its own id when it is left."""
        found = [(name, p) for name in (session_id, *sources) if (p := self.saved(name))]
        if not found:
            return 0, ""
        whys = [mismatch(saved, model, messages, tools) for _, saved in found]
        if all(whys):
            return 0, f"prompt cache not restored ({whys[0]}): the conversation is read in anew"
        name = found[whys.index("")][0]
        try:
            if not self._one_slot():
                return 0, ""
            moved = slot_file(self.url, SLOT_ID, "restore", f"{name}.slot")
        except ServerError as e:
            return 0, f"prompt cache not restored ({e}): the conversation is read in anew"
        (self.folder / f"{name}.slot").touch()  # recently used: pruned last
        whose = "" if name == session_id else f" of session {name}"
        return moved.n_tokens, (
            f"restored the prompt cache{whose}: {moved.n_tokens} tokens in {moved.ms / 1000:.1f} s"
        )

    def prune(self) -> set[str]:
        """Delete slot files older than the age limit, then the oldest while the folder is over
        its size cap; the session ids whose files went."""
        files = sorted(self.folder.glob("*.slot"), key=_mtime, reverse=True)
        now, total, dropped = time.time(), 0, set()
        for path in files:
            size = _size(path)
            total += size
            if total > self.max_bytes or now - _mtime(path) > self.max_age_s:
                total -= size
                path.unlink(missing_ok=True)
                self._note_path(path.stem).unlink(missing_ok=True)
                dropped.add(path.stem)
        return dropped


def managed_slots(config: Config) -> SlotCache | None:
    """The managed server's slot files, when it runs with a folder for them (an --endpoint
    server's files are out of beecode's reach: never saved, never pruned)."""
    from server.process.state import running

    current = None if config.endpoint or config.slot_cache_mb <= 0 else running()
    if current is None or "--slot-save-path" not in current.argv:
        return None
    folder = Path(current.argv[current.argv.index("--slot-save-path") + 1])
    return SlotCache(current.url, folder, config.slot_cache_mb, config.slot_cache_days)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def restore_effect(n_restored: int, stats: RequestStats) -> Notice:
    """Whether a restore took effect, from the first request after it: the tokens served from
    the cache against those restored."""
    new = stats.prompt_n
    if stats.cache_n * 2 >= n_restored:
        return Notice(
            f"prompt cache restore took effect: {stats.cache_n} tokens reused, {new} read in"
        )
    return Notice(
        f"prompt cache restore had no effect: {n_restored} tokens restored, {stats.cache_n} "
        f"reused, {new} read in again (this model's cache cannot be restored as saved; "
        "see the profile's notes)",
        "warning",
    )
