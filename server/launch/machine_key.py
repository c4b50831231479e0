"""The managed server's API key: generated once per machine, readable by this user only.

A server on loopback is still reachable by every local user; with ``--api-key`` only a process
that can read this user's state directory can drive the model. ``key_for`` gives clients the key
for a loopback URL when no key was configured, so nothing else has to know about it.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from urllib.parse import urlsplit

from server.launch.addresses import is_loopback
from server.paths import state_dir

KEY_FILE = "api-key"


def key_path() -> Path:
    return state_dir() / KEY_FILE


def machine_key_file() -> Path:
    """The file holding this machine's key (for ``--api-key-file``: a key in argv would show in
    ``ps`` to every local user), created on first use."""
    machine_api_key()
    return key_path()


def machine_api_key() -> str:
    """This machine's key, created (mode 0600) on first use."""
    path = key_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text(encoding="ascii").strip()
    key = secrets.token_urlsafe(32)
    with os.fdopen(fd, "w", encoding="ascii") as file:
        file.write(key + "\n")
    return key


def key_for(base_url: str, api_key: str | None) -> str | None:
    """``api_key``, else the machine key for a loopback URL once one exists, else None."""
    if api_key:
        return api_key
    path = key_path()
    if not is_loopback(urlsplit(base_url).hostname or "") or not path.is_file():
        return None
    return path.read_text(encoding="ascii").strip() or None
