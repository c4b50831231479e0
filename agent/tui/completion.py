"""Completions for the prompt: slash commands (built-ins, skills, custom commands, MCP prompts) at
the start, ``@path`` and ``@server:uri`` (an MCP resource) anywhere."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
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


@dataclass(frozen=True)
class McpOffers:
    """What the connected MCP servers offer, as the runtime lists it (``Backend.extras``)."""

    prompts: list[str] = field(default_factory=list)  # "server:prompt"
    resources: list[str] = field(default_factory=list)  # "server:uri"


def complete(
    line: str, column: int, first_line: bool, workspace: Path, mcp: McpOffers | None = None
) -> Completion | None:
    """What the fragment before the cursor on ``line`` could become, or None."""
    before, mcp = line[:column], mcp or McpOffers()
    if first_line and before.startswith("/") and " " not in before:
        typed = before[1:].lower()
        named = [(c.name, _short(c.help)) for c in known(workspace)]
        named += [(name, "MCP prompt") for name in mcp.prompts]
        matching = [(name, about) for name, about in named if name.lower().startswith(typed)]
        matching.sort(key=lambda option: option[0] != typed)  # "/mode" typed: mode before model
        options = [(f"/{name}", about) for name, about in matching]
        return Completion(0, column, options) if options else None
    at = before.rfind("@")
    if at < 0 or (at > 0 and not before[at - 1].isspace()) or " " in before[at:]:
        return None
    typed = before[at + 1 :]
    options = [(f"@{r}", "MCP resource") for r in mcp.resources if r.startswith(typed)]
    options += [(f"@{p}", "") for p in path_options(workspace, typed)]
    return Completion(at, column, options) if options else None


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
