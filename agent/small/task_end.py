"""What the task's intent says its files end as, checked after a step that may have finished it.

A small model chooses done after any step that worked: `mkdir out && touch out/log.txt` for a
file out/log.txt that is to hold a text, or an edit of the line above the port it was to
change. Where the intent (``agent.small.intent``) names the end in no language's words,
beecode tells the model what is left, with the step to send, and holds the next step to it:
- the one file the task makes, and the one text it quotes for it, not there as a line;
- a value of a file the task names, the one value the task gives that the file lacks, not yet
  in place of the file's old one (the other value the task gives that the file holds, or the
  value the file gives a key the task names): "config.ini: port 9090, bitte".
Each is said once a turn: the model may have a reason, and the facts show the end.
"""

from __future__ import annotations

import re
from pathlib import Path

from agent.small.intent import Intent
from agent.small.schema import Held, step_text
from tools.files import workspace_text

_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")
# a setting's line, `key = value` or `key: value`: its key and value
KEY_LINE = re.compile(r"^\s*([A-Za-z_][\w.-]*)\s*[=:]\s*['\"]?(.*?)['\"]?\s*$")


class TaskEnd:
    def __init__(self, intent: Intent, workspace: Path) -> None:
        self.intent, self.workspace = intent, workspace
        self._told: set[str] = set()
        start = {n: workspace_text(workspace, n) for n in intent.existing}
        made, texts = intent.new, intent.texts or tuple(filter(None, [intent.said]))
        self._made = (made[0], texts[0]) if len(made) == 1 and len(texts) == 1 else None
        self._value = _value_change(intent, start)

    def left(self) -> tuple[str, Held | None]:
        """The note on what the task's end still lacks ("" for nothing), and the step to hold."""
        for found in (self._value_left(), self._text_left()):
            if found and found[0] not in self._told:
                self._told.add(found[0])
                return found
        return "", None

    def _text_left(self) -> tuple[str, Held] | None:
        if self._made is None:
            return None
        name, text = self._made
        held = workspace_text(self.workspace, name)
        if held is None or text.strip() in _lines(held) or text.strip() in held:
            return None  # a file not made yet: the missing-file notes
        send = step_text("write", {"path": name, "content": text + "\n"})
        return f"\n[{name} does not hold {text!r}; the task asks for: {send}]", (
            "write",
            {"path": name},
        )

    def _value_left(self) -> tuple[str, Held | None] | None:
        if self._value is None:
            return None
        name, old, new = self._value
        text = workspace_text(self.workspace, name) or ""
        if not _holds(text, old) or _holds(text, new):
            return None
        lines = [line for line in text.splitlines() if _holds(line, old)]
        if len(lines) != 1:
            return f"\n[{name} still holds {old!r}, not {new!r}.]", None
        edit = {"path": name, "old": lines[0].strip(), "new": _word(old).sub(new, lines[0].strip())}
        note = f"\n[{name} still holds {old!r}, not {new!r}. Send: {step_text('edit', edit)}]"
        return note, ("edit", {"path": name, "old": edit["old"]})


def _value_change(intent: Intent, start: dict[str, str | None]) -> tuple[str, str, str] | None:
    """The one file the task names that exists, the value it holds that the task changes and
    the new value; or None where the task's values do not say so plainly."""
    if len(intent.existing) != 1 or intent.question:
        return None
    name = intent.existing[0]
    text = start.get(name) or ""
    values = list(dict.fromkeys([*intent.texts, *_NUMBER.findall(intent.task)]))
    new = [v for v in values if not _holds(text, v)]
    old = [v for v in values if _holds(text, v)]
    if len(new) != 1:
        return None
    if not old:  # the value the file gives a key the task names: "port 9090"
        words = set(re.findall(r"[A-Za-z_][\w.-]*", intent.task))
        keys = [m for line in text.splitlines() if (m := KEY_LINE.match(line)) and m[1] in words]
        old = [keys[0][2]] if len(keys) == 1 and keys[0][2] else []
    return (name, old[0], new[0]) if len(old) == 1 and old[0] != new[0] else None


def _word(value: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w.-]){re.escape(value)}(?![\w.-])")


def _holds(text: str, value: str) -> bool:
    return _word(value).search(text) is not None


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]
