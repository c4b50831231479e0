"""The one runtime both faces use: the agent, its managed server (or an ``--endpoint``), its MCP
connections, from the first connect through restarts to shutdown.

It meets the faces' ``Backend`` contract (``agent.faces.contract``). Every import of the heavy
parts (openai, httpx, the server code, the MCP SDK) happens inside the methods, which the TUI calls
from worker threads: the TUI is on screen before any of them loads.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from agent.config import Config
from agent.context.prefill import context_parts, context_report
from agent.faces.contract import ConnectRequest, Core, Facts, Progress, ServerView, SessionRow
from agent.runtime.progress import DownloadLines, build_line
from agent.runtime.slot_keeper import SlotKeeper
from agent.subagents.tool import agents_listing

if TYPE_CHECKING:
    from agent.loop.agent import Agent
    from agent.runtime.served import ServedModel
    from server.cli.progress import Hooks
    from tools.mcp.servers import McpServers
    from tools.textfiles import TextFiles


class RefusedRequest(Exception):
    """A request the runtime cannot carry out; one line for the user."""


def prompt_history_path() -> Path:
    """Where the TUI keeps the prompts typed in it, across workspaces."""
    from server.paths import state_dir

    return state_dir() / "prompt_history.jsonl"


def _hooks(progress: Progress) -> Hooks:
    """The server code's progress (build, downloads, model load) as a face's progress lines,
    whatever step of the start brings them on."""
    from server.cli.progress import Hooks

    downloads = DownloadLines()
    return Hooks(
        build=lambda p: progress(
            "build", build_line(p.done, p.total, p.eta_s, "" if p.total else p.describe())
        ),
        download=lambda what, done, total: progress(what, downloads.line(what, done, total)),
        step=lambda line: progress("step", line),
    )


class Runtime:
    def __init__(self, workspace: Path, config: Config) -> None:
        self.workspace = workspace
        self.config = config
        self.started_server = False  # this runtime started the managed server: stopped on quit
        self.used_server = False  # it asked for the managed server (started or reused it)
        self.mcp: McpServers | None = None  # the one owner of the MCP connections
        self.agent: Agent | None = None  # the current agent: closed when replaced
        self._model_name = ""
        self._speculative: bool | None = None
        self.ask_mcp: Callable[[dict[str, str]], bool] | None = None  # set by a face that asks
        self._mcp_asked = False  # once per run: /clear and /resume do not ask again
        self.slot = SlotKeeper()  # whose conversation the server's slot holds
        self.text_files: TextFiles | None = None  # an editor's buffers for the file tools (ACP)

    def connect(self, request: ConnectRequest, progress: Progress) -> Core:
        """A new agent (a new, resumed or continued session, maybe on another profile); the
        previous one is closed. Raises RefusedRequest, AppError or SessionError with one line."""
        from agent.mcp_config import approve, mcp_setup
        from agent.runtime.assemble import (
            assemble_agent,
            connect_mcp,
            earlier_session,
            tool_budget,
            tool_registry,
        )
        from agent.runtime.served import AppError
        from agent.sessions.fork import fork_session, forked_line
        from server.errors import ServerError

        config = self.config
        if request.profile is not None:
            if config.endpoint:
                raise RefusedRequest("--endpoint fixes the model; /model switches managed profiles")
            config = dataclasses.replace(config, profile=request.profile)
        # A bad session id or an --endpoint nothing answers at fails before any server starts.
        earlier = earlier_session(self.workspace, request.resume, request.continue_latest)
        if request.fork and earlier is None:
            raise RefusedRequest("--fork needs a session to fork: -r ID or -c")
        self.reach_endpoint(config)
        self.leave_session(progress)  # before a profile switch stops the server
        # /clear, /resume and /model keep live MCP servers; the old agent's own tools are closed.
        setup = mcp_setup(self.workspace, config)
        if setup.unapproved and self.ask_mcp is not None and not self._mcp_asked:
            self._mcp_asked = True
            if self.ask_mcp(setup.unapproved):
                approve(self.workspace, list(setup.unapproved), config)
                setup = mcp_setup(self.workspace, config)
        reuse = self.mcp is not None and self.mcp.serves(setup.servers)
        # Started in the background, before the model server: both come up at the same time.
        mcp = self.mcp if reuse else connect_mcp(setup, lambda line: progress("step", line))
        try:
            try:
                served = self.serve_model(config, progress, switch=request.profile is not None)
            except ServerError as e:
                raise AppError(str(e)) from e
            tools = tool_registry(mcp, tool_budget(config, served.n_ctx))
            source = earlier if request.fork else None
            if source is not None:  # once the server is up: a failed start leaves no copy
                earlier = fork_session(source)
            agent = assemble_agent(
                self.workspace, config, served, earlier, tools, mcp, self.text_files
            )
        except BaseException:
            if mcp is not None and not reuse:
                mcp.close()
            raise
        if source is not None:
            progress("step", forked_line(agent.session.id, source.id))
        for note in agent.session.skipped:  # misshapen session lines left out on resume
            progress("step", f"session {agent.session.id}: {note}")
        for note in agent.skills.notes():  # skipped skill files and hidden commands
            progress("step", note)
        if self.mcp is not None and not reuse:
            self.mcp.close()  # the previous agent's servers: the face swaps to the new agent now
        if self.agent is not None:
            self.agent.close()  # its background jobs belong to the old conversation
        self.config, self.mcp, self.agent, self._model_name = config, mcp, agent, served.name
        self._speculative = served.speculative
        self._restore(progress, resumed=earlier is not None)
        return Core(
            agent=agent,
            facts=self._facts(agent),
            permissions=agent.permissions,
            session_id=agent.session.id,
            forked_from=source.id if source is not None else None,
            compact=agent.compact,
            context=lambda: context_report(
                context_parts(
                    agent.messages,
                    agent.registry.schemas(),
                    agent.counter,
                    agent.repo_map.text if agent.repo_map else "",
                ),
                agent.n_ctx,
                agent.prefill,
            ),
        )

    def settle_mcp(self, progress: Progress) -> None:
        """Wait for the MCP servers still starting, each at most its connect timeout, and give
        the agent their tools: a headless run has no UI to keep usable, and its one turn would
        otherwise miss a late server's tools. One progress line per server that failed."""
        from agent.commands.turns import CommandAgent

        if self.mcp is None or not isinstance(self.agent, CommandAgent):
            return
        self.mcp.connect()
        for line in self.agent.take_late_mcp():
            progress("step", line)

    def reach_endpoint(self, config: Config) -> None:
        """AppError with one line when an ``--endpoint`` does not answer at all."""
        from agent.runtime.served import check_endpoint

        if config.endpoint:
            check_endpoint(config.endpoint)

    def serve_model(self, config: Config, progress: Progress, *, switch: bool) -> ServedModel:
        """The model the next agent talks to: the ``--endpoint``, or the managed server of the
        config's profile, started when it is not up (``switch``: stop one of another profile)."""
        from agent.runtime.served import serve_model

        return serve_model(config.endpoint or self._serve(config.profile, progress, switch), config)

    def _serve(self, profile: str | None, progress: Progress, switch: bool) -> str:
        from server.process.detached import known_profile, up
        from server.process.state import down, running

        known_profile(profile)  # a wrong name is told as one, before any server is stopped
        current = running()
        if current is not None and switch and current.profile != profile:
            progress("step", f"stopping the {current.profile} server")
            down()
            current = None
        if current is None:
            progress("step", f"starting the model server ({profile or 'default profile'})")
        # Reuses the server that runs (or refuses, naming it, when it serves another profile).
        url = up(profile, hooks=_hooks(progress)).url
        self.used_server = True
        self.started_server = self.started_server or current is None
        return url

    def leave_session(self, progress: Progress | None = None) -> None:
        """Save the current session's prompt cache before it is left or the server stops."""
        self.slot.leave(self.agent, self.config, self._model_name, progress)

    def _restore(self, progress: Progress, *, resumed: bool = True) -> None:
        self.slot.arrive(self.agent, self.config, self._model_name, progress, resumed)

    def _facts(self, agent: Agent) -> Facts:
        from agent.runtime.baseline import profile_speculates

        profile = None if self.config.endpoint else self.server(0).profile
        speculative = self._speculative  # the server's word (/slots), else the profile's launch
        if speculative is None and profile is not None:
            speculative = profile_speculates(profile)
        return Facts(
            model=Path(self._model_name).name.removesuffix(".gguf") or self.config.model or "model",
            profile=profile,
            n_ctx=agent.n_ctx,
            speculative=speculative,
            prefill=agent.prefill,
        )

    def sessions(self) -> list[SessionRow]:
        from agent.sessions.store import list_sessions

        return [
            SessionRow(
                id=info.id,
                title=info.title,
                updated=time.strftime("%Y-%m-%d %H:%M", time.localtime(info.updated)),
                n_messages=info.n_messages,
                forked_from=info.forked_from,
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
        from server.engine.sources import engine_label
        from server.process.state import log_tail, running

        current = running()
        if current is None:
            return ServerView(state="down", profile=self.config.profile, can_restart=True)
        engine = current.record.get("engine") or {}
        label = engine_label(
            str(engine["kind"]), str(engine["ref"]), engine.get("backend"), engine.get("commit")
        )
        return ServerView(
            state="up" if current.status == "healthy" else current.status,
            url=current.url,
            profile=current.profile,
            engine=label if engine.get("kind") and engine.get("ref") else None,
            command=current.argv,
            log_tail=log_tail(current.log_path, log_lines) if log_lines else [],
            can_restart=True,
        )

    def restart_server(self, progress: Progress) -> None:
        if self.config.endpoint:
            raise RefusedRequest("an --endpoint server is not managed by beecode")
        from server.process.detached import up
        from server.process.state import down, running

        current = running()
        profile = current.profile if current is not None else self.config.profile
        self.leave_session(progress)
        progress("step", "stopping the server")
        down()
        up(profile, hooks=_hooks(progress))
        self.started_server = True
        self._restore(progress)  # the conversation goes on without being read in again

    def shutdown(self, *, stop_server: bool = True) -> None:
        """Close the agent (its background jobs would outlive beecode) and the MCP servers; stop
        the managed server if this runtime started it and ``stop_server``."""
        self.leave_session()
        if self.agent is not None:
            self.agent.close()
        if self.mcp is not None:
            self.mcp.close()
        if stop_server and self.started_server:
            from server.process.state import down

            down()

    def kept_server(self) -> str | None:
        """One line for a face that ends and leaves the managed server it used running (a
        headless run: the next one reuses it warm); None when there is none to tell of."""
        from server.process.state import running

        current = running() if self.used_server and not self.config.endpoint else None
        if current is None:
            return None
        return (
            f"llama-server (profile {current.profile}) keeps running at {current.url} for the "
            "next run; `beecode server down` stops it"
        )

    def _mcp_mode(self) -> str:
        from agent.runtime.assemble import SEARCH, tool_budget

        budget = tool_budget(self.config, getattr(self.agent, "n_ctx", None))
        if self.agent is not None and SEARCH in self.agent.registry.names():
            return (
                f"mode: search (the tools are past {budget} tokens: one {SEARCH} tool finds them)"
            )
        return f"mode: listed (the MCP tools fit in {budget} tokens)"

    def extras(self, what: str) -> list[str]:
        if what == "prompts":  # /server:prompt commands of the current agent
            commands = getattr(self.agent, "commands", None)
            return [c.name for c in commands.all() if c.kind == "prompt"] if commands else []
        if what == "resources":  # @server:uri attachments
            offers = self.mcp.offers() if self.mcp is not None else {}
            return [f"{name}:{r.uri}" for name, (_, listed) in offers.items() for r in listed]
        if what == "agents":  # the task tool's sub-agents
            return agents_listing(self.agent)
        if what == "mcp":
            if self.mcp is None:
                return ["No MCP servers: add them to .mcp.json or [mcp_servers] in config.toml."]
            return [*self.mcp.status_lines(), self._mcp_mode()]
        if what != "bench":
            return []
        from agent.runtime.baseline import bench_report
        from server.paths import data_dir

        profile = None if self.config.endpoint else self.server(0).profile or self.config.profile
        return bench_report(profile, data_dir() / "bench")
