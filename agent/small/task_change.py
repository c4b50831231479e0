"""Whether a task that asks for a change has changed anything yet.

Told to rename foo to bar in utils.py, the 0.5B model ran utils.py, saw it exit 0, chose done and
said "renamed". A command that exits 0 may have finished a task that asks to run something; a
task that asks for a change is not finished before something changed: a write or edit that
worked, a file the task names, the workspace's top-level entries or their times (a folder made
or written in), a file's mode, the repository's last commit. Nor is a change the end of a task
that asks a question about it after (``asks_after_change``): a step that finds the answer is.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from agent.model.reply import Call
from agent.small.habits import FILE_TOOLS
from agent.small.task_words import TASK_FILE, is_question
from tools.registry import ToolRegistry

CHANGE_VERBS = frozenset(
    "add append change chmod commit copy create delete edit fix implement insert make mkdir "
    "modify move put refactor remove rename replace rewrite save set touch update write".split()
)
NOT_DONE_NOTE = "\n[No file has changed yet, and the task asks for a change.]"
_SKIPPED = {".git", "__pycache__", ".beecode"}  # a run or a git status touches these
HASHED_BYTES = 1_000_000  # a larger file counts by its size and time


def asks_change(task: str) -> bool:
    words = set(re.findall(r"[a-z]+", task.lower()))
    return not is_question(task) and bool(words & CHANGE_VERBS)


# "append fourth to notes.txt and then tell me how many lines it has": a question after the
# change, which the change's own result does not answer.
_ASKED_AFTER = re.compile(
    r"\bthen (?:tell me|say|report|show me)\b|\band (?:tell me|say) (?:how|what|which|if)\b", re.I
)


def asks_after_change(task: str) -> bool:
    """Whether the task asks a question about what its change made (the 0.5B model appended
    the line, chose done, and said only that the command worked)."""
    return asks_change(task) and bool(_ASKED_AFTER.search(task))


class AskedAfter:
    """Whether the latest step changed the workspace of a task that asks a question about its
    change: then the next step is one that finds the answer, not the done-or-continue choice.
    A command list may answer it too (`echo fourth >> notes.txt && wc -l notes.txt`)."""

    def __init__(self, task: str, workspace: Path) -> None:
        self.task, self.workspace = task, workspace
        self._state = workspace_state(task, workspace) if asks_after_change(task) else None

    def waits(self, call: Call) -> bool:
        if self._state is None:
            return False
        now, was = workspace_state(self.task, self.workspace), self._state
        self._state, command = now, str((call.arguments or {}).get("command", ""))
        return now != was and not re.search(r"&&|;|\|", command)

    def named_file(self) -> str | None:
        """The first file the task names that exists: the read that shows what the question
        asks of it ("how many lines it has")."""
        named = TASK_FILE.findall(self.task)
        return next((f for f in named if (self.workspace / f).is_file()), None)


def refused_by_mode(task: str, mode: str, registry: ToolRegistry) -> set[str]:
    """Tools the permission mode refuses whatever their arguments: plan mode runs reads only, and
    a small model offered a write there tries it again and again. A question changes no file:
    asked for the third line of notes.txt, the 0.5B model edited it."""
    if mode == "plan":
        return {n for n in registry.names() if (t := registry.get(n)) and t.kind({}) != "read"}
    return set(FILE_TOOLS) if is_question(task) else set()


def workspace_state(task: str, workspace: Path) -> tuple[object, ...]:
    """What a change the task asks for would alter: the files it names, the top-level entries
    with their times and modes, the last commit."""
    root = workspace.resolve()
    named = [_file_state(root / name) for name in sorted(set(TASK_FILE.findall(task)))]
    try:
        names = sorted(name for name in os.listdir(root) if name not in _SKIPPED)
    except OSError:
        names = []
    top = [(name, _stat(root / name)) for name in names]
    return (named, top, _head(root))


def _file_state(path: Path) -> tuple[object, ...]:
    try:
        st = path.stat()
        if not path.is_file() or st.st_size > HASHED_BYTES:
            return (st.st_mode, st.st_size, st.st_mtime_ns)
        return (st.st_mode, hashlib.sha256(path.read_bytes()).hexdigest())
    except OSError:
        return ()


def _stat(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mode, st.st_size, st.st_mtime_ns)


def _head(root: Path) -> str:
    """The commit HEAD names, read from .git without running git (a small model's step is
    seconds; this is microseconds)."""
    git = root / ".git"
    try:
        head = (git / "HEAD").read_text().strip()
        if head.startswith("ref: "):
            ref = git / head[5:]
            return ref.read_text().strip() if ref.is_file() else head
        return head
    except OSError:
        return ""
