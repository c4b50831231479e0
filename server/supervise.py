"""Run llama-server as a managed child: start, wait healthy, restart after a crash, stop the group.

`python -m server.supervise --state FILE` is the small detached supervisor that `beecode server up`
leaves behind: it runs one ManagedServer from the recorded launch and exits, stopping its server,
when the state file goes away or it gets SIGTERM. The server dies with it even on SIGKILL
(PR_SET_PDEATHSIG), so no llama-server is ever left that nobody owns.
"""

from __future__ import annotations

import argparse
import atexit
import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

from server.addresses import port_in_use, url_for
from server.client import health, wait_healthy
from server.errors import LaunchError, ServerError
from server.launch import LaunchPlan, prepare_launch
from server.progress import Hooks
from server.state import (
    SUPERVISOR_MODULE,
    RunningServer,
    down,
    explain_failure,
    kill_group,
    known_problem,
    log_path,
    read_record,
    running,
    state_path,
    update_record,
    write_record,
)

__all__ = ["ManagedServer", "RunningServer", "down", "known_problem", "running", "up"]


def _die_with_parent() -> Callable[[], None]:
    """A preexec_fn that makes the child get SIGKILL when the thread that started it dies."""
    libc = ctypes.CDLL(None, use_errno=True)
    parent = os.getpid()
    pr_set_pdeathsig = 1

    def setup() -> None:
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL)
        if os.getppid() != parent:  # the parent died before prctl took effect
            os._exit(1)

    return setup


class ManagedServer:
    """One llama-server child in its own process group, restarted with backoff after a crash.

    Runs once: after stop(), make a new one to start again.
    """

    backoff_s = 1.0
    backoff_max_s = 30.0
    max_restarts = 5  # consecutive crashes; a run that stayed healthy for stable_s resets the count
    stable_s = 60.0

    def __init__(
        self,
        argv: Sequence[str],
        *,
        log_path: Path,
        host: str,
        port: int,
        restart: bool = True,
        on_change: Callable[[ManagedServer, str], None] | None = None,
    ) -> None:
        self.argv = list(argv)
        self.log_path = log_path
        self.host = host
        self.port = port
        self.restart = restart
        self.restarts = 0
        self.failure: str | None = None  # set when the monitor gave up
        self._on_change = on_change
        self._proc: subprocess.Popen[bytes] | None = None
        self._started_at = 0.0
        self._timeout_s = 120.0
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._monitor: threading.Thread | None = None

    @property
    def url(self) -> str:
        return url_for(self.host, self.port)

    @property
    def pid(self) -> int | None:
        proc = self._proc
        return proc.pid if proc is not None and proc.poll() is None else None

    def start(
        self, timeout_s: float = 120.0, progress: Callable[[str], None] | None = None
    ) -> None:
        """Launch and wait until /health answers 200; LaunchError (with the hint) otherwise."""
        if port_in_use(self.host, self.port):
            raise LaunchError(
                f"port {self.port} on {self.host} is already in use; choose another with --port"
            )
        self._timeout_s = timeout_s
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            self._spawn()
        try:
            self._wait_healthy(progress)
        except BaseException:
            self._stopping.set()
            self._kill()
            raise
        atexit.register(self.stop)
        self._changed("healthy")
        if self.restart:
            self._monitor = threading.Thread(
                target=self._watch, name="llama-server-monitor", daemon=True
            )
            self._monitor.start()

    def request_stop(self) -> None:
        """Ask a start or restart in progress to give up (safe from a signal handler)."""
        self._stopping.set()

    def stop(self) -> None:
        """Stop the server's whole process group and the monitor; safe to call twice."""
        self._stopping.set()
        self._kill()
        monitor = self._monitor
        if monitor is not None and monitor is not threading.current_thread():
            monitor.join(timeout=15)
        atexit.unregister(self.stop)

    def _spawn(self) -> None:
        with self.log_path.open("ab") as log:
            self._proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_die_with_parent(),
            )
        self._started_at = time.monotonic()

    def _kill(self) -> None:
        with self._lock:
            if self._proc is not None:
                kill_group(self._proc.pid)
                self._proc.wait()

    def _note(self, text: str) -> None:
        with self.log_path.open("a") as log:
            log.write(f"[beecode] {time.strftime('%H:%M:%S')} {text}\n")

    def _changed(self, what: str) -> None:
        if self._on_change is not None:
            self._on_change(self, what)

    def _wait_healthy(self, progress: Callable[[str], None] | None) -> None:
        proc = self._proc
        assert proc is not None
        deadline = time.monotonic() + self._timeout_s
        announced = False
        while True:
            code = proc.poll()
            if code is not None:
                raise LaunchError(
                    f"llama-server exited with code {code} while starting: "
                    f"{explain_failure(self.log_path)} (log: {self.log_path})"
                )
            status = health(self.url, timeout_s=1.0)
            if status == 200:
                return
            if status == 503 and progress is not None and not announced:
                progress("loading model")
                announced = True
            if self._stopping.is_set():
                raise LaunchError("llama-server start was cancelled")
            if time.monotonic() > deadline:
                raise LaunchError(
                    f"llama-server was not healthy after {self._timeout_s:.0f} s: "
                    f"{explain_failure(self.log_path)} (log: {self.log_path})"
                )
            time.sleep(0.1)

    def _watch(self) -> None:
        crashes = 0
        while not self._stopping.is_set():
            proc = self._proc
            assert proc is not None
            code = proc.wait()
            if self._stopping.is_set():
                return
            crashes = 1 if time.monotonic() - self._started_at > self.stable_s else crashes + 1
            if crashes > self.max_restarts:
                self.failure = (
                    f"llama-server crashed {crashes} times in a row; gave up: "
                    f"{explain_failure(self.log_path)} (log: {self.log_path})"
                )
                self._note(self.failure)
                self._changed("failed")
                return
            delay = min(self.backoff_s * 2 ** (crashes - 1), self.backoff_max_s)
            self._note(f"llama-server exited with code {code}; restarting in {delay:.0f} s")
            self._changed("restarting")
            if self._stopping.wait(delay):
                return
            with self._lock:
                if self._stopping.is_set():
                    return
                self._spawn()
                self.restarts += 1
            try:
                self._wait_healthy(None)
            except LaunchError as exc:
                self._note(str(exc))
                self._kill()
                continue
            self._changed("healthy")


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
    plan = prepare_launch(
        profile_name, host=host, port=port, api_key=api_key, hooks=hooks, pip_args=pip_args
    )
    if port_in_use(plan.host, plan.port):
        raise LaunchError(
            f"port {plan.port} on {plan.host} is already in use; choose another with --port"
        )
    return _start_detached(plan, hooks or Hooks(), timeout_s)


