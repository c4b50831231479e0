"""`beecode server up`: start llama-server in the background, owned by a detached supervisor.

up() starts the supervisor first (forked from this process when it has no other thread, so no
second Python starts; else `python -m server.process.supervise`), plans the launch, writes the
server record and sends the supervisor its token on a pipe; the supervisor starts the server at
once and closes a second pipe when the start is decided, which up() waits on. When the request
and everything the last healthy launch was planned from are unchanged (server.process.last_launch),
that launch is started before planning (the plan begins once the supervisor reports the spawn),
and replaced if the fresh plan differs. Stopping and finding the server are
server.process.state's down() and running().
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from server.cli.progress import Hooks
from server.errors import LaunchError
from server.launch.addresses import check_host, port_in_use, url_for
from server.process.last_launch import last_launch, launch_fields, remember
from server.process.state import (
    down,
    explain_failure,
    log_path,
    read_record,
    running,
    state_path,
    write_record,
)

TYPE_CHECKING = False  # typing's, without importing typing before the spawn (server up)
if TYPE_CHECKING:
    from server.launch.plan import LaunchPlan
    from server.process.running_server import RunningServer

SUPERVISOR_MODULE = "server.process.supervise"


class Supervisor:
    """The supervisor up() started, waiting for its token, and the two pipes' ends kept here."""

    def __init__(self, pid: int, go: int, reports: int, process: subprocess.Popen[bytes] | None):
        self.pid = pid
        self.go = go  # write end: the record's token once it is written; closed without: give up
        self.reports = reports  # read end: "loading" lines, closed when the start is decided
        self.process = process  # None when forked
        self.reaped = False

    def go_ahead(self, token: str) -> None:
        os.write(self.go, token.encode() + b"\n")
        os.close(self.go)
        self.go = -1

    def kill(self) -> None:
        """Kill and reap it; its server, if any, dies with it. Once: its pid may be reused after."""
        if self.reaped:
            return
        self.reaped = True
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        if self.process is not None:
            self.process.wait()
        else:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
        self.close()

    def close(self) -> None:
        for fd in (self.go, self.reports):
            if fd >= 0:
                os.close(fd)
        self.go = self.reports = -1


