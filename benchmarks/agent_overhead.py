"""Agent overhead: decode tok/s the user sees, headless and in the TUI, against the server's own.

For each task, against the `tiny` server (`--tool-mode native`: the small model's constrained
steps stream JSON, not text), three clients ask in turn:
- headless: `beecode -p TASK --output-format stream-json --max-steps 1`; every text delta is
  timestamped as it arrives on the pipe;
- TUI: the real Textual app, headless at 120x40 (`_tui_turn.py`); the reply is seen when a frame
  is written after the Markdown widget took it in (its window counts the tokens after the first
  frame with text, which may show several);
- a bare streaming HTTP client, so the agent's share of any gap is visible.
Against `tiny`, the user's rate is (predicted_n - 1) / (last seen - first seen), the same decode
steps the server counts for timings.predicted_per_second over the user's own window. Against
the paced stand-in (`--paced`), whose send times are on this machine's monotonic clock, every
turn is judged over the server's window instead: the user's rate is the tokens sent after the
first over the time from the first token sent to the last token seen, so the ratio is (last sent
- first sent) / (last seen - first sent), and the end lag (last seen - last sent) is reported
beside it. Target: agent/server >= 0.98 for both faces, in every turn.

    python benchmarks/agent_overhead.py [--tasks N] [--reps N] [--max-tokens N] [--no-tui]
                                        [--out FILE] [--paced TOK_S]

The tiny model decodes a few tok/s here, where no client falls behind. `--paced 2000` swaps the
server for `_paced_server.py`, which streams a canned answer at that rate and reports its own
send rate as predicted_per_second: the overhead at the rates a GPU reaches.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
from _common import (
    BEECODE,
    ROOT,
    agent_workspace,
    fmt_ratio,
    header,
    isolated_env,
    main_guard,
    save,
    scratch,
    served,
)
from _paced_server import paced

from server.client import Timings

TASKS = (
    "Without using any tool, write a Python function that checks whether a string is a "
    "palindrome, with a docstring and three doctest examples.",
    "Without using any tool, write a Python class Stack with push, pop, peek and is_empty, "
    "then show a short usage example.",
    "Without using any tool, explain in a few paragraphs how a hash map handles collisions.",
)
TARGET = 0.98


def user_rate(stamps: list[float], predicted_n: int) -> float | None:
    """Decode steps over the window between the first and the last delta the user saw."""
    if len(stamps) < 2 or predicted_n < 2 or stamps[-1] <= stamps[0]:
        return None
    return (predicted_n - 1) / (stamps[-1] - stamps[0])


def via_agent(task: str, url: str, workspace: Path, env: dict[str, str]) -> dict[str, Any]:
    """One headless turn; the deltas' arrival times and the server's stats from step_stats."""
    argv = [
        *BEECODE,
        "-p",
        task,
        "--output-format",
        "stream-json",
        "--max-steps",
        "1",
        "--permission-mode",
        "plan",
        "--tool-mode",
        "native",
        "--endpoint",
        f"{url}/v1",
    ]
    stamps: list[float] = []
    stats: dict[str, Any] | None = None
    with subprocess.Popen(
        argv, cwd=workspace, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            now = time.monotonic()
            event = json.loads(line)
            if event["type"] in ("text_delta", "reasoning_delta") and event["text"]:
                stamps.append(now)
            elif event["type"] == "step_stats" and stats is None:
                stats = event["stats"]
        err = proc.stderr.read() if proc.stderr else ""
    if proc.returncode not in (0, 3) or stats is None:
        raise RuntimeError(f"beecode -p exited {proc.returncode} without stats: {err[-300:]}")
    server = float(stats["decode_tok_s"])
    return {
        "deltas": len(stamps),
        "predicted_n": stats["predicted_n"],
        "server_tok_s": server,
        "user_tok_s": user_rate(stamps, int(stats["predicted_n"])),
        "last_seen": stamps[-1] if stamps else None,
    }


def via_tui(task: str, url: str, workspace: Path, env: dict[str, str]) -> dict[str, Any]:
    """One turn in the real TUI (headless Textual) in its own process, like `beecode` itself."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "_tui_turn.py"), url, task],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    if done.returncode != 0 or not done.stdout.strip():
        raise RuntimeError(f"the TUI turn exited {done.returncode}: {done.stderr.strip()[-300:]}")
    turn = json.loads(done.stdout.splitlines()[-1])
    stats, first, last = turn["stats"], turn["first_seen"], turn["last_seen"]
    predicted = int(stats["predicted_n"])
    # The first frame may show several tokens at once: the window counts the tokens after it.
    steps = predicted - turn["first_tokens"]
    user = steps / (last - first) if first is not None and last and last > first else None
    return {
        "deltas": turn["deltas"],
        "predicted_n": predicted,
        "server_tok_s": float(stats["decode_tok_s"]),
        "user_tok_s": user,
        "last_seen": last,
    }


