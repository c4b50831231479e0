"""The map as text, cut to a token budget.

The best-ranked definitions are shown under their files' paths, files in path order and lines in
file order (so a change of rank that keeps the same definitions in gives the same text), each
with the lines of the definitions around it (a method under its class); ``⋮`` marks the lines
left out. After every ranked definition come the other files' bare paths, best-ranked first. The
most entries that fit the budget are found by halving, as Aider does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agent.context.repomap.tags import Definition, FileTags

HEADER = "# Repository map\nWhere this project's most used names are defined (⋮: lines left out).\n"
ELIDED = "⋮"
Count = Callable[[str], int]  # tokens in a text


@dataclass(frozen=True)
class Entry:
    path: str
    name: str | None  # None: the file's bare path


def entries(
    ranked: list[tuple[str, str]], ranks: dict[str, float], tags: dict[str, FileTags]
) -> list[Entry]:
    """Ranked definitions first, then the files none of them is in, best-ranked first."""
    shown = [Entry(path, name) for path, name in ranked]
    placed = {path for path, _ in ranked}
    rest = sorted((p for p in tags if p not in placed), key=lambda p: (-ranks.get(p, 0.0), p))
    return shown + [Entry(path, None) for path in rest]


def render(chosen: list[Entry], tags: dict[str, FileTags]) -> str:
    """The map of ``chosen`` entries ("" when there are none)."""
    names: dict[str, set[str]] = {}
    for entry in chosen:
        wanted = names.setdefault(entry.path, set())
        if entry.name is not None:
            wanted.add(entry.name)
    if not names:
        return ""
    blocks = []
    for path in sorted(names):
        definitions = tags[path].definitions
        picked = [d for d in definitions if d.name in names[path]]
        lines = _with_parents(picked, definitions)
        if not lines:
            blocks.append(path)
            continue
        body, last = [f"{path}:"], -1
        for line, text in lines:
            if line != last + 1:
                body.append(ELIDED)
            body.append(text)
            last = line
        blocks.append("\n".join([*body, ELIDED]))
    return HEADER + "\n".join(blocks) + "\n"


def fit(all_entries: list[Entry], tags: dict[str, FileTags], budget: int, count: Count) -> str:
    """The map of the most entries whose text takes at most ``budget`` tokens."""
    if budget <= 0 or not all_entries:
        return ""
    whole = render(all_entries, tags)
    if count(whole) <= budget:
        return whole
    best, low, high = "", 1, len(all_entries) - 1
    while low <= high:
        middle = (low + high) // 2
        text = render(all_entries[:middle], tags)
        if count(text) <= budget:
            best, low = text, middle + 1
        else:
            high = middle - 1
    return best


def _with_parents(picked: list[Definition], every: list[Definition]) -> list[tuple[int, str]]:
    """(line, text) of the picked definitions and of those whose lines hold them, by line."""
    lines: dict[int, str] = {}
    for definition in picked:
        lines[definition.line] = definition.text
        for outer in every:
            if outer.line < definition.line and definition.end <= outer.end:
                lines.setdefault(outer.line, outer.text)
    return sorted(lines.items())
