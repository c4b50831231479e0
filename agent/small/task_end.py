"""What the task says its files end as, checked after a step that may have finished it.

A small model chooses done after any step that worked: `mkdir out && touch out/log.txt` for "a
file out/log.txt saying empty", or a write of list.txt for "change the name of notes.txt to
list.txt". Where the task names the end plainly, beecode can tell the model what is left, with
the step to send, and hold the next step to it:
- the task's old value still in a file it names (``task_values.value_left``), every time;
- a file the task names the text of that exists and has no line holding it;
- a file the task renames that is still there, its new name not yet taken;
- a file the task names that parsed when the turn began and does not now (`echo 'debug = true'
  >> settings.toml` sets debug twice);
- a file the task appends a line to that lacks it or a line it began the turn with (the 0.5B
  model wrote "4" under a blank line for "append the line fourth").
The last four are said once a turn each: the model may have a reason, and the facts show the end.
A file's text or append is not held to where the task asks for a change after it ("then ...").
Once a file's text or append is as the task asks (an append: that line and no other), a write,
edit or `>>` that would undo it is refused: the 0.5B model appended fourth to notes.txt, read
it, then wrote the read's line numbers over it, or echoed the read onto it. A command that
deletes a file the task names and does not delete, rename or move is refused every time: told
to remove the second line of notes.txt, the model ran `rm notes.txt`. A line the task removes
is held to that line (``agent.small.task_cut``); a file the task runs, to its run
(``agent.small.task_run``).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from agent.model.reply import Call
from agent.small.command_words import simple_commands
from agent.small.redirects import APPENDS
from agent.small.schema import Held, step_text
from agent.small.task_change import CHANGE_VERBS
from agent.small.task_cut import LineCut
from agent.small.task_run import RunLeft
from agent.small.task_values import renamed_names, value_left
from agent.small.task_words import TASK_FILE, appended_line, asked_text, write_call
from tools.files import workspace_text
from tools.formats import parse_error

_FILE_WORD = re.compile(r"\bfile\s+([\w./-]*\w)", re.I)  # "into a new file VERSION"
_DELETERS = {("rm",), ("unlink",), ("git", "rm")}
_MOVES = re.compile(r"\b(?:move|mv|put|rename|change the name)\b", re.I)  # a cp, then rm


class TaskEnd:
    def __init__(self, task: str, workspace: Path) -> None:
        self.task, self.workspace = task, workspace
        self._told: set[str] = set()
        self._start = {n: workspace_text(workspace, n) for n in TASK_FILE.findall(task)}
        self._parsed = [  # the named files that parse as the turn begins: read once, above
            n for n, text in self._start.items() if text is not None and not parse_error(n, text)
        ]
        # "create a.txt containing 1, then change it to 2": the end may be a later change's
        later = re.search(r"\bthen\b(.*)", task, re.I | re.S)
        self._later = bool(later and set(re.findall(r"[a-z]+", later[1].lower())) & CHANGE_VERBS)
        self._cut = LineCut(task, self._start)  # "remove the second line of notes.txt"
        self._run = RunLeft(task, TASK_FILE.findall(task))  # "..., then run it"

    def left(self) -> tuple[str, Held | None]:
        """The note on what the task's end still lacks ("" for nothing), and the step to hold."""
        note, edit = value_left(self.task, self.workspace)
        if note:
            return note, ("edit", edit) if edit else None
        ends: list[tuple[str, Held | None] | None] = [self._broken(), self._rename_left()]
        ends += [self._text_left(), self._append_left(), self._cut_left()]
        ends += [None if self._later else self._run.left(self.workspace)]
        for found in ends:
            if found and found[0] not in self._told:
                self._told.add(found[0])
                return found
        return "", None

    def undoes(self, call: Call) -> str | None:
        """Why this write, edit or `>>` append, which would undo the task's end where a file
        meets it now, is refused; or None. Every call of the turn comes here."""
        self._run.saw(call)
        if deleted := self._deleted(call):
            return f"the task does not ask to delete {deleted}; change its lines with edit"
        args = call.arguments or {}
        if call.name == "bash" and isinstance(args.get("command"), str) and self._cut.name:
            now = workspace_text(self.workspace, self._cut.name)
            if cut := self._cut.refused(args["command"], now):
                return cut
        path, content = args.get("path"), args.get("content")
        old, new = args.get("old"), args.get("new")
        appended = self._appended_onto(call)
        path = appended or path
        now = workspace_text(self.workspace, path) if isinstance(path, str) else None
        if now is None or not isinstance(path, str) or self._later or not self._met(path, now):
            return None
        if appended:
            after = now + "\n(a line more)"
        elif call.name == "write" and isinstance(content, str):
            after = content
        elif call.name == "edit" and isinstance(old, str) and isinstance(new, str) and old:
            after = now.replace(old, new, -1 if args.get("replace_all") else 1)
        else:
            return None
        if self._met(path, after):
            return None
        undo = f"this {call.name} would undo it"
        return f"{path} holds what the task asks now; {undo}. Take the next step, or answer"

    def _deleted(self, call: Call) -> str | None:
        """The file the task names, not to delete, that this command deletes; or None."""
        command = (call.arguments or {}).get("command") if call.name == "bash" else None
        if not isinstance(command, str) or _MOVES.search(self.task):
            return None
        for words in simple_commands(command):
            cut = 2 if tuple(words[:2]) in _DELETERS else 1 if tuple(words[:1]) in _DELETERS else 0
            for word in words[cut:] if cut else ():
                name = word.removeprefix("./")
                if self._start.get(name) is not None and not self._asks_deleting(name):
                    return name
        return None

    def _asks_deleting(self, name: str) -> bool:
        """Whether the task deletes this file itself: "delete notes.txt", "remove the file
        notes.txt", not "remove the second line of notes.txt"."""
        verb = r"\b(?:delete|remove|rm|erase|unlink|get rid of)\s+(?:the\s+)?(?:file\s+)?"
        return bool(re.search(verb + re.escape(name), self.task, re.I))

    def _appended_onto(self, call: Call) -> str | None:
        """The file a command appends a line to with `>>`, but the task's own line (sent again,
        ``agent.small.redirects`` says why not); or None."""
        command = (call.arguments or {}).get("command") if call.name == "bash" else None
        targets = APPENDS.findall(command) if isinstance(command, str) else []
        asked = appended_line(self.task)
        own = rf"""\becho\s+['"]?{re.escape(asked[0])}['"]?\s*>>""" if asked else None
        if not targets or (own and re.search(own, str(command))):
            return None
        return str(targets[0])

    def _met(self, path: str, text: str) -> bool:
        """Whether ``text`` is the end the task names for ``path``: False where it names none."""
        appended = appended_line(self.task)
        if appended and appended[1] == path and (start := self._start.get(path)):
            return _lines(text) == [*_lines(start), appended[0].strip()]  # that line, no other
        asked = asked_text(self.task, path, sure=True) if path in self._start else None
        return asked is not None and asked.strip() in _lines(text)

    def _error(self, name: str) -> str | None:
        """The parse error of a file the task names; "" where it is missing."""
        text = workspace_text(self.workspace, name)
        return "" if text is None else parse_error(name, text)

    def _broken(self) -> tuple[str, Held | None] | None:
        for name in self._parsed:
            if error := self._error(name):
                return f"\n[{name} no longer parses: {error}. Mend it.]", None
        return None

    def _append_left(self) -> tuple[str, Held] | None:
        if (found := appended_line(self.task)) is None or self._later:
            return None
        line, name = found
        start, now = self._start.get(name), workspace_text(self.workspace, name)
        if not start or now is None:
            return None
        lines = set(_lines(now))
        if line.strip() in lines and set(_lines(start)) <= lines:
            return None
        began = start.rstrip("\n")
        want = f"{began}\n{line}\n"  # the file as it began, then the line
        send = step_text("write", {"path": name, "content": want})
        note = f"\n[{name} is not its text with {line!r} appended. Send: {send}]"
        return note, ("write", {"path": name})

    def _cut_left(self) -> tuple[str, Held] | None:
        name = self._cut.name
        note = self._cut.left(workspace_text(self.workspace, name)) if name else ""
        return (note, ("write", {"path": name})) if note else None

    def _rename_left(self) -> tuple[str, Held] | None:
        names = renamed_names(self.task)
        if names is None:
            return None
        source, target = names
        if not (self.workspace / source).is_file() or (self.workspace / target).exists():
            return None  # both there: which the user wants is not beecode's to say
        command = f"mv {shlex.quote(source)} {shlex.quote(target)}"
        send = step_text("bash", {"command": command})
        return f"\n[{source} is not renamed yet. Send: {send}]", ("bash", {"command": command})

    def _text_left(self) -> tuple[str, Held] | None:
        if self._later:
            return None
        names = [*TASK_FILE.findall(self.task), *_FILE_WORD.findall(self.task)]
        for name in dict.fromkeys(names):
            asked = asked_text(self.task, name, sure=True)
            held = workspace_text(self.workspace, name)
            if asked is None or held is None:  # a file not made yet: the missing-file notes
                continue
            if "\n" in asked.strip() and asked.strip() in held:
                continue
            if asked.strip() in _lines(held):
                continue
            send = write_call(name, asked)
            return f"\n[{name} does not hold {asked!r}; the task asks for: {send}]", (
                "write",
                {"path": name},
            )
        return None


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]
