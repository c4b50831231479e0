"""A full disk (RLIMIT_FSIZE in a subprocess: writes past it fail as on a full disk) and an
unwritable data dir: a clear error before work is lost, nothing written half."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from agent.events import ToolCallFinished
from agent.model.scripted import call, text
from agent.sessions.store import Session
from tests.scripted import make_agent

HERE = Path(__file__).parent


def test_a_full_disk_mid_turn_stops_it_with_one_line_and_keeps_the_files(ws: Path) -> None:
    (ws / "kept.txt").write_text("kept v1\n")
    env = {**os.environ, "PYTHONPATH": str(HERE.parents[1])}
    done = subprocess.run(
        [sys.executable, str(HERE / "full_disk.py"), str(ws), "200000", "150000"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert result["stop_reason"] == "error"
    assert result["result"].startswith("cannot write ") and "File too large" in result["result"]
    assert "Traceback" not in done.stderr
    # The write fitted and is whole; the edit's record did not fit, so the edit never ran.
    assert (ws / "big.txt").read_text() == "x" * 150000
    assert (ws / "kept.txt").read_text() == "kept v1\n"
    history = Session.open(result["session_id"]).messages()
    assert [m["role"] for m in history] == ["user", "assistant", "tool"]


def test_the_write_tool_on_a_full_disk_leaves_the_old_file(ws: Path) -> None:
    (ws / "a.txt").write_text("old\n")
    script = (
        "import asyncio, resource, signal, sys\n"
        "from pathlib import Path\n"
        "from tools.files import WriteTool\n"
        "from tools.tool import ToolContext\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))\n"
        "args = {'path': 'a.txt', 'content': 'new' * 10000}\n"
        "result = asyncio.run(WriteTool().run(args, ToolContext(Path(sys.argv[1]))))\n"
        "print(result.is_error, result.output)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(HERE.parents[1])}
    done = subprocess.run(
        [sys.executable, "-c", script, str(ws)], env=env, capture_output=True, text=True
    )
    assert done.stdout.startswith("True cannot write a.txt: File too large"), (
        done.stdout + done.stderr
    )
    assert (ws / "a.txt").read_text() == "old\n"
    assert [p.name for p in ws.iterdir()] == ["a.txt"]  # the temporary file was removed


async def test_an_unwritable_checkpoint_store_refuses_the_change(ws: Path, data_dir: Path) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "checkpoints").write_text("not a directory")  # unwritable, even for root
    finished: list[ToolCallFinished] = []
    replies = [call("write", {"path": "a.txt", "content": "x"}), text("ok")]
    agent, _ = make_agent(ws, replies, system="s")
    await agent.run_turn(
        "write", lambda e: finished.append(e) if isinstance(e, ToolCallFinished) else None
    )
    [refused] = finished
    assert (
        refused.is_error
        and "the checkpoint before this change could not be saved" in refused.output
    )
    assert not (ws / "a.txt").exists()


def test_an_unwritable_data_dir_is_a_clear_error_at_start(ws: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the data dir should be")
    env = {**os.environ, "PYTHONPATH": str(HERE.parents[1]), "BEECODE_DATA_DIR": str(blocker)}
    done = subprocess.run(
        [sys.executable, "-m", "agent", "-p", "hi", "--endpoint", "http://127.0.0.1:9"],
        env=env,
        cwd=ws,
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith("beecode: ")
