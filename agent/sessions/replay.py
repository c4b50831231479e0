"""Reading a session file back: its records, the history they replay to (compactions,
rewinds and misshapen lines applied), repaired so the server accepts it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent.sessions.shapes import message_problem

FORKED_FROM = "forked_from"  # the record a fork ends its copy with (agent.sessions.fork)
INTERRUPTED = "interrupted: the session ended before this call finished; its effects are unknown"


def read_records(path: Path) -> list[dict[str, Any]]:
    """Every complete record of a session file; torn or garbled lines are skipped."""
    return [record for _, record in placed_records(path)]


def placed_records(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """Every complete record with the byte offset its line starts at."""
    records: list[tuple[int, dict[str, Any]]] = []
    offset = 0
    with path.open("rb") as file:
        for line in file:
            at, offset = offset, offset + len(line)
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict):
                records.append((at, record))
    return records


def replay(
    records: list[tuple[int, dict[str, Any]]], notes: dict[str, None]
) -> list[dict[str, Any]]:
    """The history ``records`` replay to; why a message was left out goes to ``notes``."""
    history: list[dict[str, Any]] = []
    for number, (_, record) in enumerate(records, 1):
        if record.get("type") == "compaction" and isinstance(record.get("messages"), list):
            listed = enumerate(record["messages"], 1)
            history = [m for i, m in listed if _usable(m, f"record {number}, message {i}", notes)]
        elif record.get("type") == "rewind" and isinstance(record.get("to"), int):
            # The history as it was when the record at that offset was reached.
            history = replay([r for r in records[: number - 1] if r[0] < record["to"]], notes)
        elif (message := message_of(record)) is not None and _usable(
            message, f"record {number}", notes
        ):
            history.append(message)
    return history


def _usable(message: Any, where: str, notes: dict[str, None]) -> bool:
    """True for a usable message; else its note is added (an ordered set: replays repeat)."""
    problem = "not an object" if not isinstance(message, dict) else message_problem(message)
    if problem is not None:
        notes[f"{where}: {problem}; left out of the history"] = None
    return problem is None


def forked_from(records: list[dict[str, Any]]) -> list[str]:
    """The sessions a session was forked from, its direct source first (a fork of a fork copies
    its source's own ``forked_from`` record too)."""
    found = [r.get("id") for r in records if r.get("type") == FORKED_FROM]
    return [i for i in reversed(found) if isinstance(i, str)]


def message_of(record: dict[str, Any]) -> dict[str, Any] | None:
    """The chat message a "message" record holds (also accepts the message's fields inline)."""
    if record.get("type") != "message":
        return None
    message = record.get("message")
    if isinstance(message, dict):
        return message
    inline = {k: v for k, v in record.items() if k not in ("type", "ts")}
    return inline if "role" in inline else None


def repair_tool_calls(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Make the history valid for the server after a kill or cancel mid-turn.

    Every assistant tool call gets its result right after the assistant message: results that
    never came are completed with the same fixed "interrupted" text (byte-stable, so the prompt
    cache still matches on the next rebuild); tool results that answer no call are dropped.
    """
    repaired: list[dict[str, Any]] = []
    index = 0
    while index < len(history):
        message = history[index]
        index += 1
        if message.get("role") == "tool":
            continue  # an orphan: its call was already answered or never made
        repaired.append(message)
        calls = [c.get("id") for c in message.get("tool_calls") or [] if isinstance(c, dict)]
        if message.get("role") != "assistant" or not calls:
            continue
        results: dict[Any, dict[str, Any]] = {}
        while index < len(history) and history[index].get("role") == "tool":
            result = history[index]
            results.setdefault(result.get("tool_call_id"), result)
            index += 1
        for call_id in calls:
            missing = {"role": "tool", "tool_call_id": call_id, "content": INTERRUPTED}
            repaired.append(results.get(call_id, missing))
    return repaired
