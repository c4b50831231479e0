"""benchmarks/startup.py's probe: the CPU beecode spent when llama-server was spawned.

Python imports this at start when its folder is on PYTHONPATH; it does nothing unless
BEECODE_BENCH_SPAWN_LOG names a file. Its audit hook (inherited by the forked supervisor) sees
the Popen of llama-server and writes one JSON line there: when (CLOCK_BOOTTIME, to the
microsecond, where /proc's start time has 10 ms ticks), the spawning process's own CPU
(getrusage; a forked child starts from zero) and its parent's, the `server up` CLI (schedstat,
ns; the CLI has one thread before the spawn), so the benchmark can split beecode's CPU into
before the spawn and while the server loads.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time

_LOG = os.environ.get("BEECODE_BENCH_SPAWN_LOG")


def _task_cpu_s(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/schedstat") as stats:
            return int(stats.read().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


def _on_event(event: str, args: tuple[object, ...]) -> None:
    if event != "subprocess.Popen" or _LOG is None:
        return
    argv = args[1]
    if not isinstance(argv, list | tuple) or not argv:
        return
    if not os.path.basename(str(argv[0])).startswith("llama-server"):
        return
    usage = resource.getrusage(resource.RUSAGE_SELF)
    line = {
        "boottime_s": time.clock_gettime(time.CLOCK_BOOTTIME),
        "spawner_pid": os.getpid(),
        "spawner_cpu_s": usage.ru_utime + usage.ru_stime,
        "parent_pid": os.getppid(),
        "parent_cpu_s": _task_cpu_s(os.getppid()),
    }
    with open(_LOG, "a") as log:
        log.write(json.dumps(line) + "\n")


if _LOG is not None:
    sys.addaudithook(_on_event)
