"""beecode SIGKILLed during a turn and during a file write (real subprocesses): the session
resumes with a valid history, no file is ever half-written, and the turn's checkpoint restores
the files."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from agent.checkpoints.store import Checkpoints
from agent.sessions.store import INTERRUPTED, Session
from tests.faults.write_forever import SIZE

HERE = Path(__file__).parent
ROOT = HERE.parents[1]


def spawn(script: str, *args: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, str(HERE / script), *args], env=env, cwd=ROOT)


def wait_for(path: Path, process: subprocess.Popen[bytes], within_s: float = 60.0) -> None:
    deadline = time.monotonic() + within_s
    while not path.exists():
        assert process.poll() is None, "the subprocess ended early"
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


def test_a_turn_killed_mid_command_resumes_and_its_checkpoint_restores(
    ws: Path, tmp_path: Path
) -> None:
    (ws / "kept.txt").write_text("the user's file\n")
    id_file = tmp_path / "session-id"
    process = spawn("killed_turn.py", str(ws), str(id_file))
    try:
        wait_for(ws / "started", process)
    finally:
        process.kill()
        process.wait()
    assert (ws / "made.txt").read_text() == "made by the turn\n" * 1000  # whole, not torn
    assert not (ws / "kept.txt").exists()
    history = Session.open(id_file.read_text()).messages()
    assert [m["role"] for m in history] == ["user", "assistant", "tool", "assistant", "tool"]
    assert history[-1]["content"] == INTERRUPTED
    restored = Checkpoints(ws).undo(1)
    assert restored.label == "write made.txt"
    assert (ws / "kept.txt").read_text() == "the user's file\n"
    assert not (ws / "made.txt").exists() and not (ws / "started").exists()


def test_a_file_write_killed_at_random_moments_is_never_half_written(tmp_path: Path) -> None:
    target = tmp_path / "file.txt"
    target.write_text("A" * SIZE)
    kills = 0
    randomly = random.Random(13)
    while kills < 12:
        process = spawn("write_forever.py", str(target))
        wait_for(target.with_suffix(".count"), process)
        time.sleep(randomly.uniform(0.0, 0.2))  # a random point in some write
        process.send_signal(signal.SIGKILL)
        process.wait()
        target.with_suffix(".count").unlink()
        data = target.read_bytes()
        assert len(data) == SIZE and data in (b"A" * SIZE, b"B" * SIZE)
        kills += 1
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert len(leftovers) <= kills  # a kill may leave its temporary file, never a torn target
