"""A background job run to its end marker, for the tests that check what jobs can see and do."""

from __future__ import annotations

import asyncio

from tools.bash import BashTool
from tools.tool import ToolContext


async def job_output(ctx: ToolContext, command: str, until: str = "END") -> str:
    """Start ``command`` as job 1 and read it until ``until`` shows (polls, never asserts time)."""
    tool = BashTool()
    try:
        started = await tool.run({"command": command, "background": True}, ctx)
        assert not started.is_error, started.output
        output = ""
        for _ in range(400):
            output += (await tool.run({"job": 1, "action": "read"}, ctx)).output
            if until in output:
                break
            await asyncio.sleep(0.05)
    finally:
        tool.close()
    return output
