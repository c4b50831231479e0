"""Project memory: the AGENTS.md files that tell the model how this project works.

Collected, most general first: the user's own AGENTS.md in the config dir, then one file per
directory from the git root (or the workspace alone outside git) down to the workspace, where
each directory's AGENTS.md wins over its CLAUDE.md. The total is capped: a big AGENTS.md would
be prefilled on every request.
"""

from __future__ import annotations

from pathlib import Path

from server.paths import config_dir

MAX_CHARS = 8_000
NAMES = ("AGENTS.md", "CLAUDE.md")


def _git_root(start: Path) -> Path | None:
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return None


def memory_files(workspace: Path) -> list[Path]:
    workspace = workspace.resolve()
    root = _git_root(workspace) or workspace
    chain = [workspace, *workspace.parents]
    directories = list(reversed(chain[: chain.index(root) + 1]))
    own = config_dir() / "AGENTS.md"
    project: list[Path] = []
    for directory in directories:
        project += [p for p in (directory / name for name in NAMES) if p.is_file()][:1]
    # A project's file counts only when it resolves inside the project: a link to
    # ~/.aws/credentials would otherwise land in the system prompt.
    inside = [p for p in project if p.resolve().is_relative_to(root)]
    return [own, *inside] if own.is_file() else inside


def project_memory(workspace: Path, max_chars: int = MAX_CHARS) -> str:
    sections = []
    for path in memory_files(workspace):
        text = path.read_text(encoding="utf-8", errors="replace").strip()
        if text:
            sections.append(f"From {path}:\n{text}")
    memory = "\n\n".join(sections)
    if len(memory) > max_chars:
        memory = memory[:max_chars] + f"\n[project memory cut at {max_chars} characters]"
    return memory