def start_supervisor(state: Path) -> Supervisor:
    go_read, go_write = os.pipe()
    reports_read, reports_write = os.pipe()
    process = None
    if _only_thread():  # a fork copies just the calling thread: safe only with no other
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # it closes every other fd, these two pipe ends included
            try:
                from server.process.supervise import run_forked

                run_forked(state, go_read, reports_write)
            finally:
                os._exit(1)  # run_forked never returns: only a failed import gets here
    else:
        process = subprocess.Popen(
            [sys.executable, "-m", SUPERVISOR_MODULE, "--state", str(state)]
            + ["--go-fd", str(go_read), "--report-fd", str(reports_write)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(go_read, reports_write),
            start_new_session=True,
        )
        pid = process.pid
    os.close(go_read)
    os.close(reports_write)
    return Supervisor(pid, go_write, reports_read, process)


def _only_thread() -> bool:
    """Whether this process has one thread, counting those Python does not know of."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def known_profile(name: str | None) -> None:
    """ProfileError naming the known profiles when ``name`` is none of them (None: the default)."""
    if name is not None:
        from server.profiles.catalog import get_profile

        get_profile(name)


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
        from server.health import wait_healthy

        if profile_name in (None, current.profile) and port in (None, current.port):
            wait_healthy(current.url, timeout_s)
            return running() or current
        known_profile(profile_name)  # "unknown profile", not "another one runs"
        raise LaunchError(
            f"a server for profile '{current.profile}' already runs at "
            f"{current.url}; stop it first with `beecode server down`"
        )
    check_host(host, api_key)  # an open host needs a key the user chose, not the machine's
    # A key of the user's is not kept in a second file: such a launch is always planned first.
    request = {"profile": profile_name, "host": host, "port": port}
    guess = None if api_key else last_launch(request)
    if guess is not None and port_in_use(guess["host"], guess["port"]):
        guess = None  # planned first, so the error names the port as it always did
    # Started before planning, so its start overlaps the plan: it waits for the token and gives
    # up when it gets none (this command failed, or is gone).
    supervisor = start_supervisor(state_path())
    token = os.urandom(16).hex()
    launched: dict[str, object] | None = None  # the record of the launch started, once it is
    try:
        hooks = hooks or Hooks()
        if guess is not None:
            launched = _go(supervisor, {**guess, "token": token, "started": time.time()}, timeout_s)
            # The plan waits for the spawn (the supervisor's first report): on a busy machine
            select.select([supervisor.reports], [], [], 1.0)  # the two would share a core
        plan = _plan(profile_name, host, port, api_key, hooks, pip_args)
        record = _launch_record(plan, timeout_s, token)
        if launched is not None and launch_fields(launched) != launch_fields(record):
            supervisor = _relaunch(supervisor, launched)  # a wrong guess: start the plan
            launched, record = None, {**record, "token": os.urandom(16).hex()}
        if launched is None:
            if port_in_use(plan.host, plan.port):
                raise LaunchError(
                    f"port {plan.port} on {plan.host} is already in use; choose another with --port"
                )
            launched = _go(supervisor, record, timeout_s)
        started = _wait_started(supervisor, hooks, Path(str(record["model"])).name, timeout_s + 30)
    except BaseException:  # failed, timed out or interrupted: leave nothing running
        if launched is not None:
            down()
        supervisor.kill()  # one that did not take its token (its server dies with it)
        raise
    supervisor.close()
    if api_key is None:
        remember(request, record)
    return started


def _plan(
    profile_name: str | None,
    host: str,
    port: int | None,
    api_key: str | None,
    hooks: Hooks,
    pip_args: Sequence[str],
) -> LaunchPlan:
    # Imported once the supervisor is forked, so its imports (what it runs the server with)
    # and the planner's run on two cores at once.
    from server.launch.machine_key import machine_key_file
    from server.launch.plan import prepare_launch

    return prepare_launch(
        profile_name,
        host=host,
        port=port,
        api_key=api_key,
        # Without a key of the user's, this machine's: other local users cannot drive it.
        api_key_file=None if api_key else machine_key_file(),
        hooks=hooks,
        pip_args=pip_args,
    )


def _go(supervisor: Supervisor, record: dict[str, object], timeout_s: float) -> dict[str, object]:
    """Write the launch's record (the last log kept as server.log.1) and let the supervisor
    start it; the record as written."""
    record = {**record, "timeout_s": timeout_s}
    log = log_path()
    if log.exists():
        log.replace(log.with_name(log.name + ".1"))
    write_record(state_path(), record)
    supervisor.go_ahead(str(record["token"]))  # it starts the server at once
    return record


def _relaunch(supervisor: Supervisor, launched: dict[str, object]) -> Supervisor:
    """Stop the launch started from the last plan; a new supervisor for the fresh one, once the
    old server's port is free again (killed with its supervisor, it may still be exiting)."""
    down()
    supervisor.kill()
    host, port = str(launched["host"]), int(str(launched["port"]))
    deadline = time.monotonic() + 10
    while port_in_use(host, port):
        if time.monotonic() > deadline:
            raise LaunchError(f"the server started from the last plan on port {port} did not stop")
        time.sleep(0.05)
    return start_supervisor(state_path())


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


def _wait_started(
    supervisor: Supervisor, hooks: Hooks, model: str, timeout_s: float
) -> RunningServer:
    """Follow the supervisor's reports until the start is decided; LaunchError if it failed."""
    deadline = time.monotonic() + timeout_s
    announced = False
    while (left := deadline - time.monotonic()) > 0:
        if not select.select([supervisor.reports], [], [], left)[0]:
            continue
        report = os.read(supervisor.reports, 4096)
        if not report:  # closed: decided, or the supervisor is gone
            break
        if b"loading" in report and not announced and hooks.step is not None:
            hooks.step(f"loading {model}")
            announced = True
    current = read_record(state_path()) or {}
    if current.get("status") == "healthy":
        from server.process.running_server import RunningServer

        return RunningServer.from_record(current)
    log = log_path()
    why = f"the server did not come up: {explain_failure(log)} (log: {log})"
    raise LaunchError(str(current.get("error") or why))
