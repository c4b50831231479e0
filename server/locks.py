"""Cross-process exclusive locks on files in the cache (engine builds, model fetches)."""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def file_lock(folder: Path, name: str) -> Iterator[None]:
    """Hold folder/.locks/<name>.lock exclusively; other callers wait. Lock files stay: deleting
    one while another process waits on it would let a third take a fresh lock beside it."""
    locks = folder / ".locks"
    locks.mkdir(parents=True, exist_ok=True)
    with (locks / f"{name}.lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextmanager
def lock_if_free(folder: Path, name: str) -> Iterator[bool]:
    """Hold folder/.locks/<name>.lock if no one holds it (True), else do not wait (False)."""
    locks = folder / ".locks"
    locks.mkdir(parents=True, exist_ok=True)
    with (locks / f"{name}.lock").open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
