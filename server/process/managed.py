"""One llama-server child process: start, wait healthy, restart after a crash, stop the group.

The child runs in its own process group so stopping it also stops anything it spawned, and it
gets SIGKILL when its parent dies (PR_SET_PDEATHSIG), so no llama-server is ever left that
nobody owns. Its output reaches the log through a pipe, redacted and bounded (tools.redacted_log):
a verbose server logs prompts, and prompts hold what commands printed.
Used in-process by the bench and tests, and by the detached supervisor.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from server.errors import LaunchError
from server.launch.addresses import port_in_use, url_for
from server.process.pids import kill_group
from server.process.state import explain_failure
from tools.redacted_log import RedactedLog

# The log keeps its last MiB past this: enough for any failure's tail, bounded under --verbose.
LOG_LIMIT_BYTES = 4 << 20


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
    # While up, /health is probed: a server that stops answering (hung, not dead) is killed
    # after this many unanswered probes in a row, and the monitor restarts it.
    probe_every_s = 10.0
    probe_misses = 3
    # While starting, /health is asked when the server has printed something (it logs the line
    # saying it is ready as it gets ready), at most every start_poll_s, and at least every
    # start_poll_max_s (for a server that says nothing): every probe costs CPU the load could use.
    start_poll_s = 0.02
    start_poll_max_s = 0.1

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
        self._log: RedactedLog | None = None
        self._started_at = 0.0
        self._timeout_s = 120.0
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._monitor: threading.Thread | None = None
        self._up = threading.Event()  # healthy and not being restarted: probes count

    @property
    def url(self) -> str:
        return url_for(self.host, self.port)

    @property
    def pid(self) -> int | None:
        proc = self._proc
        return proc.pid if proc is not None and proc.poll() is None else None

    def start(
        self,
        timeout_s: float = 120.0,
        progress: Callable[[str], None] | None = None,
        spawned: Callable[[], None] | None = None,
    ) -> None:
        """Launch and wait until /health answers 200; LaunchError (with the hint) otherwise.
        ``spawned`` is called once llama-server's process exists, ``progress`` as it loads."""
        if port_in_use(self.host, self.port):
            raise LaunchError(
                f"port {self.port} on {self.host} is already in use; choose another with --port"
            )
        self._timeout_s = timeout_s
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = RedactedLog(self.log_path, LOG_LIMIT_BYTES, append=True)
        try:
            with self._lock:
                self._spawn()
            if spawned is not None:
                spawned()
            self._wait_healthy(progress)
        except BaseException:
            self._stopping.set()
            self._kill()
            self._log.close()
            raise
        atexit.register(self.stop)
        self._changed("healthy")
        self._up.set()
        if self.restart:
            self._monitor = threading.Thread(
                target=self._watch, name="llama-server-monitor", daemon=True
            )
            self._monitor.start()
            threading.Thread(target=self._probe, name="llama-server-probe", daemon=True).start()

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
        if self._log is not None:
            self._log.close()
        atexit.unregister(self.stop)

    def _spawn(self) -> None:
        assert self._log is not None
        with self._log.pipe() as output:  # closed here once the child has its copy
            self._proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.DEVNULL,
                stdout=output,
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
        assert self._log is not None
        self._log.write(f"[beecode] {time.strftime('%H:%M:%S')} {text}\n")

    def _why_it_died(self) -> str:
        """The log's account of an exited child, once all it printed is copied."""
        assert self._log is not None
        self._log.drain()
        return f"{explain_failure(self.log_path)} (log: {self.log_path})"

    def _changed(self, what: str) -> None:
        if self._on_change is not None:
            self._on_change(self, what)

    def _wait_healthy(self, progress: Callable[[str], None] | None) -> None:
        # Imported once the server is spawned, not before it.
        from server.health import health

        proc, log = self._proc, self._log
        assert proc is not None and log is not None
        deadline = time.monotonic() + self._timeout_s
        announced = False
        while True:
            log.wrote.clear()  # what is printed from here on wakes the next probe
            code = proc.poll()
            if code is not None:
                raise LaunchError(
                    f"llama-server exited with code {code} while starting: {self._why_it_died()}"
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
            time.sleep(self.start_poll_s)
            log.wrote.wait(self.start_poll_max_s - self.start_poll_s)

    def _watch(self) -> None:
        crashes = 0
        while not self._stopping.is_set():
            proc = self._proc
            assert proc is not None
            code = proc.wait()
            self._up.clear()
            if self._stopping.is_set():
                return
            crashes = 1 if time.monotonic() - self._started_at > self.stable_s else crashes + 1
            if crashes > self.max_restarts:
                self.failure = (
                    f"llama-server crashed {crashes} times in a row; gave up: {self._why_it_died()}"
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
            self._up.set()

    def _probe(self) -> None:
        from server.health import health

        misses = 0
        while not self._stopping.wait(self.probe_every_s):
            proc = self._proc
            if not self._up.is_set() or proc is None:
                misses = 0
                continue
            answered = health(self.url, timeout_s=max(self.probe_every_s, 1.0)) is not None
            misses = 0 if answered else misses + 1
            if misses >= self.probe_misses and self._up.is_set() and proc is self._proc:
                self._note(f"llama-server did not answer {misses} health probes; restarting it")
                self._up.clear()
                kill_group(proc.pid)  # the monitor sees it exit and restarts it
                misses = 0
