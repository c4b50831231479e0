"""Claims about a file's lines and runs that ``agent.loop.claims`` checks against the workspace:
- a line of a file quoted wrong ("Third line of notes.txt is 3." when it holds "third");
- a line said removed that the turn's change did not remove ("with the second line removed"
  after `sed -i '1d'`), read against the file as it was at the turn's checkpoint;
- a file said not to run or to be broken where the turn's last run of it exited 0 ("broken.py
  has 5 lines of code that do not run" after the fixed file ran).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from pathlib import Path

from agent.loop.facts import TurnFacts
from tools.files import workspace_text

ORDINALS = "first second third fourth fifth sixth seventh eighth ninth tenth".split()
_WHICH = rf"(?:({'|'.join(ORDINALS)}|last|\d+(?:st|nd|rd|th))\s+line|line\s+(\d+))"
QUOTED_NAME = r"[\"'`]?([\w./-]*\w\.[A-Za-z]\w{0,5})[\"'`]?"  # a file's name, maybe quoted
# "The third line of notes.txt is 3", "line 2 in a.txt is 'b'"
_LINE_IS = re.compile(
    rf"\b{_WHICH}\s+(?:of|in)\s+{QUOTED_NAME}\s+(?:is|reads|says)\s*:?\s*"
    r"[\"'`]?([^\"'`\n]*?)[\"'`]?\s*(?:[.!]\s|[.!]?$)",
    re.I,
)
_LINE = re.compile(rf"\b{_WHICH}", re.I)
_NAMED = re.compile(QUOTED_NAME)
# "has been updated to remove the second line": a claim too, said after the fact
_REMOVED = re.compile(
    r"\b(?:removed|deleted|(?:updated|changed|modified|edited) to (?:remove|delete))\b", re.I
)
_NOT_RUN = re.compile(
    r"\b(?:do(?:es)?n[o'’]?t|not|cannot|can['’]t|won['’]t|fails? to)\s+"
    r"(?:run|compile|work)\b(?![ \t]+[a-z])"  # not "does not run tests"
    r"|\b(?:is|are) (?:still )?broken\b",
    re.I,
)
_BEFORE = re.compile(r"\b(?:first|before|then|until|was|were|had|at the start)\b", re.I)


def line_said(answer: str, workspace: Path) -> list[str]:
    """A line of a file quoted wrong (the 0.5B model read the line's number from the numbered
    file it was shown)."""
    found: list[str] = []
    for match in _LINE_IS.finditer(answer):
        lines = (workspace_text(workspace, match.group(3)) or "").splitlines()
        number, value = _number(match, len(lines)), match.group(4).strip()
        if not value or not 1 <= number <= len(lines):
            continue
        if value.lower() not in lines[number - 1].lower():
            line, name = lines[number - 1], match.group(3)
            found.append(f"the answer says line {number} of {name} is {value!r}; it is {line!r}")
    return found


def removed_said(
    sentences: list[str],
    facts: TurnFacts,
    workspace: Path,
    earlier: Callable[[str], str | None],
) -> list[str]:
    """Lines said removed from a file the turn changed, which its change did not remove. A
    sentence naming no file speaks of the one the turn changed, where it changed one."""
    found: list[str] = []
    for sentence in sentences:
        if not _REMOVED.search(sentence) or re.search(r"\bnot\b|n't\b", sentence, re.I):
            continue
        named = [n for n in _NAMED.findall(sentence) if n in facts.changed]
        names = named or (facts.changed if len(facts.changed) == 1 else [])
        for match in _LINE.finditer(sentence) if len(names) == 1 else []:
            old, now = earlier(names[0]), workspace_text(workspace, names[0])
            if old is None or now is None:
                continue
            before = old.splitlines()
            number, gone = _number(match, len(before)), _removed(before, now.splitlines())
            if 1 <= number <= len(before) and number not in gone:
                which = ", ".join(map(str, sorted(gone)))
                lines = f"line{'s' if len(gone) > 1 else ''} {which} of it" if gone else "no line"
                found.append(
                    f"the answer says line {number} of {names[0]} was removed; "
                    f"this turn removed {lines}"
                )
    return found


def not_run_said(sentences: list[str], facts: TurnFacts) -> list[str]:
    """A file said not to run where the turn's last command that names it exited 0 (and the
    sentence does not speak of before)."""
    found: list[str] = []
    for sentence in sentences:
        if not _NOT_RUN.search(sentence) or _BEFORE.search(sentence):
            continue
        for name in dict.fromkeys(_NAMED.findall(sentence)):
            runs = [c for c in facts.commands if Path(name).name in c.command]
            if runs and runs[-1].exit_code == 0:
                found.append(
                    f"the answer says {name} does not run; `{runs[-1].command}` ran it to exit 0"
                )
    return found


def _number(match: re.Match[str], count: int) -> int:
    which = (match.group(1) or match.group(2)).lower()
    if which in ORDINALS:
        return ORDINALS.index(which) + 1
    return count if which == "last" else int(re.sub(r"\D", "", which))


def _removed(before: list[str], after: list[str]) -> set[int]:
    """The lines (1-based, of ``before``) a change took out or replaced."""
    gone: set[int] = set()
    for tag, start, end, _, _ in difflib.SequenceMatcher(None, before, after).get_opcodes():
        if tag in ("delete", "replace"):
            gone.update(range(start + 1, end + 1))
    return gone
