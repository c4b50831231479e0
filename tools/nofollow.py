"""Opening a checked path so that a symlink swapped in after the check cannot redirect the open.

``tools.paths.resolve_in_workspace`` resolves a path and checks it lies inside the roots; between
that check and the open, a command running in the background could replace a directory on the
way with a symlink to somewhere else. These helpers walk the resolved path one component at a
time from ``/`` with ``O_NOFOLLOW`` (openat style), so any symlink met at open time is refused.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from tools.tool import ToolError

_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def open_dir(path: Path) -> int:
    """A descriptor for directory ``path`` (absolute, resolved), no component a symlink."""
    fd = os.open("/", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in path.parts[1:]:
            inner = _open_at(fd, part, _DIRECTORY, 0, path)
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_file(path: Path, flags: int = os.O_RDONLY, mode: int = 0o666) -> int:
    """A descriptor for ``path`` (absolute, resolved), refused if any component is a symlink."""
    parent = open_dir(path.parent)
    try:
        return _open_at(parent, path.name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, path)
    finally:
        os.close(parent)


def _open_at(directory: int, name: str, flags: int, mode: int, path: Path) -> int:
    try:
        return os.open(name, flags, mode, dir_fd=directory)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
            raise ToolError(f"{path} changed: a part of it is now a symlink; not opened") from None
        raise
