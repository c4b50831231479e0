"""Habits held against the words of the turn: the user's task and beecode's own notes.

A small model copies the nearest text, whatever it is. Told "[a.txt does not exist yet; write
creates it.]", the 0.5B model wrote a.txt holding "write creates it."; told to append a line, it
echoed the task itself (`echo 'append fourth to notes.txt and then ...'`) or replaced the last
line with the new one. Each check here reads a call against those words:
- content that is beecode's note or refusal is refused every time (no file is meant to hold it),
  with the text the task names for the file when it names one;
- a command or content holding the task's opening words is refused every time (an instruction
  echoed is no step toward it);
- in a task that says append, an edit replacing a whole line with another is asked once, with
  the command that appends;
- a write of the text the task names for the file, in other letter case, is asked once.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from agent.model.reply import Call
from agent.steps.habits import FILE_TOOLS, ReadLedger
from tools.files import small_text

COPIED_WORDS = 5  # a run this long of beecode's words in a file's content is no coincidence
ECHOED_WORDS = 6  # the task's opening words, this many, in a call: the task echoed
APPEND = re.compile(r"\bappend|\bto the end\b|\badd (?:a |the )?(?:new )?line\b", re.I)
# "a.txt containing 1", "notes.txt with the text: buy milk", "out/log.txt in it saying empty"
_AFTER_NAME = r"(?:\s+in it)?\s+(?:containing|saying|with (?:the )?(?:text|content)s?:?)\s+"
_QUOTED = r"""(?:'([^']*)'|"([^"]*)"|([^,;'"]+?))(?=\s*(?:,|;|$|\bthen\b|\band\b))"""


def words_refusal(call: Call, ledger: ReadLedger, said: list[str]) -> str | None:
    """Why this call, made of the turn's words rather than its work, is refused or asked about;
    ``said`` is what beecode told the model this turn."""
    task, args = ledger.task, call.arguments or {}
    content = args.get("content", args.get("new"))
    if call.name in FILE_TOOLS and isinstance(content, str) and copied_note(content, said, task):
        asked = asked_text(task, str(args.get("path", "")))
        wanted = f"the task asks for {asked!r}; write that" if asked else "write what the task asks"
        return f"this content is beecode's note to you, not text for the file: {wanted}"
    if echoed_task(call, task):
        return "this repeats the task's words: take the task's first step instead"
    asked = replaced_line(call, task, ledger.workspace) or other_case(call, task)
    return asked if asked and ledger.asked_once(call) else None


def _flat(text: str) -> str:
    return " ".join(text.lower().split())


def asked_text(task: str, path: str) -> str | None:
    """The text the task says the file is to hold, or None: a value a model can copy."""
    name = re.escape(Path(path).name)
    after = re.search(rf"(?<![\w.]){name}{_AFTER_NAME}{_QUOTED}", task, re.I)
    before = re.search(rf"'([^']*)'\s+(?:into|in|to) (?:a )?(?:new )?(?:file )?{name}\b", task)
    found = after or before
    if found is None:
        return None
    text = next(g for g in found.groups() if g is not None).strip()
    return text or None


def copied_note(content: str, said: list[str], task: str) -> bool:
    """Whether the content is beecode's words to the model: within a note or a refusal of this
    turn, or holding a long run of one. The task's own words (a note may quote them) are not."""
    flat, heard = _flat(content.strip(" .[]\n")), [_flat(s) for s in said if s.strip()]
    if flat in _flat(task):
        return False
    if len(flat.split()) >= 2 and any(flat in h for h in heard):
        return True
    words = flat.split()
    runs = (" ".join(words[at : at + COPIED_WORDS]) for at in range(len(words) - COPIED_WORDS + 1))
    return any(run in h for run in runs for h in heard)


def echoed_task(call: Call, task: str) -> bool:
    """Whether a value of the call holds the task's opening words."""
    words = _flat(task).split()
    if len(words) <= ECHOED_WORDS:
        return False
    opening = " ".join(words[:ECHOED_WORDS])
    values = (call.arguments or {}).values()
    return any(isinstance(v, str) and opening in _flat(v) for v in values)


def replaced_line(call: Call, task: str, workspace: Path) -> str | None:
    """How to append instead, when the task says append and this edit replaces a whole line of
    the file with a line that does not keep it; else None."""
    args = call.arguments or {}
    old, new, path = args.get("old"), args.get("new"), args.get("path")
    if call.name != "edit" or not APPEND.search(task):
        return None
    if not (isinstance(old, str) and isinstance(new, str) and isinstance(path, str)):
        return None
    text = small_text(workspace / path, 64_000) or ""
    if not old.strip() or old in new or old.strip() not in (s.strip() for s in text.splitlines()):
        return None
    if text.endswith("\n"):
        how = f"run in bash: echo {shlex.quote(new.strip())} >> {shlex.quote(path)}"
    else:
        how = f"edit with old {old!r} and new {old + chr(10) + new!r}"
    return (
        f"this edit replaces {old.strip()!r} in {path}. To append {new.strip()!r} as a new last "
        f"line, {how}. To replace it, send the same edit again"
    )


def other_case(call: Call, task: str) -> str | None:
    """Why a write of the task's text for the file in other letter case is asked, or None."""
    args = call.arguments or {}
    content, path = args.get("content"), args.get("path")
    if call.name != "write" or not isinstance(content, str) or not isinstance(path, str):
        return None
    asked = asked_text(task, path)
    if asked is None or content.strip() == asked or content.strip().lower() != asked.lower():
        return None
    return (
        f"the task asks for {path} to hold {asked!r}, and this content is {content.strip()!r}. "
        "Write it as the task says, or send the same write again"
    )
