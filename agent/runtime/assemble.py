"""Assembling a working agent on the served model (``agent.runtime.served``): tools,
permissions, session, system prompt, repository map, hooks and sub-agents.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agent.commands.prompts import prompt_commands
from agent.commands.turns import CommandAgent, setup_skills
from agent.config import Config, workspace_trusted
from agent.context.memory import project_memory
from agent.context.prefill import PrefillRate
from agent.context.prompt import system_prompt
from agent.hooks.session import Hooks
from agent.loop.agent import Agent
from agent.mcp_config import McpSetup
from agent.permissions.allowed import AllowedRules
from agent.permissions.rules import Permissions
from agent.runtime.served import Progress, ServedModel, resolve_endpoint, serve_model
from agent.sessions.store import Session, SessionError
from agent.small import session_policy
from agent.subagents.tool import add_subagents
from tools.registry import ToolRegistry, default_registry
from tools.tool import ToolContext

if TYPE_CHECKING:
    from agent.context.repomap import RepoMap
    from tools.mcp.servers import McpServers
    from tools.textfiles import TextFiles

SEARCH = "mcp_tools"  # tools.mcp.search.SEARCH_TOOL, named here without importing the SDK


def earlier_session(workspace: Path, resume: str | None, continue_latest: bool) -> Session | None:
    """The session to resume (SessionError if there is none), or None for a new one."""
    if resume:
        return Session.open(resume)
    if continue_latest:
        latest = Session.latest(workspace)
        if latest is None:
            raise SessionError(f"no earlier session in {workspace} to continue")
        return latest
    return None


def connect_mcp(setup: McpSetup, progress: Progress | None) -> McpServers | None:
    """The set-up MCP servers, started in the background (None when there is none): this
    returns at once. Each note and each project server not approved yet costs one progress
    line; a server that fails is told at the next turn (``McpServers.news``) and the agent works
    without it. The caller owns what this returns and closes it (``agent.runtime.Runtime``
    does); the agent's tools only call it."""
    say = progress or (lambda line: None)
    for note in setup.notes:
        say(note)
    if setup.unapproved:
        say(
            "mcp: project servers not started (not approved in this workspace): "
            + ", ".join(f"{n} ({cmd})" for n, cmd in setup.unapproved.items())
            + "; approve with `beecode mcp approve NAME`"
        )
    if not setup.servers:
        return None
    from server.paths import state_dir
    from tools.mcp.servers import (
        McpServers,  # the SDK takes ~0.7 s to import: only when it is needed
    )

    servers = McpServers(setup.servers, state_dir() / "mcp.log")
    say(f"starting MCP servers: {', '.join(setup.servers)}")
    servers.start()
    return servers


def tool_budget(config: Config, n_ctx: int | None) -> int:
    """The MCP tools' token budget: the config's, and at most a tenth of the context (0: no
    budget, every tool listed)."""
    if config.mcp_tool_budget <= 0 or not n_ctx:
        return config.mcp_tool_budget
    return min(config.mcp_tool_budget, n_ctx // 10)


def tool_registry(mcp: McpServers | None, budget: int | None = None) -> ToolRegistry:
    """The built-in tools, then the MCP servers' tools: one by one, or past ``budget`` tokens
    one search-and-call tool for all of them."""
    registry = default_registry()
    if mcp is not None:
        from tools.mcp.search import McpSearchTool, schema_tokens

        tools = mcp.tools(set(registry.names()))
        if budget is not None and budget > 0 and tools and schema_tokens(tools) > budget:
            registry.add(McpSearchTool(tools))
        for tool in [] if SEARCH in registry.names() else tools:
            registry.add(tool)
        if any(resources for _, resources in mcp.offers().values()):
            from tools.mcp.extras import ResourceTool

            registry.add(ResourceTool(mcp))
    return registry


def build_agent(
    workspace: Path,
    config: Config,
    *,
    resume: str | None = None,
    continue_latest: bool = False,
    progress: Progress | None = None,
    mcp: McpServers | None = None,
) -> Agent:
    """A ready agent on the configured server. Raises AppError, SessionError or the server's
    errors with one line. ``mcp``: connected MCP servers whose tools the agent gets; they stay
    the caller's to close."""
    earlier = earlier_session(
        workspace, resume, continue_latest
    )  # bad ids fail before a server starts
    served = serve_model(resolve_endpoint(config, progress), config)
    tools = tool_registry(mcp, tool_budget(config, served.n_ctx))
    return assemble_agent(workspace, config, served, earlier, tools, mcp)


def assemble_agent(
    workspace: Path,
    config: Config,
    served: ServedModel,
    earlier: Session | None,
    registry: ToolRegistry,
    mcp: McpServers | None = None,
    text_files: TextFiles | None = None,
) -> CommandAgent:
    """The agent around a served model: tools (with the ``skill`` tool), permissions with the
    remembered allow rules, the session (``earlier`` or a new one), the system prompt with the
    project's memory and the skills catalogue, and the slash commands a user can run.
    ``text_files``: an editor the file tools read and write through (None: the disk)."""
    extra_roots = [Path(p) for p in config.extra_roots]
    ctx = ToolContext(
        workspace=workspace,
        extra_roots=extra_roots,
        bash_timeout_s=config.bash_timeout_s,
        bash_max_timeout_s=config.bash_max_timeout_s,
        max_output_chars=config.max_output_chars,
        pass_env=config.pass_env,
        sandbox=config.sandbox,
        trusted_workspace=workspace_trusted(workspace, config),
        text_files=text_files,
    )
    allowed = AllowedRules(workspace)
    permissions = Permissions(
        config.permission_mode,
        [*config.allow, *allowed.load()],
        config.deny,
        workspace,
        extra_roots,
        remember=allowed.add,
    )
    skills = setup_skills(workspace, config, registry, ctx, permissions, served.counter.count_text)
    skills.loaded.registry.add(prompt_commands(mcp))  # /server:prompt
    session = earlier or Session.create(workspace)
    agent = CommandAgent(
        served.chat,
        skills.registry,
        permissions,
        session,
        config,
        ctx,
        system=system_prompt(project_memory(workspace), skills.catalogue),
        n_ctx=served.n_ctx,
        counter=served.counter,
        policy=session_policy(config.tool_mode, served.small),
        vision=served.vision,
        prefill=prefill_rate(config, served),
        skills=skills,
        mcp=mcp,
        mcp_budget=tool_budget(config, served.n_ctx),
        repo_map=repo_map(workspace, config, served),
        hooks=Hooks.configured(workspace, config, session, lambda: permissions.mode),
    )
    add_subagents(agent, ctx, config, served.small)  # the task tool
    return agent


def repo_map(workspace: Path, config: Config, served: ServedModel) -> RepoMap | None:
    """The session's repository map: ``repo_map_tokens``, at most an eighth of the context."""
    from agent.context.repomap import RepoMap

    budget = config.repo_map_tokens
    if served.n_ctx:
        budget = min(budget, served.n_ctx // 8)
    return RepoMap(workspace, budget, served.counter.count_text) if budget > 0 else None


def prefill_rate(config: Config, served: ServedModel) -> PrefillRate:
    """The prefill rate kept for this server (profile or endpoint, and model) on this machine."""
    from server.paths import data_dir

    server = config.endpoint or config.profile or "default"
    return PrefillRate(data_dir() / "prefill.json", f"{server}|{Path(served.name).name}")