def _launch_record(plan: LaunchPlan, timeout_s: float) -> dict[str, object]:
    argv = plan.argv
    spec = argv[argv.index("--spec-type") + 1] if "--spec-type" in argv else None
    engine = plan.engine
    memory = plan.memory
    return {
        "token": uuid.uuid4().hex,
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
        "api_key_required": "--api-key" in argv,
    }


def _start_detached(plan: LaunchPlan, hooks: Hooks, timeout_s: float) -> RunningServer:
    path, log = state_path(), log_path()
    if log.exists():
        log.replace(log.with_name(log.name + ".1"))
    record = _launch_record(plan, timeout_s)
    write_record(path, record)
    with log.open("ab") as out:
        supervisor = subprocess.Popen(
            [sys.executable, "-m", SUPERVISOR_MODULE, "--state", str(path)],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        return _wait_started(supervisor, hooks, Path(str(record["model"])).name, timeout_s + 30)
    except BaseException:  # failed, timed out or interrupted: leave nothing running
        down()
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


def supervise(path: Path) -> int:
    """The detached supervisor: run the recorded launch until its record goes away or SIGTERM."""
    record = read_record(path)
    if record is None:
        return 1
    token = record["token"]

    def report(server: ManagedServer, status: str) -> None:
        update_record(
            path,
            token,
            status=status,
            server_pid=server.pid,
            restarts=server.restarts,
            error=server.failure,
        )

    server = ManagedServer(
        record["argv"],
        log_path=Path(record["log"]),
        host=record["host"],
        port=int(record["port"]),
        on_change=report,
    )
    stop = threading.Event()

    def on_signal(*_: object) -> None:
        stop.set()
        server.request_stop()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    if not update_record(path, token, supervisor_pid=os.getpid()) or stop.is_set():
        return 1
    try:
        server.start(
            float(record.get("timeout_s", 300)), progress=lambda _: report(server, "loading")
        )
    except ServerError as exc:
        update_record(path, token, status="failed", error=str(exc))
        return 1
    while not stop.wait(0.5):
        if server.failure or (read_record(path) or {}).get("token") != token:
            break
    server.stop()
    return 1 if server.failure else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m server.supervise")
    parser.add_argument("--state", required=True, type=Path, help="the server record to run")
    return supervise(parser.parse_args(argv).state)


if __name__ == "__main__":
    sys.exit(main())
