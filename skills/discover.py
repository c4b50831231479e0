"""Where skills are found, and which one wins when two share a name.

Roots, in the order they win: the project's ``.agents/skills``, ``.beecode/skills`` and
``.claude/skills`` in the workspace and each folder above it up to the git root (nearest
first); the user's ``~/.agents/skills``, ``~/.claude/skills``, beecode's config dir and any
``skills_dirs``; the skills bundled in this package. A skill is any folder below a root holding
a file named exactly ``SKILL.md`` (symlinked folders too); files inside a skill (README.md,
AGENTS.md, agents/*.md) are part of it and never skills of their own. A folder that cannot be
read is skipped with its reason; nothing here is fatal.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from skills.skill import SKILL_FILE, Scope, Skill, SkillError, read_skill

PROJECT_DIRS = (".agents/skills", ".beecode/skills", ".claude/skills")
USER_DIRS = (".agents/skills", ".claude/skills")
BUNDLED = Path(__file__).parent / "bundled"
MAX_DEPTH = 5  # below a root; other agents cap at 4-6
MAX_DIRS = 2000  # folders looked at per root
_SKIP = frozenset({".git", "node_modules", "__pycache__", ".venv"})


@dataclass(frozen=True)
class Root:
    path: Path
    scope: Scope
    trusted: bool = True


@dataclass
class Found:
    skills: list[Skill] = field(default_factory=list)  # the winners, sorted by name
    skipped: list[tuple[Path, str]] = field(default_factory=list)  # (SKILL.md, why)
    clashes: list[str] = field(default_factory=list)  # one line per hidden skill

    def get(self, name: str) -> Skill | None:
        return next((s for s in self.skills if s.name == name), None)


def git_root(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def project_folders(workspace: Path) -> list[Path]:
    """The workspace and each folder above it up to its git root, nearest first (only the
    workspace when it is not in a repository)."""
    folders = [workspace.resolve()]
    top = git_root(folders[0])
    while top is not None and folders[-1] != top:
        folders.append(folders[-1].parent)
    return folders


def project_roots(workspace: Path, *, trusted: bool) -> list[Root]:
    return [
        Root(f / d, "project", trusted) for f in project_folders(workspace) for d in PROJECT_DIRS
    ]


def user_roots(home: Path, config_dir: Path, extra: list[Path] | None = None) -> list[Root]:
    paths = [home / d for d in USER_DIRS] + [config_dir / "skills", *(extra or [])]
    return [Root(p, "user") for p in paths]


def standard_roots(
    workspace: Path, home: Path, config_dir: Path, extra: list[Path], *, trusted: bool
) -> list[Root]:
    return [
        *project_roots(workspace, trusted=trusted),
        *user_roots(home, config_dir, extra),
        Root(BUNDLED, "bundled"),
    ]


def discover(roots: list[Root]) -> Found:
    found = Found()
    winners: dict[str, Skill] = {}
    seen: set[Path] = set()
    for root in roots:
        for location in skill_files(root.path):
            real = location.resolve()
            if real in seen:  # the same folder reached twice (a symlink, overlapping roots)
                continue
            seen.add(real)
            try:
                skill = read_skill(location, root.scope, trusted=root.trusted)
            except SkillError as error:
                found.skipped.append((location, str(error)))
                continue
            winner = winners.get(skill.name)
            if winner is None:
                winners[skill.name] = skill
            else:
                found.clashes.append(
                    f"skill {skill.name}: {skill.location} ({skill.scope}) is hidden by "
                    f"{winner.location} ({winner.scope})"
                )
    found.skills = sorted(winners.values(), key=lambda s: s.name)
    return found


def skill_files(root: Path) -> Iterator[Path]:
    """Every SKILL.md below root, each folder at most once, not below another skill."""
    if not root.is_dir():
        return
    visited: set[str] = set()
    budget = MAX_DIRS
    for folder, dirs, files in os.walk(root, followlinks=True):
        real = os.path.realpath(folder)
        depth = len(Path(folder).relative_to(root).parts)
        budget -= 1
        if real in visited or budget < 0:
            dirs[:] = []
            continue
        visited.add(real)
        if SKILL_FILE in files:
            dirs[:] = []  # what lies inside a skill belongs to it
            yield Path(folder) / SKILL_FILE
            continue
        dirs[:] = sorted(d for d in dirs if d not in _SKIP) if depth < MAX_DEPTH else []
