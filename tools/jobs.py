"""Background commands for the bash tool: started, read later, stopped, all killed at shutdown.

Each job runs in its own process group (so stopping it stops everything it started) and its
merged output goes to a bounded log (``tools.joblog``) in a private temporary directory; a read
returns what is new.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import weakref
from dataclasses import dataclass, field
from pathlib import Path

from tools.environment import command_env
from tools.joblog import JobLog
from tools.sandbox import sandboxed
from tools.tool import ToolError, ToolResult

# How long a read of an exited job waits for the last of its output to reach the log.
DRAIN_GRACE_S = 1.0


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
    log: JobLog


@dataclass
class _JobTable:
    # Kept apart from BackgroundJobs so the exit-time finalizer holds no reference to its owner.
    jobs: dict[int, Job] = field(default_factory=dict)
    directory: Path | None = None

    def close(self) -> None:
        for job in self.jobs.values():
            kill_group(job.process.pid)
            job.process.wait()
            job.log.close()
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
        read_end, write_end = os.pipe()
        try:
            process = subprocess.Popen(
                sandboxed(["bash", "-c", command], cwd, sandbox),
                cwd=cwd,
                env=command_env() if env is None else env,
                stdin=subprocess.DEVNULL,
                stdout=write_end,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except BaseException:
            os.close(read_end)
            raise
        finally:
            os.close(write_end)  # the child holds its own copy
        log = JobLog(self._table.directory / f"{job_id}.log", read_end)
        self._table.jobs[job_id] = Job(job_id, command, process, log)
        return ToolResult(
            f"started job {job_id} (pid {process.pid}); read it with job={job_id}, action=read",
            meta={"job": job_id, "running": True, "exit_code": None, "timed_out": False},
        )

    def read(self, job_id: int, limit: int) -> ToolResult:
        job = self._job(job_id)
        exit_code = job.process.poll()
        if exit_code is not None:
            job.log.drain(DRAIN_GRACE_S)
        output = job.log.read_new(limit)
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
        job.log.drain(DRAIN_GRACE_S)
        output = job.log.read_new(limit)
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
        job.log.close()

    @staticmethod
    def _result(job: Job, text: str, exit_code: int | None) -> ToolResult:
        running = exit_code is None
        meta = {"job": job.id, "running": running, "exit_code": exit_code, "timed_out": False}
        return ToolResult(text, meta=meta)
