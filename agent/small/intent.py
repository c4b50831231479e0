"""A small model's task, read once per turn into one typed intent, in no language's words.

What the rules of ``agent.small`` may know of the user's task is only what reads the same in
every language: the file names it holds (and which of them the workspace has), the texts it
quotes, and whether it ends with a question mark. No verb, no ordinal, no phrase: a rule keyed
to wording would fire on one phrasing and miss a paraphrase or a German task.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

# index.md, out/log.txt, test_calc.py (an extension starts with a letter: not 3.14 or v1.2)
FILE_NAME = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,7})\b")
# 'text', "text", `text`, «text», „text“, “text”; not an apostrophe inside a word (don't)
_QUOTED = re.compile(
    r"""(?<!\w)'([^'\n]+)'(?!\w)|"([^"\n]+)"|`([^`\n]+)`|«\s*([^»\n]+?)\s*»|„([^“”\n]+)[“”]"""
    r"""|“([^”\n]+)”"""
)
# the text after the task's last colon, where it ends the task: "containing exactly: Hello"
_AFTER_COLON = re.compile(r":\s+([^:\n]+?)\s*$")


@dataclass(frozen=True)
class Intent:
    task: str
    files: tuple[str, ...] = ()  # the file names the task holds, in order
    existing: tuple[str, ...] = ()  # those the workspace has as the turn begins
    texts: tuple[str, ...] = ()  # quoted texts
    said: str = ""  # the text after a last colon that ends the task ("containing: Hello")
    question: bool = False  # the task ends with a question mark

    @property
    def new(self) -> tuple[str, ...]:
        """The files the task names that the workspace lacks: the ones it makes."""
        return tuple(f for f in self.files if f not in self.existing)


def read_intent(task: str, workspace: Path) -> Intent:
    root = workspace.resolve()
    files = tuple(dict.fromkeys(f.removeprefix("./") for f in FILE_NAME.findall(task)))
    existing = tuple(f for f in files if _inside(root, f) and (root / f).is_file())
    texts = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(task)]
    texts = [t for t in texts if t.strip() and t not in files]
    colon = _AFTER_COLON.search(task.strip())
    said = colon.group(1).strip() if colon and not texts else ""
    question = task.strip().endswith("?")
    return Intent(task, files, existing, tuple(texts), said, question)


def _inside(root: Path, name: str) -> bool:
    try:
        return (root / name).resolve().is_relative_to(root)
    except (OSError, ValueError):
        return False
