"""The doubts beecode may say beside any model's answer: only what the facts make certain
without reading the answer's words, in any language.

A citation `path:line` (or `path:line-line`, `path#Lline`) is a reference to code that exists,
in every language a model answers in. It is doubted where:
- the file is in the workspace (by its path, or as the last parts of a path there), but has
  fewer lines than the citation names, both now and at the turn's checkpoint;
- no file of that path is anywhere: not in the workspace, not at the checkpoint, not deleted
  by the turn, and the path is nowhere in the conversation or the turn's results, while its
  folder is in the workspace (a bare file name may be a library's: not doubted).
A citation found in the task, the conversation or a result is a quote, never doubted.
Measured on a corpus of true and false answers (``benchmarks/answer_corpus.py``): a check here
must keep zero false doubts there, or it goes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from agent.facts import TurnFacts

# a path with a file name that has an extension, then :N or #LN (N the line; :N:M a column)
_CITE = re.compile(
    r"(?<![\w./@:-])((?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,7})(?::|#L)(\d+)(?!\w|\.\d)"
)
MAX_FILES = 5_000  # the files looked through for a path's last parts; past it, no doubt
_SKIPPED_DIRS = {"node_modules", "__pycache__", "venv", ".venv"}


def cited_doubts(
    answer: str,
    facts: TurnFacts,
    workspace: Path,
    said: str,
    earlier: Callable[[str], str | None],
) -> list[str]:
    """The doubts about the answer's citations. ``said``: the conversation and the turn's
    results, where a citation is a quote; ``earlier``: a file's text at the turn's checkpoint."""
    found: list[str] = []
    root = workspace.resolve()
    for path, number in dict.fromkeys(_CITE.findall(answer)):
        line = int(number)
        if line < 1 or f"{path}:{number}" in said or f"{path}#L{number}" in said:
            continue
        files = files_ending(root, path)
        before = earlier(path)
        if files is None:
            continue  # too many files to look through: no doubt
        if files or before is not None:
            counts = [_line_count(f) for f in files]
            if None in counts:
                continue  # not text
            most = max([c for c in counts if c is not None] + [_text_lines(before)])
            if line > most:
                found.append(f"the answer cites {path}:{line}; it has {most} lines")
            continue
        folder = (root / path).parent
        inside = folder.resolve().is_relative_to(root)
        if "/" in path and inside and folder.is_dir() and not _mentioned(path, facts, said):
            found.append(f"the answer cites {path}:{line}; no such file is in the workspace")
    return found


def _mentioned(path: str, facts: TurnFacts, said: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return name in said or any(path.endswith(f) or f.endswith(path) for f in facts.deleted)


def files_ending(root: Path, path: str) -> list[Path] | None:
    """The workspace's files at ``path``, else those whose path ends with it (a file's name:
    that file anywhere); None where the workspace has too many files to look through."""
    exact = (root / path).resolve()
    if exact.is_file() and exact.is_relative_to(root):
        return [exact]
    tail, seen, found = "/" + path.lstrip("./"), 0, []
    for top, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS]
        for name in files:
            full = os.path.join(top, name)
            if full.endswith(tail):
                found.append(Path(full))
        seen += len(files)
        if seen > MAX_FILES:
            return None
    return found


def _line_count(path: Path) -> int | None:
    """Lines of a text file; None where it is not one (or too large to count here)."""
    try:
        if not path.is_file() or path.stat().st_size > 20_000_000:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    return None if b"\0" in data[:8192] else _text_lines(data.decode(errors="replace"))


def _text_lines(text: str | None) -> int:
    return 0 if text is None else text.count("\n") + (0 if text.endswith("\n") or not text else 1)
