"""Bytes on disk before a record says they are: every byte written, then fsync'd."""

from __future__ import annotations

import os


def write_synced(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd`` (``os.write`` may take less than it is given), then
    fsync it."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.fsync(fd)
