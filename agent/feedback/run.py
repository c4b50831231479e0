"""The project's checks after a turn's changes, and what the model is told when they fail.

After a turn that changed files answers, the loop asks ``Feedback.after_turn``: with
``auto_lint`` the lint command runs on the changed files, then the language server's errors
are gathered (``lsp``), then, with ``auto_test`` and nothing failed so far, the tests run.
What failed goes back to the model as the next user message, at most ``check_rounds`` times a
turn; past that the checks still run (the user sees them) but the turn ends.

Every command and the language server are the repository's code, so each is let through as a
bash command would be: the same permission rules (asked for unless allowed; yolo runs it), the
same environment and sandbox (``tools.bash``), and never in plan mode. A check the user denied
is not asked for again this session.
"""

from __future__ import annotations

import time

from agent.config import Config
from agent.events import (
    CheckFinished,
    CheckKind,
    CheckStarted,
    CheckStatus,
    EventSink,
    Notice,
)
from agent.feedback.detect import CheckCommand, checks
from agent.feedback.lsp import LanguageServer, find_server, shown
from agent.feedback.trim import bounded, lint_output, test_output
from agent.permissions.asking import admitted
from agent.permissions.rules import Permissions
from agent.sessions.store import Session
from tools.bash import command_environment, run_command
from tools.sandbox import sandboxed
from tools.tool import ToolContext, ToolError

RAW_OUTPUT_CHARS = 200_000  # read of a check's output before it is cut to what matters


