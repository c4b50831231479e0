"""Claims about a file's lines and runs that ``agent.small.claims`` checks against the workspace:
- a line of a file quoted wrong ("Third line of notes.txt is 3." when it holds "third");
- a line said removed that the turn's change did not remove ("with the second line removed"
  after `sed -i '1d'`), read against the file as it was at the turn's checkpoint;
- a file said not to run or to be broken where the turn's last run of it exited 0 ("broken.py
  has 5 lines of code that do not run" after the fixed file ran);
- a rename or move told backwards (its source created, or its target deleted, by the turn);
- a file named that is nowhere: not in the workspace, the task or any result ("The error in
  `shop.py` is ...": the guide's example file, in a turn about broken.py).
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable
from pathlib import Path

from agent.facts import TurnFacts
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
# "renamed a.txt to b.txt", "a.txt was moved to b.txt": the direction is checked.
_RENAMED = re.compile(
    rf"\b(?:renamed|moved)\s+(?:the file\s+)?{QUOTED_NAME}\s+(?:to|as)\s+{QUOTED_NAME}"
    rf"|{QUOTED_NAME}\s+(?:was|has been|is)\s+(?:renamed|moved)\s+(?:to|as)\s+{QUOTED_NAME}",
    re.I,
)
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


# A file's name as a small model copies one: lowercase, with an extension files have (not
# "Node.js" or "os.path").
_PLAIN_FILE = re.compile(
    r"(?<![\w./-])([a-z0-9_][\w/-]*\.(?:py|txt|md|toml|ini|cfg|json|ya?ml|sh|csv|html|css|c|h|rs|go))"
    r"(?![\w/-])"
)

# A file suggested, or said not to be there ("there is no requirements.txt"): no claim it is.
_MAYBE = re.compile(
    r"\b(?:could|should|would|will|can|might|may|consider|suggest|if|want|no|not|without"
    r"|lacks?|none|never)\b|n't\b",  # not "missing": "the missing colon in shop.py"
    re.I,
)


def nowhere_named(
    sentences: list[str], facts: TurnFacts, workspace: Path, seen: str, doubted: list[str]
) -> list[str]:
    """Files the answer names that are not in the workspace, nor in ``seen`` (the task and the
    turn's results), nor among the files the turn deleted, nor ``doubted`` already; not where
    a sentence suggests one ("you could add tests/test_api.py")."""
    found: list[str] = []
    said = " ".join(s for s in sentences if not _MAYBE.search(s))
    for name in dict.fromkeys(_PLAIN_FILE.findall(said)):
        if name in seen or name in facts.deleted or _in_workspace(workspace, name):
            continue
        if any(f"names {name}," in d for d in doubted):
            continue
        found.append(f"the answer names {name}; no such file is in the workspace")
    return found


def _in_workspace(workspace: Path, name: str, most: int = 5000) -> bool:
    """``name`` under the workspace, or its last part anywhere in the first ``most`` files of
    it ("main.py" of src/main.py); hidden folders are left out."""
    if (workspace / name).exists():
        return True
    base, seen = name.rsplit("/", 1)[-1], 0
    for _top, dirs, files in os.walk(workspace):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        if base in files:
            return True
        seen += len(files)
        if seen > most:
            return True  # a workspace too large to look through: no doubt
    return False


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


def reversed_said(answer: str, facts: TurnFacts) -> list[str]:
    """A rename or move told backwards: its source is a file the turn created, or its target one
    the turn deleted ("list.txt was renamed to notes.txt" after notes.txt became list.txt)."""
    found: list[str] = []
    for match in _RENAMED.finditer(answer):
        source, target = [name for name in match.groups() if name]
        if source in facts.created or target in facts.deleted:
            found.append(f"the answer says {source} became {target}; this turn did the reverse")
    return found
