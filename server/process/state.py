"""The record of the server `beecode server up` left running, and the processes it owns.

state_dir()/server.json holds the launch (argv, url, profile, engine, models) and what the
detached supervisor reports (its pid, the server's pid, restarts, status). `up` writes it once;
afterwards only the supervisor writes it (atomically), and removing it tells the supervisor to stop.
A token ties a supervisor to its record, so a stale supervisor never touches a newer one.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import time
from pathlib import Path

from server.paths import read_json_object, state_dir, write_json
from server.process.pids import alive, cmdline, kill_group, start_ticks

TYPE_CHECKING = False  # typing's, without importing typing before the spawn (server up)
if TYPE_CHECKING:  # the build's modules are imported where an engine is chosen, not by `up`
    from typing import Any

    from server.engine.cmake_build import BuildOptions
    from server.engine.sources import EngineSource
    from server.process.running_server import RunningServer

STATE_FILE = "server.json"
LOG_FILE = "server.log"
ENGINE_CHOICE = "engine.json"  # which engine `up` uses per backend, set by `server build`


def state_path() -> Path:
    return state_dir() / STATE_FILE


def log_path() -> Path:
    return state_dir() / LOG_FILE


def read_record(path: Path | None = None) -> dict[str, Any] | None:
    return read_json_object(path or state_path())


def write_record(path: Path, record: dict[str, Any]) -> None:
    write_json(path, record, mode=0o600)  # it may hold the server's API key


def update_record(path: Path, token: str, **fields: Any) -> bool:
    """Merge fields into the record if it is still the one with this token; False if it is gone."""
    record = read_record(path)
    if record is None or record.get("token") != token:
        return False
    write_record(path, {**record, **fields})
    return True


# What a bad log line means and what to do about it (llama-server.md §1.8, §6; cpu-rig.md §7, §9).
_KNOWN_PROBLEMS: tuple[tuple[str, str], ...] = (
    (
        r"invalid reduced-logits|fail-closed",
        "DFlash produced invalid drafts (BeeLlama v0.3.x on Ada GPUs): build a newer engine with "
        "`beecode server build --source upstream`, or use the profile's -nospec twin",
    ),
    (
        r"unknown model architecture: '([^']+)'",
        "this engine cannot load architecture '{0}': a 'dflash-draft' drafter needs "
        "BeeLlama <= 0.3, a 'dflash' drafter needs upstream or BeeLlama >= 0.4 "
        "(`beecode server build --source ...`)",
    ),
    (
        r"cudaMalloc failed|out of memory|failed to allocate",
        "the GPU ran out of memory: use a smaller context or quantized cache types, or free VRAM "
        "(`beecode server plan` shows the budget)",
    ),
    (
        r"Unsupported cache type",
        "this engine does not support the requested cache type (turbo types need BeeLlama <= 0.3)",
    ),
    (
        r"target and draft vocabs are not compatible",
        "the draft's vocabulary differs from the target's: use a draft of the same model family",
    ),
    (
        r"layer input tensor is null",
        "the target's architecture cannot host a DFlash drafter in this engine (e.g. qwen2)",
    ),
    (
        r"failed to load (draft )?model|error loading model",
        "the model file could not be loaded: check it with `beecode server fetch`",
    ),
    (
        r"couldn't bind|[Aa]ddress already in use",
        "the port is taken by another process: choose another with --port",
    ),
    (
        r"invalid argument: (\S+)|error: unknown argument: (\S+)",
        "this llama-server does not accept '{0}': check the profile's extra_args against "
        "`llama-server --help`",
    ),
)


def _problem(log_line: str) -> tuple[int, str] | None:
    """(rank, hint) of the first known problem the line shows; a lower rank is more specific."""
    for rank, (pattern, hint) in enumerate(_KNOWN_PROBLEMS):
        found = re.search(pattern, log_line)
        if found:
            return rank, hint.format(*(g for g in found.groups() if g))
    return None


def known_problem(log_line: str) -> str | None:
    """What to do about a known-bad llama-server log line, or None when it is not one."""
    found = _problem(log_line)
    return found[1] if found else None


def log_tail(path: Path, lines: int = 40) -> list[str]:
    try:
        with path.open("rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - 64 * 1024))
            return f.read().decode(errors="replace").splitlines()[-lines:]
    except OSError:
        return []


def explain_failure(path: Path) -> str:
    """The one line that says best why the server failed: the most specific known problem in the
    log's tail (the cause is logged before its generic consequences), else its last error line."""
    tail = log_tail(path)
    problems = [found for line in tail if (found := _problem(line))]
    if problems:
        return min(problems, key=lambda p: p[0])[1]
    for line in reversed(tail):
        if re.search(r"error|failed|abort|assert", line, re.IGNORECASE):
            return line.strip()[:300]
    return tail[-1].strip()[:300] if tail else "no output"


def choose_engine(source: EngineSource, options: BuildOptions) -> None:
    """Make `up` use this engine for its backend (what `beecode server build` does)."""
    from dataclasses import asdict

    choices = _engine_choices()
    choices[options.backend] = {"source": asdict(source), "options": asdict(options)}
    write_json(state_dir() / ENGINE_CHOICE, choices)


def _engine_choices() -> dict[str, Any]:
    return read_json_object(state_dir() / ENGINE_CHOICE) or {}


def chosen_engine(backend: str) -> tuple[EngineSource, BuildOptions] | None:
    from server.engine.cmake_build import BuildOptions
    from server.engine.sources import EngineSource

    choice = _engine_choices().get(backend)
    if not isinstance(choice, dict):
        return None
    try:
        return EngineSource(**choice["source"]), BuildOptions(**choice["options"])
    except (KeyError, TypeError):
        return None


def is_supervisor(record: dict[str, Any]) -> bool:
    """The record's supervisor is alive: the process that wrote its pid and start time into the
    record, not a later one given the same pid. (A forked supervisor has the CLI's command line,
    so that cannot tell.)"""
    pid, started = record.get("supervisor_pid"), record.get("supervisor_started")
    return (
        isinstance(pid, int) and started is not None and alive(pid) and start_ticks(pid) == started
    )


def is_server(pid: int | None, argv: list[str]) -> bool:
    args = cmdline(pid) if alive(pid) and pid else []
    return bool(args) and bool(argv) and args[0] == argv[0]


def running() -> RunningServer | None:
    """The recorded server whose supervisor is still alive, or None."""
    record = read_record()
    if record is None or not is_supervisor(record):
        return None
    from server.process.running_server import RunningServer

    try:
        return RunningServer.from_record(record)
    except (KeyError, TypeError, ValueError):
        return None


def down(wait_s: float = 20.0) -> bool:
    """Stop the recorded supervisor and its server; True when there was something to stop."""
    path = state_path()
    record = read_record(path)
    if record is None:
        return False
    path.unlink(missing_ok=True)  # the supervisor sees its record gone and stops its server
    supervisor = record.get("supervisor_pid")
    was_running = is_supervisor(record)
    if was_running and supervisor:
        with contextlib.suppress(ProcessLookupError):
            os.kill(supervisor, signal.SIGTERM)
        deadline = time.monotonic() + wait_s
        while is_supervisor(record) and time.monotonic() < deadline:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(supervisor, os.WNOHANG)
            time.sleep(0.05)
        if is_supervisor(record):
            kill_group(supervisor, grace_s=0)
    server = record.get("server_pid")
    if is_server(server, list(record.get("argv", []))) and server:
        was_running = True
        kill_group(server)
    return was_running
