"""The measuring half of benchmarks/gpu_check.sh: on the engine built for the card (with --cpu,
this machine's CPU engine and scaled-down shapes), random-weight targets of the shipped profiles'
architectures and their drafters (_gpu_models.py), each launch planned and served as `server up`
does, with its prefill, decode and a slot saved and restored (_gpu_speed.py), `beecode bench`
through the speculation brake and without it, and the agent and TUI at the server's real stream
rate (agent_overhead.py). Steps run most telling first, each time-boxed within the run's budget;
summary.json and summary.md are rewritten after every step, so a run cut short keeps its figures.

    python benchmarks/_gpu_check.py OUT [--cpu] [--budget S] [--models DIR] [--tokenizer FILE]
                                        [--card-ready FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _common import BEECODE, ROOT, commit, isolated_env
from _gpu_models import launches, profiles_toml
from _gpu_summary import card_figures, render

from server.bench.report import machine, machine_line
from server.engine.build import cached_engine
from server.engine.dialect import probe
from server.launch.plan import engine_for
from server.models.fetch import ensure_model
from server.models.spec import SMOLLM2_135M
from server.profiles.builtin import builtin_profiles

PY = sys.executable
MIN_STEP_S = 20.0  # a step with less time left than this is skipped, not started
# (prefill tokens, decode tokens, bench tokens, agent tokens; seconds per launch, bench, agent)
GPU = {"prompt": 8192, "decode": 256, "bench": 128, "agent": 300, "launch_s": 150, "suite_s": 180}
CPU = {"prompt": 256, "decode": 16, "bench": 16, "agent": 24, "launch_s": 90, "suite_s": 150}


class Run:
    """The run's clock, its isolated environment and its summary, saved after every step."""

    def __init__(self, out: Path, budget_s: float, summary: dict[str, Any]) -> None:
        self.out, self.deadline, self.summary = out, time.monotonic() + budget_s, summary
        self.env = dict(os.environ)
        summary.setdefault("steps", {})

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def save(self) -> None:
        self.summary["elapsed_s"] = round(time.monotonic() - self.summary["_start"], 1)
        data = {k: v for k, v in self.summary.items() if not k.startswith("_")}
        (self.out / "summary.json").write_text(json.dumps(data, indent=1) + "\n")
        try:
            report = render(data)
        except (KeyError, TypeError, ValueError) as exc:  # the figures stay in summary.json
            report = f"# gpu_check\n\nsummary.md could not be written: {exc!r}\n"
        (self.out / "summary.md").write_text(report)

    def skip(self, name: str, reason: str) -> None:
        self.summary["steps"][name] = {"status": "skipped", "reason": reason}
        print(f"{name}: skipped ({reason})", flush=True)
        self.save()

    def step(self, name: str, argv: list[str], cap_s: float, result: Path | None) -> None:
        """Run one step (output to OUT/NAME.txt) for at most cap_s and the time left; SIGTERM
        when it runs over, so it stops its servers and keeps what it measured."""
        if self.left() < MIN_STEP_S:
            self.skip(name, f"{self.left():.0f} s of the budget left")
            return
        timeout = min(cap_s, self.left() - 5)
        start = time.monotonic()
        with (self.out / f"{name}.txt").open("w") as log:
            proc = subprocess.Popen(argv, cwd=ROOT, env=self.env, stdout=log, stderr=log)
            try:
                status = proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
                status = 124
        seconds = round(time.monotonic() - start, 1)
        record: dict[str, Any] = {"status": status, "seconds": seconds}
        if status == 124:
            record["reason"] = f"cut at {timeout:.0f} s"
        if result is not None and result.is_file():
            try:
                record["figures"] = json.loads(result.read_text())
            except ValueError:
                record["figures"] = None
        self.summary["steps"][name] = record
        print(f"{name}: exit {status} in {seconds:.0f} s", flush=True)
        self.save()


