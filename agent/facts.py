"""What a turn did, as beecode computed it (``agent.loop.record``), never the model's words: the
files created, changed and deleted, each command with its exit status, failed steps not
recovered, and where the answer contradicts them. Plain data, below the model layer and the
loop, so both and every face can carry it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class CommandRun:
    command: str
    exit_code: int | None  # None: it did not run (refused) or still runs
    output: str  # its start, as the model saw it


@dataclass(frozen=True)
class TurnFacts:
    created: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    commands: list[CommandRun] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)  # unrecovered failed steps, one line each
    doubts: list[str] = field(default_factory=list)  # where the answer contradicts these facts
    # The model's report when it was left out of the answer for its doubts (a small model's).
    withheld: str = ""

    @property
    def files(self) -> list[str]:
        return [*self.created, *self.changed, *self.deleted]

    def lines(self) -> list[str]:
        """The facts in plain lines, for a face to show as beecode's (a turn that only talked or
        read has none)."""
        shown = [
            f"{verb} {', '.join(paths)}"
            for verb, paths in (
                ("created", self.created),
                ("changed", self.changed),
                ("deleted", self.deleted),
            )
            if paths
        ]
        for run in self.commands:
            status = "not run" if run.exit_code is None else f"exit {run.exit_code}"
            shown.append(f"ran `{run.command[:120]}` ({status})")
        shown += [f"failed: {line}" for line in self.failed]
        shown += self.doubts
        return shown
