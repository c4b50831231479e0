"""`beecode server up|status|logs|down|build|fetch|plan` and `beecode doctor`.

Every ServerError becomes one line, `beecode: <message>`, on stderr and exit status 1; progress bars
go to stderr, results to stdout.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from server.cli.parser import SUBCOMMANDS, parser
from server.errors import ServerError
from server.process.state import log_path, read_record

TYPE_CHECKING = False  # typing's, without importing typing before the spawn (server up)
if TYPE_CHECKING:
    from typing import Any, TextIO

SOURCES = ("pypi", "beellama", "upstream")


def main(argv: list[str]) -> int:
    """argv[0] is "server" or "doctor" (agent/cli.py dispatches both here)."""
    try:
        if argv[:1] == ["doctor"]:
            return _doctor()
        only = argv[1] if argv[1:2] and argv[1] in SUBCOMMANDS else None
        args = parser(only).parse_args(argv[1:])
        command: Callable[[argparse.Namespace], int] = COMMANDS[args.command]
        return command(args)
    except ServerError as exc:
        tail = getattr(exc, "log_tail", "")  # a failed build shows the end of its log first
        if tail:
            print("\n".join(f"  {line}" for line in tail.splitlines()[-15:]), file=sys.stderr)
        print(f"beecode: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("beecode: interrupted", file=sys.stderr)
        return 130
    finally:
        # The process exits next: frozen, the imports' objects are not walked again (0.1 s)
        gc.freeze()


def _dialect_name(dialect: dict[str, Any]) -> str:
    kind = dialect.get("dflash_type")
    if kind == "dflash":
        return "BeeLlama <= 0.3 (--spec-type dflash)"
    fork = "BeeLlama >= 0.4" if dialect.get("is_bee") else "upstream"
    return f"{fork} (--spec-type draft-dflash)" if kind else f"{fork} (no DFlash)"


def _describe(record: dict[str, Any]) -> list[str]:
    engine = record.get("engine") or {}
    cache = record.get("cache_types") or ["f16", "f16"]
    return [
        f"  engine   {engine.get('kind')} {engine.get('ref')} (commit {engine.get('commit')}, "
        f"{engine.get('backend')})",
        f"  dialect  {_dialect_name(record.get('dialect') or {})}",
        f"  model    {record.get('model')}",
        f"  draft    {record.get('draft') or 'none'}",
        f"  context  {record.get('ctx')} tokens, cache {cache[0]}/{cache[1]}",
        f"  spec     {record.get('spec_type') or 'none'}",
        f"  log      {record.get('log')}",
    ]


def _up(args: argparse.Namespace) -> int:
    from server.cli.progress import RichHooks
    from server.process.detached import up

    with RichHooks().shown() as hooks:
        server = up(args.profile, host=args.host, port=args.port, api_key=args.api_key, hooks=hooks)
    print(f"llama-server listens on {server.url} (profile {server.profile}, pid {server.pid})")
    print("\n".join(_describe(server.record)))
    return 0


def _status(args: argparse.Namespace) -> int:
    from server.health import health
    from server.process.state import running

    server = running()
    if server is None:
        record = read_record()
        error = record.get("error") if record else None
        failed = f"; the last start failed: {error}" if error else ""
        print(f"no server is running{failed}")
        return 1
    code = health(server.url)
    state = {200: "healthy", 503: "loading"}.get(code or 0, "not answering")
    print(
        f"{server.url}: {state} (profile {server.profile}, pid {server.pid}, supervisor "
        f"{server.supervisor_pid}, restarts {server.restarts})"
    )
    print("\n".join(_describe(server.record)))
    return 0


def _logs(args: argparse.Namespace) -> int:
    path = log_path()
    try:
        handle = path.open(errors="replace")
    except FileNotFoundError:
        raise ServerError(
            f"no server log yet at {path}; start one with `beecode server up`"
        ) from None
    with handle:
        lines = handle.read().splitlines()  # following goes on from here: no line is missed
        for line in lines[-args.n :] if args.n > 0 else []:
            print(line)
        sys.stdout.flush()
        if args.follow:
            _follow(path, handle)
    return 0


def _follow(path: Path, handle: TextIO) -> None:
    """Print what is appended, switching to the new file when `up` starts a new log."""
    inode = os.fstat(handle.fileno()).st_ino
    try:
        while True:
            chunk = handle.read()
            if chunk:
                sys.stdout.write(chunk)
                sys.stdout.flush()
                continue
            time.sleep(0.2)
            if os.fstat(handle.fileno()).st_size < handle.tell():  # cut to its last part
                handle.seek(0)
            if path.exists() and path.stat().st_ino != inode:
                handle.close()
                handle = path.open(errors="replace")
                inode = os.fstat(handle.fileno()).st_ino
    except KeyboardInterrupt:
        pass
    finally:
        handle.close()


def _down(args: argparse.Namespace) -> int:
    from server.process.state import down, running

    server = running()
    if not down():
        print("no server is running")
        return 0
    where = f" (profile {server.profile} at {server.url})" if server else ""
    print(f"stopped the server{where}")
    return 0


def _build(args: argparse.Namespace) -> int:
    from server.cli.progress import RichHooks
    from server.engine.build import (
        BEELLAMA_SOURCE,
        PYPI_SOURCE,
        UPSTREAM_SOURCE,
        EngineSource,
        default_options,
        default_source,
        ensure_engine,
    )
    from server.engine.gpu import gpus
    from server.process.state import choose_engine

    cuda = bool(gpus()) if args.cuda is None else args.cuda
    named = {"pypi": PYPI_SOURCE, "beellama": BEELLAMA_SOURCE, "upstream": UPSTREAM_SOURCE}
    if args.source is None:
        source = default_source(cuda)
    elif args.source in named:
        source = named[args.source]
    elif args.source.split("@", 1)[0] in ("beellama", "upstream") and "@" in args.source:
        kind, tag = args.source.split("@", 1)
        source = EngineSource("beellama" if kind == "beellama" else "upstream", tag)
    else:
        source = EngineSource("local", str(Path(args.source).expanduser().resolve()))
    options = default_options(cuda)
    if args.cuda_archs and options.backend == "cuda":
        from dataclasses import replace

        options = replace(options, cuda_archs=args.cuda_archs)
    started = time.monotonic()
    with RichHooks().shown() as hooks:
        engine = ensure_engine(source, options, hooks.build)
    choose_engine(source, options)
    fresh = time.monotonic() - started > engine.build_s / 2
    how = f"built in {engine.build_s:.0f} s" if fresh else "already built"
    print(f"llama-server {engine.binary}")
    print(
        f"  from {source.kind} {source.ref} (commit {engine.commit}, {options.backend}), {how}; "
        f"`beecode server up` uses it for {options.backend} profiles"
    )
    return 0


def _fetch(args: argparse.Namespace) -> int:
    from server.cli.progress import RichHooks
    from server.engine.gpu import gpus
    from server.models.fetch import ensure_model
    from server.profiles.builtin import default_profile_name
    from server.profiles.catalog import get_profile

    profile = get_profile(args.profile or default_profile_name(gpus()))
    specs = [profile.target] + ([profile.draft] if profile.draft else [])
    with RichHooks().shown() as hooks:
        paths = [ensure_model(spec, hooks.download) for spec in specs]
    for label, path in zip(("model", "draft"), paths, strict=False):
        print(f"{label:6} {path}")
    return 0


def _plan(args: argparse.Namespace) -> int:
    from server.engine.gpu import gpus, planned_card
    from server.launch.offline import plan_offline
    from server.launch.vllm_sglang import plan_engine_launch
    from server.profiles.builtin import default_profile_name
    from server.profiles.catalog import get_profile

    if args.engine != "llama":
        profile = get_profile(args.profile or default_profile_name(gpus()))
        print(plan_engine_launch(args.engine, profile))
        return 0
    try:
        card = planned_card(args.gpu, args.vram, args.cuda_archs)
    except ValueError as exc:
        raise ServerError(str(exc)) from None
    plan = plan_offline(
        args.profile, host=args.host, port=args.port, api_key=args.api_key, card=card,
        cuda_archs=args.cuda_archs,
    )  # fmt: skip
    print(f"# profile {plan.profile.name}: {plan.profile.description}")
    print("\n".join(f"# {note}" for note in plan.notes))
    print(plan.command)
    if plan.memory is not None:
        print("\n".join(f"# {line}" for line in plan.memory.explanation.splitlines()))
    return 0


def _doctor() -> int:
    """Every check, with the next step for what is missing; exit 1 when beecode cannot work."""
    from server.cli.doctor import problems, run_checks

    checks = run_checks()
    for check in checks:
        mark = "ok" if check.ok else ("--" if check.optional else "!!")
        print(f"{mark} {check.name}: {check.detail}")
        if not check.ok and check.next_step:
            optional = " (optional)" if check.optional else ""
            print(f"   next{optional}: {check.next_step}")
    return 1 if problems(checks) else 0


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "up": _up,
    "status": _status,
    "logs": _logs,
    "down": _down,
    "build": _build,
    "fetch": _fetch,
    "plan": _plan,
}
