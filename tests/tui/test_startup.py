"""The TUI starts fast: the path from `beecode` to the first screen loads no heavy modules (the
agent, openai and the server code load in a thread once the prompt is on screen)."""

from __future__ import annotations

import subprocess
import sys

HEAVY = (
    "openai",
    "httpx",
    "mcp",
    "tiktoken",
    "agent.runtime.assemble",
    "agent.runtime.served",
    "agent.loop.agent",
    "server.process.supervise",
    "server.process.detached",
    "server.bench.stats",
)


def test_cli_and_app_modules_load_nothing_heavy() -> None:
    code = (
        "import sys, agent.cli, agent.tui.app, agent.runtime;"
        f"print([m for m in {HEAVY!r} if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
