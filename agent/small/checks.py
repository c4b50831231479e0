"""A small model's report, read against the turn's facts before it is shown, by what reads the
same in every language (``agent.small.report`` asks once more, then leaves it out):
- a file the report names that is nowhere: not in the workspace (by its last part either), not
  in the task or any result, not deleted by the turn (the 0.5B model named its guide's example
  file, `shop.py`, in a turn about broken.py);
- a run of six words of beecode's own notes and refusals, copied as the report;
- the task's own words given back, in a turn that changed no file.
False doubts cost a small model's report, not the facts: they are shown either way (a failed
step among them, and the turn then stops as failed, whatever the report says).
"""

from __future__ import annotations

import re
from pathlib import Path

from agent.facts import TurnFacts
from agent.loop.citations import files_ending
from agent.small.intent import FILE_NAME

COPIED_WORDS = 6  # a run this long of beecode's words is no coincidence


def report_doubts(
    answer: str, facts: TurnFacts, outputs: list[str], told: list[str], workspace: Path, task: str
) -> list[str]:
    found: list[str] = []
    seen = task + "\n" + "\n".join(outputs)
    for name in dict.fromkeys(FILE_NAME.findall(answer)):
        if name not in seen and name not in facts.deleted and not _in_workspace(workspace, name):
            found.append(f"the report names {name}; no such file is in the workspace")
    if copied := _copied(answer, " ".join(" ".join(told).lower().split())):
        found.append(f"the report repeats beecode's message to the model: {copied}")
    if not facts.files and _echoes(answer, task):
        found.append("the report repeats the task's words; this turn changed no file")
    return found


def _in_workspace(workspace: Path, name: str) -> bool:
    """``name`` under the workspace, or its last part anywhere in it (a workspace too large to
    look through: no doubt)."""
    if (workspace / name).exists():
        return True
    found = files_ending(workspace.resolve(), name.rsplit("/", 1)[-1])
    return found is None or bool(found)


def _copied(answer: str, heard: str) -> str:
    """The first run of ``COPIED_WORDS`` words of the answer found in ``heard``, or ""."""
    words = answer.lower().split()
    for at in range(len(words) - COPIED_WORDS + 1):
        if " ".join(words[at : at + COPIED_WORDS]) in heard:
            return " ".join(answer.split()[at : at + COPIED_WORDS])
    return ""


def _echoes(answer: str, task: str) -> bool:
    """The report is the task's own words, in order: an echo, which reads as done."""
    said, asked = (" ".join(re.findall(r"[\w.-]*\w", t.lower())) for t in (answer, task))
    return len(said.split()) >= 4 and f" {said} " in f" {asked} "
