"""One file's definitions and references, from its grammar's tags query (``languages``).

A definition keeps its name, its first and last line, and its first line's text (what the map
shows); references are counted per name. A file tree-sitter cannot parse cleanly still gives
what it parsed (tree-sitter recovers from errors); a grammar that fails gives nothing.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from tree_sitter import QueryCursor

from agent.context.repomap.languages import grammar

MAX_LINE_CHARS = 100  # a definition's line is cut to this in the map


@dataclass(frozen=True)
class Definition:
    name: str
    line: int  # 0-based first line of the definition
    end: int  # its last line: a definition inside another's lines is shown under it
    text: str  # the first line, right-stripped and cut


@dataclass
class FileTags:
    definitions: list[Definition] = field(default_factory=list)
    references: dict[str, int] = field(default_factory=dict)  # name -> how often

    def to_json(self) -> dict[str, object]:
        defs = [[d.name, d.line, d.end, d.text] for d in self.definitions]
        return {"defs": defs, "refs": self.references}

    @staticmethod
    def from_json(data: object) -> FileTags | None:
        """The tags a cache entry holds; None when it is not of this shape."""
        try:
            assert isinstance(data, dict)
            defs = [Definition(str(n), int(a), int(b), str(t)) for n, a, b, t in data["defs"]]
            refs = {str(k): int(v) for k, v in dict(data["refs"]).items()}
        except (AssertionError, KeyError, TypeError, ValueError):
            return None
        return FileTags(defs, refs)


def file_tags(language: str, source: bytes) -> FileTags:
    """The definitions and references in ``source``, a file of ``language``."""
    found = grammar(language)
    if found is None:
        return FileTags()
    try:
        tree = found.parser.parse(source)
        matches = QueryCursor(found.tags).matches(tree.root_node)
        names = QueryCursor(found.names).captures(tree.root_node).get("name", [])
    except Exception:  # the grammar gave up on this file: no tags rather than no map
        return FileTags()
    lines = source.split(b"\n")
    definitions: dict[tuple[str, int], Definition] = {}
    defined_at: set[int] = set()
    for _, captures in matches:
        kind = next((k for k in captures if k.startswith("definition.")), None)
        name_nodes = captures.get("name", [])
        if kind is None or not name_nodes or not captures[kind]:
            continue
        node, name_node = captures[kind][0], name_nodes[0]
        name = (name_node.text or b"").decode("utf-8", "replace")
        line = node.start_point.row
        if not name or (name, line) in definitions:
            continue
        text = lines[line].decode("utf-8", "replace").rstrip() if line < len(lines) else ""
        definitions[(name, line)] = Definition(name, line, node.end_point.row, _cut(text))
        defined_at.add(name_node.start_byte)
    references = Counter(
        (n.text or b"").decode("utf-8", "replace") for n in names if n.start_byte not in defined_at
    )
    references.pop("", None)
    ordered = sorted(definitions.values(), key=lambda d: (d.line, d.name))
    return FileTags(ordered, dict(sorted(references.items())))


def _cut(text: str) -> str:
    text = text.expandtabs(4)
    return text if len(text) <= MAX_LINE_CHARS else text[: MAX_LINE_CHARS - 1] + "…"
