"""The skill tool: the model loads a skill's instructions by name (an enum of the known skills).

A skill from a project the user has not trusted is an "execute" call until it is approved once
(the permission rules and mode decide whether that asks); after that, and for every other
skill, loading one is a read. Loading a skill that is already loaded says so instead of
repeating its body.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from skills.disclose import activation
from skills.skill import Skill
from tools.tool import BaseTool, Kind, ToolContext, ToolError, ToolResult, params

TOOL_NAME = "skill"


class SkillTool(BaseTool):
    name = TOOL_NAME
    description = (
        "Load a skill's instructions; call it before a task one of the listed skills fits."
    )

    def __init__(
        self, skills: list[Skill], on_activate: Callable[[Skill], None] | None = None
    ) -> None:
        """skills: those the model may activate; on_activate: told of each activation (the
        agent narrows the tools to the skill's allowed-tools for the rest of the turn)."""
        self.skills = {s.name: s for s in skills}
        self.on_activate = on_activate
        self.approved: set[str] = set()
        self.loaded: set[str] = set()
        self.parameters = params({"name": {"type": "string", "enum": sorted(self.skills)}})

    def needs_consent(self, name: str) -> bool:
        skill = self.skills.get(name)
        return skill is not None and not skill.trusted and name not in self.approved

    def kind(self, args: dict[str, Any]) -> Kind:
        return "execute" if self.needs_consent(str(args.get("name"))) else "read"

    def subject(self, args: dict[str, Any]) -> str:
        return str(args.get("name") or "")

    def paths(self, args: dict[str, Any]) -> list[str]:
        return []

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        skill = self.skills.get(args["name"])
        if skill is None:  # the enum keeps this out; a hand-made registry might not
            raise ToolError(f"no skill named {args['name']!r}")
        self.approved.add(skill.name)  # the call was admitted: the user's consent, if needed
        if self.on_activate is not None:
            self.on_activate(skill)
        if skill.name in self.loaded:
            return ToolResult(f"Skill {skill.name} is already loaded above; follow it.")
        self.loaded.add(skill.name)
        meta = {"skill": skill.name, "location": str(skill.location)}
        return ToolResult(activation(skill), meta=meta)
