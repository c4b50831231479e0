"""A file the task asks to run ("create hello.sh that echoes hi, make it executable and run
it") that no command of the turn ran: said once, with the command to send, and first its chmod
where the task makes it executable. The 0.5B model wrote hello.sh, ran `chmod +x hello.sh` and
answered, the run never made; or wrote it, ran `cat hello.sh` and answered.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

from agent.model.reply import Call
from agent.small.command_words import simple_commands
from agent.small.schema import Held, step_text

# "run it", "and execute it", "then run hello.py"
_RUN = re.compile(r"\b(?:run|execute)\s+(it|[\w./-]*\w\.(?:py|sh))\b", re.I)
# A command's first word that reads, lists or changes a file, and does not run it.
_NOT_RUNS = frozenset(
    "chmod cat echo printf ls touch cp mv rm git sed head tail wc grep mkdir test [ file stat"
    " diff less more nano vi".split()
)
_RUNNERS = {".py": "python3", ".sh": "bash"}


class RunLeft:
    def __init__(self, task: str, names: list[str]) -> None:
        found = _RUN.search(task)
        said = found.group(1) if found else ""
        # "run it": the file the task names first (and the only one it makes).
        self.name = (names[0] if names else "") if said.lower() == "it" else said
        if Path(self.name).suffix not in _RUNNERS:
            self.name = ""
        self._executable = bool(re.search(r"\bexecutable\b|\bchmod\b", task, re.I))
        self._ran = False

    def saw(self, call: Call) -> None:
        """A command of the turn: does it run the file?"""
        command = (call.arguments or {}).get("command") if call.name == "bash" else None
        if self.name and isinstance(command, str) and _runs(command, self.name):
            self._ran = True

    def left(self, workspace: Path) -> tuple[str, Held] | None:
        """The note and the held step where the file is there, not run yet, and (where the task
        makes it executable) executable."""
        path = workspace / self.name
        if not self.name or self._ran or not path.is_file():
            return None
        executable = os.access(path, os.X_OK)
        if self._executable and not executable:  # the chmod comes first
            chmod = f"chmod +x {shlex.quote(self.name)}"
            send = step_text("bash", {"command": chmod})
            note = f"\n[{self.name} is not executable yet; the task makes it so. Send: {send}]"
            return note, ("bash", {"command": chmod})
        runner = "" if executable else _RUNNERS[path.suffix] + " "
        command = f"{runner}{'' if runner else './'}{shlex.quote(self.name)}"
        send = step_text("bash", {"command": command})
        return f"\n[{self.name} has not run yet; the task runs it. Send: {send}]", (
            "bash",
            {"command": command},
        )


def _runs(command: str, name: str) -> bool:
    return any(
        name in [w.removeprefix("./") for w in words] and words[0] not in _NOT_RUNS
        for words in simple_commands(command)
    )
