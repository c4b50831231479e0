"""The file tools' text through the editor (``fs/read_text_file``, ``fs/write_text_file``),
where it offers them in ``initialize``: the model reads the buffer the user sees, saved or not,
and its edits land in it (``tools.textfiles``).

The tools call from a worker thread; each request runs on the ACP connection's event loop,
and an editor that does not answer in ``EDITOR_S`` is a one-line error for the model."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

from acp import Client, RequestError
from acp.schema import ClientCapabilities

EDITOR_S = 30.0  # the longest a file request may wait for the editor's answer
T = TypeVar("T")


class EditorError(Exception):
    """The editor's request failed (the tool says which file, from this one line)."""


class EditorFiles:
    """``tools.textfiles.TextFiles`` by the editor's requests, for one session: its reads,
    writes or both, as the editor offers them."""

    def __init__(
        self,
        client: Client,
        loop: asyncio.AbstractEventLoop,
        reads: bool,
        writes: bool,
        timeout_s: float = EDITOR_S,
    ) -> None:
        self.client, self.loop = client, loop
        self.reads, self.writes = reads, writes
        self.timeout_s = timeout_s
        self.session_id = ""  # the ACP session's, once it is made

    def read_text(self, path: Path) -> str:
        request = self.client.read_text_file(session_id=self.session_id, path=str(path))
        return self._wait(request).content

    def write_text(self, path: Path, text: str) -> None:
        request = self.client.write_text_file(
            session_id=self.session_id, path=str(path), content=text
        )
        self._wait(request)

    def _wait(self, request: Coroutine[Any, Any, T]) -> T:
        """The request's answer, run on the connection's loop (never called from it: that loop
        would wait on itself)."""
        if _running_loop() is self.loop:
            request.close()
            raise RuntimeError("EditorFiles is called from a worker thread, not the ACP loop")
        future = asyncio.run_coroutine_threadsafe(request, self.loop)
        try:
            return future.result(timeout=self.timeout_s)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise EditorError(f"no answer in {self.timeout_s:g} s") from None
        except RequestError as error:
            raise EditorError(_said(error)) from None


def editor_files(client: Client, capabilities: ClientCapabilities | None) -> EditorFiles | None:
    """The editor's file requests for a new session, or None when it offers neither."""
    fs = capabilities.fs if capabilities is not None else None
    reads = bool(fs and fs.read_text_file)
    writes = bool(fs and fs.write_text_file)
    if not (reads or writes):
        return None
    return EditorFiles(client, asyncio.get_running_loop(), reads, writes)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _said(error: RequestError) -> str:
    """The editor's words: its message, and its data's details or message where it gave any."""
    data = error.data
    extra = data.get("details") or data.get("message") if isinstance(data, dict) else data
    words = f"{error} ({extra})" if extra and str(extra) not in str(error) else str(error)
    return " ".join(words.split())[:300]
