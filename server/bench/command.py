"""`beecode bench`: decode speed with and without speculation, on this machine, same server build.

For each mode (none = the profile's no-speculation twin) it starts llama-server on a free loopback
port, sends the prompts several times, and reports, per prompt and mode, the server's own timings:
tokens, decode tok/s, generation time, drafted and accepted tokens, and the speed-up over none.
At temperature 0 it also compares each mode's output with the baseline's, token by token.
With --interleave every mode's server runs at once and requests alternate between them, so load
from elsewhere on the machine falls on every mode alike (CPU machines with memory to spare).
Everything lands in --out: summary.json, report.txt, chart.png, raw responses and server logs.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from dataclasses import replace
from pathlib import Path

from rich.console import Console

from server.bench.modes import (
    DFLASH,
    MTP,
    NGRAM_TYPES,
    NONE,
    BenchError,
    Mode,
    Served,
    default_modes,
    mode_argv,
    mode_profile,
    parse_modes,
    prepare,
)
from server.bench.prompts import SUITES, BenchPrompt
from server.bench.report import machine, machine_line, print_report, write_chart
from server.bench.requests import BenchRun, Target, run_requests, slug
from server.bench.stats import (
    BASELINE_MODE,
    Agreement,
    acceptance_by_context,
    agreement,
    as_json,
    best_mode,
    brake_by_mode,
    speedup_by_mode,
    summarize,
)
from server.brake import Brake
from server.cli.parser import bounded
from server.cli.progress import RichHooks
from server.client import get_props, get_slots
from server.engine.gpu import gpus
from server.errors import ServerError
from server.launch.addresses import free_port
from server.paths import data_dir
from server.process.managed import ManagedServer
from server.profiles.builtin import default_profile_name
from server.profiles.catalog import get_profile
from server.profiles.profile import Profile

ENDPOINT_MODE = "as configured"
START_TIMEOUT_S = 300.0
REPORT_WIDTH = 140


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="beecode bench",
        description="Decode speed with and without speculation on this machine, same server build.",
    )
    p.add_argument("--profile", help="profile to serve (default: the one that fits this machine)")
    p.add_argument("--endpoint", help="bench a running OpenAI-compatible server as configured")
    p.add_argument("--api-key", help="API key for --endpoint")
    p.add_argument(
        "--modes",
        help=f"comma list: {', '.join((NONE, DFLASH, MTP, *NGRAM_TYPES))};"
        " combine with +, draft-max with @N",
    )
    p.add_argument(
        "--draft-max",
        type=bounded(int, 1, 1024),
        help="draft length cap for every speculative mode (ngram-mod: --spec-ngram-mod-n-max)",
    )
    p.add_argument(
        "--reps", type=bounded(int, 1, 1000), help="repetitions per prompt and mode (default 3)"
    )
    p.add_argument(
        "--suite",
        choices=sorted(SUITES),
        help="prompt set (default: seed); agent, agent-long: continuations after a growing "
        "tool-using history, acceptance against context length",
    )
    p.add_argument(
        "--max-tokens", type=bounded(int, 1, 10**6), help="override every prompt's max_tokens"
    )
    p.add_argument(
        "--temperature", type=bounded(float, 0, 2), help="override every prompt's temperature"
    )
    p.add_argument("--no-lossless", action="store_true", help="skip the T=0 agreement check")
    p.add_argument(
        "--interleave",
        action="store_true",
        help="run every mode's server at once and alternate requests between them, so "
        "other load on the machine hits every mode alike (needs memory for all)",
    )
    p.add_argument(
        "--no-brake",
        action="store_true",
        help="draft on every request, as launched, even where drafting loses (default: the "
        "agent's speculation brake decides, probe pairs counted in the figures)",
    )
    p.add_argument("--quick", action="store_true", help="one short prompt, 64 tokens, 1 rep")
    p.add_argument("--out", type=Path, help="result folder (default: <data>/bench/<timestamp>)")
    return p


def parse_args(argv: list[str]) -> argparse.Namespace:
    """The bench's options; argv may start with "bench"."""
    return _parser().parse_args(argv[1:] if argv[:1] == ["bench"] else argv)


def interrupt_on_sigterm() -> None:
    """A `kill` or a timeout ends the run like ^C: servers stop, what was measured is summarized."""

    def interrupt(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)


