"""Habits held against the words of the turn: the user's task and beecode's own notes.

A small model copies the nearest text, whatever it is. Told "[a.txt does not exist yet; write
creates it.]", the 0.5B model wrote a.txt holding "write creates it."; told to append a line, it
echoed the task itself (`echo 'append fourth to notes.txt and then ...'`) or replaced the last
line with the new one. Each check here reads a call against those words:
- content that is beecode's note or refusal is refused every time (no file is meant to hold it),
  with the text the task names for the file when it names one;
- a command or content holding the task's opening words is refused every time (an instruction
  echoed is no step toward it);
- in a task that says append, an edit replacing a whole line with another is refused every
  time, with the command that appends (asked once, the model sent the same edit again);
- an edit whose old is the reply format's worked example, not text of the file, is refused;
- a write of the text the task names for the file, in other letter case, is refused every
  time (asked once, the model sent the same write again);
- a write of the text the task names with more after it is asked about once;
- an echo of another line onto the file the task appends a line to is refused, with the command;
- in a task that only adds, an edit that takes text out of the file is refused, with the edit
  that keeps the text and adds the new.
The refusals give the step to send where the task names the file's text.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from agent.model.reply import Call
from agent.small.schema import STEP_GUIDE, step_text
from tools.files import workspace_text

if TYPE_CHECKING:  # the habits ask here for the text a task names
    from agent.small.habits import SmallLedger

TASK_FILE = re.compile(r"[\w./-]*\w\.[A-Za-z]\w{0,5}\b")  # index.md, out/log.txt
COPIED_WORDS = 5  # a run this long of beecode's words in a file's content is no coincidence
ECHOED_WORDS = 6  # the task's opening words, this many, in a call: the task echoed
APPEND = re.compile(r"\bappend|\bto the end\b|\badd (?:a |the )?(?:new )?line\b", re.I)
# "a.txt containing 1", "notes.txt with the text: buy milk", "out/log.txt in it saying empty"
_AFTER_NAME = (
    r"(?:\s+in it)?\s+(?:containing|saying|with (?:the )?(?:text|content)s?)(?:\s+exactly)?"
)
# "append fourth to notes.txt", "append the line 'done' to the end of log.txt"
_APPENDED = re.compile(
    r"""\bappend (?:the (?:line|word|text) )?(?:'([^']+)'|"([^"]+)"|(\S+)) to (?:the end of )?"""
    r"([\w./-]*\w\.\w+)\b",
    re.I,
)
_ADDS = re.compile(r"\badd\b", re.I)
_TAKES_OUT = re.compile(r"\b(?:remove|delete|replace|rename|change|fix|rewrite|swap|move)\b", re.I)
_ASKING = {"what", "which", "who", "whose", "where", "when", "why", "how", "is", "are", "was"}
_ASKING |= {"were", "does", "do", "did", "has", "have"}
_QUOTE = re.compile(r"""(?<!\w)'[^'\n]*'(?!\w)|(?<!\w)"[^"\n]*"(?!\w)""")  # 'x', not task's
_STEP = re.compile(r'\{"name": "\w+", "arguments": \{.*?\}\}', re.S)  # a step to copy
_QUOTED = r"""(?:'([^']*)'|"([^"]*)"|([^,;'"]+?))(?=\s*(?:,|;|$|\bthen\b|\band\b))"""


def words_refusal(call: Call, ledger: SmallLedger, said: list[str]) -> str | None:
    """Why this call, made of the turn's words rather than its work, is refused or asked about;
    ``said`` is what beecode told the model this turn."""
    task, args = ledger.task, call.arguments or {}
    content = args.get("content", args.get("new"))
    if call.name in ("write", "edit") and isinstance(content, str):
        if copied_note(content, said, task):
            path = str(args.get("path", ""))
            asked = asked_text(task, path)
            wanted = (
                f"the task asks for: {write_call(path, asked)}" if asked else "write what it asks"
            )
            return f"this content is beecode's note to you, not text for the file; {wanted}"
    command = args.get("command")
    if call.name == "bash" and isinstance(command, str):
        echoed = re.match(r"\s*(?:echo|printf)\s+(.*)", command, re.S)
        suggested = any(_flat(command) in _flat(s) for s in said)  # "run in bash: echo ..."
        if echoed and not suggested and copied_note(echoed.group(1), said, task):
            return "this echoes beecode's note to you: take the task's next step instead"
    if echoed_task(call, task):
        line = appended_line(task)
        first = run_in_bash(append_command(*line), ledger) if line else "take the task's first step"
        return f"this repeats the task's words: {first} instead"
    if example := _example_edit(call, ledger.workspace):
        return example
    if appended := replaced_line(call, ledger):
        return appended
    return (
        other_case(call, task)
        or padded_text(call, task, ledger)
        or other_line(call, ledger)
        or dropped_text(call, task, ledger)
    )


