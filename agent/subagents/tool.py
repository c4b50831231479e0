"""The ``task`` tool: the model hands a self-contained task to a sub-agent and reads back only
its answer, so the main conversation's context holds one result, not the sub-agent's work.

Its schema names the session's agents (built-in and defined) once; it is the same on every
request of the session, so it stays in the cached prompt prefix. Its own kind is ``read``: the
call itself changes nothing, each call the sub-agent makes is judged by the permissions as the
main agent's would be. Sub-agents run one at a time (the server's slot is shared).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.config import Config, workspace_trusted
from agent.events import EventSink, Notice
from agent.subagents.definitions import TASK_TOOL, Definitions, load_definitions
from tools.tool import STR, BaseTool, Kind, ToolContext, ToolError, ToolResult, params

if TYPE_CHECKING:
    from agent.loop.agent import Agent
    from agent.subagents.run import Spawner

SHOWN_DESCRIPTION = 100  # characters of each agent's description in the tool's schema


class TaskTool(BaseTool):
    name = TASK_TOOL

    def __init__(self, definitions: Definitions) -> None:
        self.definitions = definitions
        agents = definitions.agents.values()
        self.description = (
            "Hand a self-contained task to a sub-agent; it works in its own context and returns "
            "only its final answer. It sees nothing of this conversation: say all it needs. "
            "Agents: " + "; ".join(f"{a.name}: {a.description[:SHOWN_DESCRIPTION]}" for a in agents)
        )
        agent = {"type": "string", "enum": list(definitions.agents)}
        self.parameters = params({"description": STR, "prompt": STR}, {"agent": agent})
        self.spawner: Spawner | None = None
        self.emit: EventSink | None = None
        self._lock: asyncio.Lock | None = None
        self._told = False

    def kind(self, args: dict[str, Any]) -> Kind:
        return "read"

    def subject(self, args: dict[str, Any]) -> str:
        return f"{args.get('agent') or 'general'}: {args.get('description') or ''}".strip()

    def paths(self, args: dict[str, Any]) -> list[str]:
        return []

    def bind(self, emit: EventSink) -> None:
        """Where this turn's sub-agents tell their events; the definitions' notes at the first."""
        self.emit = emit
        if not self._told:
            self._told = True
            for note in self.definitions.notes:
                emit(Notice(f"agents: {note}", "warning"))

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if self.spawner is None or self.emit is None:
            raise ToolError("sub-agents cannot run here")
        agent = self.definitions.agents[str(args.get("agent") or "general")]
        prompt = str(args["prompt"]).strip()
        if not prompt:
            raise ToolError("the prompt is empty: say what the sub-agent is to do")
        self._lock = self._lock or asyncio.Lock()
        async with self._lock:  # one sub-agent at a time: they share the server's slot
            return await self.spawner.run(agent, str(args["description"]), prompt, self.emit)


def definitions_for(workspace: Path, config: Config) -> Definitions:
    from server.paths import config_dir

    trusted = workspace_trusted(workspace, config)
    claude_home = Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")
    return load_definitions(workspace, config_dir(), claude_home, trusted=trusted)


def add_subagents(agent: Agent, ctx: ToolContext, config: Config, small: str) -> None:
    """The ``task`` tool in ``agent``'s tools, before the MCP servers' (its place in the
    prefix), and what its sub-agents are made of; the main model pinned to slot 0 on a server
    with several slots (``agent.subagents.slots``)."""
    from agent.context.memory import project_memory
    from agent.small import session_policy
    from agent.subagents.run import Spawner
    from agent.subagents.slots import SlotGuard
    from server.launch.addresses import server_root

    tool = TaskTool(definitions_for(ctx.workspace, config))
    agent.registry.insert(tool)
    url = server_root(str(getattr(agent.model, "base_url", "")))
    guard = SlotGuard.for_server(url, config) if url else None
    if guard is not None:
        agent.model = guard.main_model(agent.model)
    memory = project_memory(ctx.workspace)
    tool.spawner = Spawner(
        agent, ctx, lambda: session_policy(config.tool_mode, small), memory, guard
    )


def agents_listing(agent: Agent | None) -> list[str]:
    """Lines for ``/agents``: each agent the task tool offers, then what was left out."""
    task = agent.registry.get(TASK_TOOL) if agent is not None else None
    if not isinstance(task, TaskTool):
        return []
    return [*task.definitions.listing(), "", "The model starts one with the task tool."]
