"""The value a task changes, held against the calls that change it.

Told "change the port from 8080 to 9090", the 0.5B model edited the line above
(`host = localhost` -> `host = 9090`), or ran a `sed` whose pattern's spacing matched nothing and
took its exit status 0 for the change. A task that names both values says what the file must
end with, so beecode can tell the model, with the edit step to copy (a small model copies a whole
step far better than it follows a description of one):
- an edit that puts the new value in place of a line without the old one is refused;
- after a step that worked, a file the task names that still holds the old value and not the new
  one is said so, and the step is not taken for the end of the task.
A task that sets a key ("set port to 9090 in config.ini") names only the new value: the old one
is the value the file gives the key.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from agent.model.reply import Call
from agent.small.schema import step_text
from agent.small.task_words import TASK_FILE
from tools.files import workspace_text

_VALUE = r"""(?:'([^']+)'|"([^"]+)"|`([^`]+)`|([^\s'"`,;]+?))"""
# "from 8080 to 9090", "replace 'foo' with 'bar'"; a value ends where the sentence goes on.
_CHANGE = re.compile(
    rf"\b(?:from\s+{_VALUE}\s+to|replace\s+{_VALUE}\s+with)\s+{_VALUE}(?=[\s,;]|\.?$|\.\s)"
)


_RENAMES = re.compile(
    rf"\b(?:rename|change the name of)\s+(?:the file\s+)?({TASK_FILE.pattern})\s+(?:to|as|into)\s+"
    rf"({TASK_FILE.pattern})",
    re.I,
)
# "set port to 9090 in config.ini": the old value is the one the file gives the key.
_SET = re.compile(
    rf"\b(?:set|change|make)\s+(?:the\s+)?([\w.-]+)\s+to\s+{_VALUE}(?=[\s,;]|\.?$|\.\s)", re.I
)

# "turn debug on", "switch verbose off", "enable debug", "disable the cache"
_SWITCH = re.compile(
    r"\b(enable|disable)\s+(?:the\s+)?([\w.-]+)|\b(?:turn|switch)\s+(?:the\s+)?([\w.-]+)\s+(on|off)\b",
    re.I,
)
_ON_OFF = [("true", "false"), ("on", "off"), ("yes", "no"), ("1", "0"), ("enabled", "disabled")]


def renamed_names(task: str) -> tuple[str, str] | None:
    """The file a task renames and its new name ("rename a.txt to b.txt"), or None."""
    found = _RENAMES.search(task)
    return (found.group(1), found.group(2)) if found else None


def renamed_file(call: Call, task: str, workspace: Path) -> tuple[str, dict[str, str]] | None:
    """Why a change of a file's content, in a task that renames the file, is refused, and the
    command to hold the next step to; or None. Told to rename notes.txt to todo.txt, the 0.5B
    model edited notes.txt's first line to "todo"."""
    names, path = renamed_names(task), (call.arguments or {}).get("path")
    if call.name not in ("edit", "write") or names is None or not isinstance(path, str):
        return None
    source, target = names
    if path not in (source, target) or not (workspace / source).is_file():
        return None
    if (workspace / target).exists():
        return None
    command = f"mv {shlex.quote(source)} {shlex.quote(target)}"
    send = step_text("bash", {"command": command})
    return f"the task renames {source}, not its text. Send: {send}", {"command": command}


def changed_value(task: str, workspace: Path | None = None) -> tuple[str, str] | None:
    """The old and new value the task names ("from A to B", "replace A with B"), or the value
    a file it names gives the key it sets ("set port to 9090"); or None."""
    found = _CHANGE.search(task)
    if found is not None:
        old, new = [g for g in found.groups() if g is not None]
    elif workspace is not None and (found := _SET.search(task)):
        key, new = found.group(1), next(g for g in found.groups()[1:] if g is not None)
        if (old := _old_value(task, workspace, key)) is None:
            return None
    elif workspace is not None and (found := _SWITCH.search(task)):
        key, on = found.group(2) or found.group(3), (found.group(1) or found.group(4)).lower()
        old = _old_value(task, workspace, key)
        pair = next((p for p in _ON_OFF if old and old.lower() in p), None)
        if old is None or pair is None:
            return None  # not a switch the file holds: which word is "on" is not known
        new = pair[0] if on in ("on", "enable") else pair[1]
        new = new.capitalize() if old[:1].isupper() else new  # Python's True, YAML's True
    else:
        return None
    return (old, new) if old != new else None


