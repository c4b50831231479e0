"""A skill's ``allowed-tools``: the tools left while its turn runs, and its folder made readable.

Entries are other agents' names and patterns (``Bash(git add:*)``, ``Read``, ``Edit``), mapped
to beecode's tools. The schemas offered to the model stay the same (so the prompt prefix, which
holds them, stays cached); a call outside the skill's tools is refused as invalid, and the
permission rules still decide the calls it lets through.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agent.permissions.rules import Permissions, Rule
from agent.permissions.shell import judge
from skills.skill import Skill
from tools.registry import ToolRegistry
from tools.skill import TOOL_NAME
from tools.tool import Tool, ToolContext

# Claude Code's and other agents' tool names -> beecode's.
ALIASES = {"multiedit": "edit", "todowrite": "todo", "todoread": "todo", "notebookedit": "edit"}
ALWAYS = frozenset({TOOL_NAME})  # loading another skill stays possible
READ_TOOLS = ("read", "ls", "glob", "grep")
_ENTRY = re.compile(r"(?P<tool>[^()\s]+)(?:\((?P<pattern>.*)\))?")


def tool_rules(entries: Iterable[str]) -> list[Rule]:
    rules = []
    for entry in entries:
        match = _ENTRY.fullmatch(entry.strip())
        if match is None:
            continue
        tool = match["tool"].lower()
        pattern = match["pattern"]
        if pattern is not None:
            pattern = pattern.replace(":*", "*")  # "git add:*": the prefix form
        rules.append(Rule(entry, ALIASES.get(tool, tool), pattern or None))
    return rules


class SkillScope:
    """The active skill's allowed tools; none active: every tool."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace  # where a bash line's redirections are judged
        self.skill: Skill | None = None
        self.rules: list[Rule] = []

    def narrow(self, skill: Skill) -> None:
        if skill.allowed_tools:
            self.skill, self.rules = skill, tool_rules(skill.allowed_tools)

    def clear(self) -> None:
        self.skill, self.rules = None, []

    def refusal(self, name: str, tool: Tool | None, args: dict[str, Any]) -> str | None:
        if self.skill is None or tool is None or name in ALWAYS:
            return None
        subject = tool.subject(args)
        subjects: list[str] | None = [subject]
        if name == "bash":  # each command of the line, as the permission rules see them
            judged = judge(subject, self.workspace)
            whole = [" ".join(words) for words in judged.commands] or [subject]
            subjects = None if judged.unknown else whole
        if subjects is None:  # a line the judge cannot see through: only a bare rule covers it
            if any(r.pattern is None and r.matches(name, []) for r in self.rules):
                return None
        elif any(all(r.matches(name, [s]) for s in subjects) for r in self.rules):
            return None
        allowed = ", ".join(r.text for r in self.rules)
        return f"the skill {self.skill.name} allows only: {allowed}; use one of those"


class ScopedRegistry(ToolRegistry):
    """The agent's tools, a call refused when the active skill does not allow it."""

    def __init__(self, tools: Iterable[Tool], scope: SkillScope) -> None:
        super().__init__(tools)
        self.scope = scope

    def validate(self, name: str, args: Any) -> str | None:
        problem = super().validate(name, args)
        if problem is None and isinstance(args, dict):
            problem = self.scope.refusal(name, self.get(name), args)
        return problem


def open_skill_folders(skills: list[Skill], ctx: ToolContext, permissions: Permissions) -> None:
    """Let the file tools read in each skill's folder outside the workspace without asking;
    writing there still asks (the folder is no extra root for the permission check)."""
    workspace = ctx.workspace.resolve()
    for skill in skills:
        root = skill.root.resolve()
        if root.is_relative_to(workspace):
            continue
        ctx.extra_roots.append(root)
        literal = re.sub(r"([*?\[])", r"[\1]", str(root))
        for tool in READ_TOOLS:
            permissions.allow += [
                Rule.parse(f"{tool}({literal})"),
                Rule.parse(f"{tool}({literal}/**)"),  # "*" stops at "/", "**" does not
            ]