def _wait_for(path: Path, timeout_s: float) -> dict[str, Any] | None:
    """The card emulation's report: what it holds, or why it holds nothing (None: no word)."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if path.is_file() and path.stat().st_size:
            found: dict[str, Any] = json.loads(path.read_text())
            return found
        time.sleep(0.5)
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--cpu", action="store_true", help="the CPU half: tiny shapes, no card")
    parser.add_argument("--budget", type=float, help="seconds for the whole run (540; CPU 420)")
    parser.add_argument("--models", type=Path, help="where the models are (default OUT/models)")
    parser.add_argument("--tokenizer", type=Path, help="a GGUF file with the tokenizer to copy")
    parser.add_argument("--card-ready", type=Path, help="the card emulation's report file")
    args = parser.parse_args()
    out: Path = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    sizes = CPU if args.cpu else GPU
    budget = args.budget or (420.0 if args.cpu else 540.0)
    summary: dict[str, Any] = {"_start": time.monotonic(), "date": time.strftime("%Y-%m-%d")}
    summary.update(commit=commit(), cpu=args.cpu, budget_s=budget, sizes=sizes)
    summary["machine"] = machine_line(machine())
    # Sessions, state and profiles in OUT/home for this process and every step alike: the
    # engine it finds is the one the steps' launches find.
    os.environ.update(isolated_env(out / "home"))
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    run = Run(out, budget, summary)

    base = builtin_profiles()["smol-dflash" if args.cpu else "gemma4-31b-dflash"]
    engine = cached_engine(*engine_for(base))
    if engine is None:
        summary["error"] = f"no {base.backend} engine built for {base.name}: run `build` first"
        run.save()
        print(summary["error"], file=sys.stderr)
        return 1
    dialect = probe(engine.binary)
    summary["engine"] = {"source": f"{engine.source.kind} {engine.source.ref}"}
    summary["engine"].update(backend=engine.options.backend, binary=str(engine.binary))
    summary["engine"].update(commit=engine.commit, spec_types=list(dialect.spec_types))
    models = (args.models or out / "models").resolve()
    tokenizer = args.tokenizer or ensure_model(SMOLLM2_135M)
    write = [PY, "benchmarks/_gpu_models.py", "write", str(models), str(tokenizer)]
    write += ["--engine-for", base.name] + (["--cpu"] if args.cpu else [])
    run.step("models", write, 300, models / "models.json")
    record = run.summary["steps"]["models"].get("figures") or {}
    (out / "home" / "config" / "profiles.toml").write_text(profiles_toml(record, args.cpu))

    if args.card_ready is not None:
        summary["emulation"] = _wait_for(args.card_ready, 60) or {"error": "no word in 60 s"}
    summary["card"] = card_figures()
    run.save()
    served = _launches(run, record, sizes, args.cpu)
    _suites(run, sizes, served)
    steps = summary["steps"].values()
    return 0 if all(s["status"] in (0, "skipped") for s in steps) else 2


def _launches(run: Run, record: dict[str, Any], sizes: dict[str, int], cpu: bool) -> set[str]:
    """Each profile of the check served on its own; the profiles that could be."""
    served: set[str] = set()
    for profile, reason in launches(record, cpu):
        if reason:
            run.skip(profile, reason)
            continue
        speed = [PY, "benchmarks/_gpu_speed.py", profile, str(run.out / f"{profile}.json")]
        speed += ["--prompt", str(sizes["prompt"]), "--decode", str(sizes["decode"])]
        speed += [] if profile.endswith(("-dflash", "-mtp")) else ["--slot"]
        run.step(profile, speed, sizes["launch_s"], run.out / f"{profile}.json")
        served.add(profile)
    return served


def _suites(run: Run, sizes: dict[str, int], served: set[str]) -> None:
    """`beecode bench` on Gemma 4 with its random drafter, through the brake and without it, and
    the agent on Gemma 4 alone (its fastest stream)."""
    out = run.out
    bench = [*BEECODE, "bench", "--profile", "check-gemma4-dflash", "--modes", "none,dflash"]
    bench += ["--suite", "seed", "--reps", "1", "--max-tokens", str(sizes["bench"])]
    bench += ["--no-lossless"]
    agent = [PY, "benchmarks/agent_overhead.py", "--profile", "check-gemma4", "--tasks", "1"]
    agent += ["--max-tokens", str(sizes["agent"]), "--out", str(out / "agent.json")]
    drafted = "check-gemma4-dflash"
    suites = (
        ("bench-brake", [*bench, "--out", str(out / "bench-brake")], drafted),
        ("agent", agent, "check-gemma4"),
        ("bench-raw", [*bench, "--no-brake", "--out", str(out / "bench-raw")], drafted),
    )
    for name, argv, needs in suites:
        if needs not in served:
            run.skip(name, f"{needs} was not served")
            continue
        run.step(name, argv, sizes["suite_s"], out / "agent.json" if name == "agent" else None)
        if name.startswith("bench"):
            _bench_figures(run, name, out / name)


def _bench_figures(run: Run, name: str, folder: Path) -> None:
    """The bench's verdict from its summary.json: speed-ups, and what the brake did per mode."""
    step = run.summary["steps"].get(name, {})
    try:
        found = json.loads((folder / "summary.json").read_text())
    except (OSError, ValueError):
        return
    keys = ("speedup_by_mode", "speedup_best_by_mode", "brake_by_mode")
    step["figures"] = {key: found.get(key) for key in keys}
    step["figures"]["rows"] = [
        {k: row.get(k) for k in ("prompt", "mode", "tok_s", "speedup")}
        for row in found.get("rows", [])
    ]
    run.save()


if __name__ == "__main__":
    sys.exit(main())
