"""Background commands for the bash tool: started, read later, stopped, all killed at shutdown.

Each job runs in its own process group (so stopping it stops everything it started) and writes
its merged output to a file in a private temporary directory; a read returns what is new.
"""

from __future__ import annotations

import codecs
import os
import shutil
import signal
import subprocess
import tempfile
import weakref
from dataclasses import dataclass, field
from pathlib import Path

from tools.environment import command_env
from tools.output import HeadTail
from tools.sandbox import sandboxed
from tools.tool import ToolError, ToolResult

_CHUNK = 1 << 16


def kill_group(pgid: int) -> None:
    """SIGKILL a whole process group; a group that is already gone is fine."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


@dataclass
class Job:
    id: int
    command: str
    process: subprocess.Popen[bytes]
    log: Path
    read_to: int = 0
    # Stateful, so a character split across two reads is decoded whole.
    decoder: codecs.IncrementalDecoder = field(
        default_factory=lambda: codecs.getincrementaldecoder("utf-8")(errors="replace")
    )


@dataclass
class _JobTable:
    # Kept apart from BackgroundJobs so the exit-time finalizer holds no reference to its owner.
    jobs: dict[int, Job] = field(default_factory=dict)
    directory: Path | None = None

    def close(self) -> None:
        for job in self.jobs.values():
            kill_group(job.process.pid)
            job.process.wait()
        self.jobs.clear()
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)
            self.directory = None


class BackgroundJobs:
    def __init__(self) -> None:
        self._table = _JobTable()
        self._next_id = 1
        # Runs on close() or at interpreter exit, whichever comes first.
        self._finalizer = weakref.finalize(self, self._table.close)

    def start(
        self, command: str, cwd: Path, env: dict[str, str] | None = None, sandbox: bool = False
    ) -> ToolResult:
        if self._table.directory is None:
            self._table.directory = Path(tempfile.mkdtemp(prefix="beecode-jobs-"))
        job_id = self._next_id
        self._next_id += 1
        log = self._table.directory / f"{job_id}.log"
        with log.open("wb") as sink:
            process = subprocess.Popen(
                sandboxed(["bash", "-c", command], cwd, sandbox),
                cwd=cwd,
                env=command_env() if env is None else env,
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self._table.jobs[job_id] = Job(job_id, command, process, log)
        return ToolResult(
            f"started job {job_id} (pid {process.pid}); read it with job={job_id}, action=read",
            meta={"job": job_id, "running": True, "exit_code": None, "timed_out": False},
        )

    def read(self, job_id: int, limit: int) -> ToolResult:
        job = self._job(job_id)
        exit_code = job.process.poll()
        output = self._new_output(job, limit)
        if exit_code is None:
            status = f"job {job_id} is running"
        else:
            status = f"job {job_id} exited with code {exit_code}"
            self._forget(job)
        return self._result(job, f"{output}[{status}]", exit_code)

    def stop(self, job_id: int, limit: int) -> ToolResult:
        job = self._job(job_id)
        kill_group(job.process.pid)
        exit_code = job.process.wait()
        output = self._new_output(job, limit)
        self._forget(job)
        return self._result(job, f"{output}[job {job_id} stopped]", exit_code)

    def close(self) -> None:
        self._finalizer()

    def _job(self, job_id: int) -> Job:
        job = self._table.jobs.get(job_id)
        if job is None:
            running = ", ".join(str(known) for known in self._table.jobs) or "none"
            raise ToolError(f"no job {job_id}; jobs: {running}")
        return job

    def _forget(self, job: Job) -> None:
        del self._table.jobs[job.id]
        job.log.unlink(missing_ok=True)

    @staticmethod
    def _new_output(job: Job, limit: int) -> str:
        capped = HeadTail(limit)
        with job.log.open("rb") as log:
            log.seek(job.read_to)
            while chunk := log.read(_CHUNK):
                job.read_to += len(chunk)
                capped.feed(job.decoder.decode(chunk))
        text = capped.text()
        return text if not text or text.endswith("\n") else text + "\n"

    @staticmethod
    def _result(job: Job, text: str, exit_code: int | None) -> ToolResult:
        running = exit_code is None
        meta = {"job": job.id, "running": running, "exit_code": exit_code, "timed_out": False}
        return ToolResult(text, meta=meta)