def write_call(path: str, text: str) -> str:
    """The write step that puts ``text`` in ``path``, for a small model to copy (it copies a
    whole step far better than it follows a description of one)."""
    arguments = {"path": path, "content": text + "\n"}
    return step_text("write", arguments)


def missing_note(missing: str, task: str) -> str:
    """The note after a command failed on a file the workspace lacks."""
    asked = asked_text(task, missing)
    made = f"the task asks for: {write_call(missing, asked)}" if asked else "write creates it"
    return f"\n[{missing} does not exist yet; {made}.]"


def _example_edit(call: Call, workspace: Path) -> str | None:
    """Why an edit whose old is the worked example's and not in the file is refused, or None."""
    old, path = (call.arguments or {}).get("old"), (call.arguments or {}).get("path")
    if call.name != "edit" or not isinstance(old, str) or not isinstance(path, str):
        return None
    text = workspace_text(workspace, path)
    if f'"old": {json.dumps(old)}' not in STEP_GUIDE or old in (text or ""):
        return None
    held = f", which holds {text!r}" if text is not None and len(text) <= 400 else ""
    return f"old {old!r} is the reply format's example, not text of {path}{held}: copy old from it"


def _flat(text: str) -> str:
    return " ".join(text.lower().split())


def asked_text(task: str, path: str, sure: bool = False) -> str | None:
    """The text the task says the file is to hold, or None: a value a model can copy. ``sure``:
    only where its end is plain (quoted, after a colon, before a comma or the task's end), not
    "containing salt and pepper", read as "salt"."""
    name = re.escape(Path(path).name)
    said = rf"(?<![\w.]){name}{_AFTER_NAME}"
    # "containing exactly: Hello, world": after a colon, the rest up to "then" or a semicolon
    colon = re.search(rf"{said}:\s*['\"]?(.+?)['\"]?\s*(?:[;.]|,?\s+then\b|$)", task, re.I)
    after = colon or re.search(rf"{said}:?\s+{_QUOTED}", task, re.I)
    before = re.search(rf"'([^']*)'\s+(?:into|in|to) (?:a )?(?:new )?(?:file )?{name}\b", task)
    found = after or before
    plain = after is not None and not colon and after.group(3) is not None
    if found is None or (sure and plain and re.match(r"\s+and\b", task[found.end() :])):
        return None
    text = next(g for g in found.groups() if g is not None).strip()
    return text or None


def copied_note(content: str, said: list[str], task: str) -> bool:
    """Whether the content is beecode's words to the model: within a note or a refusal of this
    turn, or holding a long run of one. The task's own words (a note may quote them) are not."""
    # The steps beecode gave to copy are not its words, nor what it quoted of a file: sending
    # one is taking the advice ("in the line 'def add(a, b)::'" quotes the file).
    heard = [_flat(_QUOTE.sub(" ", _STEP.sub(" ", s))) for s in said if s.strip()]
    asked = _flat(task)
    if _flat(content) in asked:
        return False
    for line in content.splitlines():  # "write creates it." then "[exit code 1]": copied
        flat = _flat(line.strip(" .[]'\""))
        if len(flat.split()) >= 2 and flat not in asked and any(flat in h for h in heard):
            return True
    words = _flat(content).split()
    runs = (" ".join(words[at : at + COPIED_WORDS]) for at in range(len(words) - COPIED_WORDS + 1))
    return any(run in h for run in runs for h in heard)


def appended_line(task: str) -> tuple[str, str] | None:
    """The line and the file of "append fourth to notes.txt", or None."""
    found = _APPENDED.search(task)
    if found is None:
        return None
    *text, path = [g for g in found.groups() if g is not None]
    return text[0], path


def run_in_bash(command: str, ledger: SmallLedger) -> str:
    """The words that give a command to run, held as the next step (``SmallLedger.pin``)."""
    ledger.pin = ("bash", {"command": command})
    return f"run in bash: {command}"


def append_command(line: str, path: str) -> str:
    return f"echo {shlex.quote(line)} >> {shlex.quote(path)}"


def is_question(task: str) -> bool:
    """Whether the task asks a question ("what is the third line of notes.txt?"), not for a
    change put politely ("can you fix x.py?")."""
    words = task.strip().lower().split()
    return task.strip().endswith("?") and bool(words) and words[0] in _ASKING


