"""Startup: `beecode server up` against starting llama-server by hand with the same arguments.

Both with the engine build and the model already cached. For `server up` the clock runs from the
command's start to the first 200 on /health (polled from here, beside the command) and to the
command's return; by hand it runs from Popen of the recorded argv to the first 200. Runs
alternate, so both see the same page cache. Target: `server up` adds little over the bare launch.

    python benchmarks/startup.py [--reps 3] [--profile tiny] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from _common import (
    BEECODE,
    fmt_ratio,
    header,
    isolated_env,
    main_guard,
    ratio,
    save,
    scratch,
)

from server.client import health
from server.launch import free_port
from server.supervise import kill_group

POLL_S = 0.01


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
    start = time.monotonic()
    poller = threading.Thread(target=first_ok, args=(url, start, stop, found), daemon=True)
    poller.start()
    done = subprocess.run([*BEECODE, "server", "up", "--profile", profile, "--port", str(port)],
                          env=env, capture_output=True, text=True)
    returned = time.monotonic() - start
    poller.join(timeout=5)
    stop.set()
    record = json.loads((state / "server.json").read_text()) if done.returncode == 0 else None
    subprocess.run([*BEECODE, "server", "down"], env=env, capture_output=True, text=True)
    if record is None:
        raise RuntimeError(f"beecode server up failed: {done.stderr.strip()[-300:]}")
    return {"health_s": found[0] if found else returned, "returned_s": returned,
            "argv": record["argv"]}


def by_hand(argv: list[str], log: Path) -> float:
    url = f"http://127.0.0.1:{argv[argv.index('--port') + 1]}"
    with log.open("ab") as out:
        start = time.monotonic()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            while health(url, timeout_s=0.5) != 200:
                if proc.poll() is not None:
                    raise RuntimeError(f"llama-server exited with {proc.returncode} (log: {log})")
                time.sleep(POLL_S)
            return time.monotonic() - start
        finally:
            kill_group(proc.pid)
            proc.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--profile", default="tiny")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args()
    info = header("startup")

    def go() -> int:
        up_health, up_return, hand = [], [], []
        with scratch("startup") as home:
            env = isolated_env(home)
            for rep in range(args.reps):
                port = free_port()
                run = via_server_up(args.profile, port, env, home / "state")
                hand.append(by_hand(run["argv"], home / "by-hand.log"))
                up_health.append(run["health_s"])
                up_return.append(run["returned_s"])
                print(f"  rep {rep + 1}: server up healthy {run['health_s']:.2f} s, returned "
                      f"{run['returned_s']:.2f} s; by hand healthy {hand[-1]:.2f} s")
        medians = {name: statistics.median(values) for name, values in
                   (("server_up_health_s", up_health), ("server_up_returned_s", up_return),
                    ("by_hand_health_s", hand))}
        print(f"{args.profile}: server up to /health {medians['server_up_health_s']:.2f} s "
              f"(returns {medians['server_up_returned_s']:.2f} s), by hand "
              f"{medians['by_hand_health_s']:.2f} s (medians of {args.reps})")
        print("server up / by hand: "
              f"{fmt_ratio(ratio(medians['server_up_health_s'], medians['by_hand_health_s']))}"
              f" to /health, "
              f"{fmt_ratio(ratio(medians['server_up_returned_s'], medians['by_hand_health_s']))}"
              " to return")
        save({**info, "profile": args.profile, "server_up_health_s": up_health,
              "server_up_returned_s": up_return, "by_hand_health_s": hand, **medians}, args.out)
        return 0

    return main_guard(go)


if __name__ == "__main__":
    sys.exit(main())
