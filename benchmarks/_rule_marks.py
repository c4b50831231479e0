"""Which of beecode's rules spoke in a fresh-set run: each rule's refusal or note has words of
its own, found in the outputs of the calls it answered (``fresh_set.py --rules FILE``). Rules
that set an answer aside or offer the done-or-continue choice leave no output: not counted."""

from __future__ import annotations

from typing import Any

MARKS = {
    "read before edit (loop)": "exists and you have not read it",
    "repeat guard (loop)": "This exact call already",
    "work guard": "already holds what this turn wrote",
    "copied words: task": "this repeats the task's words",
    "copied words: beecode's": "this is beecode's note to you",
    "task end: undo refused": "holds what the task asks now",
    "task end: text left": "does not hold '",
    "task end: value left": "still holds '",
    "task end: named file broken": "no longer parses",
    "task change: no change yet": "No file has changed yet",
    "task test: run first": "run the test first",
    "task test: not run after": "did not run the task's test",
    "missing file": "does not exist yet",
    "missing file: run again": "exists now: run again",
    "clobbering write": "would replace all of",
    "breaking edit": "; not made.",
    "redirect over a file": "this command replaces all",
    "keyed append": "sets that key already",
    "repeated append": "this ran already; again",
    "test change": "is a test: to make it pass",
    "copy write": "this write copies",
    "folder write": "has no suffix",
    "question change": "the task asks a question",
    "syntax line": "Send the edit of that line, fixed",
    "written note": "Already written. Now check it",
    "fix note": "You have seen this already",
}


def rules_spoken(rows: list[dict[str, Any]]) -> dict[str, dict[str, list[str]]]:
    """Per rule, the tasks where it spoke, by whether they were done."""
    found: dict[str, dict[str, list[str]]] = {}
    for row in rows:
        said = "\n".join(row.get("outputs", []))
        for rule, mark in MARKS.items():
            if mark in said:
                where = found.setdefault(rule, {"done": [], "failed": []})
                where["done" if row["done"] else "failed"].append(row["name"])
    return found
