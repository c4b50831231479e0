"""Assembling a working agent: server, model, tools, permissions, session and system prompt.

With ``config.endpoint`` beecode uses that server as it is. Otherwise it uses the managed
server of the chosen profile, reusing one that is already up and starting it if not. The tool
mode (native calls or constrained steps) is chosen once, from what the server says about its
model (``agent.small.session_policy``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent.commands.prompts import prompt_commands
from agent.commands.turns import CommandAgent, setup_skills
from agent.config import Config, workspace_trusted
from agent.context.memory import project_memory
from agent.context.prefill import PrefillRate
from agent.context.prompt import TokenCounter, system_prompt
from agent.hooks.session import Hooks
from agent.loop.agent import Agent
from agent.mcp_config import McpSetup
from agent.model.endpoint import ChatModel, OpenAIChatModel
from agent.permissions.allowed import AllowedRules
from agent.permissions.rules import Permissions
from agent.sessions.store import Session, SessionError
from agent.small import session_policy
from agent.subagents.tool import add_subagents
from server.brake import Brake
from server.client import get_props, get_slots, served_model
from server.errors import ServerError
from server.launch.addresses import server_root
from server.launch.machine_key import key_for
from tools.registry import ToolRegistry, default_registry
from tools.tool import ToolContext

if TYPE_CHECKING:
    from agent.context.repomap import RepoMap
    from tools.mcp.servers import McpServers
    from tools.textfiles import TextFiles

Progress = Callable[[str], None]
ENDPOINT_CONNECT_S = 5.0  # an --endpoint that takes longer to accept a connection is unreachable
SEARCH = "mcp_tools"  # tools.mcp.search.SEARCH_TOOL, named here without importing the SDK
SMALL_MODEL_PARAMS = 3_000_000_000  # below this, tool calls are constrained to a schema
_SIZE_IN_NAME = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*b\b", re.I)


class AppError(Exception):
    """The agent could not be assembled; one line for the user."""


def model_facts(url: str, api_key: str | None) -> tuple[str, int | None]:
    """The served model's id and parameter count ("" and None when the server does not say)."""
    try:
        model = served_model(url, api_key)
    except ServerError:
        return "", None
    return model.id, model.n_params


def small_model(caps: dict[str, bool], name: str, n_params: int | None) -> str:
    """Why "auto" gives this model constrained steps: a model under 3B parameters (by the
    server's count, else the size its name gives), or a chat template without tool calls; ""
    for native calls (constrained output pauses speculative decoding, so big models on a GPU
    stay native)."""
    if not caps.get("supports_tool_calls", False):
        return "the chat template has no tool calls"
    if n_params is None:
        sizes = [float(m) for m in _SIZE_IN_NAME.findall(name)]
        n_params = int(max(sizes) * 1e9) if sizes else None
    if n_params is not None and n_params < SMALL_MODEL_PARAMS:
        return f"a model of {n_params / 1e9:.1f}B parameters"
    return ""


def check_endpoint(url: str) -> None:
    """AppError with one line when nothing answers at ``url`` (refused, no route, a name that
    does not resolve): said before any MCP server starts, not after. Any HTTP answer will do."""
    import httpx

    try:
        httpx.get(server_root(url), timeout=ENDPOINT_CONNECT_S)
    except (httpx.ConnectError, httpx.ConnectTimeout, httpx.UnsupportedProtocol) as e:
        raise AppError(f"cannot reach the model server at {url}: {e}") from None
    except httpx.HTTPError:
        pass  # it answered, if slowly or oddly: the model requests tell the rest


def resolve_endpoint(config: Config, progress: Progress | None) -> str:
    if config.endpoint:
        return config.endpoint
    from server.cli.progress import Hooks
    from server.process.detached import up
    from server.process.state import running

    if running() is None and progress:
        progress(f"starting the model server ({config.profile or 'default profile'})")
    # Reuses the server that runs (or refuses, naming it, when it serves another profile).
    return up(config.profile, hooks=Hooks(step=progress)).url


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


@dataclass(frozen=True)
class ServedModel:
    """The model the agent talks to and what its server says about it."""

    chat: ChatModel
    name: str  # the served model's id; "" when the server does not say
    n_ctx: int | None
    small: str  # why "auto" gives it constrained steps; "": native
    counter: TokenCounter
    # The server says its model reads images (/props modalities); None: not a llama-server,
    # nothing says (the user's own images are sent as they are, a tool's described in a line).
    vision: bool | None = False
    speculative: bool | None = None  # whether the server drafts (its /slots); None: not known


def serve_model(url: str, config: Config) -> ServedModel:
    """The model at ``url`` (a llama-server, or any OpenAI-compatible ``--endpoint``)."""
    if not config.endpoint:  # the managed server wants this machine's key (server.launch)
        config.api_key = key_for(url, config.api_key)
    root = server_root(url)
    try:
        props = get_props(root, config.api_key)
        n_ctx: int | None = props.n_ctx
        name, n_params = model_facts(root, config.api_key)
        small = small_model(props.chat_template_caps, name, n_params)
        vision: bool | None = props.vision
    except ServerError:
        if not config.endpoint:
            raise
        # not a llama-server: plain OpenAI API, native calls
        name, n_ctx, small = model_facts(root, config.api_key)[0], None, ""
        vision = None  # nothing says whether it reads images
    drafts = speculates(root, config.api_key)
    model = OpenAIChatModel(
        url,
        api_key=config.api_key,
        model=config.model,
        temperature=config.temperature,
        top_p=config.top_p,
        top_k=config.top_k,
        max_tokens=config.max_tokens,
        stall_s=config.stall_timeout_s,
        # a llama-server that drafts: requests go with drafting off where it loses
        brake=Brake() if drafts and n_ctx is not None else None,
    )
    counter = TokenCounter(root if n_ctx is not None else None, api_key=config.api_key)
    return ServedModel(model, name, n_ctx, small, counter, vision, drafts)


def speculates(root: str, api_key: str | None) -> bool | None:
    """Whether llama-server drafts: its timings only count drafts when a request made some,
    so "speculation off" needs the server's own word (/slots; None where it has none)."""
    try:
        slots = get_slots(root, api_key)
    except ServerError:  # /slots turned off (--no-slots), or not a llama-server
        return None
    known = [s["speculative"] for s in slots if isinstance(s.get("speculative"), bool)]
    return any(known) if known else None


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
