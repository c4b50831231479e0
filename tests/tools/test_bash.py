"""The bash tool against real processes: exit codes, timeouts, cancellation, caps, jobs."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from server.process.pids import alive
from tests.tools.processes import wait_for_file, wait_until_dead
from tools.bash import BashTool
from tools.joblog import LOG_CAP_BYTES, JobLog
from tools.tool import ToolContext

# Writes the pid of a long-running child, then waits on a second one: a process tree to kill.
TREE = "sleep 300 & echo $! > child.pid; sleep 300"


@pytest.fixture
def bash() -> Iterator[BashTool]:
    tool = BashTool()
    yield tool
    tool.close()


async def test_runs_in_workspace_with_merged_output_and_exit_code(
    bash: BashTool, ctx: ToolContext
) -> None:
    result = await bash.run({"command": "pwd; echo oops >&2; exit 3"}, ctx)
    assert result.output == f"{ctx.workspace}\noops\n[exit code 3]"
    assert result.meta == {"exit_code": 3, "timed_out": False}
    assert not result.is_error


async def test_stdin_is_empty(bash: BashTool, ctx: ToolContext) -> None:
    result = await bash.run({"command": "cat; echo after"}, ctx)
    assert result.output == "after\n[exit code 0]"


async def test_no_output_is_said(bash: BashTool, ctx: ToolContext) -> None:
    result = await bash.run({"command": "true"}, ctx)
    assert result.output == "(no output)\n[exit code 0]"


async def test_timeout_kills_the_whole_process_group(bash: BashTool, ctx: ToolContext) -> None:
    result = await bash.run({"command": TREE, "timeout": 1}, ctx)
    assert result.is_error
    assert result.meta["timed_out"] is True
    assert "[timed out after 1s" in result.output
    child = int((ctx.workspace / "child.pid").read_text())
    assert wait_until_dead(child)


async def test_timeout_defaults_to_context_and_is_capped_by_maximum(
    bash: BashTool, ctx: ToolContext
) -> None:
    short = replace(ctx, bash_timeout_s=1)
    assert "timed out after 1s" in (await bash.run({"command": "sleep 300"}, short)).output
    capped = replace(ctx, bash_max_timeout_s=1)
    result = await bash.run({"command": "sleep 300", "timeout": 500}, capped)
    assert "timed out after 1s" in result.output


async def test_cancellation_kills_the_group_and_propagates(
    bash: BashTool, ctx: ToolContext
) -> None:
    task = asyncio.create_task(bash.run({"command": TREE}, ctx))
    child = int(await asyncio.to_thread(wait_for_file, ctx.workspace / "child.pid"))
    assert alive(child)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert wait_until_dead(child)


async def test_output_keeps_head_and_tail(bash: BashTool, ctx: ToolContext) -> None:
    small = replace(ctx, max_output_chars=200)
    result = await bash.run({"command": "seq 1 10000"}, small)
    full = "".join(f"{n}\n" for n in range(1, 10001))
    capped = re.fullmatch(
        r"(.*)\n\.\.\. \[(\d+) chars omitted\] \.\.\.\n(.*)\n\[exit code 0\]",
        result.output,
        re.DOTALL,
    )
    assert capped is not None, result.output
    head, omitted, tail = capped[1], int(capped[2]), capped[3]
    assert full.startswith(head) and head.startswith("1\n2\n3\n")
    assert full.endswith(tail + "\n") and tail.endswith("9999\n10000")
    assert len(head) + omitted + len(tail) + 1 == len(full)
    assert len(result.output) <= 200 + len("\n[exit code 0]")


async def test_processes_left_holding_the_output_are_stopped(
    bash: BashTool, ctx: ToolContext
) -> None:
    result = await bash.run({"command": "sleep 300 & echo $! > child.pid; echo done"}, ctx)
    assert result.output.startswith("done\n[stopped processes the command left running")
    assert result.meta == {"exit_code": 0, "timed_out": False}
    assert wait_until_dead(int((ctx.workspace / "child.pid").read_text()))


async def test_background_job_start_read_and_finish(bash: BashTool, ctx: ToolContext) -> None:
    started = await bash.run(
        {"command": "echo one; until [ -e go ]; do sleep 0.05; done; echo two", "background": True},
        ctx,
    )
    assert started.output.startswith("started job 1 ")
    assert started.meta["running"] is True
    await asyncio.to_thread(wait_for_log_line, bash, 1)
    first = await bash.run({"job": 1, "action": "read"}, ctx)
    assert first.output == "one\n[job 1 is running]"
    (ctx.workspace / "go").touch()
    assert bash.jobs._table.jobs[1].process.wait(timeout=10) == 0
    second = await bash.run({"job": 1}, ctx)
    assert second.output == "two\n[job 1 exited with code 0]"
    assert second.meta == {"job": 1, "running": False, "exit_code": 0, "timed_out": False}
    gone = await bash.run({"job": 1}, ctx)
    assert gone.is_error and gone.output == "no job 1; jobs: none"


def wait_for_log_line(bash: BashTool, job_id: int) -> None:
    wait_for_file(bash.jobs._table.jobs[job_id].log.path)


async def test_background_stop_kills_the_group(bash: BashTool, ctx: ToolContext) -> None:
    await bash.run({"command": TREE, "background": True}, ctx)
    child = int(await asyncio.to_thread(wait_for_file, ctx.workspace / "child.pid"))
    stopped = await bash.run({"job": 1, "action": "stop"}, ctx)
    assert stopped.output == "[job 1 stopped]"
    assert wait_until_dead(child)


async def test_close_kills_running_jobs_and_removes_logs(ctx: ToolContext) -> None:
    bash = BashTool()
    await bash.run({"command": TREE, "background": True}, ctx)
    child = int(await asyncio.to_thread(wait_for_file, ctx.workspace / "child.pid"))
    log_dir = bash.jobs._table.directory
    assert log_dir is not None and log_dir.exists()
    bash.close()
    assert wait_until_dead(child)
    assert not Path(log_dir).exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({}, "command is required (or job with action read or stop)"),
        ({"command": "  "}, "command is required (or job with action read or stop)"),
        ({"command": "ls", "timeout": 0}, "timeout must be a positive number of seconds, got 0"),
        ({"command": "ls", "timeout": "5"}, "field 'timeout' must be integer, got string"),
        ({"job": 7, "action": "stop"}, "no job 7; jobs: none"),
        ({"job": 1, "action": "kill"}, "field 'action' must be one of: read, stop; got 'kill'"),
    ],
)
async def test_bad_arguments_are_reported(
    bash: BashTool, ctx: ToolContext, args: dict[str, object], message: str
) -> None:
    result = await bash.run(args, ctx)
    assert result.is_error
    assert result.output == message


async def test_an_endless_background_job_keeps_a_bounded_log(
    bash: BashTool, ctx: ToolContext
) -> None:
    await bash.run({"command": "yes", "background": True}, ctx)
    log = bash.jobs._table.jobs[1].log
    # Far past the cap: the log was cut at least twice by the time this much was written.
    written = await asyncio.to_thread(wait_for_cuts, log, 3 * LOG_CAP_BYTES)
    assert log.size() <= LOG_CAP_BYTES + (1 << 16)
    first = await bash.run({"job": 1}, ctx)
    assert (
        first.output.startswith("[")
        and "bytes of output were cut from the log here]" in first.output
    )
    assert first.output.endswith("y\n[job 1 is running]")
    assert len(first.output) <= ctx.max_output_chars + 100
    stopped = await bash.run({"job": 1, "action": "stop"}, ctx)
    assert stopped.output.endswith("[job 1 stopped]") and written > 3 * LOG_CAP_BYTES


def wait_for_cuts(log: JobLog, total: int, within_s: float = 60.0) -> int:
    deadline = time.monotonic() + within_s
    while log.cut + log.size() < total:
        assert time.monotonic() < deadline, "yes wrote too little"
        time.sleep(0.02)
    return log.cut + log.size()
