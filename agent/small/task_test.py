"""The test a task names, run before the change it asks for and after it.

Told "test_calc.py fails; fix calc.py so it passes", the 0.5B model ran calc.py (which defines a
function and prints nothing), edited it blind, ran calc.py again and chose done: the test was
never run, so neither the model nor the turn's facts knew whether it passed. Where the task
names a test file that fails or is to pass:
- a change of another file before the test has run this turn is refused with the run to send;
- after a change, a command that exited 0 without running the test is not the task's end: the
  note gives the test's run to send;
- where the task says which file to fix ("fix calc.py so it passes"), a change of the test is
  refused with that file's edit to send (the model changed `double(4)` to `double(8)` in the
  test, and sent the same edit again when asked once).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from agent.model.reply import Call
from agent.small.schema import step_text
from agent.small.task_words import TASK_FILE

_TESTS = re.compile(r"\b(?:fail(?:s|ed|ing)?|pass(?:es|ed|ing)?)\b", re.I)


def named_test(task: str, workspace: Path) -> str | None:
    """The test file of the workspace a task says fails or is to pass, or None."""
    if not _TESTS.search(task):
        return None
    for name in TASK_FILE.findall(task):
        base = Path(name).name
        if base.endswith(".py") and (base.startswith("test_") or base.endswith("_test.py")):
            return name if (workspace / name).is_file() else None
    return None


def fixed_file(task: str, test: str | None, workspace: Path) -> str | None:
    """The file of the workspace the task says to fix, other than its test, or None."""
    found = re.search(r"\bfix(?:ing)?\b(.*)", task, re.I)
    for name in TASK_FILE.findall(found.group(1) if found else ""):
        if name != test and (workspace / name).is_file():
            return str(name)
    return None


def test_run(test: str) -> dict[str, str]:
    """The bash arguments that run the test."""
    return {"command": f"python3 {shlex.quote(test)}"}


class TaskTest:
    """One turn's record of its task's test: whether it ran since the last change."""

    def __init__(self, task: str, workspace: Path) -> None:
        self.test = named_test(task, workspace)
        self.fixed = fixed_file(task, self.test, workspace) if self.test else None
        self.ran = False  # the test ran this turn
        self.changed = False  # a file changed since the test last ran

    def refusal(self, call: Call) -> tuple[str, tuple[str, dict[str, str]]] | None:
        """Why a change is refused (of the test, where the task names the file to fix; of
        another file before the test first ran), and the step to hold the next one to (its
        tool, held arguments); or None."""
        path = (call.arguments or {}).get("path")
        if self.test is None or call.name not in ("edit", "write") or not isinstance(path, str):
            return None
        if Path(path).name == Path(self.test).name:
            if self.fixed is None:
                return None  # a change of the test itself is asked about elsewhere (test_change)
            why = f"{path} is the test; the task says to fix {self.fixed}: edit {self.fixed}"
            return why, ("edit", {"path": self.fixed})
        if self.ran:
            return None
        run = test_run(self.test)
        why = f"run the test first, to see how it fails. Send: {step_text('bash', run)}"
        return why, ("bash", run)

    def note(self, call: Call, kind: str | None, failed: bool) -> tuple[str, dict[str, str]] | None:
        """After a call: the note that gives the test's run, where the change is not checked
        by it yet, and that run; or None."""
        if self.test is None:
            return None
        command = (call.arguments or {}).get("command")
        if call.name == "bash" and isinstance(command, str) and Path(self.test).name in command:
            self.ran, self.changed = True, False
            return None
        self.changed |= kind == "edit" and not failed
        if call.name != "bash" or failed or not self.changed:
            return None
        run = test_run(self.test)
        return f"\n[This did not run the task's test. Send: {step_text('bash', run)}]", run
