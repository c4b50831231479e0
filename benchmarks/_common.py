"""What every benchmark script shares: the header (date, commit, machine), a managed server, output.

Benchmarks print ratios measured side by side in one run; they exit non-zero only on errors
(a failed start, a bad reply), never because a figure missed its target.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as `python benchmarks/x.py` from a checkout

from server.bench.report import machine, machine_line  # noqa: E402
from server.errors import ServerError  # noqa: E402
from server.launch.addresses import free_port  # noqa: E402
from server.launch.plan import LaunchPlan, prepare_launch  # noqa: E402
from server.process.managed import ManagedServer  # noqa: E402

BEECODE = [sys.executable, "-m", "agent"]  # the `beecode` command of this checkout's environment


def commit() -> str:
    """The checkout's commit; an exported tree (``git archive``) has no .git, so it is told
    with BEECODE_BENCH_COMMIT."""
    done = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    )
    return done.stdout.strip() or os.environ.get("BEECODE_BENCH_COMMIT") or "unknown"


def header(name: str) -> dict[str, Any]:
    """Prints and returns what the figures were measured on."""
    info = {
        "benchmark": name,
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "commit": commit(),
        "machine": machine(),
    }
    print(f"# {name} · {info['date']} · commit {info['commit']} · {machine_line(info['machine'])}")
    return info


def isolated_env(home: Path) -> dict[str, str]:
    """Sessions, state and config in a scratch folder; the engine and model cache stay shared."""
    env = dict(os.environ)
    for var, sub in (
        ("BEECODE_DATA_DIR", "data"),
        ("BEECODE_STATE_DIR", "state"),
        ("BEECODE_CONFIG_DIR", "config"),
    ):
        (home / sub).mkdir(parents=True, exist_ok=True)
        env[var] = str(home / sub)
    return env


def agent_workspace(folder: Path, config: str) -> Path:
    """A workspace whose .beecode/config.toml holds `config` (project settings for the agent)."""
    (folder / ".beecode").mkdir(parents=True)
    (folder / ".beecode" / "config.toml").write_text(config)
    return folder


@contextlib.contextmanager
def scratch(prefix: str) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix=f"beecode-{prefix}-") as folder:
        yield Path(folder)


@contextlib.contextmanager
def served(profile: str, log: Path) -> Iterator[tuple[str, LaunchPlan]]:
    """The profile as `server up` would launch it, on a free loopback port, stopped at the end."""
    plan = prepare_launch(profile, port=free_port())
    server = ManagedServer(plan.argv, log_path=log, host=plan.host, port=plan.port, restart=False)
    server.start(timeout_s=300)
    try:
        yield server.url, plan
    finally:
        server.stop()


def save(result: dict[str, Any], out: Path | None, *, quiet: bool = False) -> None:
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=1) + "\n")
        if not quiet:
            print(f"saved {out}")


def ratio(a: float, b: float) -> float | None:
    return a / b if b else None


def fmt_ratio(value: float | None) -> str:
    return f"{value:.3f}" if value is not None else "n/a"


def main_guard(run: Callable[[], int]) -> int:
    """Errors end the run with one line and status 1; timings never do. SIGTERM ends it like
    ^C, so the servers it started are stopped (a background job ignores SIGINT)."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)
    try:
        return run()
    except (
        ServerError,
        OSError,
        subprocess.SubprocessError,
        httpx.HTTPError,
        RuntimeError,
        KeyError,
        ValueError,
    ) as exc:
        print(f"benchmark error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("benchmark interrupted", file=sys.stderr)
        return 130


def settings(path: Path) -> dict[str, str] | None:
    """A config file's keys and values; None when a key is set twice or the file is gone (a task
    that sets one value keeps the others, once each: checked so from session 7 on)."""
    pairs = (
        [line.partition("=") for line in path.read_text().splitlines()] if path.is_file() else []
    )
    found = {key.strip(): value.strip() for key, equals, value in pairs if equals}
    return found if pairs and len(found) == sum(bool(eq) for _, eq, _ in pairs) else None
