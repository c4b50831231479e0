"""Startup: `beecode server up` against llama-server by hand, and the TUI's time to interactive.

Both with the engine build and the model already cached, after one untimed `server up` of each
checkout (what a first start leaves, e.g. the last launch and the compiled modules, is there too),
each with a port and a state folder of its own every time, run as the installed `beecode` command
runs (the console script, not `python -m agent`), drawing on a terminal (a pty), as a user's.
Modules are compiled once, as an install compiles them: into a scratch folder
(PYTHONPYCACHEPREFIX), whatever PYTHONDONTWRITEBYTECODE says here, so neither tree is written to.
For `server up` the clock runs from the command's start to the first 200 on /health (polled from
here, beside the command) and to the command's return; by hand it runs from Popen of the recorded
argv to the first 200. Runs alternate, so both see the same page cache. The moment `server up`
spawned llama-server (the probe's clock at its Popen) splits its time into beecode's own part (the
CLI and the supervisor, before the spawn) and the server's part, which should match the bare
launch; beecode's CPU is split there too (benchmarks/spawn_probe), the figure least distorted by
other load. Target: `server up` adds little over the bare launch. With ``--against TREE`` each
rep also times the `server up` of another checkout (PYTHONPATH=TREE): a change compared in one
run, at one load. With tmux installed, it also starts the TUI (`beecode --endpoint URL`) in a
120x40 tmux pane against the running server and times it until the status line shows the
connected server.

    python benchmarks/startup.py [--reps 3] [--profile tiny] [--no-tui] [--against TREE]
        [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import _spawn_cpu as spawn
from _common import (
    BEECODE,
    ROOT,
    fmt_ratio,
    header,
    main_guard,
    ratio,
    save,
    scratch,
    served,
)

from server.health import health
from server.launch.addresses import free_port
from server.process.pids import kill_group

POLL_S = 0.01
# The status line once the app has the server's context size (it is connected).
TUI_READY = ("ctx 0/", "mode plan")
TUI_TIMEOUT_S = 120.0


def first_ok(url: str, start: float, stop: threading.Event, found: list[float]) -> None:
    while not stop.is_set():
        if health(url, timeout_s=0.5) == 200:
            found.append(time.monotonic() - start)
            return
        time.sleep(POLL_S)


def via_server_up(profile: str, port: int, env: dict[str, str], state: Path) -> dict[str, Any]:
    url = f"http://127.0.0.1:{port}"
    found: list[float] = []
    stop = threading.Event()
    start_boottime = time.clock_gettime(time.CLOCK_BOOTTIME)
    start = time.monotonic()
    poller = threading.Thread(target=first_ok, args=(url, start, stop, found), daemon=True)
    poller.start()
    probe_log = state / "spawn-probe.jsonl"
    probe_log.unlink(missing_ok=True)
    probed = {**env, "BEECODE_BENCH_SPAWN_LOG": str(probe_log)}
    probed["PYTHONPATH"] = os.pathsep.join(filter(None, [env.get("PYTHONPATH"), str(spawn.PROBE)]))
    # Its stderr is a terminal, as a user's is: rich draws the spinner, at what that costs.
    terminal, screen = pty.openpty()
    cli = subprocess.Popen(
        [*spawn.COMMAND, "server", "up", "--profile", profile, "--port", str(port)],
        env=probed,
        cwd=state,  # not a checkout: `python -m` puts its cwd before PYTHONPATH
        stdout=subprocess.DEVNULL,
        stderr=screen,
    )
    os.close(screen)
    stderr = spawn.drawn(terminal)
    _, status, usage = os.wait4(cli.pid, 0)
    cli.returncode = os.waitstatus_to_exitcode(status)
    returned = time.monotonic() - start
    poller.join(timeout=5)
    stop.set()
    record = json.loads((state / "server.json").read_text()) if cli.returncode == 0 else None
    # When llama-server itself started: the time before it is beecode's own (CLI, supervisor).
    # The probe's clock where it wrote one, else /proc's start time (10 ms ticks).
    spawned = spawn.probed_spawn(probe_log, start_boottime)
    if spawned is None and record:
        spawned = spawn.spawned_after(record["server_pid"], start_boottime)
    supervisor_cpu = spawn.process_cpu_s(record["supervisor_pid"]) if record else None
    subprocess.run([*BEECODE, "server", "down"], env=env, cwd=state, capture_output=True)
    if record is None:
        raise RuntimeError(f"beecode server up failed: {stderr.strip()[-300:]}")
    cpu = spawn.cpu_split(probe_log, usage.ru_utime + usage.ru_stime, supervisor_cpu)
    return {
        "health_s": found[0] if found else returned,
        "returned_s": returned,
        "spawned_s": spawned,
        "argv": record["argv"],
        **cpu,
    }


def by_hand(argv: list[str], log: Path) -> float:
    url = f"http://127.0.0.1:{argv[argv.index('--port') + 1]}"
    with log.open("ab") as out:
        start = time.monotonic()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            while health(url, timeout_s=0.5) != 200:
                if proc.poll() is not None:
                    raise RuntimeError(f"llama-server exited with {proc.returncode} (log: {log})")
                time.sleep(POLL_S)
            return time.monotonic() - start
        finally:
            kill_group(proc.pid)
            proc.wait()


def tui_ready(url: str, workspace: Path, env: dict[str, str]) -> float:
    """Seconds from starting `beecode` in a tmux pane to the connected status line."""
    # A socket per run: a tmux server that is still exiting must not meet the next run's session.
    tmux = ["tmux", "-L", f"beecode-bench-{os.getpid()}-{time.monotonic_ns()}"]
    variables = [
        a
        # PYTHONPATH too: the tree under test, not whatever `agent` the venv resolves.
        for k in ("BEECODE_DATA_DIR", "BEECODE_STATE_DIR", "BEECODE_CONFIG_DIR", "PYTHONPATH")
        if k in env
        for a in ("-e", f"{k}={env[k]}")
    ]
    command = f"{' '.join(BEECODE)} --endpoint {url}/v1 --permission-mode plan"
    start = time.monotonic()
    subprocess.run(
        [
            *tmux,
            "new-session",
            "-d",
            "-s",
            "tui",
            "-x",
            "120",
            "-y",
            "40",
            "-c",
            str(workspace),
            *variables,
            "-e",
            "TERM=xterm-256color",
            command,
        ],
        check=True,
    )
    # Without a client terminal tmux may fall back to 80x24; the size must not vary between runs.
    subprocess.run([*tmux, "resize-window", "-t", "tui", "-x", "120", "-y", "40"], check=True)
    screen = ""
    try:
        while time.monotonic() - start < TUI_TIMEOUT_S:
            screen = subprocess.run(
                [*tmux, "capture-pane", "-p", "-t", "tui"], capture_output=True, text=True
            ).stdout
            if all(mark in screen for mark in TUI_READY):
                return time.monotonic() - start
            time.sleep(POLL_S * 2)
        shown = " | ".join(line.strip() for line in screen.splitlines() if line.strip())
        raise RuntimeError(
            f"the TUI showed no connected status line in {TUI_TIMEOUT_S:.0f} s; "
            f"the screen: {shown[-400:]}"
        )
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)


def summary(who: str, runs: list[dict[str, Any]], by_hand_s: float) -> dict[str, Any]:
    """Prints and returns one checkout's medians against the bare launch's."""
    health_s = statistics.median(run["health_s"] for run in runs)
    returned_s = statistics.median(run["returned_s"] for run in runs)
    spawned = [run["spawned_s"] for run in runs if run["spawned_s"] is not None]
    print(
        f"{who}: server up to /health {health_s:.2f} s (returns {returned_s:.2f} s): "
        f"{fmt_ratio(ratio(health_s, by_hand_s))} of by hand to /health, "
        f"{fmt_ratio(ratio(returned_s, by_hand_s))} to return (medians of {len(runs)})"
    )
    own = statistics.median(spawned) if spawned else None
    if own is not None:
        print(
            f"{who}: llama-server spawned after {own:.2f} s (beecode's own part: CLI and "
            f"supervisor); from its spawn to /health {health_s - own:.2f} s against "
            f"{by_hand_s:.2f} s by hand (medians of {len(spawned)})"
        )
    cpu = {
        key: statistics.median(found) if (found := [r[key] for r in runs if r[key] is not None])
        else None
        for key in ("cpu_before_spawn_s", "cpu_while_loading_s")
    }  # fmt: skip
    if None not in cpu.values():
        print(
            f"{who}: beecode's CPU {cpu['cpu_before_spawn_s']:.3f} s before the spawn, "
            f"{cpu['cpu_while_loading_s']:.3f} s from it to the return (CLI and supervisor, "
            f"medians of {len(runs)})"
        )
    return {
        "health_s": [run["health_s"] for run in runs],
        "returned_s": [run["returned_s"] for run in runs],
        "spawned_s": spawned,
        "health_median_s": health_s,
        "returned_median_s": returned_s,
        "spawned_median_s": own,
        **{key: [run[key] for run in runs] for key in cpu},
        **{f"{key}_median": value for key, value in cpu.items()},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--profile", default="tiny")
    parser.add_argument("--no-tui", action="store_true", help="skip the TUI measurement")
    parser.add_argument("--against", type=Path, help="also time this checkout's `server up`")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args()
    info = header("startup")

    def go() -> int:
        runs: dict[str, list[dict[str, Any]]] = {"this": []}
        hand: list[float] = []
        tui: list[float] = []
        with scratch("startup") as home:
            paths = {"this": ROOT} | ({"against": args.against.resolve()} if args.against else {})
            runs |= {who: [] for who in paths}
            trees = {who: spawn.tree_env(home / who, tree) for who, tree in paths.items()}
            # One port per checkout, as a user's `server up` gets the same one every time.
            ports = {who: free_port() for who in trees}
            for who in trees:  # untimed: what a first `server up` leaves cached
                via_server_up(args.profile, ports[who], trees[who], home / who / "state")
            for rep in range(args.reps):
                order = list(trees) if rep % 2 == 0 else list(reversed(trees))
                for who in order:
                    run = via_server_up(args.profile, ports[who], trees[who], home / who / "state")
                    runs[who].append(run)
                    at = run["spawned_s"]
                    print(
                        f"  rep {rep + 1}: {who}: server up healthy {run['health_s']:.2f} s "
                        f"(llama-server spawned at {'?' if at is None else f'{at:.2f}'} s), "
                        f"returned {run['returned_s']:.2f} s; CPU {spawn.cpu_text(run)}"
                    )
                hand.append(by_hand(runs["this"][-1]["argv"], home / "by-hand.log"))
                print(f"  rep {rep + 1}: by hand healthy {hand[-1]:.2f} s")
            if not args.no_tui and shutil.which("tmux"):
                (home / "work").mkdir()
                with served(args.profile, home / "tui-server.log") as (url, _plan):
                    for rep in range(args.reps):
                        tui.append(tui_ready(url, home / "work", trees["this"]))
                        print(f"  rep {rep + 1}: TUI connected after {tui[-1]:.2f} s")
        by_hand_s = statistics.median(hand)
        print(f"{args.profile}: by hand to /health {by_hand_s:.2f} s (median of {args.reps})")
        figures = {who: summary(who, done, by_hand_s) for who, done in runs.items()}
        if tui:
            print(
                f"TUI to connected status line (server already running): "
                f"{statistics.median(tui):.2f} s (median of {len(tui)})"
            )
        else:
            print("TUI: not measured (--no-tui, or tmux is not installed)")
        save(
            {
                **info,
                "profile": args.profile,
                "against": str(args.against) if args.against else None,
                "tui_ready_s": tui,
                "by_hand_health_s": hand,
                "by_hand_median_s": by_hand_s,
                **{f"server_up_{who}": found for who, found in figures.items()},
            },
            args.out,
        )
        return 0

    return main_guard(go)


if __name__ == "__main__":
    sys.exit(main())
