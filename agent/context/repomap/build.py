"""Building the map: list, read (or take from the cache), rank, render; only when needed."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path

from agent.context.repomap.cache import TagsCache
from agent.context.repomap.files import read_source, source_files, stamp
from agent.context.repomap.languages import language_of
from agent.context.repomap.rank import ranked_definitions
from agent.context.repomap.render import Count, entries, fit
from agent.context.repomap.tags import FileTags, file_tags

BUILD_S = 20.0  # files not read by then wait for the next build (the cache keeps what was read)


@dataclass(frozen=True)
class MapBuild:
    """What one build did (for /context and the benchmark)."""

    text: str
    files: int  # source files listed
    parsed: int  # of them read and parsed now (the rest came from the cache, or waited)
    seconds: float
    complete: bool  # every listed file was read or cached within BUILD_S


class RepoMap:
    def __init__(
        self,
        workspace: Path,
        budget: int,
        count: Count,
        *,
        cache_folder: Path | None = None,
        build_s: float = BUILD_S,
    ) -> None:
        """``budget``: the most tokens the map may take (0 or less: no map). ``count``: the
        session's token count of a text."""
        self.root = workspace.resolve()
        self.budget, self._count, self._build_s = budget, count, build_s
        self._cache = TagsCache(self.root, cache_folder)
        self._key = ""
        self.last: MapBuild | None = None

    @property
    def text(self) -> str:
        return self.last.text if self.last else ""

    def current(self, focus: AbstractSet[str] = frozenset()) -> str:
        """The map for ``focus`` (workspace-relative paths), rebuilt only when its input
        changed since the last call, or the last build ran out of time."""
        if self.budget <= 0:
            return ""
        names = source_files(self.root)
        stamps = {n: s for n in names if (s := stamp(self.root, n)) is not None}
        focused = sorted(focus & stamps.keys())
        key = _digest(stamps, focused, self.budget)
        if key != self._key or (self.last is not None and not self.last.complete):
            self.last = self._build(stamps, set(focused))
            self._key = key
        return self.last.text if self.last else ""

    def _build(self, stamps: dict[str, tuple[int, int]], focus: set[str]) -> MapBuild:
        started = time.monotonic()
        tags: dict[str, FileTags] = {}
        parsed, complete = 0, True
        for name in sorted(stamps, key=lambda n: (n not in focus, n)):  # the focus first
            found = self._cache.get(name, stamps[name])
            if found is None:
                if time.monotonic() - started > self._build_s:
                    complete = False
                    continue
                source = read_source(self.root, name)
                language = language_of(name)
                found = file_tags(language, source) if source and language else FileTags()
                self._cache.put(name, stamps[name], found)
                parsed += 1
            tags[name] = found
        self._cache.keep_only(set(stamps))
        self._cache.save()
        ranked, ranks = ranked_definitions(tags, focus)
        text = fit(entries(ranked, ranks, tags), tags, self.budget, self._count)
        return MapBuild(text, len(stamps), parsed, time.monotonic() - started, complete)


def _digest(stamps: dict[str, tuple[int, int]], focus: list[str], budget: int) -> str:
    digest = hashlib.sha256(f"{budget}\n".encode())
    for name in sorted(stamps):
        digest.update(f"{name}\0{stamps[name][0]}\0{stamps[name][1]}\n".encode("utf-8", "replace"))
    digest.update("\0".join(focus).encode("utf-8", "replace"))
    return digest.hexdigest()
