"""Build llama-server once per source, commit, backend and options; cache it; share it safely.

A build runs in a work folder beside the cache (`.build-<key>`) and is renamed into place only
when complete, under a per-build file lock: concurrent callers wait for one build, and a killed
build leaves nothing that looks finished. A build that failed or was killed keeps its work folder,
so the next try resumes (the fetched tree is reused, the compiler redoes only what is missing);
a work folder left untried for ABANDONED_DAYS goes when a later build completes.
Each engine folder holds bin/llama-server, build.log and build.json.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from server.engine import dialect as dialect_probe
from server.engine.buildlog import BuildLog
from server.engine.cmake_build import (
    BuildOptions,
    BuildProgress,
    build_command,
    build_env,
    build_jobs,
    cmake_args,
    generator_changed,
    progress_lines,
)
from server.engine.gpu import gpus
from server.engine.patches import apply_patches
from server.engine.sources import (
    BEELLAMA_SOURCE,
    PYPI_SOURCE,
    UPSTREAM_SOURCE,
    EngineSource,
    FetchedSource,
    SourceKind,
    fetch,
    source_identity,
)
from server.errors import BuildError, ServerError
from server.locks import file_lock, lock_if_free
from server.paths import cache_dir, state_dir

__all__ = [
    "BEELLAMA_SOURCE", "PYPI_SOURCE", "UPSTREAM_SOURCE", "BuildOptions", "BuildProgress", "Engine",
    "EngineSource", "SourceKind", "build_jobs", "cached_engine", "cached_engines", "cmake_args",
    "default_options", "default_source", "engine_key", "engine_record", "engines_dir",
    "ensure_engine",
]  # fmt: skip

# Bump when cmake_args() changes what gets built, so older engines are not mistaken for new ones.
RECIPE = 2  # 2: upstream trees patched (server.engine.patches)
RECORD = "build.json"
BINARY = "bin/llama-server"
ABANDONED_DAYS = 14.0  # a failed build's work folder is kept this long for a resume


@dataclass(frozen=True)
class Engine:
    binary: Path
    source: EngineSource
    options: BuildOptions
    commit: str
    build_s: float
    log: Path


def default_source(cuda: bool) -> EngineSource:
    return BEELLAMA_SOURCE if cuda else PYPI_SOURCE


def default_options(cuda: bool) -> BuildOptions:
    return BuildOptions(backend="cuda", native=True) if cuda else BuildOptions()


def engines_dir() -> Path:
    path = cache_dir() / "engines"
    path.mkdir(parents=True, exist_ok=True)
    return path


def resolve_options(options: BuildOptions) -> BuildOptions:
    """Fill CUDA architectures from the visible GPUs, so the cache key names what was compiled."""
    if options.backend != "cuda" or options.cuda_archs:
        return options
    archs = sorted({g.cuda_arch for g in gpus()})
    if not archs:
        raise BuildError(
            "no NVIDIA GPU visible to choose CUDA architectures; give them, e.g. "
            "`beecode server build --cuda --cuda-archs 89`"
        )
    return replace(options, cuda_archs=";".join(archs))


def engine_key(source: EngineSource, options: BuildOptions) -> str:
    """A readable, stable folder name: kind, ref, backend, then a hash of all that matters."""
    named = asdict(options)
    if not options.fa_all_quants:  # added later: keys of engines built before it stay as they were
        del named["fa_all_quants"]
    ident: dict[str, Any] = {"recipe": RECIPE, "kind": source.kind, "options": named}
    ident["id"] = source_identity(source)
    digest = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:10]
    ref = Path(source.ref).name if source.kind == "local" else source.ref
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{source.kind}-{ref}-{options.backend}")
    return f"{readable}-{digest}"


def ensure_engine(
    source: EngineSource | None = None,
    options: BuildOptions | None = None,
    progress: Callable[[BuildProgress], None] | None = None,
    pip_args: Sequence[str] = (),
) -> Engine:
    """The cached engine for source+options, building it first if needed (BuildError on failure).

    Without arguments: the PyPI sdist on CPU. A BeeLlama source without options builds for CUDA.
    """
    if options is None:
        options = default_options(cuda=source is not None and source.kind == "beellama")
    source = source or default_source(options.backend == "cuda")
    options = resolve_options(options)
    key = engine_key(source, options)
    final = engines_dir() / key
    found = cached_engine(source, options)
    if found is not None:
        return found
    with file_lock(engines_dir(), key):
        if (final / RECORD).is_file():  # another caller built it while we waited
            return _engine_from(final)
        for stale in engines_dir().glob(f".tmp-{key}-*"):  # older beecodes' killed builds
            shutil.rmtree(stale, ignore_errors=True)
        work = engines_dir() / f".build-{key}"  # kept when the build fails: the next one resumes
        work.mkdir(exist_ok=True)
        log = BuildLog(state_dir() / "builds" / f"{key}.log")
        try:
            stage, probed = _build(source, options, key, work, log, progress, pip_args)
        finally:
            log.close()
        shutil.copy2(log.path, stage / "build.log")
        if final.exists():  # a folder without a record is no engine (made by hand, half gone)
            shutil.rmtree(final)
        os.rename(stage, final)  # atomic: the engine appears complete or not at all
        shutil.rmtree(work, ignore_errors=True)
    prune_abandoned_builds()
    dialect_probe.remember(final / BINARY, probed)
    return _engine_from(final)


def prune_abandoned_builds(max_age_days: float = ABANDONED_DAYS) -> list[Path]:
    """Delete the work folders of builds that failed or were killed and not tried again for
    ``max_age_days`` (a CUDA build's is gigabytes), unless a build holds its lock now."""
    cutoff, pruned = time.time() - max_age_days * 86400, []
    for work in engines_dir().glob(".build-*"):
        try:
            newest = max([work.stat().st_mtime, *(p.stat().st_mtime for p in work.iterdir())])
        except OSError:
            continue
        if newest < cutoff:
            with lock_if_free(engines_dir(), work.name.removeprefix(".build-")) as free:
                if free:
                    shutil.rmtree(work, ignore_errors=True)
                    pruned.append(work)
    return pruned


def cached_engine(source: EngineSource, options: BuildOptions) -> Engine | None:
    """The engine already built for source and (resolved) options, or None; never builds."""
    final = engines_dir() / engine_key(source, options)
    return _engine_from(final) if (final / RECORD).is_file() else None


def _build(
    source: EngineSource, options: BuildOptions, key: str, work: Path, log: BuildLog,
    progress: Callable[[BuildProgress], None] | None, pip_args: Sequence[str],
) -> tuple[Path, dialect_probe.Dialect]:  # fmt: skip
    """Fetch, configure, compile; put the binary and its record in work/engine; return it."""
    steps: dict[str, float] = {}
    start = time.monotonic()

    def step(name: str) -> None:
        steps[name] = round(time.monotonic() - start - sum(steps.values()), 1)
        if progress is not None:
            progress(BuildProgress(0, 0, name))

    log.note(f"beecode engine build {key}: {source.kind} {source.ref}, {options}")
    fetched, patches = _fetch_once(source, work, log, pip_args)
    step("fetch_s")
    env = build_env(options, work)
    args = cmake_args(options, fetched)
    if generator_changed(work / "build", args):
        log.note("the build tool changed since the last try: configuring afresh")
        shutil.rmtree(work / "build")
    configure = ["cmake", "-S", str(fetched.tree), "-B", str(work / "build"), *args]
    log.run(configure, what="cmake configure", env=env)
    step("configure_s")
    jobs = build_jobs(options)
    compile_ = build_command(work / "build", jobs)
    try:
        log.run(compile_, what="engine build", env=env, on_line=progress_lines(progress))
    except BuildError as exc:
        if "Killed signal" in exc.log_tail:  # cc1plus OOM-killed (FA_ALL_QUANTS is the usual one)
            raise log.failure(
                f"the compiler was killed, most likely out of memory, with {jobs} "
                "jobs; retry with BEECODE_BUILD_JOBS=1"
            ) from exc
        raise
    step("compile_s")
    stage = work / "engine"
    shutil.rmtree(stage, ignore_errors=True)  # from a try that failed after compiling
    binary = _stage_binary(work / "build", stage / BINARY, log)
    version = _version(binary, log)
    try:
        probed = dialect_probe.parse_help(dialect_probe.help_text(binary))
    except ServerError as exc:
        raise log.failure(f"the built llama-server cannot list its flags: {exc}") from exc
    record: dict[str, Any] = {
        "recipe": RECIPE, "key": key, "source": asdict(source), "options": asdict(options),
        "commit": fetched.commit, "build_s": round(time.monotonic() - start, 1), "steps": steps,
        "cmake_args": args, "jobs": jobs, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "patches": patches, "binary": BINARY, "log": "build.log", "version": version,
        "dialect": probed.summary(),
    }  # fmt: skip
    log.note(f"built {fetched.commit} in {record['build_s']} s: {record['dialect']}")
    _write_record(stage, record)
    return stage, probed


FETCHED = "fetched.json"  # in a work folder: its source tree is complete (and patched)


def _fetch_once(
    source: EngineSource, work: Path, log: BuildLog, pip_args: Sequence[str]
) -> tuple[FetchedSource, list[str]]:
    """The source tree in `work`, fetched and patched by an earlier try when it got that far
    (fetching again would touch every file, and the compiler would redo all of it)."""
    try:
        done = json.loads((work / FETCHED).read_text())
        fetched = FetchedSource(Path(done["tree"]), done["commit"], done["build_number"])
        if fetched.tree.is_dir():
            log.note(f"resuming the build in {work}")
            return fetched, list(done["patches"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    for leftover in ("src", "build"):  # a fetch that did not finish: start clean
        shutil.rmtree(work / leftover, ignore_errors=True)
    fetched = fetch(source, work, log, pip_args)
    patches = apply_patches(fetched.tree) if source.kind in ("pypi", "upstream") else []
    log.note(f"patches applied: {', '.join(patches) or 'none'}")
    record = {"tree": str(fetched.tree), "commit": fetched.commit, "patches": patches}
    (work / FETCHED).write_text(json.dumps({**record, "build_number": fetched.build_number}))
    return fetched, patches


def _stage_binary(build: Path, target: Path, log: BuildLog) -> Path:
    candidates = [build / BINARY, *sorted(build.rglob("llama-server"))]
    binary = next((p for p in candidates if p.is_file() and os.access(p, os.X_OK)), None)
    if binary is None:
        raise log.failure("the build finished without a llama-server binary")
    target.parent.mkdir(parents=True)
    shutil.copy2(binary, target)
    return target


def _version(binary: Path, log: BuildLog) -> str:
    """`--version` (printed on stderr); a binary that cannot say it does not get published."""
    try:
        done = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise log.failure(f"the built llama-server does not run: {exc}") from exc
    text = (done.stderr + done.stdout).strip()
    log.note(text)
    if done.returncode != 0:
        raise log.failure(f"the built llama-server --version exited {done.returncode}")
    return text


def _read_record(folder: Path) -> dict[str, Any] | None:
    try:
        record = json.loads((folder / RECORD).read_text())
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def _engine_of(folder: Path, record: dict[str, Any]) -> Engine:
    return Engine(
        binary=folder / record["binary"],
        source=EngineSource(**record["source"]),
        options=BuildOptions(**record["options"]),
        commit=record["commit"],
        build_s=float(record["build_s"]),
        log=folder / record["log"],
    )


def _engine_from(folder: Path) -> Engine:
    record = _read_record(folder)
    try:
        return _engine_of(folder, record or {})
    except (KeyError, TypeError):
        raise BuildError(f"{folder / RECORD} is unreadable; delete {folder} to rebuild") from None


def engine_record(engine: Engine) -> dict[str, Any]:
    """The full build.json of a cached engine (cmake args, steps, version, dialect summary).

    A dialect summary written by an older parser is probed again and written back."""
    folder = engine.binary.parent.parent
    record = _read_record(folder) or {}
    summary = record.get("dialect")
    if record and (not isinstance(summary, dict) or summary.get("parser") != dialect_probe.PARSER):
        record["dialect"] = dialect_probe.probe(engine.binary).summary()
        _write_record(folder, record)
    return record


def _write_record(folder: Path, record: dict[str, Any]) -> None:
    """Replace build.json atomically: a reader sees the old record or the new one."""
    handle, tmp = tempfile.mkstemp(prefix=f".{RECORD}.", dir=folder)
    with os.fdopen(handle, "w") as out:
        out.write(json.dumps(record, indent=2) + "\n")
    os.replace(tmp, folder / RECORD)


def cached_engines() -> list[Engine]:
    """Every complete engine in the cache, oldest first."""
    found: list[tuple[str, Engine]] = []
    for folder in sorted(engines_dir().iterdir()):
        record = None if folder.name.startswith(".") else _read_record(folder)
        if record is None:
            continue
        try:
            found.append((str(record.get("created", "")), _engine_of(folder, record)))
        except (KeyError, TypeError):
            continue  # a record from another beecode version: not ours to interpret
    return [engine for _, engine in sorted(found, key=lambda pair: pair[0])]
