"""A task that removes one line of a file ("remove the second line of notes.txt"), held to it.

Told so, the 0.5B model ran `sed -i '1d' notes.txt` and answered that the second line was gone;
run twice, the right `sed -i '2d'` takes the third line too. So a `sed` delete of a line of that
file is refused where it is not the task's line or the line is gone already, with the command
to send; and a file that lost other lines is shown the write that ends it as asked.
"""

from __future__ import annotations

import re

from agent.small.claims_lines import ORDINALS, QUOTED_NAME
from agent.small.command_words import simple_commands
from agent.small.schema import step_text

_VERB = r"\b(?:delete|remove|erase|drop|cut)\s+(?:the\s+)?"
_CUT = re.compile(
    rf"{_VERB}(?:({'|'.join(ORDINALS)}|last)\s+line|line\s+(?:number\s+)?(\d+))\s+"
    rf"(?:of|from|in)\s+(?:the\s+)?(?:file\s+)?{QUOTED_NAME}",
    re.I,
)
_SED_LINE = re.compile(r"(\d+|\$)d")  # sed's script "2d", "$d"


class LineCut:
    """The line the task removes, and its file as it began; nothing where the task names none."""

    def __init__(self, task: str, start: dict[str, str | None]) -> None:
        found = _CUT.search(task)
        self.name = found.group(3).removeprefix("./") if found else ""
        text = start.get(self.name) if found else None
        self.lines = (text or "").splitlines(keepends=True)
        which = (found.group(1) or found.group(2) or "").lower() if found else ""
        last = which == "last"
        self.number = len(self.lines) if last else _number(which)
        if not 1 <= self.number <= len(self.lines):
            self.name = ""  # no such line when the turn began: not beecode's to hold

    def want(self) -> str:
        return "".join(self.lines[: self.number - 1] + self.lines[self.number :])

    def refused(self, command: str, now: str | None) -> str | None:
        """Why a `sed -i 'Nd'` of the file is refused: another line, or the line gone already."""
        if not self.name or now is None:
            return None
        for line in _sed_cuts(command, self.name):
            count = len(now.splitlines())
            number = count if line == "$" else int(line)
            send = step_text("bash", {"command": f"sed -i '{self.number}d' {self.name}"})
            if now == self.want():
                return f"line {self.number} of {self.name} is removed already; answer now"
            if now == "".join(self.lines) and number != self.number:
                asked = f"the task removes line {self.number} of {self.name}, not {number}"
                return f"{asked}. Send: {send}"
        return None

    def left(self, now: str | None) -> str:
        """The note for a file that lost lines, but not as the task asks; "" for none."""
        if not self.name or now is None or now in (self.want(), "".join(self.lines)):
            return ""
        if not set(now.splitlines()) <= {line.rstrip("\n") for line in self.lines}:
            return ""  # lines of its own: an edit beecode cannot judge
        send = step_text("write", {"path": self.name, "content": self.want()})
        return f"\n[{self.name} is not its text without line {self.number}. Send: {send}]"


def _number(which: str) -> int:
    if which in ORDINALS:
        return ORDINALS.index(which) + 1
    return int(which) if which.isdigit() else 0


def _sed_cuts(command: str, name: str) -> list[str]:
    """The lines ("2", "$") each in-place `sed` of ``command`` deletes from ``name``."""
    cuts: list[str] = []
    for words in simple_commands(command):
        in_place = any(w.startswith(("-i", "--in-place")) for w in words)
        if words[0] != "sed" or not in_place:
            continue
        files = [w.removeprefix("./") for w in words[1:] if not w.startswith("-")]
        script = next((m for w in files if (m := _SED_LINE.fullmatch(w))), None)
        if name in files and script:
            cuts.append(script[1])
    return cuts
