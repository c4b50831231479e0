"""What a turn did, computed by beecode from what happened, never taken from the model's words.

Files created, changed and deleted come from the turn's checkpoint (the workspace snapshotted
before its first change, diffed with the files now), so changes a command made count too;
without a checkpoint (no git) they come from the file tools' results. Every command is listed
with its exit status and the start of its output. A failed step (an error, or a command that
exited non-zero, or a change that left its file no longer parsing as Python, TOML, JSON or
INI) is unrecovered unless a later call on the same subject (a change of the same
file, by any tool; the same command line) succeeded. Reads and permission denials are not failed
steps: a look at a missing file is exploring, a denial the user's choice; nor is a write refused
to keep the turn's checked work (``agent.small.guard``), nor an edit sent again that finds its own
earlier result. A changed file that parsed at the checkpoint and does not now is a failed step
too, whichever call changed it.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from agent.checkpoints.shadow import CheckpointError
from agent.checkpoints.store import Checkpoints
from agent.facts import CommandRun, TurnFacts
from agent.model.reply import Call
from tools.edit import MADE_ALREADY
from tools.files import CHECK_BYTES, workspace_text
from tools.formats import parse_error
from tools.tool import ToolResult

SHOWN_OUTPUT_CHARS = 300  # of each command's output, in the facts


class FactsRecorder:
    """One turn's record of its calls, turned into ``TurnFacts`` at its end."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self.created: dict[str, None] = {}
        self.changed: dict[str, None] = {}
        self.commands: list[CommandRun] = []
        self.outputs: list[str] = []  # every result's output, for checking the answer's claims
        self.told: list[str] = []  # beecode's own errors and hints to the model, likewise
        self._failures: dict[str, str] = {}  # subject -> the failure, until a success on it
        self.excused: set[str] = set()  # ids of calls refused to keep the turn's work
        self._made: set[str] = set()  # edits that worked, as their name and arguments
        self._turn: tuple[str, int | None] | None = None  # the session and mark facts() saw
        self._broken: dict[str, str] = {}  # failure's key -> the file a change left unparsable

    def observe(self, call: Call, kind: str | None, result: ToolResult, note: str = "") -> None:
        args = call.arguments or {}
        self.outputs.append(result.output)
        exit_code = result.meta.get("exit_code")
        # A command's output is the program's words, which an answer may quote; a command
        # refused or never run gets beecode's.
        ran = call.name == "bash" and exit_code is not None
        self.told += [note, result.output if result.is_error and not ran else ""]
        if call.name == "bash" and isinstance(args.get("command"), str):
            code = exit_code if isinstance(exit_code, int) else None
            self.commands.append(CommandRun(args["command"], code, _start(result.output)))
        # A sub-agent's commands (the task tool's) are the turn's too.
        self.commands += [c for c in result.meta.get("commands", ()) if isinstance(c, CommandRun)]
        path = result.meta.get("path")
        if kind == "edit" and not result.is_error and isinstance(path, str):
            (self.created if result.meta.get("created") else self.changed)[path] = None
        if kind in (None, "read") or result.meta.get("denied") or call.id in self.excused:
            return  # a look is exploring; a denial is the user's choice
        subject = f"{call.name} {args.get('command') or args.get('path') or ''}".strip()
        # A change's subject is its file, whichever tool: a failed edit redone by a write worked.
        key = f"file {args['path']}" if kind == "edit" and "path" in args else subject
        said = f"{call.name} {json.dumps(args, sort_keys=True)}"
        if kind == "edit" and not result.is_error:
            self._made.add(said)
        elif said in self._made and MADE_ALREADY in result.output:
            return  # the same edit again: the first one made the change, still in the file
        if result.is_error or exit_code not in (None, 0):
            first = result.output.strip().splitlines()[:1] or [""]
            self._failures[key] = f"{subject}: {_start(first[0], 160)}"
        elif isinstance(broken := result.meta.get("broken"), str) and isinstance(path, str):
            self._failures[key] = f"{subject} left it broken: {_start(broken, 160)}"
            self._broken[key] = path  # written, but not valid: failed while it stays so
        else:
            self._failures.pop(key, None)

    def facts(self, session: str, mark: int | None) -> TurnFacts:
        self._turn = (session, mark)
        snapshot = _snapshot_changes(self.workspace, session, mark)
        if snapshot is None:
            created = list(self.created)
            changed = [p for p in self.changed if p not in self.created]
            deleted: list[str] = []
        else:
            created, changed, deleted = (
                sorted(p for p, s in snapshot.items() if s == status) for status in "AMD"
            )
        # A file a change failed on, then moved or deleted (an edit told to rename it, then mv):
        # the failed change no longer stands.
        gone = set(deleted)
        failed = [
            line
            for key, line in self._failures.items()
            if not (key.startswith("file ") and self._relative(key[5:]) in gone)
            and not (key in self._broken and self._mended(self._broken[key]))
        ]
        failed += self._left_broken(changed)
        return TurnFacts(created, changed, deleted, list(self.commands), failed)

    def _left_broken(self, changed: list[str]) -> list[str]:
        """A changed file that parsed at the turn's start and does not now, by a change no write
        or edit reported (a command: `echo 'debug = true' >> settings.toml` set debug twice)."""
        reported = {self._relative(p) for p in self._broken.values()}
        lines = []
        for path in changed:
            text = workspace_text(self.workspace, path)
            if path in reported or text is None or (error := parse_error(path, text)) is None:
                continue
            before = self.earlier(path)
            if before is not None and parse_error(path, before) is None:
                lines.append(f"{path} was left unparsable: {_start(error, 160)}")
        return lines

    def earlier(self, path: str) -> str | None:
        """A file's text at the turn's checkpoint (after ``facts``), for claims about what a
        change removed; None without a checkpoint or git, or where it was not there or not
        small text."""
        if self._turn is None or shutil.which("git") is None:
            return None
        try:
            data = Checkpoints(self.workspace).turn_before(*self._turn, self._relative(path))
        except CheckpointError:
            return None
        if data is None or len(data) > CHECK_BYTES or b"\0" in data:
            return None
        return data.decode(errors="replace")

    def _mended(self, path: str) -> bool:
        """A file a change left broken parses now (a command fixed it, or it is gone)."""
        text = workspace_text(self.workspace, path)
        return text is None or parse_error(path, text) is None

    def _relative(self, path: str) -> str:
        full = Path(os.path.normpath(self.workspace / path))
        return (
            str(full.relative_to(self.workspace)) if full.is_relative_to(self.workspace) else path
        )


def _snapshot_changes(workspace: Path, session: str, mark: int | None) -> dict[str, str] | None:
    if shutil.which("git") is None:
        return None
    try:
        return Checkpoints(workspace).turn_changes(session, mark)
    except CheckpointError:
        return None


def _start(output: str, limit: int = SHOWN_OUTPUT_CHARS) -> str:
    text = output.strip()
    return text if len(text) <= limit else text[:limit] + "…"