def _old_value(task: str, workspace: Path, key: str) -> str | None:
    """The one value the files the task names give ``key``, or None."""
    setting = re.compile(rf"\s*{re.escape(key)}\s*[=:]\s*['\"]?(.*?)['\"]?\s*$", re.I)
    olds = {
        m.group(1)
        for name in TASK_FILE.findall(task)
        for line in (workspace_text(workspace, name) or "").splitlines()
        if (m := setting.fullmatch(line)) and m.group(1)
    }
    return olds.pop() if len(olds) == 1 else None


def value_edit_refusal(call: Call, task: str, workspace: Path) -> tuple[str, dict[str, str]] | None:
    """Why this edit, whose old lacks the value the task changes while it puts the new value in
    place or edits the line that holds the old one (config-3: old "debug", new "False"), is
    refused, and the edit's path and old to hold the next step to (asked once, the 0.5B model
    sent the same edit three times); or None."""
    args = call.arguments or {}
    old, new, path = args.get("old"), args.get("new"), args.get("path")
    values = changed_value(task, workspace)
    if call.name != "edit" or values is None or not isinstance(path, str):
        return None
    if not (isinstance(old, str) and isinstance(new, str)):
        return None
    before, after = values
    edit = None if _holds(old, before) else _edit_args(workspace, path, before, after)
    if edit is None or not (_holds(new, after) or (old.strip() and old.strip() in edit["old"])):
        return None
    send = step_text("edit", edit)
    why = f"old {old.strip()!r} does not hold {before!r}, which the task changes. Send: {send}"
    return why, {"path": path, "old": edit["old"]}


def value_left(task: str, workspace: Path) -> tuple[str, dict[str, str] | None]:
    """After a step that worked: a note for each file the task names that still holds the old
    value and not the new one (with the edit that changes it), or ""; and the path and old of
    that edit, to hold the next step to (told once, the 0.5B model ran the same sed again)."""
    values = changed_value(task, workspace)
    if values is None:
        return "", None
    before, after = values
    notes, held = [], None
    for name in dict.fromkeys(TASK_FILE.findall(task)):
        text = workspace_text(workspace, name)
        if text is None or not _holds(text, before) or _holds(text, after):
            continue
        edit = _edit_args(workspace, name, before, after)
        then = f" Send: {step_text('edit', edit)}" if edit else ""
        notes.append(f"\n[{name} still holds {before!r}, not {after!r}.{then}]")
        if edit and held is None:
            held = {"path": name, "old": edit["old"]}
    return "".join(notes), held


def value_edit(task: str, workspace: Path) -> dict[str, str] | None:
    """The whole edit that sets the task's new value in the first file it names that holds the
    old one; or None."""
    values = changed_value(task, workspace)
    if values is None:
        return None
    before, after = values
    for name in dict.fromkeys(TASK_FILE.findall(task)):
        text = workspace_text(workspace, name)
        if text is not None and _holds(text, before) and not _holds(text, after):
            return _edit_args(workspace, name, before, after)
    return None


def _edit_args(workspace: Path, path: str, before: str, after: str) -> dict[str, str] | None:
    """The edit of the one line of ``path`` that holds ``before``, or None when no line or
    several lines do."""
    text = workspace_text(workspace, path)
    lines = [line for line in (text or "").splitlines() if _holds(line, before)]
    if len(lines) != 1:
        return None
    line = lines[0].strip()
    return {"path": path, "old": line, "new": _word(before).sub(after, line)}


def _word(value: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w.-]){re.escape(value)}(?![\w.-])")


def _holds(text: str, value: str) -> bool:
    return _word(value).search(text) is not None
