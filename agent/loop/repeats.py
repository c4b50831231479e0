"""The repeat guard, for every model: the same call with the same result is said so the second
time and ends the turn the third time (a model that repeats itself gets no further by it).

A change sent twice counts as a repeat whatever it reports the second time ("created" became
"already holds this content"). The notes are beecode's words to the model, never read back.
"""

from __future__ import annotations

import json

from agent.model.reply import Call
from tools.files import UNWRITABLE
from tools.tool import ToolResult

MAX_REPEATS = 3  # the same call with the same result, before the turn stops
MAX_UNWRITABLE = 2  # writes into a folder that cannot be written (any path), before it stops
REPEAT_NOTE = (
    "\n[This exact call already failed this way. Do something different: read or fix the file"
    " involved, or list the folder (ls) to see what is there.]"
)
DONE_NOTE = "\n[This exact call already ran, with this same result. If the task is done, answer.]"


def failed(result: ToolResult) -> bool:
    """A tool's error, or a command that exited non-zero."""
    return result.is_error or result.meta.get("exit_code") not in (None, 0)


class Repeats:
    """One turn's calls and results, counted."""

    def __init__(self) -> None:
        self.counts: dict[str, tuple[int, bool]] = {}  # call and result -> (count, first failed)
        self.stuck: str | None = None  # why the turn must stop
        self.unwritable = 0  # writes refused because their folder cannot be written

    def count(self, call: Call, kind: str | None, result: ToolResult) -> tuple[int, bool]:
        """Record a result; how often this call gave it this turn, and whether it failed the
        first time. A second write into a folder that cannot be written, whatever its path,
        stops the turn: no other name or content gets a file written there."""
        if result.is_error and result.meta.get(UNWRITABLE):
            self.unwritable += 1
            if self.unwritable >= MAX_UNWRITABLE and self.stuck is None:
                self.stuck = f"Stopped: {result.output[:200]}"
        return self._count(call, kind, result)

    def _count(self, call: Call, kind: str | None, result: ToolResult) -> tuple[int, bool]:
        outcome = "" if kind == "edit" else result.output
        key = f"{call.name} {json.dumps(call.arguments, sort_keys=True)} {outcome}"
        count, first_failed = self.counts.get(key, (0, failed(result)))
        self.counts[key] = (count + 1, first_failed)
        if count + 1 >= MAX_REPEATS and self.stuck is None:
            self.stuck = (
                f"Stopped: the same {call.name} call gave the same result {count + 1} times: "
                f"{result.output[:200]}"
            )
        return count + 1, first_failed

    def observe(self, call: Call, kind: str | None, result: ToolResult) -> str:
        """Record a result; the note to append to it for the model (or "")."""
        count, first_failed = self.count(call, kind, result)
        if count != MAX_REPEATS - 1:
            return ""
        return REPEAT_NOTE if first_failed and failed(result) else DONE_NOTE
