"""The real backend: the agent from ``agent.runtime.assemble.build_agent`` on the managed server
(or an ``--endpoint``), sessions from ``agent.sessions.store``, the server from
``server.process.detached``.

Every import of the heavy parts (openai, httpx, the server code) happens inside the methods,
which the app calls from worker threads: the TUI is on screen before any of them loads.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.faces.contract import (
    ConnectRequest,
    Core,
    Facts,
    ModeHolder,
    Progress,
    ServerView,
    SessionRow,
)
from agent.tui.bars import build_line, download_line

if TYPE_CHECKING:
    from agent.config import Config
    from agent.loop.agent import Agent
    from server.cli.progress import Hooks
    from tools.mcp.servers import McpServers


class BackendError(Exception):
    """A request the backend cannot carry out; one line for the user."""


def _hooks(progress: Progress) -> Hooks:
    from server.cli.progress import Hooks

    return Hooks(
        build=lambda p: progress("build", build_line(p.done, p.total)),
        download=lambda what, done, total: progress(what, download_line(what, done, total)),
        step=lambda line: progress("step", line),
    )


def _permissions_of(agent: Any) -> ModeHolder | None:
    # /mode sets .mode on the Agent's Permissions; a core without one has no modes to switch.
    return getattr(agent, "permissions", None)


def _close_own_tools(agent: Agent) -> None:
    """Close what the agent's built-in tools keep running; MCP servers are the backend's."""
    from tools.mcp.tool import McpTool

    for name in agent.registry.names():
        tool = agent.registry.get(name)
        close = getattr(tool, "close", None)
        if callable(close) and not isinstance(tool, McpTool):
            close()
    agent.counter.close()


class LocalBackend:
    def __init__(self, workspace: Path, config: Config) -> None:
        self.workspace = workspace
        self.config = config
        self.started_server = False  # stopped again on quit
        self.mcp: McpServers | None = None  # the current agent's MCP servers, for /mcp
        self.agent: Agent | None = None  # the current agent: its tools are closed when replaced

    def connect(self, request: ConnectRequest, progress: Progress) -> Core:
        from agent.runtime.assemble import build_agent, connect_mcp

        config = self.config
        if request.profile is not None:
            if config.endpoint:
                raise BackendError("--endpoint fixes the model; /model switches managed profiles")
            config = dataclasses.replace(config, profile=request.profile)
            self._serve(request.profile, progress, switch=True)
        elif not config.endpoint:
            self._serve(config.profile, progress, switch=False)
        # /clear, /resume and /model keep live MCP servers; the old agent's own tools are closed.
        reuse = self.mcp is not None and self.mcp.serves(config.mcp_servers)
        mcp = self.mcp if reuse else connect_mcp(config, lambda line: progress("step", line))
        try:
            agent = build_agent(
                self.workspace,
                config,
                resume=request.resume,
                continue_latest=request.continue_latest,
                progress=lambda line: progress("step", line),
                mcp=mcp,
            )
        except BaseException:
            if mcp is not None and not reuse:
                mcp.close()
            raise
        if self.mcp is not None and not reuse:
            self.mcp.close()  # the previous agent's servers: the app swaps to the new core now
        self.config, self.mcp = config, mcp
        if self.agent is not None:
            _close_own_tools(self.agent)  # its background jobs belong to the old conversation
        self.agent = agent
        return Core(
            agent=agent,
            facts=self._facts(agent),
            permissions=_permissions_of(agent),
            session_id=agent.session.id,
            compact=agent.compact,
        )

    def _serve(self, profile: str | None, progress: Progress, *, switch: bool) -> None:
        """Make the managed server of ``profile`` run, with its build and download progress."""
        from server.process.detached import up
        from server.process.state import down, running

        current = running()
        if current is not None and switch and current.profile != profile:
            progress("step", f"stopping the {current.profile} server")
            down()
            current = None
        up(profile, hooks=_hooks(progress))
        if current is None:
            self.started_server = True

    def _facts(self, agent: Any) -> Facts:
        from agent.runtime.assemble import model_facts
        from agent.tui.baseline import measured_baseline  # loads the bench code: off the UI
        from server.paths import data_dir

        view = self.server(0)
        url = self.config.endpoint or view.url
        name = model_facts(url, self.config.api_key)[0] if url else ""
        profile = None if self.config.endpoint else view.profile
        return Facts(
            model=Path(name).name.removesuffix(".gguf") or self.config.model or "model",
            profile=profile,
            n_ctx=agent.n_ctx,
            baseline_tok_s=measured_baseline(profile, data_dir() / "bench") if profile else None,
        )

    def sessions(self) -> list[SessionRow]:
        from agent.sessions.store import list_sessions

        return [
            SessionRow(
                id=info.id,
                title=info.title,
                updated=time.strftime("%Y-%m-%d %H:%M", time.localtime(info.updated)),
                n_messages=info.n_messages,
            )
            for info in list_sessions(self.workspace)
        ]

    def profiles(self) -> list[str]:
        if self.config.endpoint:
            return []
        from server.profiles.catalog import load_profiles

        return sorted(load_profiles())

    def server(self, log_lines: int) -> ServerView:
        if self.config.endpoint:
            return ServerView(state="external", url=self.config.endpoint)
        from server.process.state import log_tail, running

        current = running()
        if current is None:
            return ServerView(state="down", profile=self.config.profile, can_restart=True)
        engine = current.record.get("engine") or {}
        return ServerView(
            state="up" if current.status == "healthy" else current.status,
            url=current.url,
            profile=current.profile,
            engine=" ".join(
                str(engine[k])[:12] for k in ("kind", "ref", "backend", "commit") if engine.get(k)
            )
            or None,
            command=current.argv,
            log_tail=log_tail(current.log_path, log_lines) if log_lines else [],
            can_restart=True,
        )

    def restart_server(self, progress: Progress) -> None:
        if self.config.endpoint:
            raise BackendError("an --endpoint server is not managed by beecode")
        from server.process.detached import up
        from server.process.state import down, running

        current = running()
        profile = current.profile if current is not None else self.config.profile
        progress("step", "stopping the server")
        down()
        up(profile, hooks=_hooks(progress))
        self.started_server = True

    def shutdown(self) -> None:
        if self.agent is not None:
            self.agent.close()  # background jobs would outlive beecode otherwise
        if self.mcp is not None:
            self.mcp.close()
        if self.started_server:
            from server.process.state import down

            down()

    def extras(self, what: str) -> list[str]:
        if what == "mcp":
            if self.mcp is None:
                return ["No MCP servers: add [mcp_servers.NAME] tables to the user config.toml."]
            return self.mcp.status_lines()
        if what != "bench":
            return []  # skills: their issue has not landed an interface to list yet
        from agent.tui.baseline import bench_report
        from server.paths import data_dir

        profile = None if self.config.endpoint else self.server(0).profile or self.config.profile
        return bench_report(profile, data_dir() / "bench")