def main(argv: list[str]) -> int:
    """`beecode bench ...` (agent/cli.py passes its args through)."""
    args = parse_args(argv)
    interrupt_on_sigterm()
    console = Console()
    if not console.is_terminal:
        console.width = REPORT_WIDTH  # a pipe or file gets the whole table, not 80 columns
    try:
        out = run(args, console)
    except ServerError as exc:
        print(f"beecode: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # the results folder: not writable, disk full
        print(f"beecode: cannot write bench results: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("beecode: bench interrupted", file=sys.stderr)
        return 130
    console.print(f"results: {out}")
    return 0


def _prompts(args: argparse.Namespace) -> tuple[BenchPrompt, ...]:
    prompts = SUITES["quick" if args.quick else (args.suite or "seed")]
    if args.max_tokens is not None:
        prompts = tuple(replace(p, max_tokens=args.max_tokens) for p in prompts)
    if args.temperature is not None:
        prompts = tuple(replace(p, temperature=args.temperature) for p in prompts)
    return prompts


def run(args: argparse.Namespace, console: Console, progress: Console | None = None) -> Path:
    """The bench as ``args`` ask; its report on ``console``, build and download progress on
    ``progress`` (default stderr)."""
    reps = args.reps if args.reps is not None else (1 if args.quick else 3)
    if reps < 1:
        raise BenchError("--reps must be at least 1")
    if args.endpoint and (args.modes or args.profile):
        raise BenchError("--endpoint benches the server as configured: no --modes or --profile")
    out = args.out or data_dir() / "bench" / time.strftime("%Y%m%d-%H%M%S")
    bench = BenchRun(out, _prompts(args), reps, not args.no_lossless, args.interleave)
    bench.brake = not args.no_brake
    if args.endpoint:
        profile_name, model = None, get_props(args.endpoint, args.api_key).model_path
        out.mkdir(parents=True, exist_ok=True)
        _run_endpoint(bench, args.endpoint, args.api_key, console)
        return _finish(bench, profile_name, Path(model).name, console)
    profile = get_profile(args.profile or default_profile_name(gpus()))
    modes = parse_modes(args.modes) if args.modes else default_modes(profile)
    if args.quick and not args.modes:
        modes = modes[:2]  # a smoke run: none and the profile's own speculation
    bench.sampling = {k: v for k, v in profile.sampling.items() if k != "temperature"}
    out.mkdir(parents=True, exist_ok=True)
    try:
        _run_modes(bench, profile, modes, args.draft_max, console, progress)
    except BaseException:
        if bench.samples:  # an error or ^C mid-run still leaves what was measured
            _finish(bench, profile.name, Path(profile.target.filename).name, console)
        raise
    return _finish(bench, profile.name, Path(profile.target.filename).name, console)


def _run_modes(
    bench: BenchRun,
    profile: Profile,
    modes: list[Mode],
    draft_max: int | None,
    console: Console,
    progress: Console | None = None,
) -> None:
    variants = [(mode, mode_profile(profile, mode, draft_max)) for mode in modes]  # fail early
    with RichHooks(progress).shown() as hooks:
        served = prepare(profile, modes, hooks)
    console.print(f"engine: {served.engine.binary} ({served.engine.commit})")
    groups = [variants] if bench.interleaved else [[variant] for variant in variants]
    for group in groups:
        running: list[tuple[Mode, ManagedServer]] = []
        try:
            for mode, variant in group:
                running.append((mode, _start(bench, served, mode, variant, console)))
            targets = [
                Target(m.label, server.url, brake=Brake() if m.types and bench.brake else None)
                for m, server in running
            ]
            run_requests(bench, targets, console)
        finally:
            for _mode, server in running:
                server.stop()


def _start(
    bench: BenchRun, served: Served, mode: Mode, variant: Profile, console: Console
) -> ManagedServer:
    port = free_port()
    argv = mode_argv(served, variant, mode, port)
    log = bench.out / "logs" / f"{slug(mode.label)}.log"
    server = ManagedServer(argv, log_path=log, host="127.0.0.1", port=port, restart=False)
    console.print(f"[bold]{mode.label}[/bold]: starting {variant.name}")
    server.start(timeout_s=START_TIMEOUT_S)
    speculative = bool(get_slots(server.url)[0].get("speculative"))
    if mode.types and not speculative:
        console.print(
            f"[yellow]{mode.label}: the server did not enable speculation (see {log})[/yellow]"
        )
    bench.servers.append(
        {
            "mode": mode.label,
            "profile": variant.name,
            "argv": argv,
            "speculative": speculative,
            "log": str(log),
            "build_info": get_props(server.url).build_info,
        }
    )
    return server


def _run_endpoint(bench: BenchRun, url: str, api_key: str | None, console: Console) -> None:
    props = get_props(url, api_key)
    bench.servers.append(
        {
            "mode": ENDPOINT_MODE,
            "endpoint": url,
            "model": props.model_path,
            "build_info": props.build_info,
        }
    )
    bench.lossless = False  # one mode: nothing to compare with
    run_requests(bench, [Target(ENDPOINT_MODE, url, api_key)], console)


def _agreements(bench: BenchRun) -> list[Agreement]:
    found = []
    for (prompt, mode), tokens in bench.greedy_tokens.items():
        base = bench.greedy_tokens.get((prompt, BASELINE_MODE))
        if mode != BASELINE_MODE and base is not None:
            found.append(agreement(prompt, mode, base, tokens))
    return found


def _finish(bench: BenchRun, profile: str | None, model: str, console: Console) -> Path:
    rows = summarize(bench.samples)
    agreements = _agreements(bench)
    info = machine()
    title = f"{model} ({profile or 'endpoint'})\n{machine_line(info)}"
    brake = brake_by_mode(bench.samples)
    print_report(console, rows, agreements, title, brake)
    with (bench.out / "report.txt").open("w") as report:
        print_report(Console(file=report, width=REPORT_WIDTH), rows, agreements, title, brake)
    chart = write_chart(rows, bench.out / "chart.png", title)
    summary = {
        "schema": 1,
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "machine": info,
        "profile": profile,
        "model": model,
        "prompts": [
            {"name": p.name, "max_tokens": p.max_tokens, "temperature": p.temperature}
            for p in bench.prompts
        ],
        "reps": bench.reps,
        "interleaved": bench.interleaved,
        "brake": bench.brake,
        "brake_by_mode": brake,
        "servers": bench.servers,
        "rows": as_json(rows),
        "speedup_by_mode": speedup_by_mode(rows),
        "speedup_best_by_mode": speedup_by_mode(rows, best=True),
        "acceptance_by_context": acceptance_by_context(rows),
        "best_mode": best_mode(rows),
        "agreement": as_json(agreements),
        "samples": as_json(bench.samples),
        "files": {"chart": chart.name, "report": "report.txt", "raw": "raw", "logs": "logs"},
    }
    (bench.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    return bench.out
