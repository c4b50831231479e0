"""The agent with skills and commands: ``/name args`` turns, the skill tool, allowed-tools.

Both faces run every turn through ``CommandAgent.run_turn``. A turn whose text is ``/name args``
for a skill becomes the skill's body (arguments filled in) and runs with the skill's tools; for
a custom command it becomes the command's prompt. A skill from a project the user has not
trusted asks once first, through the permission rules (a headless run cannot ask, so there it
needs an allow rule ``skill(NAME)``, yolo, or a trusted workspace). The model activates skills
with the skill tool; its allowed-tools then hold for the rest of that turn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.commands.load import Loaded, load
from agent.commands.prompts import prompt_arguments, prompt_commands
from agent.commands.registry import CommandRegistry, McpPrompt, parse
from agent.commands.scope import ScopedRegistry, SkillScope, open_skill_folders
from agent.config import Config
from agent.events import (
    EventSink,
    Notice,
    TurnFinished,
)
from agent.feedback.requested import REQUESTED, run_requested
from agent.loop.agent import Agent
from agent.permissions.asking import admitted
from agent.permissions.rules import Permissions
from agent.subagents.definitions import TASK_TOOL
from agent.subagents.tool import TaskTool
from skills.disclose import activation, catalogue, substitute
from skills.skill import Skill
from tools.mcp.extras import prompt_text, with_attachments
from tools.registry import ToolRegistry
from tools.skill import TOOL_NAME, SkillTool
from tools.tool import Tool, ToolContext

if TYPE_CHECKING:
    from tools.mcp.servers import McpServers


@dataclass
class SkillSetup:
    registry: ScopedRegistry  # the agent's tools, the skill tool among them
    catalogue: str  # for the system prompt
    loaded: Loaded
    scope: SkillScope
    tool: SkillTool | None
    approved: set[str]  # untrusted project skills the user let in this session

    def notes(self) -> list[str]:
        """One line per skipped file and per hidden command, for the start of a session."""
        registry = self.loaded.registry
        skipped = [f"skipped {path}: {why}" for path, why in registry.skipped]
        return skipped + [f"hidden: {clash}" for clash in registry.clashes]


def setup_skills(
    workspace: Path,
    config: Config,
    tools: ToolRegistry,
    ctx: ToolContext,
    permissions: Permissions,
    count: Callable[[str], int],
) -> SkillSetup:
    """Discover the skills and commands; add the skill tool (when the model may activate any)
    to the tools; ``count``: text -> tokens, for the catalogue's cap."""
    loaded = load(workspace, config)
    scope = SkillScope(workspace)
    offered = [s for s in loaded.skills.skills if s.model_invocable]
    members: list[Tool] = [t for n in tools.names() if (t := tools.get(n)) is not None]
    tool = SkillTool(offered, scope.narrow) if offered else None
    approved = tool.approved if tool is not None else set()
    registry = ScopedRegistry(members, scope)
    if tool is not None:
        registry.insert(tool)  # after the built-in tools, before MCP servers'
    open_skill_folders(loaded.skills.skills, ctx, permissions)
    return SkillSetup(registry, catalogue(offered, count), loaded, scope, tool, approved)


class CommandAgent(Agent):
    def __init__(
        self,
        *args: Any,
        skills: SkillSetup,
        mcp: McpServers | None = None,
        mcp_budget: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.skills = skills
        self.mcp = mcp  # for prompts and @server:uri attachments; the Runtime closes it
        self.mcp_budget = mcp_budget  # tokens the listed MCP tools may take (tools.mcp.late)

    @property
    def commands(self) -> CommandRegistry:
        return self.skills.loaded.registry

    async def run_turn(
        self, user_text: str, emit: EventSink, images: Sequence[tuple[str, bytes]] = ()
    ) -> TurnFinished:
        for line in self.take_late_mcp():
            emit(Notice(line, "warning"))
        parsed = parse(user_text.strip())
        command = self.commands.get(parsed[0]) if parsed else None
        if parsed is None or command is None:
            text, skill = user_text, None
        elif command.kind == "built-in" and command.name in REQUESTED:
            outcome = await run_requested(command.name, self.feedback, emit)
            if isinstance(outcome, TurnFinished):
                emit(outcome)
                return outcome
            text, skill = outcome, None
        elif command.kind == "built-in":  # the TUI carries these out; one reaching here cannot run
            finished = TurnFinished([], "error", f"/{command.name} is a command of the TUI.")
            emit(finished)
            return finished
        elif command.skill is not None:
            skill = command.skill
            if not await self._consent(skill, emit):
                finished = TurnFinished([], "error", f"Not using the skill {skill.name}.")
                emit(finished)
                return finished
            text = f"/{skill.name} {parsed[1]}".rstrip() + "\n" + activation(skill, parsed[1])
            if self.skills.tool is not None:
                self.skills.tool.loaded.add(skill.name)
        elif command.prompt is not None:
            try:
                text, skill = await self._prompt(command.prompt, parsed[1]), None
            except Exception as error:  # bad arguments, a server that is down or says no
                finished = TurnFinished([], "error", f"/{command.name}: {error}")
                emit(finished)
                return finished
        else:
            text, skill = substitute(command.template, parsed[1]), None
        if skill is not None:
            self.skills.scope.narrow(skill)
        if isinstance(task := self.registry.get(TASK_TOOL), TaskTool):
            task.bind(emit)  # where its sub-agents tell their events this turn
        if self.mcp is not None and "@" in text:
            text = await with_attachments(self.mcp, text, self.config.max_output_chars)
        try:
            return await super().run_turn(text, emit, images)
        finally:
            self.skills.scope.clear()

    def take_late_mcp(self) -> list[str]:
        """MCP servers start in the background: those up since the last look bring their tools
        and prompts now, between turns (``tools.mcp.late``). One line per server that failed
        or went down since."""
        if self.mcp is None:
            return []
        from tools.mcp.late import take_late_tools

        take_late_tools(self.registry, self.mcp, self.mcp_budget)
        fresh = [c for c in prompt_commands(self.mcp) if self.commands.get(c.name) is None]
        self.commands.add(fresh)
        return self.mcp.news()

    async def _prompt(self, prompt: McpPrompt, text: str) -> str:
        assert self.mcp is not None  # a prompt command comes from a connected server
        args = prompt_arguments(prompt, text)
        return await prompt_text(self.mcp, prompt.server, prompt.name, args)

    async def _consent(self, skill: Skill, emit: EventSink) -> bool:
        """True when the skill may be used: trusted, approved before, or allowed now."""
        if skill.trusted or skill.name in self.skills.approved:
            return True
        why = f"the skill {skill.name} comes from a project you have not trusted"
        allowed, reason, _ = await admitted(
            self.permissions, self.session, emit, f"skill-{skill.name}", TOOL_NAME, skill.name, why
        )
        if not allowed:
            emit(Notice(f"/{skill.name}: not used ({reason})", "warning"))
        else:
            self.skills.approved.add(skill.name)
        return allowed
