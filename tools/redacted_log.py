"""A log file that only redacted text reaches, bounded: MCP servers' stderr, llama-server's log.

A child writes into a pipe (``pipe()``); a thread copies it to the file line by line with secrets
removed (``tools.redact``). Past ``limit`` bytes the file keeps only its last quarter, rewritten in
place (writers that opened it to append, like the detached supervisor's own output, go on at its
new end), so a flood costs bounded disk and the lines that say why the child died stay at the end.
A filter must sit behind a real pipe: a child is handed a file descriptor, not a Python object.
"""

from __future__ import annotations

import io
import os
import threading
from pathlib import Path

from tools.environment import secret_values

TYPE_CHECKING = False  # typing's, without importing typing before the spawn (server up)
if TYPE_CHECKING:
    from types import TracebackType
    from typing import TextIO

LIMIT_BYTES = 1 << 20
_CHUNK = 64 * 1024  # a line longer than this is redacted in pieces
_CUT_NOTE = "[... earlier output cut: the log keeps its last part ...]\n"


class RedactedLog:
    """Redacted, bounded writes to ``path`` (emptied first unless ``append``), from any thread."""

    def __init__(self, path: Path, limit: int = LIMIT_BYTES, *, append: bool = False) -> None:
        self.path, self.limit = path, limit
        self._lock = threading.Lock()
        if not append:
            path.write_text("", encoding="utf-8")
        # Append mode, always: after _keep_tail rewrites the file, writes go on at its new end.
        self._file = open(path, "a", encoding="utf-8")  # noqa: SIM115
        self._size = self._file.tell()
        self._secrets = secret_values()  # read once: a line costs one pass, not an env scan
        self._writers: list[TextIO] = []
        self._copies: list[threading.Thread] = []
        self.wrote = threading.Event()  # set at each write: a waiter can clear it and wait on it

    def pipe(self) -> TextIO:
        """A new pipe's write end, for a child's stdout or stderr; what it gets is copied here.
        Close it (or let ``close`` do it) once the child has it, so its end is seen."""
        read_end, write_end = os.pipe()
        writer = io.TextIOWrapper(io.FileIO(write_end, "w"), encoding="utf-8")
        copy = threading.Thread(
            target=self._copy, args=(read_end,), name=f"log {self.path.name}", daemon=True
        )
        copy.start()
        self._writers.append(writer)
        self._copies.append(copy)
        return writer

    def write(self, text: str) -> None:
        # Imported at the first write, not with this module: its patterns take ~3 ms of CPU to
        # compile, which the detached supervisor would spend before it spawns llama-server.
        from tools.redact import redact_text

        with self._lock:
            if self._file.closed:  # a late note after close: still kept, still redacted
                with open(self.path, "a", encoding="utf-8") as late:
                    late.write(redact_text(text, self._secrets))
                return
            text = redact_text(text, self._secrets)
            self._file.write(text)
            self._file.flush()
            self._size += len(text.encode("utf-8", errors="replace"))
            if self._size > self.limit:
                self._keep_tail()
        self.wrote.set()

    def drain(self, timeout_s: float = 2.0) -> None:
        """Wait until every pipe whose writers have all closed (the child exited) is copied."""
        for writer in self._writers:
            if not writer.closed:
                writer.close()  # beecode's copy; an SDK may have written a line of its own
        for copy in self._copies:
            copy.join(timeout=timeout_s)
        self._copies = [copy for copy in self._copies if copy.is_alive()]
        self._writers = []

    def close(self) -> None:
        self.drain()
        with self._lock:
            self._file.close()

    def __enter__(self) -> RedactedLog:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _copy(self, read_end: int) -> None:
        """Whole lines at a time, as many as have come (one redaction, one write for a burst)."""
        pending = b""
        with io.FileIO(read_end, "r") as reader:
            while chunk := reader.read(_CHUNK):
                pending += chunk
                cut = pending.rfind(b"\n") + 1 or (len(pending) if len(pending) >= _CHUNK else 0)
                if cut:
                    self.write(pending[:cut].decode("utf-8", errors="replace"))
                    pending = pending[cut:]
        if pending:
            self.write(pending.decode("utf-8", errors="replace"))

    def _keep_tail(self) -> None:
        data = self.path.read_bytes()[-(self.limit // 4) :]
        kept = _CUT_NOTE.encode() + data[data.find(b"\n") + 1 :]
        self.path.write_bytes(kept)  # in place: every append-mode handle goes on after it
        self._size = len(kept)
