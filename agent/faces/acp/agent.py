"""beecode as an ACP agent: initialize, sessions (new, load), prompt, cancel, modes.

Each session has a runtime of its own, in the folder the editor names (its config, project
memory, permissions and MCP servers are that folder's), all on the one model server: the
managed server of the configured profile, or ``--endpoint``, reached as every face reaches it
(``agent.runtime.Runtime.connect``, in a thread: it may build, download and start)."""

from __future__ import annotations

import asyncio
import dataclasses
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, Client
from acp.schema import (
    AcpMcpServer,
    AgentCapabilities,
    ClientCapabilities,
    HttpMcpServer,
    Implementation,
    InitializeResponse,
    LoadSessionResponse,
    McpCapabilities,
    McpServerStdio,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SetSessionModeResponse,
    SseMcpServer,
)

from agent.config import ConfigError, ignored_note, load_config
from agent.faces.acp.files import editor_files
from agent.faces.acp.history import PromptBlock
from agent.faces.acp.session import INTERNAL, AcpSession, refused
from agent.faces.contract import ConnectRequest
from agent.faces.progress_lines import ProgressLines
from agent.runtime import RefusedRequest, Runtime
from agent.runtime.served import AppError
from agent.sessions.store import SessionError, beecode_version

McpServer = HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio


class BeecodeAgent:
    """The ``acp.Agent`` the SDK's connection calls; ``flags`` are ``beecode acp``'s options
    (endpoint, profile, permission mode), applied over each folder's config."""

    def __init__(self, flags: dict[str, Any]) -> None:
        self.flags = flags
        self.client: Client | None = None
        self.sessions: dict[str, AcpSession] = {}
        self.capabilities: ClientCapabilities | None = None  # the editor's, from initialize
        self.progress = ProgressLines(sys.stderr)

    def on_connect(self, conn: Client) -> None:
        self.client = conn

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        **_: Any,
    ) -> InitializeResponse:
        self.capabilities = client_capabilities
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                # Images are taken for every model: one that reads none gets a line for each.
                prompt_capabilities=PromptCapabilities(embedded_context=True, image=True),
                mcp_capabilities=McpCapabilities(http=True, sse=True),
            ),
            agent_info=Implementation(name="beecode", title="beecode", version=beecode_version()),
        )

    async def authenticate(self, method_id: str, **_: Any) -> None:
        return None  # a local model: nothing to log in to

    async def new_session(
        self, cwd: str, mcp_servers: list[McpServer] | None = None, **_: Any
    ) -> NewSessionResponse:
        session = await self._open(cwd, mcp_servers or [], ConnectRequest())
        return NewSessionResponse(session_id=session.id, modes=session.modes())

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[McpServer] | None = None, **_: Any
    ) -> LoadSessionResponse:
        session = await self._open(cwd, mcp_servers or [], ConnectRequest(resume=session_id))
        await session.replay()
        return LoadSessionResponse(modes=session.modes())

    async def set_session_mode(
        self, mode_id: str, session_id: str, **_: Any
    ) -> SetSessionModeResponse:
        self._session(session_id).set_mode(mode_id)
        return SetSessionModeResponse()

    async def prompt(
        self, prompt: Sequence[PromptBlock], session_id: str, **_: Any
    ) -> PromptResponse:
        return await self._session(session_id).prompt(prompt)

    async def cancel(self, session_id: str, **_: Any) -> None:
        if session_id in self.sessions:
            self.sessions[session_id].cancel()

    def close(self) -> None:
        for session in self.sessions.values():
            session.close()
        self.sessions.clear()

    def _session(self, session_id: str) -> AcpSession:
        if session_id not in self.sessions:
            raise refused(f"no session {session_id!r} in this connection")
        return self.sessions[session_id]

    async def _open(self, cwd: str, mcp: list[McpServer], request: ConnectRequest) -> AcpSession:
        workspace = Path(cwd)
        if not workspace.is_absolute() or not workspace.is_dir():
            raise refused(f"not an absolute folder: {cwd}")
        if request.resume in self.sessions:  # loaded again: the old one's runtime is closed
            self.sessions.pop(request.resume).close()
        try:
            config = load_config(workspace, self.flags)
        except ConfigError as e:
            raise refused(str(e)) from None
        if (line := ignored_note(config)) is not None:
            self.progress("step", line)
        servers = {**config.mcp_servers, **client_servers(mcp)}
        runtime = Runtime(workspace, dataclasses.replace(config, mcp_servers=servers))
        assert self.client is not None  # the connection is made before any request
        client = self.client
        # The file tools read and write the editor's buffers where it offers that, else the disk.
        files = runtime.text_files = editor_files(client, self.capabilities)

        def connect() -> AcpSession:
            try:
                core = runtime.connect(request, self.progress)
                runtime.settle_mcp(self.progress)  # the client's servers, for the first prompt
            except BaseException:
                runtime.shutdown(stop_server=False)
                raise
            finally:
                self.progress.flush()
            if files is not None:
                files.session_id = core.session_id or ""
            return AcpSession(runtime, core, client)

        try:
            session = await asyncio.to_thread(connect)
        except (AppError, SessionError, RefusedRequest) as e:
            raise refused(str(e), INTERNAL) from None
        self.sessions[session.id] = session
        return session


def client_servers(servers: list[McpServer]) -> dict[str, dict[str, Any]]:
    """The editor's MCP servers as ``[mcp_servers]`` entries (an editor's own, ``acp``-typed
    ones are not beecode's to reach and are left out)."""
    entries: dict[str, dict[str, Any]] = {}
    for server in servers:
        if isinstance(server, McpServerStdio):
            env = {v.name: v.value for v in server.env}
            entries[server.name] = {"command": server.command, "args": server.args, "env": env}
        elif isinstance(server, HttpMcpServer | SseMcpServer):
            headers = {h.name: h.value for h in server.headers}
            entries[server.name] = {"type": server.type, "url": server.url, "headers": headers}
    return entries
