"""The answer corpus's case type and the shorthands its files use to write tool calls.

A case is one real turn: the workspace's start files, the model's native tool calls (each step a
list of the calls made in one reply, with beecode's real tool names and argument schemas) and
the closing answer, labelled true when every factual statement in it holds for what the turn
did and what the files hold. ``benchmarks/answer_corpus.py`` runs each case through the real
agent loop and records the doubts beecode shows beside the answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ToolCall = tuple[str, dict[str, Any]]
Step = list[ToolCall]


@dataclass(frozen=True)
class Case:
    name: str
    kind: str
    task: str
    files: dict[str, str]
    steps: list[Step]
    answer: str
    true: bool
    why: str = ""  # what is false in a false answer
    # How the turn is meant to go, checked by the harness (a mismatch is a corpus bug): how many
    # tool calls fail (an error result or a command's non-zero exit), and whether the turn ends
    # with a failed step it did not recover.
    fails: int = 0
    unrecovered: bool = False


def sh(command: str) -> ToolCall:
    return ("bash", {"command": command})


def rd(path: str, offset: int | None = None, limit: int | None = None) -> ToolCall:
    args: dict[str, Any] = {"path": path}
    if offset is not None:
        args["offset"] = offset
    if limit is not None:
        args["limit"] = limit
    return ("read", args)


def wr(path: str, content: str) -> ToolCall:
    return ("write", {"path": path, "content": content})


def ed(path: str, old: str, new: str, replace_all: bool = False) -> ToolCall:
    args: dict[str, Any] = {"path": path, "old": old, "new": new}
    if replace_all:
        args["replace_all"] = True
    return ("edit", args)


def gr(pattern: str, path: str | None = None, glob: str | None = None) -> ToolCall:
    args: dict[str, Any] = {"pattern": pattern}
    if path is not None:
        args["path"] = path
    if glob is not None:
        args["glob"] = glob
    return ("grep", args)


def gl(pattern: str) -> ToolCall:
    return ("glob", {"pattern": pattern})


def ls(path: str = ".") -> ToolCall:
    return ("ls", {"path": path})


def git(action: str, **arguments: Any) -> ToolCall:
    return ("git", {"action": action, **arguments})
