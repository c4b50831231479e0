"""What the hooks of one event said, read as Claude Code documents it.

Exit 0: success; a JSON object on stdout is read (``continue``/``stopReason``, ``decision``/
``reason``, ``systemMessage``, ``suppressOutput``, ``hookSpecificOutput`` with
``permissionDecision``/``permissionDecisionReason`` or ``additionalContext``), else stdout is
context for the model (UserPromptSubmit, SessionStart) or shown to the user (other events).
Exit 2: a blocking error, stderr is the reason. Any other exit, a timeout, a hook that cannot
start: an error shown to the user, and the turn goes on. Of several hooks, deny wins over ask,
ask over allow, and any block blocks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from agent.events import HookNote, HookNoteKind
from agent.hooks.run import HookRun

Permission = Literal["allow", "deny", "ask"]
_RANK: dict[Permission, int] = {"allow": 0, "ask": 1, "deny": 2}
CONTEXT_EVENTS = ("UserPromptSubmit", "SessionStart")  # plain stdout is context there
SHOWN_CHARS = 2000  # of what a hook says, for a note or for the model


@dataclass
class Outcome:
    blocked: str | None = None  # exit 2 or decision "block": the reason
    permission: Permission | None = None  # PreToolUse's permissionDecision
    reason: str = ""  # permissionDecisionReason
    context: list[str] = field(default_factory=list)  # for the model
    halt: str | None = None  # "continue": false; the stopReason
    notes: list[HookNote] = field(default_factory=list)  # for the user

    def block_text(self) -> str:
        return self.blocked or "blocked by a hook"


def read_runs(event: str, runs: list[HookRun]) -> Outcome:
    outcome = Outcome()
    for run in runs:
        _read(event, run, outcome)
    return outcome


def _read(event: str, run: HookRun, outcome: Outcome) -> None:
    def note(kind: HookNoteKind, text: str) -> None:
        outcome.notes.append(HookNote(event, run.hook.command, kind, _cut(text)))

    if run.code is None:
        note("error", run.problem)
    elif run.code == 2:
        reason = _cut(run.stderr) or "blocked by a hook (exit 2)"
        if event in ("Notification", "SessionStart"):
            note("error", reason)
        else:
            outcome.blocked = _joined(outcome.blocked, reason)
            note("blocked", reason)
    elif run.code != 0:
        note("error", f"exit {run.code}" + (f": {_cut(run.stderr)}" if run.stderr.strip() else ""))
    elif (answer := run.json()) is not None:
        _read_json(event, answer, outcome, note)
    elif run.stdout.strip():
        if event in CONTEXT_EVENTS:
            outcome.context.append(_cut(run.stdout))
        else:
            note("output", run.stdout)


def _read_json(event: str, answer: dict[str, Any], outcome: Outcome, note: Any) -> None:
    if answer.get("continue") is False:
        outcome.halt = _text(answer.get("stopReason")) or "a hook stopped the turn"
    if message := _text(answer.get("systemMessage")):
        note("output", message)
    specific = answer.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    reason = _text(answer.get("reason"))
    decision = answer.get("decision")
    if event == "PreToolUse":  # "approve"/"block": the older words for allow/deny
        decision = specific.get("permissionDecision") or {"approve": "allow", "block": "deny"}.get(
            str(decision)
        )
        reason = _text(specific.get("permissionDecisionReason")) or reason
        if decision in _RANK:
            _permit(outcome, decision, reason)
            if decision == "deny":
                note("blocked", reason)
    elif decision == "block":
        outcome.blocked = _joined(outcome.blocked, reason or "blocked by a hook")
        note("blocked", reason)
    if added := _text(specific.get("additionalContext")):
        outcome.context.append(added)


def _permit(outcome: Outcome, decision: Permission, reason: str) -> None:
    if outcome.permission is None or _RANK[decision] > _RANK[outcome.permission]:
        outcome.permission, outcome.reason = decision, reason


def _text(value: Any) -> str:
    return _cut(value) if isinstance(value, str) else ""


def _cut(text: str) -> str:
    text = text.strip()
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + " [cut]"


def _joined(before: str | None, reason: str) -> str:
    return reason if not before else f"{before}\n{reason}"
