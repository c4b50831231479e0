"""`beecode server up`: start llama-server in the background, owned by a detached supervisor.

up() spawns `python -m server.process.supervise` in its own session (so the server outlives the
command that started it) first, plans the launch while that Python starts and imports, writes the
server record the supervisor waits for, and follows the record until the server is healthy or has
failed. Stopping and finding it are server.process.state's down() and running().
"""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

from server.cli.progress import Hooks
from server.client import wait_healthy
from server.errors import LaunchError
from server.launch.addresses import check_host, port_in_use, url_for
from server.launch.machine_key import machine_key_file
from server.launch.plan import LaunchPlan, prepare_launch
from server.process.state import (
    SUPERVISOR_MODULE,
    RunningServer,
    down,
    explain_failure,
    log_path,
    read_record,
    running,
    state_path,
    write_record,
)


def up(
    profile_name: str | None = None,
    *,
    host: str = "127.0.0.1",
    port: int | None = None,
    api_key: str | None = None,
    hooks: Hooks | None = None,
    pip_args: Sequence[str] = (),
    timeout_s: float = 300.0,
) -> RunningServer:
    """`beecode server up`: reuse the running server, or plan, start it detached, wait healthy."""
    current = running()
    if current is not None:
        if profile_name in (None, current.profile) and port in (None, current.port):
            wait_healthy(current.url, timeout_s)
            return running() or current
        raise LaunchError(
            f"a server for profile '{current.profile}' already runs at "
            f"{current.url}; stop it first with `beecode server down`"
        )
    check_host(host, api_key)  # an open host needs a key the user chose, not the machine's
    token = uuid.uuid4().hex
    # Started before planning, so its Python start and imports overlap the plan (~0.1 s of CPU):
    # it waits for the record carrying this token, and gives up when this command is gone.
    supervisor = subprocess.Popen(
        [sys.executable, "-m", SUPERVISOR_MODULE, "--state", str(state_path()), "--token", token],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        plan = prepare_launch(
            profile_name,
            host=host,
            port=port,
            api_key=api_key,
            # Without a key of the user's, this machine's: other local users cannot drive it.
            api_key_file=None if api_key else machine_key_file(),
            hooks=hooks,
            pip_args=pip_args,
        )
        if port_in_use(plan.host, plan.port):
            raise LaunchError(
                f"port {plan.port} on {plan.host} is already in use; choose another with --port"
            )
    except BaseException:
        supervisor.kill()  # it has not started anything yet: no record carried its token
        supervisor.wait()
        raise
    return _start_detached(plan, hooks or Hooks(), timeout_s, supervisor, token)


def _launch_record(plan: LaunchPlan, timeout_s: float, token: str) -> dict[str, object]:
    argv = plan.argv
    spec = argv[argv.index("--spec-type") + 1] if "--spec-type" in argv else None
    engine = plan.engine
    memory = plan.memory
    return {
        "token": token,
        "profile": plan.profile.name,
        "host": plan.host,
        "port": plan.port,
        "url": url_for(plan.host, plan.port),
        "argv": argv,
        "log": str(log_path()),
        "timeout_s": timeout_s,
        "status": "starting",
        "restarts": 0,
        "supervisor_pid": None,
        "server_pid": None,
        "started": time.time(),
        "engine": None
        if engine is None
        else {
            "kind": engine.source.kind,
            "ref": engine.source.ref,
            "commit": engine.commit,
            "backend": engine.options.backend,
            "binary": str(engine.binary),
        },
        "dialect": {
            "dflash_type": plan.dialect.dflash_type,
            "is_bee": plan.dialect.is_bee,
            "load_mode": plan.dialect.load_mode,
        },
        "model": str(plan.target),
        "draft": None if plan.draft is None else str(plan.draft),
        "ctx": memory.ctx if memory else plan.profile.ctx,
        "cache_types": [memory.cache_type_k, memory.cache_type_v] if memory else None,
        "spec_type": spec,
        "api_key_required": "--api-key" in argv or "--api-key-file" in argv,
    }


def _start_detached(
    plan: LaunchPlan,
    hooks: Hooks,
    timeout_s: float,
    supervisor: subprocess.Popen[bytes],
    token: str,
) -> RunningServer:
    path, log = state_path(), log_path()
    if log.exists():
        log.replace(log.with_name(log.name + ".1"))
    record = _launch_record(plan, timeout_s, token)
    try:
        write_record(path, record)  # the supervisor starts the server once it reads this
        return _wait_started(supervisor, hooks, Path(str(record["model"])).name, timeout_s + 30)
    except BaseException:  # failed, timed out or interrupted: leave nothing running
        down()
        supervisor.kill()  # one still waiting for the record (its server dies with it)
        supervisor.wait()
        raise


def _wait_started(
    supervisor: subprocess.Popen[bytes], hooks: Hooks, model: str, timeout_s: float
) -> RunningServer:
    """Follow the supervisor's reports until the server is healthy; LaunchError if it fails."""
    deadline = time.monotonic() + timeout_s
    announced = False
    while True:
        current = read_record(state_path()) or {}
        status = current.get("status")
        if status == "healthy":
            return RunningServer.from_record(current)
        if status == "loading" and not announced and hooks.step is not None:
            hooks.step(f"loading {model}")
            announced = True
        if status == "failed" or supervisor.poll() is not None or time.monotonic() > deadline:
            log = log_path()
            why = f"the server did not come up: {explain_failure(log)} (log: {log})"
            raise LaunchError(str(current.get("error") or why))
        time.sleep(0.1)
