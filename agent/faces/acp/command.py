"""``beecode acp [--endpoint URL] [--profile NAME] [--permission-mode MODE] [--tool-mode M]``:
serve ACP on stdin and stdout until the editor closes stdin.

stdout carries the protocol and nothing else: the process's own file descriptor 1 is pointed
at stderr before anything runs, so no print, log line or child process can write into it; the
protocol goes out on a copy of the original."""

from __future__ import annotations

import argparse
import asyncio
import os
import stat
import sys
from typing import IO, Any, cast

from acp import Agent, run_agent


def _parser() -> argparse.ArgumentParser:
    from agent.permissions.rules import MODES

    parser = argparse.ArgumentParser(
        prog="beecode acp", description="Serve the Agent Client Protocol on stdio (for editors)."
    )
    parser.add_argument("--endpoint", metavar="URL", help="an OpenAI-compatible server to use")
    parser.add_argument("--profile", metavar="NAME", help="the managed server profile")
    parser.add_argument("--permission-mode", choices=MODES, help="each session's first mode")
    parser.add_argument("--tool-mode", choices=("auto", "native", "constrained"))
    return parser


def main(args: list[str]) -> int:
    try:
        options = _parser().parse_args(args)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    if not all(map(_streamable, (sys.stdin, sys.stdout))):
        print("beecode acp: stdin and stdout must be pipes (an editor starts it)", file=sys.stderr)
        return 2
    protocol = _own_stdout()
    flags = {
        "endpoint": options.endpoint,
        "profile": options.profile,
        "permission_mode": options.permission_mode,
        "tool_mode": options.tool_mode,
    }
    asyncio.run(_serve(flags, protocol))
    return 0


def _streamable(stream: IO[str]) -> bool:
    """A pipe, socket or terminal: what asyncio streams (a regular file is not)."""
    mode = os.fstat(stream.fileno()).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


def _own_stdout() -> IO[bytes]:
    """The protocol's stream: a copy of stdout; stdout itself becomes stderr."""
    protocol = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    return protocol


async def _serve(flags: dict[str, Any], protocol: IO[bytes]) -> None:
    from agent.faces.acp.agent import BeecodeAgent

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=50 * 1024 * 1024)  # the SDK's own stdio limit
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, flow = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, protocol)
    writer = asyncio.StreamWriter(transport, flow, None, loop)
    agent = BeecodeAgent(flags)
    try:
        # The SDK answers the methods beecode does not have (fork, list, ...) as unknown.
        await run_agent(cast(Agent, agent), writer, reader)
    finally:
        await asyncio.to_thread(agent.close)