def echoed_task(call: Call, task: str) -> bool:
    """Whether a value of the call holds the task's opening words."""
    words = _flat(task).split()
    if len(words) <= ECHOED_WORDS:
        return False
    opening = " ".join(words[:ECHOED_WORDS])
    values = (call.arguments or {}).values()
    return any(isinstance(v, str) and opening in _flat(v) for v in values)


def replaced_line(call: Call, ledger: SmallLedger) -> str | None:
    """How to append instead, when the task says append and this edit replaces a whole line of
    the file with a line that does not keep it; else None."""
    task, workspace, args = ledger.task, ledger.workspace, call.arguments or {}
    old, new, path = args.get("old"), args.get("new"), args.get("path")
    if call.name != "edit" or not APPEND.search(task):
        return None
    if not (isinstance(old, str) and isinstance(new, str) and isinstance(path, str)):
        return None
    text = workspace_text(workspace, path) or ""
    if not old.strip() or old in new or old.strip() not in (s.strip() for s in text.splitlines()):
        return None
    if text.endswith("\n"):
        how = run_in_bash(append_command(new.strip(), path), ledger)
    else:
        how = f"edit with old {old!r} and new {old + chr(10) + new!r}"
    line = f"To append {new.strip()!r} as a new last line, {how}"
    return f"this edit replaces {old.strip()!r} in {path}. {line}"


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
        f"Write it as the task says: {write_call(path, asked)}"
    )


def padded_text(call: Call, task: str, ledger: SmallLedger) -> str | None:
    """Why a write of the text the task names with more after it must be sent twice, or None:
    told to write index.md containing # Docs, the 0.5B model added a paragraph of its own."""
    args = call.arguments or {}
    content, path = args.get("content"), args.get("path")
    if call.name != "write" or not isinstance(content, str) or not isinstance(path, str):
        return None
    asked = asked_text(task, path)
    if asked is None or content.strip() == asked or not content.strip().startswith(asked):
        return None
    if not ledger.asked_once(call):
        return None
    return (
        f"the task asks for {path} to hold {asked!r}, and this content holds more. Write just "
        f"it: {write_call(path, asked)}. To keep yours, send the same write again"
    )


def other_line(call: Call, ledger: SmallLedger) -> str | None:
    """Why an echo of another line onto the file the task appends to is refused, or None: told
    to append the line fourth to notes.txt, the 0.5B model ran `echo 'notes.txt' >> notes.txt`."""
    command, asked = (call.arguments or {}).get("command"), appended_line(ledger.task)
    if call.name != "bash" or not isinstance(command, str) or asked is None:
        return None
    # Each command of a list: `echo 'notes.txt' >> notes.txt && wc -l notes.txt` too.
    for piece in re.split(r"&&|\|\||;", command):
        try:
            words = shlex.split(piece)
        except ValueError:
            continue
        if len(words) < 4 or words[0] != "echo" or words[-2:] != [">>", asked[1]]:
            continue
        line = " ".join(w for w in words[1:-2] if w not in ("-e", "-n"))
        if line != asked[0]:
            return (
                f"this appends {line!r} to {asked[1]}, and the task appends {asked[0]!r}: "
                + run_in_bash(append_command(*asked), ledger)
            )
    return None


def only_adds(task: str) -> bool:
    return bool(_ADDS.search(task)) and not _TAKES_OUT.search(task)


def dropped_text(call: Call, task: str, ledger: SmallLedger) -> str | None:
    """Why an edit that takes text out of a file, in a task that only adds, is refused (with
    the edit that keeps it), or None: told to add multiply to math_utils.py, the 0.5B model
    replaced add with it."""
    args = call.arguments or {}
    old, new, path = args.get("old"), args.get("new"), args.get("path")
    if call.name != "edit" or not only_adds(task):
        return None
    if not (isinstance(old, str) and isinstance(new, str) and isinstance(path, str)):
        return None
    text = workspace_text(ledger.workspace, path) or ""
    if not old.strip() or old.strip() in new or old not in text:
        return None
    kept = old.rstrip("\n")
    gap = "\n\n" if path.endswith(".py") else "\n"
    both = {"path": path, "old": old, "new": kept + gap + new.strip("\n") + old[len(kept) :]}
    first = kept.strip().splitlines()[0]
    return (
        f"this edit takes {first!r} out of {path}, and the task only adds. To keep it and add "
        f"yours, send: {json.dumps({'name': 'edit', 'arguments': both})}"
    )