def via_http(task: str, url: str, max_tokens: int) -> dict[str, Any]:
    """The same request from a bare SSE client: what any client could see."""
    body = {
        "messages": [{"role": "user", "content": task}],
        "max_tokens": max_tokens,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    stamps: list[float] = []
    timings: Timings | None = None
    with httpx.stream("POST", f"{url}/v1/chat/completions", json=body, timeout=600) as reply:
        for line in reply.iter_lines():
            now = time.monotonic()
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            chunk = json.loads(line[6:])
            choices = chunk.get("choices") or []
            if choices and (choices[0].get("delta") or {}).get("content"):
                stamps.append(now)
            if "timings" in chunk:
                timings = Timings.from_json(chunk["timings"])
    if timings is None:
        raise RuntimeError("the stream ended without timings")
    return {
        "deltas": len(stamps),
        "predicted_n": timings.predicted_n,
        "server_tok_s": timings.predicted_per_second,
        "user_tok_s": user_rate(stamps, timings.predicted_n),
        "last_seen": stamps[-1] if stamps else None,
    }


def over_the_send_window(run: dict[str, Any], sent: dict[str, float]) -> dict[str, Any]:
    """The turn judged over the paced server's own window (its send times, this clock): the
    tokens after the first, over the time from the first sent to the last seen."""
    first, last, seen = sent["first_sent"], sent["last_sent"], run["last_seen"]
    if seen is None or seen <= first:
        return {**run, "user_tok_s": None, "end_lag_ms": None}
    return {
        **run,
        "user_tok_s": (sent["tokens"] - 1) / (seen - first),
        "end_lag_ms": (seen - last) * 1000,
    }


def ratios(runs: list[dict[str, Any]]) -> list[float]:
    return [
        r["user_tok_s"] / r["server_tok_s"] for r in runs if r["user_tok_s"] and r["server_tok_s"]
    ]


def run_line(name: str, run: dict[str, Any]) -> str:
    user, lag = run["user_tok_s"], run.get("end_lag_ms")
    return (
        f"  {name:8s} {run['predicted_n']:4d} tokens in {run['deltas']:4d} deltas: server "
        f"{run['server_tok_s']:.1f} tok/s, user {'n/a' if user is None else f'{user:.1f}'}"
        f" tok/s{'' if lag is None else f', end lag {lag:.0f} ms'}"
    )


def summary_line(name: str, runs: list[dict[str, Any]]) -> str:
    values = ratios(runs)
    if not values:
        return f"{name}: no turn streamed text (nothing to measure)"
    lags = [r["end_lag_ms"] for r in runs if r.get("end_lag_ms") is not None]
    lag = f", end lag median {statistics.median(lags):.0f} ms, max {max(lags):.0f}" if lags else ""
    return (
        f"{name}: user/server tok/s median {fmt_ratio(statistics.median(values))} "
        f"(min {fmt_ratio(min(values))}, max {fmt_ratio(max(values))}, {len(values)} turns"
        f"{lag})"
    )


@contextlib.contextmanager
def model_server(paced_rate: float | None, log: Path, profile: str = "tiny") -> Iterator[str]:
    """The `tiny` server, or the paced stand-in (GPU-like rates the CPU cannot reach)."""
    if paced_rate:
        with paced(paced_rate) as url:
            print(f"server: paced stand-in at {paced_rate:.0f} tok/s (_paced_server.py)")
            yield url
        return
    with served(profile, log) as (url, plan):
        print(f"server: {plan.command}")
        yield url


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=len(TASKS))
    parser.add_argument("--reps", type=int, default=1, help="ask every task this many times")
    parser.add_argument("--max-tokens", type=int, default=300)
    parser.add_argument("--no-tui", action="store_true", help="skip the TUI face")
    parser.add_argument(
        "--paced",
        type=float,
        metavar="TOK_S",
        help="a stand-in server streaming at this rate instead of `tiny`",
    )
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    parser.add_argument("--profile", default="tiny", help="the server's profile (default tiny)")
    args = parser.parse_args()
    info = header("agent_overhead")

    def go() -> int:
        runs: dict[str, list[dict[str, Any]]] = {"headless": [], "tui": [], "http": []}
        with scratch("overhead") as home:
            workspace = agent_workspace(home / "work", "")
            env = isolated_env(home)
            # In the user's config: a project's may not raise a limit (it got 4,096 for 8,000).
            user_config = Path(env["BEECODE_CONFIG_DIR"]) / "config.toml"
            user_config.write_text(f"max_tokens = {args.max_tokens}\n")
            with model_server(args.paced, home / "server.log", args.profile) as url:

                def judged(run: dict[str, Any]) -> dict[str, Any]:
                    if not args.paced:
                        return run
                    return over_the_send_window(run, httpx.get(f"{url}/sent").json())

                for task in TASKS[: args.tasks] * args.reps:
                    runs["headless"].append(judged(via_agent(task, url, workspace, env)))
                    if not args.no_tui:
                        runs["tui"].append(judged(via_tui(task, url, workspace, env)))
                    runs["http"].append(judged(via_http(task, url, args.max_tokens)))
                    for name, face in runs.items():
                        if face:
                            print(run_line(name, face[-1]))
        print(summary_line("headless (stream-json)", runs["headless"]))
        print(summary_line("TUI (frames written)", runs["tui"]))
        print(summary_line("bare HTTP client", runs["http"]))
        for name in ("headless", "tui"):
            values = ratios(runs[name])
            if values:
                met = sum(value >= TARGET for value in values)
                verdict = "met" if met == len(values) else "not met"
                print(
                    f"target {name}/server >= {TARGET} in every turn: {verdict} ({met} of "
                    f"{len(values)} turns)"
                )
        save({**info, **runs, "target": TARGET}, args.out)
        return 0

    return main_guard(go)


if __name__ == "__main__":
    sys.exit(main())
