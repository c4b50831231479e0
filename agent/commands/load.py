"""Finding a workspace's skills and custom commands and putting them in one registry."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent.commands.custom import command_roots, load_commands
from agent.commands.registry import BUILT_IN, CommandRegistry, skill_command
from agent.config import Config, workspace_trusted
from server.paths import config_dir
from skills.discover import Found, discover, project_folders, standard_roots


@dataclass
class Loaded:
    skills: Found  # every readable skill, what was skipped and which were hidden
    registry: CommandRegistry  # built-ins, user-invocable skills and custom commands


def load(workspace: Path, config: Config, home: Path | None = None) -> Loaded:
    home = Path.home() if home is None else home
    trusted = workspace_trusted(workspace, config)
    extra = [Path(p) for p in config.skills_dirs]
    found = discover(standard_roots(workspace, home, config_dir(), extra, trusted=trusted))
    roots = command_roots(project_folders(workspace), home, config_dir())
    commands, skipped = load_commands(roots)
    skills = [skill_command(s) for s in found.skills if s.user_invocable]
    registry = CommandRegistry.of([*BUILT_IN, *skills, *commands], [*found.skipped, *skipped])
    registry.clashes[:0] = found.clashes
    return Loaded(found, registry)


def listing(loaded: Loaded) -> list[str]:
    """Lines for ``beecode skills list`` and ``/skills``: each skill and command with where it
    came from, then what was skipped and why, and what was hidden."""
    lines: list[str] = []
    for skill in loaded.skills.skills:
        flags = "" if skill.trusted else " (untrusted project: asks before use)"
        if not skill.model_invocable:
            flags += " (user only)"
        lines.append(f"{skill.name}  [{skill.scope}] {skill.location}{flags}")
        lines.append(f"    {skill.description[:160]}")
        lines += [f"    warning: {w}" for w in skill.warnings]
    custom = [c for c in loaded.registry.all() if c.kind == "command"]
    if custom:
        lines.append("custom commands:")
        lines += [f"/{c.name}  [{c.source}] {c.location}: {c.help[:100]}" for c in custom]
    if not lines:
        lines.append("no skills or custom commands found")
    lines += [f"skipped {path}: {why}" for path, why in loaded.registry.skipped]
    lines += [f"hidden: {clash}" for clash in loaded.registry.clashes]
    return lines
