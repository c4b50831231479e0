"""Sub-agent definitions: the built-in ones and Markdown files in Claude Code's format.

A definition is a Markdown file with YAML frontmatter: ``name``, ``description``, ``tools`` (a
comma list of tool names, Claude Code's or beecode's; none: the main agent's tools) and
``model`` (only ``inherit`` means anything here: a sub-agent runs on the session's model); the
body is its system prompt. Files are read from the user config dir's ``agents/`` and
``~/.claude/agents/`` (``$CLAUDE_CONFIG_DIR/agents``), then the project's ``.claude/agents/``
and ``.beecode/agents/``.
A definition only ever narrows what the main agent may do: its tools are a subset of the main
agent's and the permission rules and mode are the main agent's. A project's files are repository
content: in a workspace the user has not trusted they get read-only tools at most and cannot
take the name of a built-in or a user's definition.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from agent.hooks.load import CLAUDE_NAMES
from skills.skill import SkillError, parse_frontmatter, split_frontmatter, tool_list

Origin = Literal["built-in", "user", "project"]
TASK_TOOL = "task"
READ_ONLY = ("read", "ls", "glob", "grep")  # how beecode searches: no bash needed
NEVER = frozenset({TASK_TOOL, "skill"})  # no recursion; a skill narrows the main agent's scope
MAX_FILE_BYTES = 64_000
_FROM_CLAUDE = {alias.lower(): name for name, aliases in CLAUDE_NAMES.items() for alias in aliases}


@dataclass(frozen=True)
class AgentDef:
    name: str
    description: str
    prompt: str  # its system prompt's own part
    tools: tuple[str, ...] | None  # beecode's names; None: the main agent's tools
    origin: Origin = "built-in"
    location: Path | None = None
    trusted: bool = True


BUILT_IN = (
    AgentDef(
        "explore",
        "Read-only search of the project: finds files, code and facts, changes nothing",
        "You explore the project to answer the task: find files with glob, search with grep, "
        "read what matters. Change nothing. Answer with what you found: paths with line "
        "numbers and the facts the task asks for, briefly.",
        READ_ONLY,
    ),
    AgentDef(
        "general",
        "Does a self-contained task with the main agent's tools and reports back",
        "Do the task you are given, then report briefly what you did and found: files "
        "changed, commands run and their results.",
        None,
    ),
)


@dataclass
class Definitions:
    agents: dict[str, AgentDef] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # one line each: skipped files, ignored fields

    def listing(self) -> list[str]:
        """Lines for ``/agents``."""
        lines = []
        for agent in self.agents.values():
            where = f"[{agent.origin}]" + (f" {agent.location}" if agent.location else "")
            tools = ", ".join(agent.tools) if agent.tools is not None else "the main agent's"
            flag = "" if agent.trusted else " (untrusted project: read-only tools)"
            lines += [f"{agent.name}  {where}{flag}", f"    {agent.description[:160]}"]
            lines.append(f"    tools: {tools}")
        return lines + self.notes


def user_dirs(config_dir: Path, claude_home: Path) -> list[Path]:
    return [config_dir / "agents", claude_home / "agents"]


def project_dirs(workspace: Path) -> list[Path]:
    return [workspace / ".claude" / "agents", workspace / ".beecode" / "agents"]


def load_definitions(
    workspace: Path, config_dir: Path, claude_home: Path, *, trusted: bool
) -> Definitions:
    """The built-ins, then the user's files, then the project's (a later one of a name wins,
    except that an untrusted project's never replaces an earlier one)."""
    found = Definitions({a.name: a for a in BUILT_IN})
    places: list[tuple[Origin, Path]] = [("user", f) for f in user_dirs(config_dir, claude_home)]
    places += [("project", f) for f in project_dirs(workspace)]
    for origin, folder in places:
        for path in _files(folder, found.notes):
            agent = _read(path, origin, trusted or origin == "user", found.notes)
            if agent is None:
                continue
            if not agent.trusted and agent.name in found.agents:
                why = f"an untrusted project cannot replace {agent.name!r}"
                found.notes.append(f"{path}: not loaded ({why})")
                continue
            found.agents[agent.name] = agent
    return found


def _files(folder: Path, notes: list[str]) -> list[Path]:
    try:
        return sorted(p for p in folder.glob("*.md") if p.is_file())
    except OSError as err:
        notes.append(f"{folder}: not read ({err.strerror or err})")
        return []


def _read(path: Path, origin: Origin, trusted: bool, notes: list[str]) -> AgentDef | None:
    try:
        raw = path.read_bytes()[:MAX_FILE_BYTES]
        front, body = split_frontmatter(raw.decode("utf-8-sig", errors="replace"))
        data = parse_frontmatter(front)
    except (OSError, SkillError) as err:
        why = err.strerror if isinstance(err, OSError) else str(err)
        notes.append(f"{path}: not loaded ({why})")
        return None
    name = str(data.get("name") or path.stem).strip()
    description = " ".join(str(data.get("description") or "").split())
    if not name or not all(c.isalnum() or c in "-_" for c in name):
        notes.append(f"{path}: not loaded (name {name!r} is not letters, digits, - or _)")
        return None
    if not description:
        notes.append(f"{path}: not loaded (no description in the frontmatter)")
        return None
    model = str(data.get("model") or "inherit").strip()
    if model != "inherit":
        notes.append(f"{path}: model {model!r} ignored (sub-agents run on the session's model)")
    tools = _tools(data.get("tools"), path, notes)
    if not trusted:  # repository content: read-only tools at most
        tools = tuple(t for t in (tools or READ_ONLY) if t in READ_ONLY)
    return AgentDef(name, description, body.strip(), tools, origin, path, trusted)


def _tools(value: object, path: Path, notes: list[str]) -> tuple[str, ...] | None:
    """beecode's names for a ``tools`` field; an entry with a pattern (``Bash(git:*)``) or an
    unknown name is left out and said, so the list only narrows."""
    if value is None or value == "":
        return None
    entries = tool_list(value.split(",") if isinstance(value, str) else value)
    names: list[str] = []
    for entry in entries:
        name = _FROM_CLAUDE.get(entry.lower(), entry)
        if "(" in entry or name in NEVER:
            notes.append(f"{path}: tools: {entry!r} left out (names only; no task or skill)")
        elif name not in names:
            names.append(name)
    return tuple(names)
