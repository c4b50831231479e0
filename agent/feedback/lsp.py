"""A language server's errors on the files a turn changed (basedpyright or pyright for Python).

The client is pygls's ``LanguageClient`` (pygls 2: maintained, typed through lsprotocol, and it
runs on our own asyncio loop; multilspy downloads its servers at run time, which offline beecode
cannot). The server is found, never fetched: in the project's venv, beecode's own environment
(the ``lsp`` extra), or PATH. It starts at the first turn that changes a file it reads, is asked
for like a bash command (``agent.feedback.run``), and stays for the session: each check sends the
changed files (didOpen, then didChange) and waits, within a timeout, for their
publishDiagnostics. Only errors count; warnings and hints are left to the user.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shlex
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

from agent.feedback.detect import installed
from tools.jobs import kill_group

logging.getLogger("pygls").addHandler(logging.NullHandler())  # never onto the terminal
SERVERS = ("basedpyright-langserver", "pyright-langserver")
SUFFIXES = (".py", ".pyi")
MAX_FILE_BYTES = 1_000_000
MAX_MESSAGE_BYTES = 1 << 26  # one JSON-RPC line the reader holds (diagnostics of a big file)
KILL_WAIT_S = 5.0
# Asked for settings, the server gets pyright's standard checks; a project's own config wins.
_SETTINGS: dict[str, Any] = {"typeCheckingMode": "standard", "diagnosticMode": "openFilesOnly"}


def find_server(workspace: Path) -> list[str] | None:
    """The server's argv (with ``--stdio``), or None when none is installed."""
    for name in SERVERS:
        own = Path(sys.executable).parent / name  # beecode's environment: the lsp extra
        path = installed(workspace, name) or (own if own.is_file() else None)
        if path is not None:
            return [str(path), "--stdio"]
    return None


def shown(argv: list[str], workspace: Path) -> str:
    """The server's command line as the user sees it and permission rules match it."""
    path = Path(argv[0])
    name = str(path.relative_to(workspace)) if path.is_relative_to(workspace) else path.name
    return shlex.join([name, *argv[1:]])


