"""Custom commands: Markdown prompt templates that become slash commands.

``.beecode/commands/`` and ``.claude/commands/`` in the project (from the workspace up to the git
root), ``~/.claude/commands/`` and ``commands/`` in beecode's config dir for the user. A file
``review.md`` is ``/review``; ``team/review.md`` is ``/team:review``. Optional frontmatter:
``description`` and ``argument-hint``; the body is the prompt, with ``$ARGUMENTS`` and
``$1``..``$9`` filled in.
"""

from __future__ import annotations

from pathlib import Path

from agent.commands.registry import Command, Source
from skills.skill import SkillError, parse_frontmatter, split_frontmatter

PROJECT_DIRS = (".beecode/commands", ".claude/commands")
MAX_FILES = 500  # per folder


def command_roots(
    project_folders: list[Path], home: Path, config_dir: Path
) -> list[tuple[Path, Source]]:
    """(folder, scope) in the order they win; project_folders: the workspace and its parents
    up to the git root, nearest first."""
    roots: list[tuple[Path, Source]] = [
        (f / d, "project") for f in project_folders for d in PROJECT_DIRS
    ]
    roots += [(home / ".claude" / "commands", "user"), (config_dir / "commands", "user")]
    return [(path, scope) for path, scope in roots if path.is_dir()]


def load_commands(roots: list[tuple[Path, Source]]) -> tuple[list[Command], list[tuple[Path, str]]]:
    """(commands, skipped files with why) below the roots."""
    found: list[Command] = []
    skipped: list[tuple[Path, str]] = []
    for root, scope in roots:
        for path in sorted(root.rglob("*.md"))[:MAX_FILES]:
            try:
                found.append(read_command(path, root, scope))
            except (OSError, SkillError) as error:
                skipped.append((path, str(error)))
    return found, skipped


def read_command(path: Path, root: Path, scope: Source) -> Command:
    text = path.read_bytes().decode("utf-8-sig", errors="replace")
    fields: dict[str, object] = {}
    body = text.replace("\r\n", "\n")
    if body.startswith("---"):
        front, body = split_frontmatter(body)
        fields = parse_frontmatter(front)
    name = ":".join(path.relative_to(root).with_suffix("").parts)
    first = next((line.strip() for line in body.splitlines() if line.strip()), "")
    description = str(fields.get("description") or first[:80] or f"custom command {name}")
    return Command(
        name,
        " ".join(description.split()),
        str(fields.get("argument-hint") or ""),
        scope,
        "command",
        path,
        template=body.strip() + "\n",
    )
