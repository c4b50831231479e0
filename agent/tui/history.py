"""Prompt history: kept across sessions in the state dir, walked with up and down."""

from __future__ import annotations

import json
from pathlib import Path


class PromptHistory:
    def __init__(self, path: Path | None, limit: int = 500) -> None:
        self.path = path
        self.limit = limit
        self.entries: list[str] = self._load()
        self._index = len(self.entries)  # == len(entries): at the draft, past the newest
        self._draft = ""

    def _load(self) -> list[str]:
        if self.path is None or not self.path.is_file():
            return []
        entries: list[str] = []
        for line in self.path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn line from a crash loses only itself
            if isinstance(value, str):
                entries.append(value)
        return entries[-self.limit :]

    def add(self, text: str) -> None:
        if text.strip() and (not self.entries or self.entries[-1] != text):
            self.entries.append(text)
            if self.path is not None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with self.path.open("a", encoding="utf-8") as out:
                    out.write(json.dumps(text) + "\n")
            del self.entries[: -self.limit]
        self._index, self._draft = len(self.entries), ""

    def older(self, current: str) -> str | None:
        """The entry before the one shown; ``current`` is kept as the draft when leaving it."""
        if self._index == 0:
            return None
        if self._index == len(self.entries):
            self._draft = current
        self._index -= 1
        return self.entries[self._index]

    def newer(self) -> str | None:
        """The entry after the one shown, then the draft; None when already at the draft."""
        if self._index >= len(self.entries):
            return None
        self._index += 1
        return self._draft if self._index == len(self.entries) else self.entries[self._index]