class LanguageServer:
    """One server for the session (``close`` stops it and what it started)."""

    def __init__(self, argv: list[str], workspace: Path, env: dict[str, str]) -> None:
        self.argv, self.workspace, self.env = argv, workspace.resolve(), env
        self._client: Any = None  # pygls's LanguageClient once started
        self._ready = False  # initialized: files may be sent
        self._process: subprocess.Popen[bytes] | None = None
        self._versions: dict[str, int] = {}  # uri -> the version last sent
        self._found: dict[str, Sequence[lsp.Diagnostic]] = {}
        self._arrived: dict[str, asyncio.Event] = {}

    async def errors(self, files: list[str], timeout: float) -> dict[str, list[str]] | None:
        """Each file's errors, as ``path:line:col: message``; None: not all came in time."""
        files = [f for f in files if f.endswith(SUFFIXES) and (self.workspace / f).is_file()]
        if not files:
            return {}
        try:
            async with asyncio.timeout(timeout):
                if not self._ready:  # never started, or cut short last time: afresh
                    self.close()
                    await self._start()
                    self._ready = True
                waits = [self._send(f) for f in files]
                await asyncio.gather(*(event.wait() for event in waits))
        except TimeoutError:
            if self._process is not None and self._process.poll() is not None:
                raise RuntimeError(f"it exited ({self._process.returncode})") from None
            return None
        return {f: self._lines(f) for f in files}

    async def _start(self) -> None:
        from pygls.lsp.client import LanguageClient  # ~0.1 s: only once a server is wanted

        client = LanguageClient("beecode", "1")

        # pygls registers functions (a bound method cannot carry its marks), params only.
        def published(params: lsp.PublishDiagnosticsParams) -> None:
            self._published(params)

        def configuration(params: lsp.ConfigurationParams) -> list[Any]:
            return self._configuration(params)

        def ignored(params: Any) -> None:
            return None

        client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(published)
        client.feature(lsp.WORKSPACE_CONFIGURATION)(configuration)
        for chatter in (lsp.WINDOW_LOG_MESSAGE, lsp.WINDOW_SHOW_MESSAGE, lsp.TELEMETRY_EVENT):
            client.feature(chatter)(ignored)
        await self._connect(client)
        self._client = client
        root = self.workspace.as_uri()
        await client.initialize_async(
            lsp.InitializeParams(
                capabilities=lsp.ClientCapabilities(
                    text_document=lsp.TextDocumentClientCapabilities(
                        publish_diagnostics=lsp.PublishDiagnosticsClientCapabilities(
                            version_support=True
                        )
                    ),
                    workspace=lsp.WorkspaceClientCapabilities(configuration=True),
                ),
                process_id=os.getpid(),
                root_uri=root,
                workspace_folders=[lsp.WorkspaceFolder(root, self.workspace.name)],
            )
        )
        client.initialized(lsp.InitializedParams())

    async def _connect(self, client: Any) -> None:
        """The server as a plain child process on pipes this loop reads and writes (pygls's
        ``start_io`` would make it an asyncio child, whose end must be seen by a loop that is
        still open: ``close`` may come after the loop is gone, from another thread)."""
        from pygls.io_ import run_async

        self._process = subprocess.Popen(
            self.argv,
            cwd=self.workspace,
            env=self.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        assert self._process.stdin is not None and self._process.stdout is not None
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=MAX_MESSAGE_BYTES)
        await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), self._process.stdout
        )
        writer, _ = await loop.connect_write_pipe(asyncio.Protocol, self._process.stdin)
        client.protocol.set_writer(writer)  # writes never block the loop: the transport buffers
        reading = run_async(client._stop_event, reader, client.protocol)
        client._async_tasks.append(asyncio.create_task(reading))

    def _send(self, file: str) -> asyncio.Event:
        path = self.workspace / file
        uri = path.as_uri()
        with path.open("rb") as f:
            text = f.read(MAX_FILE_BYTES).decode("utf-8", errors="replace")
        event = self._arrived.setdefault(uri, asyncio.Event())
        event.clear()
        version = self._versions.get(uri, 0) + 1
        self._versions[uri] = version
        if version == 1:
            item = lsp.TextDocumentItem(uri, "python", version, text)
            self._client.text_document_did_open(lsp.DidOpenTextDocumentParams(item))
        else:
            change = lsp.TextDocumentContentChangeWholeDocument(text)
            document = lsp.VersionedTextDocumentIdentifier(version, uri)
            self._client.text_document_did_change(
                lsp.DidChangeTextDocumentParams(document, [change])
            )
        return event

    def _published(self, params: lsp.PublishDiagnosticsParams) -> None:
        sent = self._versions.get(params.uri)
        if sent is None or (params.version is not None and params.version != sent):
            return  # of a file not asked about, or of an older text
        self._found[params.uri] = params.diagnostics
        self._arrived.setdefault(params.uri, asyncio.Event()).set()

    def _configuration(self, params: lsp.ConfigurationParams) -> list[Any]:
        return [_SETTINGS if (i.section or "").endswith("analysis") else {} for i in params.items]

    def _lines(self, file: str) -> list[str]:
        found = self._found.get((self.workspace / file).as_uri(), [])
        errors = [d for d in found if d.severity in (None, lsp.DiagnosticSeverity.Error)]
        return [
            f"{file}:{d.range.start.line + 1}:{d.range.start.character + 1}: "
            f"{' '.join(d.message.split())}" + (f" [{d.code}]" if d.code else "")
            for d in errors
        ]

    def close(self) -> None:
        """Stop the server and what it started (node); safe from any thread, after its loop."""
        self._ready = False
        self._versions.clear()  # a new server has none of them open
        if self._client is not None:
            self._client._stop_event.set()
            self._client = None
        if self._process is not None:
            process, self._process = self._process, None
            kill_group(process.pid)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(KILL_WAIT_S)
