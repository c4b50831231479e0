"""Build llama-server once per source, commit, backend and options; cache it; share it safely.

A build runs in a temporary folder beside the cache and is renamed into place only when complete,
under a per-build file lock: concurrent callers wait for one build, and a killed build leaves
nothing that looks finished. Each engine folder holds bin/llama-server, build.log and build.json
(its record).
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
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from server import dialect as dialect_probe
from server.buildlog import BuildLog
from server.errors import BuildError, ServerError
from server.gpu import find_nvcc, gpus
from server.locks import file_lock
from server.paths import cache_dir, state_dir
from server.sources import (
    BEELLAMA_SOURCE,
    PYPI_SOURCE,
    UPSTREAM_SOURCE,
    EngineSource,
    FetchedSource,
    SourceKind,
    fetch,
    source_identity,
)

__all__ = [
    "BEELLAMA_SOURCE",
    "PYPI_SOURCE",
    "UPSTREAM_SOURCE",
    "BuildOptions",
    "BuildProgress",
    "Engine",
    "EngineSource",
    "SourceKind",
    "build_jobs",
    "cached_engines",
    "cmake_args",
    "default_options",
    "default_source",
    "engine_key",
    "engines_dir",
    "ensure_engine",
]

# Bump when cmake_args() changes what gets built, so older engines are not mistaken for new ones.
RECIPE = 1
RECORD = "build.json"
GIB = 1024**3
# Peak compiler memory per job; FA_ALL_QUANTS CUDA template instances are what get OOM-killed.
CPU_JOB_BYTES = int(2.5 * GIB)
CUDA_JOB_BYTES = 6 * GIB


@dataclass(frozen=True)
class BuildOptions:
    backend: Literal["cpu", "cuda"] = "cpu"
    cuda_archs: str | None = None  # CMAKE_CUDA_ARCHITECTURES, e.g. "89"; None: from nvidia-smi
    native: bool = False  # GGML_NATIVE; off on CPU, where the native AMX kernels crash


@dataclass(frozen=True)
class BuildProgress:
    """done/total from the build tool's [N/M] lines; total 0 marks a step without a count."""

    done: int
    total: int
    line: str


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
            "no NVIDIA GPU visible to pick CUDA architectures; pass them, e.g. cuda_archs='89'"
        )
    return BuildOptions("cuda", ";".join(archs), options.native)


def engine_key(source: EngineSource, options: BuildOptions) -> str:
    """A readable, stable folder name: kind, ref, backend, then a hash of all that matters."""
    ident = {
        "recipe": RECIPE,
        "kind": source.kind,
        "id": source_identity(source),
        "options": asdict(options),
    }
    digest = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:10]
    ref = Path(source.ref).name if source.kind == "local" else source.ref
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{source.kind}-{ref}-{options.backend}")
    return f"{readable}-{digest}"


def cmake_args(options: BuildOptions, fetched: FetchedSource) -> list[str]:
    """Release, static, no network at build time (UI, OpenSSL, curl off), pinned version."""
    args = [
        "-DCMAKE_BUILD_TYPE=Release",
        "-DBUILD_SHARED_LIBS=OFF",
        f"-DGGML_NATIVE={'ON' if options.native else 'OFF'}",
        "-DLLAMA_OPENSSL=OFF",
        "-DLLAMA_CURL=OFF",
        "-DLLAMA_BUILD_TESTS=OFF",
        "-DLLAMA_BUILD_EXAMPLES=OFF",
        "-DLLAMA_BUILD_UI=OFF",
        "-DLLAMA_USE_PREBUILT_UI=OFF",  # else the UI is downloaded at build time
        f"-DLLAMA_BUILD_COMMIT={fetched.commit}",
    ]
    if fetched.build_number is not None:
        args.append(f"-DLLAMA_BUILD_NUMBER={fetched.build_number}")
    if options.backend == "cuda":
        args += ["-DGGML_CUDA=ON", "-DGGML_CUDA_FA=ON", "-DGGML_CUDA_FA_ALL_QUANTS=ON"]
        if options.cuda_archs:
            args.append(f"-DCMAKE_CUDA_ARCHITECTURES={options.cuda_archs}")
    if shutil.which("ninja"):
        args += ["-G", "Ninja"]
    if shutil.which("ccache"):
        langs = ["C", "CXX", "CUDA"] if options.backend == "cuda" else ["C", "CXX"]
        args += [f"-DCMAKE_{lang}_COMPILER_LAUNCHER=ccache" for lang in langs]
    return args


