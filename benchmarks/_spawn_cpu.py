"""startup.py's split at llama-server's spawn: when it came, beecode's CPU before it and after;
the terminal `server up` draws on; the command and environment each checkout runs with.

The spawn's moment comes from spawn_probe/sitecustomize.py, put on the CLI's PYTHONPATH; the
CLI's whole CPU from wait4, the supervisor's from /proc once `server up` has returned.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from _common import BEECODE, isolated_env

from server.process.pids import start_ticks

PROBE = Path(__file__).resolve().parent / "spawn_probe"  # its sitecustomize
# What a user types: the environment's console script (imports agent.cli; no runpy), where the
# checkout is installed; else `python -m agent`.
SCRIPT = Path(sys.executable).with_name("beecode")
COMMAND = [str(SCRIPT)] if SCRIPT.exists() else BEECODE


def tree_env(home: Path, tree: Path) -> dict[str, str]:
    """A checkout's own state, config and compiled modules (the last launch is kept per port:
    two checkouts sharing a state folder would each replace the other's)."""
    env = {**isolated_env(home), "PYTHONPATH": str(tree), "PYTHONPYCACHEPREFIX": str(home / "pyc")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def process_cpu_s(pid: int) -> float | None:
    """CPU seconds of a live process's threads (ns, from schedstat); None where /proc cannot say."""
    total = 0
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            total += int((task / "schedstat").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return total / 1e9


def probed_spawn(probe_log: Path, start_boottime: float) -> float | None:
    """Seconds from ``start_boottime`` to the Popen of llama-server, as the probe saw it."""
    try:
        return (
            float(json.loads(probe_log.read_text().splitlines()[0])["boottime_s"]) - start_boottime
        )
    except (OSError, ValueError, IndexError, KeyError):
        return None


def cpu_split(probe_log: Path, cli_s: float, supervisor_s: float | None) -> dict[str, Any]:
    """beecode's CPU before llama-server's spawn (CLI + supervisor) and from it to the return,
    from the probe's line (benchmarks/spawn_probe); None where the probe wrote none."""
    unknown = {"cpu_before_spawn_s": None, "cpu_while_loading_s": None}
    try:
        at_spawn = json.loads(probe_log.read_text().splitlines()[0])
    except (OSError, ValueError, IndexError):
        return unknown
    if at_spawn["parent_cpu_s"] is None or supervisor_s is None:
        return unknown  # a part left out would make the figure look smaller than it was
    before = at_spawn["parent_cpu_s"] + at_spawn["spawner_cpu_s"]
    return {"cpu_before_spawn_s": before, "cpu_while_loading_s": cli_s + supervisor_s - before}


def cpu_text(run: dict[str, Any]) -> str:
    before, loading = run["cpu_before_spawn_s"], run["cpu_while_loading_s"]
    if before is None:
        return "not probed"
    return f"{before:.3f} s before the spawn, {loading:.3f} s after"


def spawned_after(pid: int, start_boottime: float) -> float | None:
    """Seconds from ``start_boottime`` (CLOCK_BOOTTIME) to the process's start, from /proc
    (10 ms ticks); None where /proc cannot say."""
    ticks = start_ticks(pid)
    return None if ticks is None else ticks / os.sysconf("SC_CLK_TCK") - start_boottime


def drawn(terminal: int) -> str:
    """All a pty's other end got, until every process holding it has closed it."""
    chunks = []
    with contextlib.suppress(OSError):  # EIO: the last holder is gone
        while chunk := os.read(terminal, 65536):
            chunks.append(chunk)
    os.close(terminal)
    return b"".join(chunks).decode(errors="replace")
