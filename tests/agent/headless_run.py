"""`beecode -p` as a user runs it, in a subprocess, for the real-server tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def headless_json(workspace: Path, url: str, task: str, max_steps: int) -> dict[str, Any]:
    """The `--output-format json` result of one yolo task on the server at ``url``."""
    args = ["-p", task, "--permission-mode", "yolo", "--endpoint", url]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent",
            *args,
            "--output-format",
            "json",
            "--max-steps",
            str(max_steps),
        ],
        cwd=workspace,
        env=os.environ.copy(),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode in (0, 3), done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def beecode(*argv: str, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """`beecode ARGV` in ``cwd`` as a user runs it, with this checkout on the path."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    return subprocess.run(
        [sys.executable, "-m", "agent", *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
