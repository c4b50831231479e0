"""Assembling a working agent: server, model, tools, permissions, session and system prompt.

With ``config.endpoint`` beecode uses that server as it is. Otherwise it uses the managed
server of the chosen profile, reusing one that is already up and starting it if not. The tool
mode (native calls or constrained steps) is chosen from what the server says about its model.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from agent.commands.turns import CommandAgent, setup_skills
from agent.config import Config
from agent.context.memory import project_memory
from agent.context.prompt import TokenCounter, system_prompt
from agent.loop.agent import Agent
from agent.model.endpoint import OpenAIChatModel
from agent.permissions.allowed import AllowedRules
from agent.permissions.rules import Permissions
from agent.sessions.store import Session, SessionError
from server.client import get_props
from server.errors import ServerError
from tools.registry import ToolRegistry, default_registry
from tools.tool import ToolContext

if TYPE_CHECKING:
    from tools.mcp.servers import McpServers

Progress = Callable[[str], None]
SMALL_MODEL_PARAMS = 3_000_000_000  # below this, tool calls are constrained to a schema
_SIZE_IN_NAME = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*b\b", re.I)


class AppError(Exception):
    """The agent could not be assembled; one line for the user."""


def server_root(url: str) -> str:
    """http://host:port from a base URL that may end in /v1."""
    url = url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


def model_facts(root: str, api_key: str | None) -> tuple[str, int | None]:
    """The served model's id and parameter count from /v1/models (None when not reported)."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        data = httpx.get(root + "/v1/models", headers=headers, timeout=10).json()
        first: dict[str, Any] = data["data"][0]
    except (httpx.HTTPError, ValueError, KeyError, IndexError, TypeError):
        return "", None
    n_params = (first.get("meta") or {}).get("n_params")
    return str(first.get("id", "")), n_params if isinstance(n_params, int) else None


def wants_constrained(caps: dict[str, bool], name: str, n_params: int | None) -> bool:
    """Constrained steps for small models and templates without tool calls; native otherwise
    (constrained output pauses speculative decoding, so big models on a GPU stay native)."""
    if not caps.get("supports_tool_calls", False):
        return True
    if n_params is None:
        sizes = [float(m) for m in _SIZE_IN_NAME.findall(name)]
        return bool(sizes) and max(sizes) * 1e9 < SMALL_MODEL_PARAMS
    return n_params < SMALL_MODEL_PARAMS


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


def connect_mcp(config: Config, progress: Progress | None) -> McpServers | None:
    """The config's MCP servers, connected at once (None when none is configured). A server that
    fails costs one progress line; the agent works without it."""
    if not config.mcp_servers:
        return None
    from server.paths import state_dir
    from tools.mcp.servers import (
        McpServers,  # the SDK takes ~0.7 s to import: only when it is needed
    )

    servers = McpServers(config.mcp_servers, state_dir() / "mcp.log")
    if progress:
        progress(f"connecting MCP servers: {', '.join(config.mcp_servers)}")
    for problem in servers.connect():
        if progress:
            progress(problem)
    return servers


def tool_registry(mcp: McpServers | None) -> ToolRegistry:
    """The built-in tools, then the MCP servers' tools; closing the registry closes the servers."""
    registry = default_registry()
    if mcp is not None:
        tools = mcp.tools(set(registry.names()))
        for tool in tools:
            registry.add(tool)
        if not tools:
            mcp.close()  # nothing in the registry would close it
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
    """A ready agent. Raises AppError, SessionError or the server's errors with one line.

    ``mcp``: MCP servers the caller connected (the TUI keeps them for /mcp); when None, those
    of the config are connected here."""
    earlier = earlier_session(
        workspace, resume, continue_latest
    )  # bad ids fail before a server starts
    url = resolve_endpoint(config, progress)
    root = server_root(url)
    try:
        props = get_props(root, config.api_key)
        n_ctx: int | None = props.n_ctx
        name, n_params = model_facts(root, config.api_key)
        constrained = wants_constrained(props.chat_template_caps, name, n_params)
    except ServerError:
        if not config.endpoint:
            raise
        n_ctx, constrained = None, False  # not a llama-server: plain OpenAI API, native calls
    extra_roots = [Path(p) for p in config.extra_roots]
    ctx = ToolContext(
        workspace=workspace,
        extra_roots=extra_roots,
        bash_timeout_s=config.bash_timeout_s,
        bash_max_timeout_s=config.bash_max_timeout_s,
        max_output_chars=config.max_output_chars,
    )
    model = OpenAIChatModel(
        url,
        api_key=config.api_key,
        model=config.model,
        temperature=config.temperature,
        top_p=config.top_p,
        top_k=config.top_k,
        max_tokens=config.max_tokens,
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
    registry = tool_registry(mcp if mcp is not None else connect_mcp(config, progress))
    counter = TokenCounter(root if n_ctx is not None else None, api_key=config.api_key)
    skills = setup_skills(workspace, config, registry, ctx, permissions, counter.count_text)
    for note in skills.notes():  # skipped skill files and hidden commands, once per session
        if progress:
            progress(note)
    return CommandAgent(
        model,
        skills.registry,
        permissions,
        earlier or Session.create(workspace),
        config,
        ctx,
        system=system_prompt(workspace, project_memory(workspace), skills.catalogue),
        n_ctx=n_ctx,
        counter=counter,
        constrained=constrained,
        skills=skills,
    )
