"""The measuring half of benchmarks/gpu_check.sh: random-weight target and drafter written here,
a profile for them, its plan, `beecode bench` through the brake and without it, a slot saved
and restored, and the agent at the server's real stream rate. Each step is time-boxed and its
result kept, so a run cut short still reports; summary.json and summary.md go to OUT.

    python benchmarks/_gpu_check.py OUT [--cpu [--quick]]

--cpu: the same steps on this machine's CPU engine with a tiny shape (the half CI tests);
--quick: a few tokens per step.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _common import ROOT

from server.engine.build import cached_engines
from server.engine.dialect import probe
from server.models.fetch import ensure_model
from server.models.random_drafter import drafter_arch, write_random_dflash_drafter
from server.models.random_target import SHAPE_8B, SHAPE_TINY, write_random_target
from server.models.spec import SMOLLM2_135M

PROFILE = "check-dflash"


def _profiles(target: Path, drafter: Path, cpu: bool) -> str:
    base = "smol-dflash" if cpu else "gemma4-31b-dflash"
    ctx = 2048 if cpu else 32768  # the GPU profile's real context, fitted to the emulated card
    return f'[{PROFILE}]\nbase = "{base}"\ntarget = "{target}"\ndraft = "{drafter}"\nctx = {ctx}\n'


def _step(
    out: Path, name: str, argv: list[str], env: dict[str, str], timeout_s: float
) -> dict[str, Any]:
    """Run one step, its output to OUT/NAME.txt; what it returned, how long it took."""
    start = time.monotonic()
    try:
        done = subprocess.run(
            argv, env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout_s
        )
        text, status = done.stdout + done.stderr, done.returncode
    except subprocess.TimeoutExpired as exc:
        text = f"{exc.stdout or ''}{exc.stderr or ''}\n(cut at {timeout_s:.0f} s)"
        status = 124
    (out / f"{name}.txt").write_text(text if isinstance(text, str) else str(text))
    print(f"{name}: exit {status} in {time.monotonic() - start:.0f} s", flush=True)
    return {"status": status, "seconds": round(time.monotonic() - start, 1)}


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--cpu", action="store_true", help="the CPU half: tiny shapes, no card")
    parser.add_argument("--quick", action="store_true", help="a few tokens per step (tests)")
    args = parser.parse_args()
    out: Path = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    summary: dict[str, Any] = {"date": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "cpu": args.cpu}
    # The engine the profile's base runs on: upstream's on CPU (smol-dflash), Bee's on the card.
    kind, backend = ("pypi", "cpu") if args.cpu else ("beellama", "cuda")
    engines = [
        e for e in cached_engines() if e.source.kind == kind and e.options.backend == backend
    ]
    if not engines:
        print(f"no {kind} {backend} engine built: run `gpu_check.sh build`", file=sys.stderr)
        return 1
    engine = engines[-1]
    dialect = probe(engine.binary)
    bee = dialect.is_bee
    summary["engine"] = {"binary": str(engine.binary), "commit": engine.commit, "bee": bee}

    start = time.monotonic()
    models = out / "models"
    target = write_random_target(
        ensure_model(SMOLLM2_135M), models / "target.gguf", SHAPE_TINY if args.cpu else SHAPE_8B
    )
    arch = drafter_arch(dialect)
    drafter = write_random_dflash_drafter(target, models / "drafter.gguf", arch=arch)
    summary["models"] = {
        "target_bytes": target.stat().st_size,
        "drafter_arch": arch,
        "written_s": round(time.monotonic() - start, 1),
    }
    home = out / "home"
    env = dict(os.environ)
    for var in ("CONFIG", "DATA", "STATE"):
        (home / var.lower()).mkdir(parents=True, exist_ok=True)
        env[f"BEECODE_{var}_DIR"] = str(home / var.lower())
    (home / "config" / "profiles.toml").write_text(_profiles(target, drafter, args.cpu))
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])

    py = [sys.executable]
    beecode = [*py, "-m", "agent"]
    tokens = "8" if args.quick else "64" if args.cpu else "512"
    bench = ["bench", "--profile", PROFILE, "--modes", "none,dflash", "--suite", "seed"]
    bench += ["--reps", "1", "--max-tokens", tokens, "--no-lossless"]
    steps: dict[str, Any] = {}
    steps["plan"] = _step(out, "plan", [*beecode, "server", "plan", "--profile", PROFILE], env, 60)
    for name, extra in (("bench-brake", []), ("bench-raw", ["--no-brake"])):
        argv = [*beecode, *bench, *extra, "--out", str(out / name)]
        steps[name] = _step(out, name, argv, env, 240)
        found = _json(out / name / "summary.json") or {}
        steps[name]["speedup_by_mode"] = found.get("speedup_by_mode")
        steps[name]["brake_by_mode"] = found.get("brake_by_mode")
    slot = [*py, "benchmarks/resume_restore.py", "--profile", PROFILE, "--files", "3"]
    steps["slot"] = _step(out, "slot", [*slot, "--out", str(out / "slot.json")], env, 180)
    steps["slot"]["figures"] = _json(out / "slot.json")
    agent = [*py, "benchmarks/agent_overhead.py", "--profile", PROFILE, "--tasks", "1"]
    agent += ["--max-tokens", "24" if args.quick else "300"]
    steps["agent"] = _step(out, "agent", [*agent, "--out", str(out / "agent.json")], env, 240)
    steps["agent"]["figures"] = _json(out / "agent.json")
    summary["steps"] = steps
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    lines = [f"# gpu_check {'(CPU half)' if args.cpu else ''} {summary['date']}", ""]
    lines += [f"- {name}: exit {s['status']}, {s['seconds']} s" for name, s in steps.items()]
    for name in ("bench-brake", "bench-raw"):
        lines.append(f"- {name} speed-up: {steps[name].get('speedup_by_mode')}")
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    return 0 if all(s["status"] == 0 for s in steps.values()) else 2


if __name__ == "__main__":
    sys.exit(main())
