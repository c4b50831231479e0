"""Work habits the loop enforces, because small local models do not keep them on their own.

- Read before changing: an edit of an existing file the session has not read is refused with a
  note to read it first (small models overwrite files they never looked at).
- Do not loop: the same call with the same result is flagged the second time and ends the turn
  the third time. In constrained mode a call that failed twice the same way also takes its tool
  out of the next step, which forces a different action.
- Check your work: in constrained mode, an answer right after a file change gets one request
  to run, compile or read what changed first (small models claim results they never saw).
- Know when to stop: a 0.5B model in constrained mode practically never picks the answer step;
  it repeats its last successful call instead. That repeat (same call, same result) means it has
  nothing left to do, so the turn ends with a plain-words report from the model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from agent.reply import Call
from tools.base import ToolResult
from tools.registry import ToolRegistry

MAX_REPEATS = 3  # the same call with the same result, before the turn stops
REPEAT_NOTE = (
    "\n[This exact call already failed this way. Do something different: read the file or list"
    " the folder (ls) to see what is there.]"
)
DONE_NOTE = "\n[This exact call already ran, with this same result. If the task is done, answer.]"
CHECK_NUDGE = "Before you answer, check your change: run, compile or read what you changed."
REPORT_PROMPT = "In one or two sentences, tell me what you did and what the results showed."


@dataclass
class TurnWatch:
    """One turn's record of results, for the repeat guard and the check nudge."""

    repeats: dict[str, int] = field(default_factory=dict)
    stuck: str | None = None  # why the turn must stop
    unchecked_edit: bool = False  # a file changed and nothing ran or read since
    nudged: bool = False
    settled: bool = False  # a successful call was repeated with the same result
    banned: str | None = None  # a tool the next constrained step may not use

    def observe(self, call: Call, kind: str | None, result: ToolResult) -> str:
        """Record a result; returns a note to append to it for the model (or "")."""
        if not result.is_error:
            self.unchecked_edit = kind == "edit"
        key = f"{call.name} {json.dumps(call.arguments, sort_keys=True)} {result.output}"
        count = self.repeats[key] = self.repeats.get(key, 0) + 1
        if count >= MAX_REPEATS and self.stuck is None:
            self.stuck = (
                f"Stopped: the same {call.name} call gave the same result {count} times: "
                f"{result.output[:200]}"
            )
        if count != MAX_REPEATS - 1:
            return ""
        failed = result.is_error or result.meta.get("exit_code") not in (None, 0)
        self.settled = self.settled or not failed
        if failed:  # a small model ignores the note; taking the tool away for a step does not
            self.banned = call.name
        return REPEAT_NOTE if failed else DONE_NOTE

    def take_banned(self) -> str | None:
        banned, self.banned = self.banned, None
        return banned

    def wants_check(self) -> bool:
        """True once per turn, when the model answers right after changing a file."""
        if not self.unchecked_edit or self.nudged:
            return False
        self.nudged = True
        return True


class ReadLedger:
    """Files the session has read or written, so edits of unseen files can be refused."""

    def __init__(self, registry: ToolRegistry, workspace: Path) -> None:
        self.registry, self.workspace = registry, workspace
        self.seen: set[Path] = set()

    def kind(self, call: Call) -> str | None:
        tool = self.registry.get(call.name)
        return tool.kind(call.arguments) if tool and call.arguments is not None else None

    def _paths(self, call: Call) -> list[Path]:
        tool = self.registry.get(call.name)
        if tool is None or call.arguments is None:
            return []
        return [(self.workspace / p).resolve() for p in tool.paths(call.arguments)]

    def unread_edit(self, call: Call) -> str | None:
        """Why this edit must wait (an existing file never read), or None."""
        if self.kind(call) != "edit":
            return None
        for path in self._paths(call):
            if path.is_file() and path not in self.seen:
                shown = (
                    path.relative_to(self.workspace)
                    if path.is_relative_to(self.workspace)
                    else path
                )
                return f"{shown} exists and you have not read it; read it first, then change it"
        return None

    def observe(self, call: Call, result: ToolResult) -> None:
        if not result.is_error and self.kind(call) in ("read", "edit"):
            self.seen.update(self._paths(call))
