"""The editor's side for the ACP tests: the SDK's own client connection to a real
``beecode acp`` subprocess, recording every session update and answering each permission
request with the next scripted option. With ``fs``, it offers its file requests: reads answer
from its buffers (the disk for a file it has none of), writes go to a buffer only (unsaved)."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, cast

from acp import PROTOCOL_VERSION, Client, RequestError, spawn_agent_process
from acp.core import ClientSideConnection
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    InitializeResponse,
    PermissionOption,
    ReadTextFileResponse,
    RequestPermissionResponse,
    ToolCallUpdate,
    WriteTextFileResponse,
)

SHUTDOWN_S = 30.0  # for beecode to close its sessions once stdin closes


class Editor:
    def __init__(self) -> None:
        self.updates: list[Any] = []
        self.answers: list[str] = []  # option ids, one per permission request; none left: cancel
        # While set, a request waits for the prompt's cancel, then answers "cancelled" (as Zed).
        self.hold: asyncio.Event | None = None
        self.cancelled = asyncio.Event()
        self.asked: list[ToolCallUpdate] = []
        self.init: InitializeResponse | None = None
        self.buffers: dict[str, str] = {}  # by absolute path: the open files' text
        self.file_requests: list[tuple[str, str, str]] = []  # (read or write, path, session)
        self.failing: set[str] = set()  # paths whose requests the editor answers with an error

    async def request_permission(
        self, options: list[PermissionOption], session_id: str, tool_call: ToolCallUpdate, **_: Any
    ) -> RequestPermissionResponse:
        self.asked.append(tool_call)
        if self.hold is not None:
            self.hold.set()
            await self.cancelled.wait()
        if not self.answers:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        chosen = self.answers.pop(0)
        if chosen == "fail":  # an editor whose answer is an error
            raise RequestError.internal_error({"details": "the prompt could not be shown"})
        assert chosen in [o.option_id for o in options]
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=chosen)
        )

    async def read_text_file(self, path: str, session_id: str, **_: Any) -> ReadTextFileResponse:
        self._file("read", path, session_id)
        text = self.buffers[path] if path in self.buffers else Path(path).read_text()
        return ReadTextFileResponse(content=text)

    async def write_text_file(
        self, path: str, content: str, session_id: str, **_: Any
    ) -> WriteTextFileResponse:
        self._file("write", path, session_id)
        self.buffers[path] = content
        return WriteTextFileResponse()

    def _file(self, verb: str, path: str, session_id: str) -> None:
        self.file_requests.append((verb, path, session_id))
        if path in self.failing:
            raise RequestError.internal_error({"details": "the buffer is locked"})

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append(update)

    def of(self, kind: str) -> list[Any]:
        return [u for u in self.updates if u.session_update == kind]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(u.content.text for u in self.of(kind))


@asynccontextmanager
async def beecode_acp(
    workspace: Path, *args: str, fs: FileSystemCapabilities | None = None
) -> AsyncIterator[tuple[ClientSideConnection, Editor]]:
    """``beecode acp ARGS`` in ``workspace``, initialized (the answer in ``editor.init``), the
    editor offering the file requests ``fs`` names (none by default); beecode's stderr goes to
    ``stderr.log`` beside the workspace."""
    editor = Editor()
    command = (sys.executable, "-m", "agent", "acp", *args)
    with open(workspace.parent / "stderr.log", "ab") as err:
        spawned = spawn_agent_process(
            cast(Client, editor),  # the methods an editor needs here; the rest are unknown
            *command,
            env=dict(os.environ),
            cwd=workspace,
            transport_kwargs={"stderr": err.fileno(), "shutdown_timeout": SHUTDOWN_S},
        )
        async with spawned as (conn, _process):
            editor.init = await conn.initialize(
                protocol_version=PROTOCOL_VERSION,
                client_capabilities=ClientCapabilities(fs=fs or FileSystemCapabilities()),
            )
            yield conn, editor
