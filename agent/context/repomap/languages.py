"""The languages the repository map reads: each grammar's own wheel and its own tags query.

Each grammar is the tree-sitter organisation's PyPI wheel (tree-sitter-python, -javascript,
-typescript, -go, -rust, -java, -c, -cpp), which ships the compiled grammar and the grammar
project's ``queries/tags.scm`` (MIT, as the grammar). No query is written here: a tags query's
``@definition.*`` captures are the definitions. References are every identifier-like leaf the
grammar has (``identifier``, ``type_identifier``...), as Aider falls back to every name token
where a tags query has no references (C and C++'s have none). TypeScript's tags query adds to
JavaScript's, as the tree-sitter CLI reads them together.

tree-sitter-language-pack was the first choice, but since 1.0 it fetches each grammar from
GitHub on first use, which an offline machine cannot do; the 0.x line that bundled them is
no longer kept.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass

from tree_sitter import Language, Parser, Query

# extension -> (language, grammar module, function returning the language pointer)
_GRAMMARS: dict[str, tuple[str, str, str]] = {
    ".py": ("python", "tree_sitter_python", "language"),
    ".pyi": ("python", "tree_sitter_python", "language"),
    ".js": ("javascript", "tree_sitter_javascript", "language"),
    ".jsx": ("javascript", "tree_sitter_javascript", "language"),
    ".mjs": ("javascript", "tree_sitter_javascript", "language"),
    ".cjs": ("javascript", "tree_sitter_javascript", "language"),
    ".ts": ("typescript", "tree_sitter_typescript", "language_typescript"),
    ".mts": ("typescript", "tree_sitter_typescript", "language_typescript"),
    ".cts": ("typescript", "tree_sitter_typescript", "language_typescript"),
    ".tsx": ("tsx", "tree_sitter_typescript", "language_tsx"),
    ".go": ("go", "tree_sitter_go", "language"),
    ".rs": ("rust", "tree_sitter_rust", "language"),
    ".java": ("java", "tree_sitter_java", "language"),
    ".c": ("c", "tree_sitter_c", "language"),
    ".h": ("cpp", "tree_sitter_cpp", "language"),  # C++ parses C headers too; C's misses classes
    ".cc": ("cpp", "tree_sitter_cpp", "language"),
    ".cpp": ("cpp", "tree_sitter_cpp", "language"),
    ".cxx": ("cpp", "tree_sitter_cpp", "language"),
    ".hh": ("cpp", "tree_sitter_cpp", "language"),
    ".hpp": ("cpp", "tree_sitter_cpp", "language"),
    ".hxx": ("cpp", "tree_sitter_cpp", "language"),
}
_EXTRA_TAGS = {"typescript": "tree_sitter_javascript", "tsx": "tree_sitter_javascript"}
_NAME_KINDS = (
    "identifier",
    "type_identifier",
    "field_identifier",
    "property_identifier",
    "shorthand_property_identifier",
    "namespace_identifier",
    "package_identifier",
    "constant",
)


@dataclass(frozen=True)
class Grammar:
    name: str
    parser: Parser
    tags: Query  # the grammar's own tags query
    names: Query  # every identifier-like leaf: the references


def language_of(path: str) -> str | None:
    """The language a file's extension names, or None when the map does not read it."""
    dot = path.rfind(".")
    known = _GRAMMARS.get(path[dot:].lower()) if dot >= 0 else None
    return known[0] if known else None


def extensions() -> frozenset[str]:
    return frozenset(_GRAMMARS)


@functools.cache
def grammar(name: str) -> Grammar | None:
    """The parser and queries of language ``name``; None when its wheel cannot be loaded."""
    module_name, function = next((m, f) for n, m, f in _GRAMMARS.values() if n == name)
    try:
        module = importlib.import_module(module_name)
        language = Language(getattr(module, function)())
        source = module.TAGS_QUERY
        if name in _EXTRA_TAGS:
            source += "\n" + importlib.import_module(_EXTRA_TAGS[name]).TAGS_QUERY
        kinds = [k for k in _NAME_KINDS if language.id_for_node_kind(k, True)]
        names = Query(language, "[" + " ".join(f"({k})" for k in kinds) + "] @name")
        return Grammar(name, Parser(language), Query(language, source), names)
    except Exception:  # a missing or broken wheel: that language is left out of the map
        return None


def queries_version() -> str:
    """What the cached tags depend on besides the file: the grammars' wheels' versions."""
    from importlib.metadata import PackageNotFoundError, version

    parts = []
    for module in sorted({m for _, m, _ in _GRAMMARS.values()} | {"tree_sitter"}):
        try:
            parts.append(f"{module}={version(module.replace('_', '-'))}")
        except PackageNotFoundError:
            parts.append(f"{module}=?")
    return ",".join(parts)
