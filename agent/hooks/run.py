"""Running one hook command: the event's JSON on stdin, the workspace as cwd, a time limit.

The command runs through the shell (as Claude Code runs it) in a process group of its own, with
the user's environment and ``CLAUDE_PROJECT_DIR`` and ``BEECODE_PROJECT_DIR`` set to the
workspace. Its output is read to a bound (the rest drained and dropped), and past its timeout
the whole group is killed. Nothing here raises for the hook's sake: a hook that cannot start,
hangs or floods comes back as a ``HookRun`` that says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.hooks.load import HookCommand

MAX_OUTPUT_BYTES = 64_000  # of stdout and of stderr, each
READ_CHUNK = 65_536


@dataclass(frozen=True)
class HookRun:
    hook: HookCommand
    code: int | None  # None: it timed out or could not start (``problem`` says which)
    stdout: str = ""
    stderr: str = ""
    problem: str = ""

    def json(self) -> dict[str, Any] | None:
        """Its stdout as a JSON object, when it is one (read only after exit 0)."""
        text = self.stdout.strip()
        if not text.startswith("{"):
            return None
        try:
            value = json.loads(text)
        except ValueError:
            return None
        return value if isinstance(value, dict) else None


async def run_hook(hook: HookCommand, payload: dict[str, Any], workspace: Path) -> HookRun:
    env = {
        **os.environ,
        "CLAUDE_PROJECT_DIR": str(workspace),
        "BEECODE_PROJECT_DIR": str(workspace),
    }
    try:
        process = await asyncio.create_subprocess_shell(
            hook.command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=workspace,
            env=env,
            start_new_session=True,
        )
    except OSError as error:
        return HookRun(hook, None, problem=f"could not start: {error.strerror or error}")
    data = json.dumps(payload, ensure_ascii=False).encode()
    try:
        stdout, stderr, code = await asyncio.wait_for(_talk(process, data), hook.timeout_s)
    except TimeoutError:
        kill_group(process.pid)
        await process.wait()
        return HookRun(hook, None, problem=f"timed out after {hook.timeout_s:g} s")
    except asyncio.CancelledError:
        kill_group(process.pid)
        raise
    return HookRun(hook, code, stdout, stderr)


async def _talk(process: asyncio.subprocess.Process, data: bytes) -> tuple[str, str, int]:
    assert process.stdin and process.stdout and process.stderr
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        process.stdin.write(data)
        await process.stdin.drain()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        process.stdin.close()
    out, err = await asyncio.gather(_bounded(process.stdout), _bounded(process.stderr))
    return out, err, await process.wait()


async def _bounded(stream: asyncio.StreamReader) -> str:
    """The stream's first ``MAX_OUTPUT_BYTES``, the rest read and dropped (so it never blocks)."""
    kept = bytearray()
    while chunk := await stream.read(READ_CHUNK):
        kept += chunk[: max(0, MAX_OUTPUT_BYTES - len(kept))]
    return kept.decode("utf-8", errors="replace")


def kill_group(pid: int) -> None:
    """Kill the process group ``pid`` leads (a hook's, a notify command's) and all in it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
