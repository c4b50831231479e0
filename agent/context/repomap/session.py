"""The map of one session: what it focuses on, the text last sent, and both kept in the session.

The map is the system prompt's last block. A request's cached prefix runs up to the first token
that differs, and the chat templates beecode serves (Qwen's, Gemma's) render the tool schemas
after the system message's text, so any change there re-reads the tools and the whole
conversation. The system prompt's end is still the cheapest place that every template accepts:
a message after the system message would save only the tools (hundreds of tokens) and needs
either a second system message or two user messages in a row, which some templates reject. So
the map changes only where the prompt cache is lost anyway (before a conversation's first
message, at compaction), only when the files or the focus changed and the new text differs.

Each new text is recorded in the session with its focus, so a resumed session starts from the
map it last sent (the saved prompt cache then still matches) and rebuilds to the same text
while the tree is unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from agent.sessions.replay import placed_records
from agent.sessions.store import Session

if TYPE_CHECKING:
    from agent.context.repomap.build import RepoMap

RECORD = "repo_map"


class SessionMap:
    def __init__(self, repo_map: RepoMap, session: Session) -> None:
        self.repo_map, self._session = repo_map, session
        self.focus: set[str] = set()
        self.text = ""
        for _, record in placed_records(session.path) if session.path.exists() else []:
            if record.get("type") == RECORD and isinstance(record.get("text"), str):
                self.text = record["text"]
                focus = record.get("focus")
                self.focus = {str(p) for p in focus} if isinstance(focus, list) else set()

    def add_focus(self, paths: Iterable[Path | str]) -> None:
        """Files the user named or a turn changed: the map leans toward them from the next
        turn on (paths outside the workspace are ignored)."""
        root = self.repo_map.root
        for path in paths:
            full = Path(path) if Path(path).is_absolute() else root / path
            try:
                self.focus.add(full.resolve().relative_to(root).as_posix())
            except (OSError, ValueError):
                continue

    def update(self, named: Iterable[Path | str], cache_lost: bool) -> bool:
        """Lean toward the ``named`` files; rebuild only where the ``cache_lost`` anyway (the
        model saw its own changes in the turns since). Whether the text changed."""
        self.add_focus(named)
        return cache_lost and self.refresh()

    def refresh(self) -> bool:
        """Rebuild if needed (between turns only); whether the text changed."""
        text = self.repo_map.current(set(self.focus))
        if text == self.text:
            return False
        self.text = text
        self._session.append({"type": RECORD, "text": text, "focus": sorted(self.focus)})
        return True
