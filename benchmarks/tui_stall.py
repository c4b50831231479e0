"""TUI stalls: the longest the app's event loop goes without running during a turn that edits.

The agent's turn makes the workspace's checkpoint (a shadow git snapshot) before its first
change and reads the turn's facts from it at the end, synchronously; on the app's loop the
screen froze that long (keys unread, nothing drawn). The real ``BeeApp`` runs headless on the
real runtime with only the model scripted (read a file, edit it, answer), in a git repository
of ``--files`` files; a task on the app's loop ticks every 2 ms and its longest gap is reported.

    python benchmarks/tui_stall.py [--files 3000] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

from _common import header, isolated_env, main_guard, scratch

from agent.config import Config
from agent.model.scripted import call
from agent.tui.app import BeeApp
from tests.factory import ENDPOINT, ScriptedRuntime, answer  # the real runtime, model scripted

TICK_S = 0.002


def repository(workspace: Path, files: int) -> None:
    for number in range(files):
        folder = workspace / f"d{number % 50}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{number}.py").write_text(f"x_{number} = {number}\n" * 40)
    (workspace / "app.py").write_text("x = 1\n")
    commit = "git init -q && git add -A && git -c user.email=b@e -c user.name=b commit -qm init"
    subprocess.run(commit, shell=True, cwd=workspace, check=True)


async def one_turn(workspace: Path, home: Path) -> tuple[float, float]:
    """(the turn's seconds, the loop's longest gap in seconds)."""
    edit = call("edit", {"path": "app.py", "old": "x = 1", "new": "x = 2"})
    script = [call("read", {"path": "app.py"}), edit, answer("done")]
    config = Config(endpoint=ENDPOINT, permission_mode="auto-edit")
    runtime = ScriptedRuntime(workspace, script, config)
    app = BeeApp(runtime, history_path=home / "history.jsonl")
    gaps: list[float] = []
    try:
        async with app.run_test(size=(100, 30), headless=True) as pilot:
            while app.core is None:
                await pilot.pause()
            done = asyncio.Event()

            async def tick() -> None:
                last = time.perf_counter()
                while not done.is_set():
                    await asyncio.sleep(TICK_S)
                    now = time.perf_counter()
                    gaps.append(now - last)
                    last = now

            ticker = asyncio.create_task(tick())
            start = time.perf_counter()
            await app.main.start_turn("bump x")
            while app.main.turns_finished < 1:
                await asyncio.sleep(0.005)
            took = time.perf_counter() - start
            done.set()
            await ticker
    finally:
        runtime.shutdown()
    if (workspace / "app.py").read_text() != "x = 2\n":
        raise RuntimeError("the scripted edit did not happen")
    return took, max(gaps)


def run(args: argparse.Namespace) -> int:
    header("tui_stall")
    for number in range(1, args.runs + 1):
        with scratch("stall") as home:
            os.environ.update(isolated_env(home))  # sessions and checkpoints in the scratch
            workspace = home / "work"
            repository(workspace, args.files)
            took, longest = asyncio.run(one_turn(workspace, home))
        print(
            f"run {number}: turn {took * 1000:.0f} ms in a repository of {args.files} files · "
            f"longest stall of the app's loop {longest * 1000:.0f} ms"
        )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    return main_guard(lambda: run(args))


if __name__ == "__main__":
    sys.exit(main())