class Feedback:
    def __init__(
        self, config: Config, ctx: ToolContext, permissions: Permissions, session: Session
    ) -> None:
        self.config, self.ctx, self.permissions, self.session = config, ctx, permissions, session
        self.rounds = 0  # failures sent back to the model this turn
        # Checks the user said no to, or "always" to, this session (a lint's line changes with
        # its files, and the rule "always" keeps holds for that line only).
        self._denied: set[str] = set()
        self._always: set[str] = set()
        self._server: LanguageServer | None = None
        self._no_server = False  # none installed, denied, or it failed: not tried again

    def start_turn(self) -> None:
        self.rounds = 0

    async def after_turn(self, files: list[str], emit: EventSink) -> str | None:
        """What the model is told of the checks that failed on ``files`` (the turn's changes),
        or None: none failed, none apply, or this turn's rounds are spent."""
        if not files or self.permissions.mode == "plan":
            return None
        found, results = checks(self.ctx.workspace, self.config), list[CheckFinished]()
        lint, test = found.get("lint"), found.get("test")
        if self.config.auto_lint and lint is not None and lint.applies(files):
            results.append(await self.run(lint, files, emit))
        if self.config.lsp:
            results.append(await self.diagnostics(files, emit))
        if self.config.auto_test and test is not None and not any(map(_bad, results)):
            results.append(await self.run(test, files, emit))
        if not (failed := [r for r in results if _bad(r)]):
            return None
        if self.rounds >= self.config.check_rounds:
            emit(Notice(f"checks still fail after {self.rounds} rounds of fixes", "warning"))
            return None
        self.rounds += 1
        return told(failed, self.rounds, self.config.check_rounds)

    async def run(self, check: CheckCommand, files: list[str], emit: EventSink) -> CheckFinished:
        """Run one lint or test command (asked for first, as bash is) and report it."""
        line = check.for_files(files)
        if (refused := await self._refusal(line, emit, check.line)) is not None:
            return _finished(emit, check.kind, line, "not_run", refused)
        emit(CheckStarted(check.kind, line))
        start = time.monotonic()
        lint = check.kind == "lint"
        timeout = self.config.lint_timeout_s if lint else self.config.test_timeout_s
        env, sandbox = command_environment(self.ctx), self.ctx.sandbox
        try:
            result = await run_command(
                line, self.ctx.workspace, timeout, RAW_OUTPUT_CHARS, env, sandbox
            )
        except ToolError as e:  # the sandbox asked for cannot be had
            return _finished(emit, check.kind, line, "not_run", str(e))
        took, code = time.monotonic() - start, result.meta.get("exit_code")
        if code == 0 and not result.meta.get("timed_out"):
            return _finished(emit, check.kind, line, "passed", "exit 0", "", took)
        output = lint_output(result.output, files) if lint else test_output(result.output)
        if result.meta.get("timed_out"):
            summary = f"timed out after {timeout:g} s"
            return _finished(emit, check.kind, line, "timed_out", summary, output, took)
        return _finished(emit, check.kind, line, "failed", f"exit {code}", output, took)

    async def diagnostics(self, files: list[str], emit: EventSink) -> CheckFinished:
        """The language server's errors on ``files`` ("not_run" where no server applies)."""
        if self._no_server or not any(f.endswith((".py", ".pyi")) for f in files):
            return CheckFinished("lsp", "", "not_run", "no language server for these files")
        if self._server is None:
            workspace = self.ctx.workspace
            argv = find_server(workspace)
            if argv is None:
                self._no_server = True
                return CheckFinished("lsp", "", "not_run", "no language server installed")
            line = shown(argv, workspace)
            if (refused := await self._refusal(line, emit)) is not None:
                self._no_server = True
                return _finished(emit, "lsp", line, "not_run", refused)
            try:
                argv = sandboxed(argv, workspace, self.ctx.sandbox)
            except ToolError as e:
                self._no_server = True
                return _finished(emit, "lsp", line, "not_run", str(e))
            self._server = LanguageServer(argv, workspace, command_environment(self.ctx))
        server, line = self._server, shown(self._server.argv, self.ctx.workspace)
        emit(CheckStarted("lsp", line))
        start = time.monotonic()
        try:
            found = await server.errors(files, self.config.lsp_timeout_s)
        except (OSError, RuntimeError, ValueError) as e:  # it would not start, or died
            self.close()
            self._no_server = True
            return _finished(emit, "lsp", line, "not_run", f"the server failed: {e}")
        took = time.monotonic() - start
        if found is None:
            summary = f"no diagnostics within {self.config.lsp_timeout_s:g} s"
            return _finished(emit, "lsp", line, "timed_out", summary, "", took)
        errors = [e for lines in found.values() for e in lines]
        if not errors:
            return _finished(emit, "lsp", line, "passed", "no errors", "", took)
        summary = f"{len(errors)} error{'s' * (len(errors) != 1)}"
        return _finished(emit, "lsp", line, "failed", summary, bounded(errors), took)

    async def _refusal(self, line: str, emit: EventSink, key: str = "") -> str | None:
        """None when the command may run; else why not (plan mode, a rule, the user). A denial
        holds for the session, for every line of the check ``key`` (whatever files it names)."""
        key = key or line
        if self.permissions.mode == "plan":
            return "plan mode runs no checks"
        if key in self._denied:
            return "denied earlier in this session"
        if (
            key in self._always
            and self.permissions.check("bash", "execute", line, []).verdict != "deny"
        ):
            return None
        allowed, reason, always = await admitted(
            self.permissions, self.session, emit, f"check-{line}", "bash", line, line
        )
        if always:
            self._always.add(key)
        elif not allowed:
            self._denied.add(key)
        return None if allowed else reason

    def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None


def _bad(result: CheckFinished) -> bool:
    """What the model is told of: a failure, and tests that ran past their time (a lint or a
    language server that is slow is no fault of the change)."""
    return result.status == "failed" or (result.status, result.kind) == ("timed_out", "test")


def _finished(
    emit: EventSink,
    kind: CheckKind,
    command: str,
    status: CheckStatus,
    summary: str,
    output: str = "",
    took: float = 0.0,
) -> CheckFinished:
    finished = CheckFinished(kind, command, status, summary, output, took)
    emit(finished)
    return finished


def told(failed: list[CheckFinished], round_: int, rounds: int) -> str:
    """The user message that sends the failures back to the model."""
    parts = [
        f"beecode ran the project's checks on the files you changed, and they failed "
        f"(round {round_} of {rounds}). Fix what they report, then answer again."
    ]
    for result in failed:
        what = "language server errors" if result.kind == "lsp" else f"$ {result.command}"
        parts.append(f"{what} ({result.summary}):\n{result.output or '(no output)'}")
    return "\n\n".join(parts)
