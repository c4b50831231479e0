"""An MCP server's stderr on disk: redacted and bounded.

The server writes into a pipe; a thread copies it to the file line by line, with secrets removed
(``tools.redact``), and when the file passes ``limit`` bytes it keeps only its last quarter, so a
server that floods stderr costs bounded disk and the lines that say why it died stay at the end.
(The SDK hands ``errlog`` to the child as its stderr, so a filter must sit behind a real pipe.)
"""

from __future__ import annotations

import io
import os
import threading
from pathlib import Path
from types import TracebackType

from tools.redact import redact_text

LIMIT_BYTES = 1 << 20
_CUT_NOTE = "[... earlier stderr cut: the log keeps its last part ...]\n"


class StderrSink:
    """Copies what is written to ``stream`` (the pipe's write end, for the child) to ``path``."""

    def __init__(self, path: Path, limit: int = LIMIT_BYTES) -> None:
        self.path, self.limit = path, limit
        read_end, write_end = os.pipe()
        self.stream = io.TextIOWrapper(io.FileIO(write_end, "w"), encoding="utf-8")
        self._reader = io.TextIOWrapper(
            io.FileIO(read_end, "r"), encoding="utf-8", errors="replace", newline=""
        )
        path.write_text("", encoding="utf-8")
        self._thread = threading.Thread(target=self._copy, name=f"stderr {path.name}", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Close beecode's copy of the write end; the copy ends when the child's closes too."""
        if not self.stream.closed:
            self.stream.close()  # the SDK may have written a line of its own: flushed here
        self._thread.join(timeout=2.0)

    def __enter__(self) -> StderrSink:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _copy(self) -> None:
        size = 0
        with self._reader, open(self.path, "a", encoding="utf-8") as log:
            for line in iter(lambda: self._reader.readline(64 * 1024), ""):
                text = redact_text(line)
                log.write(text)
                log.flush()
                size += len(text.encode("utf-8", errors="replace"))
                if size > self.limit:
                    size = self._keep_tail()

    def _keep_tail(self) -> int:
        data = self.path.read_bytes()[-(self.limit // 4) :]
        kept = _CUT_NOTE.encode() + data[data.find(b"\n") + 1 :]
        self.path.write_bytes(kept)  # the log file is opened in append mode: writes go after it
        return len(kept)
