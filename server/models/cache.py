"""The models cache folder and the checks that a file there is the model it is pinned to.

A file that was verified once gets a stamp (size + mtime + sha) so later `server up` calls skip
the hash, which takes seconds for a multi-GiB model.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from server.errors import ModelError
from server.models.spec import ModelSpec
from server.paths import cache_dir

READ_CHUNK = 4 << 20  # bytes per read when hashing or copying model files
_GGUF_MAGIC = b"GGUF"


def models_dir() -> Path:
    path = cache_dir() / "models"
    path.mkdir(parents=True, exist_ok=True)
    return path


def check_magic(path: Path) -> None:
    with path.open("rb") as fh:
        if fh.read(4) != _GGUF_MAGIC:
            raise ModelError(f"{path} is not a GGUF file (wrong magic bytes)")


def _stamp_path(sha256: str) -> Path:
    return models_dir() / ".verified" / sha256


def _stamp_text(path: Path) -> str:
    st = path.stat()
    return f"{path.resolve()} {st.st_size} {st.st_mtime_ns}\n"


def matches_pin(path: Path, spec: ModelSpec) -> bool:
    """Size and sha256 as pinned (either may be absent); hashes only files not stamped before."""
    if spec.size_bytes is not None and path.stat().st_size != spec.size_bytes:
        return False
    if spec.sha256 is None:
        return True
    stamp = _stamp_path(spec.sha256)
    if stamp.is_file() and stamp.read_text() == _stamp_text(path):
        return True
    if sha256_of(path) != spec.sha256:
        return False
    write_stamp(path, spec.sha256)
    return True


def write_stamp(path: Path, sha256: str) -> None:
    stamp = _stamp_path(sha256)
    stamp.parent.mkdir(exist_ok=True)
    tmp = stamp.with_name(f".{stamp.name}.{os.getpid()}")
    tmp.write_text(_stamp_text(path))
    tmp.replace(stamp)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(READ_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