def mem_available_bytes() -> int | None:
    try:
        text = Path("/proc/meminfo").read_text()
    except OSError:
        return None
    match = re.search(r"^MemAvailable:\s+(\d+) kB", text, re.MULTILINE)
    return int(match.group(1)) * 1024 if match else None


def build_jobs(
    options: BuildOptions, cores: int | None = None, mem_bytes: int | None = None
) -> int:
    """Parallel compile jobs: one per core, but never more than free memory holds."""
    cores = cores or len(os.sched_getaffinity(0))
    mem_bytes = mem_bytes if mem_bytes is not None else mem_available_bytes()
    if mem_bytes is None:
        return cores
    per_job = CUDA_JOB_BYTES if options.backend == "cuda" else CPU_JOB_BYTES
    return max(1, min(cores, mem_bytes // per_job))


_STEP = re.compile(r"^\[(\d+)/(\d+)\]\s*(.*)")  # ninja
_PERCENT = re.compile(r"^\[\s*(\d+)%\]\s*(.*)")  # make


def _progress_lines(
    progress: Callable[[BuildProgress], None] | None,
) -> Callable[[str], None] | None:
    if progress is None:
        return None

    def on_line(line: str) -> None:
        if m := _STEP.match(line):
            progress(BuildProgress(int(m.group(1)), int(m.group(2)), m.group(3)))
        elif m := _PERCENT.match(line):
            progress(BuildProgress(int(m.group(1)), 100, m.group(2)))

    return on_line


def ensure_engine(
    source: EngineSource | None = None,
    options: BuildOptions | None = None,
    progress: Callable[[BuildProgress], None] | None = None,
    pip_args: Sequence[str] = (),
) -> Engine:
    """The cached engine for source+options, building it first if needed (BuildError on failure)."""
    if options is None:
        cuda = source is not None and source.kind == "beellama"
        options = default_options(cuda)
    source = source or default_source(options.backend == "cuda")
    options = resolve_options(options)
    key = engine_key(source, options)
    final = engines_dir() / key
    if (final / RECORD).is_file():
        return _engine_from(final)
    with file_lock(engines_dir(), key):
        if (final / RECORD).is_file():  # another caller built it while we waited
            return _engine_from(final)
        for stale in engines_dir().glob(
            f".tmp-{key}-*"
        ):  # left by a killed build; we hold the lock
            shutil.rmtree(stale, ignore_errors=True)
        work = Path(tempfile.mkdtemp(prefix=f".tmp-{key}-", dir=engines_dir()))
        try:
            _build(source, options, key, work, final, progress, pip_args)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return _engine_from(final)


def _build(
    source: EngineSource,
    options: BuildOptions,
    key: str,
    work: Path,
    final: Path,
    progress: Callable[[BuildProgress], None] | None,
    pip_args: Sequence[str],
) -> None:
    log = BuildLog(state_dir() / "builds" / f"{key}.log")
    try:
        stage, probed = _compile_and_stage(source, options, key, work, log, progress, pip_args)
    finally:
        log.close()
    shutil.copy2(log.path, stage / "build.log")
    if final.exists():  # a folder without a record is no engine (made by hand, or half-deleted)
        shutil.rmtree(final)
    os.rename(stage, final)  # atomic: the engine appears complete or not at all
    dialect_probe.remember(final / "bin" / "llama-server", probed)


def _compile_and_stage(
    source: EngineSource,
    options: BuildOptions,
    key: str,
    work: Path,
    log: BuildLog,
    progress: Callable[[BuildProgress], None] | None,
    pip_args: Sequence[str],
) -> tuple[Path, dialect_probe.Dialect]:
    """Fetch, configure, compile; put the binary and its record in work/engine; return it."""
    steps: dict[str, float] = {}
    start = time.monotonic()

    def step(name: str) -> None:
        steps[name] = round(time.monotonic() - start - sum(steps.values()), 1)
        if progress is not None:
            progress(BuildProgress(0, 0, name))

    log.note(f"beecode engine build {key}: {source.kind} {source.ref}, {options}")
    fetched = fetch(source, work, log, pip_args)
    step("fetch_s")
    env = _build_env(options, work)
    args = cmake_args(options, fetched)
    log.run(
        ["cmake", "-S", fetched.tree, "-B", work / "build", *args], what="cmake configure", env=env
    )
    step("configure_s")
    jobs = build_jobs(options)
    log.run(
        ["cmake", "--build", work / "build", "--target", "llama-server", "-j", str(jobs)],
        what="engine build",
        env=env,
        on_line=_progress_lines(progress),
    )
    step("compile_s")
    stage = work / "engine"
    binary = _stage_binary(work / "build", stage, log)
    version = _version(binary, log)
    try:
        probed = dialect_probe.parse_help(dialect_probe.help_text(binary))
    except ServerError as exc:
        raise log.failure(f"the built llama-server cannot list its flags: {exc}") from exc
    record: dict[str, Any] = {
        "recipe": RECIPE,
        "key": key,
        "source": asdict(source),
        "options": asdict(options),
        "commit": fetched.commit,
        "build_s": round(time.monotonic() - start, 1),
        "steps": steps,
        "cmake_args": args,
        "jobs": jobs,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "binary": "bin/llama-server",
        "log": "build.log",
        "version": version,
        "dialect": probed.summary(),
    }
    log.note(f"built {binary} from {fetched.commit} in {record['build_s']} s: {record['dialect']}")
    (stage / RECORD).write_text(json.dumps(record, indent=2) + "\n")
    return stage, probed


def _build_env(options: BuildOptions, work: Path) -> dict[str, str]:
    env = dict(os.environ)
    # ccache hashes absolute paths; relative to the temporary build root they repeat across builds.
    env["CCACHE_BASEDIR"] = str(work)
    nvcc = find_nvcc()
    if options.backend == "cuda" and nvcc is not None and "CUDACXX" not in env:
        env["CUDACXX"] = nvcc
    return env


def _stage_binary(build: Path, stage: Path, log: BuildLog) -> Path:
    candidates = [build / "bin" / "llama-server", *sorted(build.rglob("llama-server"))]
    binary = next((p for p in candidates if p.is_file() and os.access(p, os.X_OK)), None)
    if binary is None:
        raise log.failure("the build finished without a llama-server binary")
    (stage / "bin").mkdir(parents=True)
    target = stage / "bin" / "llama-server"
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


def _engine_from(folder: Path) -> Engine:
    record = _read_record(folder)
    if record is None:
        raise BuildError(
            f"engine record {folder / RECORD} is unreadable; delete {folder} to rebuild it"
        )
    return _engine_of(folder, record)


def _engine_of(folder: Path, record: dict[str, Any]) -> Engine:
    return Engine(
        binary=folder / record["binary"],
        source=EngineSource(**record["source"]),
        options=BuildOptions(**record["options"]),
        commit=record["commit"],
        build_s=float(record["build_s"]),
        log=folder / record["log"],
    )


def engine_record(engine: Engine) -> dict[str, Any]:
    """The full build.json of a cached engine (cmake args, steps, version, dialect summary)."""
    return _read_record(engine.binary.parent.parent) or {}


def cached_engines() -> list[Engine]:
    """Every complete engine in the cache, oldest first."""
    found: list[tuple[str, Engine]] = []
    for folder in sorted(engines_dir().iterdir()):
        record = None if folder.name.startswith(".") else _read_record(folder)
        if record is not None:
            try:
                found.append((str(record.get("created", "")), _engine_of(folder, record)))
            except (KeyError, TypeError):
                continue  # a record from another beecode version: not ours to interpret
    return [engine for _, engine in sorted(found, key=lambda pair: pair[0])]
