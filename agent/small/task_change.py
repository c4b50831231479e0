"""Whether a task that asks for a change has changed anything yet.

Told to fix calc.py, the 0.5B model ran calc.py, saw it exit 0, chose done and said "fixed". A
command that exits 0 may have finished a task that asks to run something; a task that asks for
a change is not finished before something changed: a write or edit that worked, a file the task
names, the workspace's top-level entries or their times (a folder made or written in), a file's
mode, the repository's last commit. A task asks for a change where its intent says so in no
language's words: it names a file the workspace lacks, or quotes a text or gives a number none
of the files it names holds; never a task that ends with a question mark.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from agent.small.intent import Intent
from tools.files import workspace_text

NOT_DONE_NOTE = "\n[No file has changed yet, and the task asks for a change.]"
_SKIPPED = {".git", "__pycache__", ".beecode"}  # a run or a git status touches these
HASHED_BYTES = 1_000_000  # a larger file counts by its size and time
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")


def asks_change(intent: Intent, workspace: Path) -> bool:
    if intent.question or not intent.files:
        return False
    if intent.new:
        return True
    held = " ".join(workspace_text(workspace, f) or "" for f in intent.existing)
    wanted = [*intent.texts, *_NUMBER.findall(intent.task), *filter(None, [intent.said])]
    return any(value not in held for value in wanted)


def workspace_state(intent: Intent, workspace: Path) -> tuple[object, ...]:
    """What a change the task asks for would alter: the files it names, the top-level entries
    with their times and modes, the last commit."""
    root = workspace.resolve()
    named = [_file_state(root / name) for name in sorted(intent.files)]
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
