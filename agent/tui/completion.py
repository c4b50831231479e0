"""Completions for the prompt: slash commands (built-ins, skills, custom commands) at the start,
``@path`` anywhere."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from agent.tui.commands import known

# Directories nobody means when typing @: noise from tools and version control.
SKIP_DIRS = frozenset(
    {".git", "__pycache__", ".venv", "node_modules", ".mypy_cache", ".ruff_cache"}
)


@dataclass(frozen=True)
class Completion:
    start: int  # column where the replaced fragment starts
    end: int  # column where it ends (the cursor)
    options: list[tuple[str, str]]  # (replacement, description)


def complete(line: str, column: int, first_line: bool, workspace: Path) -> Completion | None:
    """What the fragment before the cursor on ``line`` could become, or None."""
    before = line[:column]
    if first_line and before.startswith("/") and " " not in before:
        typed = before[1:].lower()
        matching = [c for c in known(workspace) if c.name.lower().startswith(typed)]
        matching.sort(key=lambda c: c.name != typed)  # "/mode" typed out: mode before model
        options = [(f"/{c.name}", _short(c.help)) for c in matching]
        return Completion(0, column, options) if options else None
    at = before.rfind("@")
    if at < 0 or (at > 0 and not before[at - 1].isspace()) or " " in before[at:]:
        return None
    paths = path_options(workspace, before[at + 1 :])
    return Completion(at, column, [(f"@{p}", "") for p in paths]) if paths else None


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def path_options(workspace: Path, fragment: str, limit: int = 40) -> list[str]:
    """Workspace entries whose path starts with ``fragment``; directories end with ``/``."""
    folder, _, prefix = fragment.rpartition("/")
    base = (workspace / folder) if folder else workspace
    try:
        entries = sorted(os.scandir(base), key=lambda e: e.name)
    except OSError:
        return []
    found: list[str] = []
    for entry in entries:
        hidden = entry.name.startswith(".") and not prefix.startswith(".")
        if hidden or entry.name in SKIP_DIRS or not entry.name.startswith(prefix):
            continue
        path = f"{folder}/{entry.name}" if folder else entry.name
        found.append(path + "/" if entry.is_dir() else path)
        if len(found) >= limit:
            break
    return found
