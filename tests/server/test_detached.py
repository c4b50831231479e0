"""How `server up` starts its supervisor: forked when the caller has one thread (no second Python
start), a fresh `python -m server.process.supervise` when it has more (a fork copies one thread
only). Either way it gives up when `server up` goes without sending the record's token, it is
told from a later process given its pid, and it keeps none of the caller's files open."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from server.engine.build import Engine
from server.health import health
from server.launch.addresses import free_port
from server.process.pids import cmdline, start_ticks
from server.process.state import is_supervisor
from tests.tools.processes import wait_until_dead

ROOT = Path(__file__).parents[2]
# Starts a supervisor as `server up` does, prints how, then goes without sending it the token.
STARTER = """
import os, sys, threading
from pathlib import Path
from server.process.detached import start_supervisor
if sys.argv[2] == "threads":
    threading.Thread(target=threading.Event().wait, daemon=True).start()
supervisor = start_supervisor(Path(sys.argv[1]))
print(supervisor.pid, "forked" if supervisor.process is None else "exec", flush=True)
os._exit(0)
"""


@pytest.mark.parametrize(("threads", "how"), [("one", "forked"), ("threads", "exec")])
def test_the_supervisor_gives_up_when_up_goes_without_a_token(
    tmp_path: Path, threads: str, how: str
) -> None:
    state = tmp_path / "server.json"
    done = subprocess.run(
        [sys.executable, "-c", STARTER, str(state), threads],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    pid, started = done.stdout.split()
    assert started == how
    assert wait_until_dead(int(pid), within_s=60), cmdline(int(pid))
    assert not state.exists()  # it wrote nothing


def test_a_reused_pid_is_not_taken_for_the_supervisor() -> None:
    me = os.getpid()
    assert is_supervisor({"supervisor_pid": me, "supervisor_started": start_ticks(me)})
    ticks = start_ticks(me)
    assert ticks is not None
    assert not is_supervisor({"supervisor_pid": me, "supervisor_started": ticks - 1})
    assert not is_supervisor({"supervisor_pid": me})  # a record from before the start time
    assert not is_supervisor({"supervisor_pid": None, "supervisor_started": ticks})


@pytest.mark.real_server
def test_the_forked_supervisor_holds_none_of_the_clis_files(
    tmp_path: Path, engine: Engine, qwen_path: Path, servers_on: Callable[[int], list[int]]
) -> None:
    env = {
        **os.environ,
        "BEECODE_STATE_DIR": str(tmp_path / "state"),
        "BEECODE_CONFIG_DIR": str(tmp_path / "config"),
    }
    port = free_port()
    read_end, write_end = os.pipe()  # as a caller waiting for the command's end would hold
    try:
        up = subprocess.Popen(
            [sys.executable, "-m", "agent", "server", "up", "--profile", "tiny"]
            + ["--port", str(port)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=(write_end,),
            text=True,
        )
        os.close(write_end)
        out, err = up.communicate(timeout=300)  # its output ends with the command
        assert up.returncode == 0, err
        assert select.select([read_end], [], [], 60)[0], "the pipe is still held open"
        assert os.read(read_end, 1) == b""
        assert health(f"http://127.0.0.1:{port}") == 200
    finally:
        os.close(read_end)
        subprocess.run([sys.executable, "-m", "agent", "server", "down"], env=env, timeout=120)
    assert servers_on(port) == []


@pytest.mark.real_server
@pytest.mark.usefixtures("beecode_dirs")
def test_a_caller_with_threads_gets_a_supervisor_of_its_own(
    engine: Engine, qwen_path: Path, servers_on: Callable[[int], list[int]]
) -> None:
    from server.process.detached import SUPERVISOR_MODULE, up
    from server.process.state import down, running

    hold = threading.Event()
    other = threading.Thread(target=hold.wait)
    other.start()
    port = free_port()
    try:
        server = up("tiny", port=port)
        assert SUPERVISOR_MODULE in cmdline(server.supervisor_pid)
        assert health(server.url) == 200 and running() is not None
    finally:
        down()
        hold.set()
        other.join()
    assert servers_on(port) == [] and running() is None
