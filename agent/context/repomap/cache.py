"""Tags per file, kept between builds and sessions in beecode's cache dir (never the repo).

One JSON file per workspace, ``<cache>/repomap/<digest of the workspace path>.json``: for each
file its stamp (mtime in ns and size) and its tags. A file whose stamp is unchanged is not read
again. The grammars' versions are part of the file: other grammars, other tags, a fresh cache.
A cache file that is unreadable or of another shape counts as empty; one that cannot be written
costs only the next build's time. The files of the most recently used 64 workspaces are kept.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from agent.context.repomap.languages import queries_version
from agent.context.repomap.tags import FileTags
from server.paths import cache_dir, read_json_object, write_json

Stamp = tuple[int, int]
KEEP_WORKSPACES = 64  # cache files kept, the most recently used: one per project


def default_folder() -> Path:
    return cache_dir() / "repomap"


class TagsCache:
    def __init__(self, workspace: Path, folder: Path | None = None) -> None:
        where = folder or default_folder()
        digest = hashlib.sha256(str(workspace.resolve()).encode("utf-8", "surrogatepass"))
        self.path = where / f"{digest.hexdigest()[:24]}.json"
        self._version = queries_version()
        self._entries: dict[str, tuple[Stamp, FileTags]] | None = None
        self._dirty = False
        self.hits = self.misses = 0

    def get(self, name: str, stamp: Stamp) -> FileTags | None:
        entry = self._load().get(name)
        if entry is not None and entry[0] == stamp:
            self.hits += 1
            return entry[1]
        self.misses += 1
        return None

    def put(self, name: str, stamp: Stamp, tags: FileTags) -> None:
        self._load()[name] = (stamp, tags)
        self._dirty = True

    def keep_only(self, names: set[str]) -> None:
        """Forget files that are gone, so the cache does not grow with every rename."""
        entries = self._load()
        for name in [n for n in entries if n not in names]:
            del entries[name]
            self._dirty = True

    def save(self) -> None:
        if not self._dirty or self._entries is None:
            return
        files = {n: [list(s), t.to_json()] for n, (s, t) in sorted(self._entries.items())}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_json(self.path, {"version": self._version, "files": files})
            _prune(self.path.parent)
        except OSError:
            return  # a full or read-only cache dir: the next build reads the files again
        self._dirty = False

    def _load(self) -> dict[str, tuple[Stamp, FileTags]]:
        if self._entries is not None:
            return self._entries
        self._entries = {}
        data = read_json_object(self.path) or {}
        files = data.get("files") if data.get("version") == self._version else None
        for name, entry in (files if isinstance(files, dict) else {}).items():
            try:
                mtime, size = entry[0]
                tags = FileTags.from_json(entry[1])
            except (TypeError, ValueError, IndexError, KeyError):
                continue
            if tags is not None:
                self._entries[str(name)] = ((int(mtime), int(size)), tags)
        return self._entries


def _prune(folder: Path) -> None:
    """Keep the most recently written cache files only (projects not opened for long go)."""
    found = []
    for path in folder.glob("*.json"):
        try:
            found.append((path.stat().st_mtime, path))
        except OSError:
            continue
    for _, path in sorted(found, reverse=True)[KEEP_WORKSPACES:]:
        path.unlink(missing_ok=True)
