"""What a slash command is, and the one registry the TUI, headless mode and completion read.

Sources: the built-in commands (which the faces carry out), skills, custom commands (Markdown
prompt templates) and MCP prompts (``/server:prompt``). One rule settles a name clash:
built-in > project > user > bundled; within one scope a skill beats a custom command (as in
Claude Code). Each hidden command is reported once, in ``clashes``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from agent.permissions.rules import MODES
from skills.skill import Skill

Source = Literal["built-in", "project", "user", "bundled"]
Kind = Literal["built-in", "skill", "command", "prompt"]
_RANK: dict[str, int] = {"built-in": 0, "project": 1, "user": 2, "bundled": 3}
_KIND_RANK: dict[str, int] = {"built-in": 0, "skill": 1, "command": 2, "prompt": 3}


@dataclass(frozen=True)
class McpPrompt:
    """An MCP server's prompt behind a ``/server:prompt`` command."""

    server: str
    name: str
    arguments: tuple[tuple[str, bool], ...] = ()  # (name, required), in the server's order


@dataclass(frozen=True)
class Command:
    name: str  # without the slash; "dir:name" for nested custom commands
    help: str
    args: str = ""  # argument hint, "" when none
    source: Source = "built-in"
    kind: Kind = "built-in"
    location: Path | None = None  # the file it came from
    template: str = ""  # a custom command's body ($ARGUMENTS, $1..$9)
    skill: Skill | None = None
    prompt: McpPrompt | None = None


BUILT_IN: tuple[Command, ...] = (
    Command("help", "Keys and commands"),
    Command("clear", "Start a new session with an empty conversation"),
    Command("compact", "Summarise older turns to free context"),
    Command("resume", "Reopen a session of this workspace", "[ID]"),
    Command("fork", "Go on in a new session, a copy of this one (the original stays)"),
    Command("sessions", "List the sessions of this workspace"),
    Command("model", "Show or switch the server profile", "[PROFILE]"),
    Command("mode", "Show or set the permission mode", f"[{'|'.join(MODES)}]"),
    Command("undo", "Restore the files of the last N turns (write, edit, bash, git)", "[N]"),
    Command("redo", "Undo the last /undo"),
    Command("rewind", "Like /undo, and cut the conversation back to before them", "[N]"),
    Command("diff", "Show uncommitted changes in the workspace"),
    Command("lint", "Run the project's lint command; the model fixes what it finds"),
    Command("test", "Run the project's tests; the model fixes what fails"),
    Command("stats", "Speed and draft figures of every turn"),
    Command("context", "What the context holds, in tokens and seconds to prefill"),
    Command("server", "Show or hide the server panel"),
    Command("mcp", "MCP servers"),
    Command("skills", "Skills"),
    Command("agents", "Sub-agents the model can hand a task to"),
    Command("bench", "How to measure speculation on this machine"),
    Command("quit", "Quit (stops a server this app started)"),
)


def skill_command(skill: Skill) -> Command:
    return Command(
        skill.name,
        skill.description,
        skill.argument_hint,
        skill.scope,
        "skill",
        skill.location,
        skill=skill,
    )


@dataclass
class CommandRegistry:
    commands: dict[str, Command] = field(default_factory=dict)  # winners by name
    clashes: list[str] = field(default_factory=list)
    skipped: list[tuple[Path, str]] = field(default_factory=list)  # files that could not be read

    @classmethod
    def of(
        cls, candidates: list[Command], skipped: list[tuple[Path, str]] | None = None
    ) -> CommandRegistry:
        """The registry of these candidates, clashes settled by the rule above."""
        registry = cls(skipped=list(skipped or []))
        registry.add(candidates)
        return registry

    def add(self, candidates: list[Command]) -> None:
        """Add commands (MCP prompts come once their servers are connected); a name already
        taken keeps its command and the newcomer is reported in ``clashes``."""
        ranked = sorted(candidates, key=lambda c: (_RANK[c.source], _KIND_RANK[c.kind]))
        for command in ranked:
            key = command.name.lower()
            winner = self.commands.get(key)
            if winner is None:
                self.commands[key] = command
            else:
                self.clashes.append(
                    f"/{command.name}: the {command.source} {command.kind} "
                    f"{command.location or ''} is hidden by the {winner.source} {winner.kind}"
                    + (f" {winner.location}" if winner.location else "")
                )

    def get(self, name: str) -> Command | None:
        return self.commands.get(name.lower())

    def all(self) -> list[Command]:
        """Built-ins first in their own order, then the rest by name."""
        built = [c for c in self.commands.values() if c.kind == "built-in"]
        rest = sorted((c for c in self.commands.values() if c.kind != "built-in"), key=_name)
        return built + rest


def _name(command: Command) -> str:
    return command.name


def parse(text: str) -> tuple[str, str] | None:
    """``"/mode yolo"`` -> ``("mode", "yolo")``; None when the text is not a slash command."""
    if not text.startswith("/") or text.startswith("//"):
        return None
    name, _, rest = text[1:].strip().partition(" ")
    if not name or "/" in name:  # "/usr/bin/env" is a path, not a command
        return None
    return name.lower(), rest.strip()
