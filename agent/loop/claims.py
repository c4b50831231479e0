"""Where a turn's answer contradicts its facts (``agent.loop.facts``), said beside the answer.

Small models copy report templates: "Created fib.py; running it printed 5." when the run printed
nothing, or "Config.py has been updated" after the only edit failed. Three kinds are caught, each
by a plain reading of the answer, and none rewrites it (the model's words stay the model's):
- a file named in a sentence claiming a change (not one saying it failed or did not happen) that
  the turn did not create, change or delete;
- "printed X" (or output, returned, shows) where no result of the turn holds X;
- an answer that does not mention a failure while a failed step was not recovered.
"""

from __future__ import annotations

import re

from agent.loop.facts import TurnFacts

_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n")
_FILE = re.compile(r"[\w./-]*\w\.[A-Za-z]\w{0,5}\b")
# Past forms only: "adds" or "creates" describes code ("a function that adds two numbers"),
# "added" or "has been created" claims a change. Not "set": "the port set in config.ini".
_CHANGE = re.compile(
    r"\b(created|wrote|written|updated|changed|modified|added|edited|renamed|saved|fixed|"
    r"replaced|deleted|removed|appended|inserted|moved)\b",
    re.I,
)
_PRINTED = re.compile(
    r"\b(?:print(?:ed|s)?|output(?:s|ted)?|returned|returns|shows?|showed|gave|displayed)"
    r"\s*(?:out\s*)?:?\s*[\"'`]?([^\s\"'`,;]+)",
    re.I,
)
_NOT_A_VALUE = frozenset({"nothing", "no", "a", "an", "the", "it", "that", "this", "to", "in"})
_ADMITS = re.compile(
    r"\b(fail\w*|error\w*|not|couldn\S*|cannot|can't|unable|didn\S*|wasn\S*|still|wrong)\b",
    re.I,
)


def doubts(answer: str, facts: TurnFacts, outputs: list[str]) -> list[str]:
    """Each contradiction between the answer and the facts, in a line for the user."""
    found: list[str] = []
    touched = set(facts.files) | {name.rsplit("/", 1)[-1] for name in facts.files}
    for sentence in _SENTENCE_END.split(answer):
        if not _CHANGE.search(sentence) or _ADMITS.search(sentence):
            continue  # no claim of a change, or one said not to have happened
        for name in _FILE.findall(sentence):
            if name not in touched and name.rsplit("/", 1)[-1] not in touched:
                found.append(f"the answer names {name}, which this turn did not write")
    seen = "\n".join(outputs)
    for match in _PRINTED.finditer(answer):
        value = match.group(1).rstrip(".:!?)")
        if not value or value.lower() in _NOT_A_VALUE:
            continue
        if not facts.commands:
            found.append(f"the answer says something printed {value}; this turn ran no command")
        elif value not in seen:
            found.append(f"the answer says something printed {value}; no result this turn holds it")
    if facts.failed and not _ADMITS.search(answer):
        found.append(f"the answer does not say that a step failed: {facts.failed[0]}")
    return list(dict.fromkeys(found))
