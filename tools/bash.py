"""The bash tool: a command in the workspace, bounded in time and output, killed as a group.

Each command runs as ``bash -c`` in a new session, so a timeout or a cancelled turn kills
everything it started. Output (stdout and stderr merged) is read through a pipe we own into a
head-and-tail buffer. When the shell exits but something it started still holds the pipe (a
``server &``), that leftover is killed after a short grace: long-running commands belong in
``background`` jobs, which are stopped at shutdown.
"""

from __future__ import annotations

import asyncio
import codecs
import os
from pathlib import Path
from typing import Any

from tools.environment import command_env
from tools.git_safety import command_git_env
from tools.jobs import BackgroundJobs, kill_group
from tools.output import HeadTail
from tools.sandbox import sandboxed
from tools.tool import BOOL, INT, STR, BaseTool, Kind, ToolContext, ToolError, ToolResult, params

LEFTOVER_GRACE_S = 1.0
_CHUNK = 1 << 16


class BashTool(BaseTool):
    name = "bash"
    description = (
        "Run a shell command in the workspace. background=true starts a job; "
        "read or stop it with job and action."
    )
    parameters = params(
        {},
        {
            "command": STR,
            "timeout": INT,
            "background": BOOL,
            "job": INT,
            "action": {"enum": ["read", "stop"]},
        },
    )

    def __init__(self) -> None:
        self.jobs = BackgroundJobs()

    def kind(self, args: dict[str, Any]) -> Kind:
        reading_job = "job" in args and args.get("action", "read") == "read"
        return "read" if reading_job else "execute"

    def subject(self, args: dict[str, Any]) -> str:
        if "job" in args:
            return f"job {args['job']} {args.get('action', 'read')}"
        return str(args.get("command", ""))

    def paths(self, args: dict[str, Any]) -> list[str]:
        return []

    def close(self) -> None:
        self.jobs.close()

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if "job" in args:
            if args.get("action", "read") == "read":
                return self.jobs.read(args["job"], ctx.max_output_chars)
            return self.jobs.stop(args["job"], ctx.max_output_chars)
        command = args.get("command", "")
        if not command.strip():
            raise ToolError("command is required (or job with action read or stop)")
        if args.get("background", False):
            return self.jobs.start(command, ctx.workspace, command_environment(ctx), ctx.sandbox)
        timeout = args.get("timeout", ctx.bash_timeout_s)
        if timeout <= 0:
            raise ToolError(f"timeout must be a positive number of seconds, got {timeout}")
        timeout = min(timeout, ctx.bash_max_timeout_s)
        limit = ctx.max_output_chars
        env = command_environment(ctx)
        return await run_command(command, ctx.workspace, timeout, limit, env, ctx.sandbox)


def command_environment(ctx: ToolContext) -> dict[str, str]:
    """Secrets removed, and git unable to run what a repository's config names (hooks, fsmonitor,
    diff and filter drivers, pagers...) unless the user trusts the workspace."""
    env = command_env(ctx.pass_env)
    return env if ctx.trusted_workspace else env | command_git_env(ctx.workspace, env)


async def run_command(
    command: str,
    cwd: Path,
    timeout: float,
    limit: int,
    env: dict[str, str] | None = None,
    sandbox: bool = False,
) -> ToolResult:
    """``env``: the command's environment (``tools.environment.command_env``); None: scrubbed."""
    output = HeadTail(limit)
    stream = asyncio.StreamReader()
    argv = sandboxed(["bash", "-c", command], cwd, sandbox)
    process, transport = await _spawn(argv, cwd, stream, command_env() if env is None else env)
    pump = asyncio.create_task(_pump(stream, output))
    try:
        try:
            await asyncio.wait_for(process.wait(), timeout)
            timed_out = False
        except TimeoutError:
            timed_out = True
            kill_group(process.pid)
            await process.wait()
        # The shell is gone; whatever still holds the pipe is something it left running.
        done, _ = await asyncio.wait({pump}, timeout=LEFTOVER_GRACE_S)
        leftovers = not done and not timed_out
        if not done:
            kill_group(process.pid)
            await asyncio.wait({pump}, timeout=LEFTOVER_GRACE_S)
    except asyncio.CancelledError:
        kill_group(process.pid)
        await process.wait()
        raise
    finally:
        pump.cancel()
        transport.close()
    exit_code = process.returncode
    assert exit_code is not None
    return ToolResult(
        _render(output.text(), exit_code, timed_out, timeout, leftovers),
        is_error=timed_out,
        meta={"exit_code": exit_code, "timed_out": timed_out},
    )


async def _spawn(
    argv: list[str], cwd: Path, stream: asyncio.StreamReader, env: dict[str, str]
) -> tuple[asyncio.subprocess.Process, asyncio.ReadTransport]:
    """Start the command with its output on a pipe we own, so we can close it at any time."""
    loop = asyncio.get_running_loop()
    read_fd, write_fd = os.pipe()
    try:
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(stream), os.fdopen(read_fd, "rb", 0)
        )
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                cwd=cwd,
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=write_fd,
                stderr=write_fd,
                start_new_session=True,
            )
        except BaseException:
            transport.close()
            raise
    finally:
        # The child holds its own copy; ours must go, or the pipe never reaches end of file.
        os.close(write_fd)
    return process, transport


async def _pump(stream: asyncio.StreamReader, output: HeadTail) -> None:
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    while chunk := await stream.read(_CHUNK):
        output.feed(decoder.decode(chunk))
    output.feed(decoder.decode(b"", final=True))


def _render(text: str, exit_code: int, timed_out: bool, timeout: float, leftovers: bool) -> str:
    lines = [text.rstrip("\n") if text.strip() else "(no output)"]
    if leftovers:
        lines.append("[stopped processes the command left running; use background=true for those]")
    if timed_out:
        lines.append(f"[timed out after {timeout:g}s; the command and its children were killed]")
    else:
        lines.append(f"[exit code {exit_code}]")
    return "\n".join(lines)
