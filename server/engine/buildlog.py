"""The full log of one engine build, and running the build's commands into it."""

from __future__ import annotations

import collections
import ctypes
import os
import re
import signal
import subprocess
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from server.errors import BuildError

TAIL_LINES = 30
_ERROR_LINE = re.compile(r"error|fatal|killed|not found", re.IGNORECASE)
PR_SET_PDEATHSIG = 1


def _dies_with_us() -> Callable[[], None]:
    """A preexec_fn: the child gets SIGTERM when the thread that started it dies, even by
    SIGKILL, and ninja or make stop their compilers on it; no orphan build goes on beside the
    next try in the same work folder."""
    prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up before the fork
    parent = os.getpid()

    def setup() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # we died before prctl took effect
            os._exit(1)

    return setup


class BuildLog:
    """Every command and its output in one file; failures become BuildErrors with its tail."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._file = path.open("w", encoding="utf-8")
        self._tail: collections.deque[str] = collections.deque(maxlen=TAIL_LINES)

    def close(self) -> None:
        self._file.close()

    def note(self, text: str) -> None:
        for line in text.splitlines():
            self._write(line)

    def _write(self, line: str) -> None:
        self._file.write(line + "\n")
        self._file.flush()
        self._tail.append(line)

    def tail(self) -> str:
        return "\n".join(self._tail)

    def failure(self, message: str) -> BuildError:
        """A one-line error naming the last error-looking line; the full log's path ends it."""
        culprit = next((ln.strip() for ln in reversed(self._tail) if _ERROR_LINE.search(ln)), "")
        detail = f" ({culprit[:200]})" if culprit else ""
        return BuildError(f"{message}{detail}; full log: {self.path}", log_tail=self.tail())

    def run(
        self,
        argv: Sequence[str | os.PathLike[str]],
        *,
        what: str,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
        on_line: Callable[[str], None] | None = None,
    ) -> str:
        """Run argv with stdout+stderr into the log; return the output or raise a BuildError."""
        args = [os.fspath(a) for a in argv]
        self._write("$ " + " ".join(args))
        lines: list[str] = []
        try:
            proc = subprocess.Popen(
                args,
                cwd=cwd,
                env=None if env is None else dict(env),
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                text=True,
                errors="replace",
                start_new_session=True,  # so an interrupted build takes its compilers with it
                preexec_fn=_dies_with_us(),
            )
        except FileNotFoundError as exc:
            raise self.failure(f"{what}: {args[0]} not found") from exc
        try:
            assert proc.stdout is not None
            for raw in proc.stdout:
                line = raw.rstrip("\n")
                self._write(line)
                lines.append(line)
                if on_line is not None:
                    on_line(line)
            code = proc.wait()
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait()
        if code != 0:
            raise self.failure(f"{what} failed (exit {code})")
        return "\n".join(lines)
