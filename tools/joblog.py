"""A background job's log, bounded on disk: a thread copies the job's pipe into a file, and once
the unread part passes ``cap`` bytes it is cut to its last ``keep`` bytes and the cut is counted.
``yes`` in the background costs a few megabytes, not a gigabyte every few seconds."""

from __future__ import annotations

import codecs
import os
import threading
from pathlib import Path

from tools.output import HeadTail

LOG_CAP_BYTES = 4 << 20
LOG_KEEP_BYTES = 1 << 20
_CHUNK = 1 << 16


class JobLog:
    def __init__(self, path: Path, pipe: int, cap: int = LOG_CAP_BYTES, keep: int = LOG_KEEP_BYTES):
        self.path, self.cap, self.keep = path, cap, keep
        self.cut = 0  # bytes dropped from the unread part since the last read
        self._read_to = 0
        self._lock = threading.Lock()
        # Stateful, so a character split across two reads is decoded whole.
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._file = path.open("w+b")
        self._pump = threading.Thread(target=self._copy, args=(pipe,), daemon=True)
        self._pump.start()

    def _copy(self, pipe: int) -> None:
        try:
            while chunk := os.read(pipe, _CHUNK):
                with self._lock:
                    self._file.seek(0, os.SEEK_END)
                    self._file.write(chunk)
                    self._file.flush()  # the file is the log a user may tail
                    if self._file.tell() - self._read_to > self.cap:
                        self._shrink()
        except (OSError, ValueError):
            pass  # the log was closed under us at shutdown
        finally:
            os.close(pipe)

    def _shrink(self) -> None:
        """Keep the last ``keep`` unread bytes, at the start of the file."""
        end = self._file.tell()
        self._file.seek(end - self.keep)
        tail = self._file.read()
        self.cut += end - self.keep - self._read_to
        self._file.seek(0)
        self._file.write(tail)
        self._file.truncate()
        self._file.flush()
        self._read_to = 0
        self._decoder.reset()

    def drain(self, grace_s: float) -> None:
        """Wait a little for the pump to copy what an exited job left in the pipe."""
        self._pump.join(grace_s)

    def size(self) -> int:
        with self._lock:
            self._file.seek(0, os.SEEK_END)
            return self._file.tell()

    def read_new(self, limit: int) -> str:
        """What was written since the last read, capped to ``limit`` characters."""
        capped = HeadTail(limit)
        with self._lock:
            if self.cut:
                capped.feed(f"[{self.cut} bytes of output were cut from the log here]\n")
                self.cut = 0
            self._file.seek(self._read_to)
            while chunk := self._file.read(_CHUNK):
                self._read_to += len(chunk)
                capped.feed(self._decoder.decode(chunk))
        text = capped.text()
        return text if not text or text.endswith("\n") else text + "\n"

    def close(self) -> None:
        with self._lock:
            self._file.close()
        self.path.unlink(missing_ok=True)
