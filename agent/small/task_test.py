"""The test a task names, run before the change it asks for and after it.

Told "test_calc.py fails; fix calc.py so it passes", the 0.5B model ran calc.py (which defines a
function and prints nothing), edited it blind, ran calc.py again and chose done: the test was
never run, so neither the model nor the turn's facts knew whether it passed. Where the task
names a test file the workspace has (``agent.small.intent``):
- a change of another file before the test has run this turn is refused with the run to send;
- after a change, a command that exited 0 without running the test (by its name, or pytest) is
  not the task's end: the note gives the test's run to send.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from agent.model.reply import Call
from agent.small.intent import Intent
from agent.small.schema import Held, step_text
from tools.files import workspace_text


def run_of(test: str, workspace: Path) -> dict[str, str]:
    """The bash arguments that run the test: pytest for a file of test functions (run by
    Python, it would define them and exit 0), else Python."""
    pytest = "def test_" in (workspace_text(workspace, test) or "")
    return {"command": f"python3 {'-m pytest -q ' if pytest else ''}{shlex.quote(test)}"}


class TaskTest:
    """One turn's record of its task's test: whether it ran since the last change."""

    def __init__(self, intent: Intent, workspace: Path) -> None:
        self.test, self.workspace = intent.test, workspace
        self.ran = False  # the test ran this turn
        self.changed = False  # a file changed since the test last ran

    def _runs_it(self, call: Call) -> bool:
        command = (call.arguments or {}).get("command")
        if call.name != "bash" or not isinstance(command, str) or self.test is None:
            return False
        return Path(self.test).name in command or "pytest" in command

    def refusal(self, call: Call) -> tuple[str, Held] | None:
        """Why a change of another file before the test first ran is refused, and the step to
        hold the next one to; or None."""
        path = (call.arguments or {}).get("path")
        if self.test is None or call.name not in ("edit", "write") or not isinstance(path, str):
            return None
        if self.ran or Path(path).name == Path(self.test).name:
            return None  # a change of the test itself is asked about elsewhere (test_change)
        run = run_of(self.test, self.workspace)
        why = f"run the test first, to see how it fails. Send: {step_text('bash', run)}"
        return why, ("bash", run)

    def note(self, call: Call, kind: str | None, failed: bool) -> tuple[str, dict[str, str]] | None:
        """After a call: the note that gives the test's run, where the change is not checked
        by it yet, and that run; or None."""
        if self.test is None:
            return None
        if self._runs_it(call):
            self.ran, self.changed = True, False
            return None
        self.changed |= kind == "edit" and not failed
        if call.name != "bash" or failed or not self.changed:
            return None
        run = run_of(self.test, self.workspace)
        return f"\n[This did not run the task's test. Send: {step_text('bash', run)}]", run
