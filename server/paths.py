"""Where beecode keeps engines, models, state and config: XDG dirs, overridable for tests.

The XDG Base Directory rules are read here, not through platformdirs: beecode runs on Linux only
(/proc, prctl), and platformdirs' import (tempfile, shutil, random: ~6 ms of CPU) came before
`server up` could spawn llama-server.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

TYPE_CHECKING = False  # typing's, without importing typing before the spawn (server up)
if TYPE_CHECKING:
    from typing import Any


def _dir(env: str, xdg: str, default: str) -> Path:
    """$env, else $xdg/beecode, else ~/default/beecode (an XDG variable counts only when it
    holds an absolute path, as the specification says)."""
    base = os.environ.get(xdg, "")
    if not os.path.isabs(base):
        base = os.path.expanduser(default)
    path = Path(os.environ.get(env) or os.path.join(base, "beecode"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def cache_dir() -> Path:
    """Engine builds and model files: large, rebuildable, shared by every checkout."""
    return _dir("BEECODE_CACHE_DIR", "XDG_CACHE_HOME", "~/.cache")


def config_dir() -> Path:
    return _dir("BEECODE_CONFIG_DIR", "XDG_CONFIG_HOME", "~/.config")


def data_dir() -> Path:
    """Sessions: the user's work, never deleted by beecode."""
    return _dir("BEECODE_DATA_DIR", "XDG_DATA_HOME", "~/.local/share")


def state_dir() -> Path:
    """Running-server records and logs."""
    return _dir("BEECODE_STATE_DIR", "XDG_STATE_HOME", "~/.local/state")


def slots_dir() -> Path:
    """Saved llama-server slots (a session's prompt cache, ``--slot-save-path``): rebuildable by
    prefill, pruned by the agent by age and size."""
    path = state_dir() / "slots"
    path.mkdir(mode=0o700, exist_ok=True)
    return path


def read_json_object(path: Path) -> dict[str, Any] | None:
    """The JSON object in a file; None when it is missing, unreadable or not an object."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_json(path: Path, data: Any, mode: int | None = None) -> None:
    """Atomically: a reader sees the old file or the new one, never half of one. ``mode`` is
    the file's from its creation (a key file is never readable by others, not even briefly),
    and a failed write or rename leaves no temporary file behind."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666 if mode is None else mode)
        with os.fdopen(fd, "w") as out:
            out.write(json.dumps(data, indent=1) + "\n")
        if mode is not None:
            tmp.chmod(mode)  # a tmp left by an earlier crash kept its own mode
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
