"""How an engine is configured and compiled: CMake flags, parallel jobs, build progress."""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from server.engine.eta import time_left
from server.engine.gpu import find_nvcc
from server.engine.sources import FetchedSource
from server.paths import cache_dir

GIB = 1024**3
# Peak compiler memory per job; FA_ALL_QUANTS CUDA template instances are what get OOM-killed.
CPU_JOB_BYTES = int(2.5 * GIB)
CUDA_JOB_BYTES = 6 * GIB


@dataclass(frozen=True)
class BuildOptions:
    backend: Literal["cpu", "cuda"] = "cpu"
    cuda_archs: str | None = None  # CMAKE_CUDA_ARCHITECTURES, e.g. "89"; None: from nvidia-smi
    native: bool = False  # GGML_NATIVE; off on CPU, where the native AMX kernels crash
    fa_all_quants: bool = False  # GGML_CUDA_FA_ALL_QUANTS (see needs_all_quants)


# KV cache types whose same-type pair a CUDA build has flash-attention kernels for without
# GGML_CUDA_FA_ALL_QUANTS (upstream's default GGML_CUDA_FA_QUANTS: f16, bf16, q8_0, q4_0; Bee
# v0.2.0 compiles those and its turbo kernels, but refuses K != V in fattn.cu without the flag).
# All pairs cost a build many times as long (~20 min on a 4090 desktop against 8 on 16 cores),
# so only a profile that names another pair gets them.
FA_PAIRED_TYPES = frozenset({"f16", "bf16", "q8_0", "q4_0"})


def needs_all_quants(cache_type_k: str | None, cache_type_v: str | None) -> bool:
    """Whether a CUDA build needs GGML_CUDA_FA_ALL_QUANTS for this K/V pair (None: f16)."""
    k, v = cache_type_k or "f16", cache_type_v or "f16"
    return not (k == v and (k in FA_PAIRED_TYPES or k.startswith("turbo")))


@dataclass(frozen=True)
class BuildProgress:
    """done/total from the build tool's [N/M] lines; total 0 marks a step without a count."""

    done: int
    total: int
    line: str
    eta_s: float | None = None  # seconds left at the rate of the steps so far; None: too early

    def describe(self) -> str:
        """`[57/208]` with its estimate: `[57/208, ~4 min left]`."""
        if not self.total:
            return f"{self.line.removesuffix('_s')} done"
        return f"[{self.done}/{self.total}{time_left(self.eta_s)}]"


def cmake_args(options: BuildOptions, fetched: FetchedSource) -> list[str]:
    """Release, static, no network at build time (UI, OpenSSL, curl off), pinned version."""
    native = "ON" if options.native else "OFF"
    args = ["-DCMAKE_BUILD_TYPE=Release", "-DBUILD_SHARED_LIBS=OFF", f"-DGGML_NATIVE={native}"]
    args += ["-DLLAMA_OPENSSL=OFF", "-DLLAMA_CURL=OFF"]
    args += ["-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF"]
    # With the prebuilt UI on (its default) the build downloads the web UI.
    args += ["-DLLAMA_BUILD_UI=OFF", "-DLLAMA_USE_PREBUILT_UI=OFF"]
    args.append(f"-DLLAMA_BUILD_COMMIT={fetched.commit}")
    if fetched.build_number is not None:
        args.append(f"-DLLAMA_BUILD_NUMBER={fetched.build_number}")
    if options.backend == "cuda":
        all_quants = "ON" if options.fa_all_quants else "OFF"
        args += ["-DGGML_CUDA=ON", "-DGGML_CUDA_FA=ON", f"-DGGML_CUDA_FA_ALL_QUANTS={all_quants}"]
        if options.cuda_archs:
            args.append(f"-DCMAKE_CUDA_ARCHITECTURES={options.cuda_archs}")
    if shutil.which("ninja"):
        args += ["-G", "Ninja"]
    if shutil.which("ccache"):
        langs = ["C", "CXX", "CUDA"] if options.backend == "cuda" else ["C", "CXX"]
        args += [f"-DCMAKE_{lang}_COMPILER_LAUNCHER=ccache" for lang in langs]
    return args


def build_env(options: BuildOptions, work: Path) -> dict[str, str]:
    env = dict(os.environ)
    # ccache hashes absolute paths; relative to the work folder they repeat across builds. Its
    # cache sits beside the engines unless the user chose one.
    env["CCACHE_BASEDIR"] = str(work)
    env.setdefault("CCACHE_DIR", str(cache_dir() / "ccache"))
    nvcc = find_nvcc()
    if options.backend == "cuda" and nvcc is not None and "CUDACXX" not in env:
        env["CUDACXX"] = nvcc  # CMake looks on PATH only; the toolkit often is not there
    return env


def _cache_entry(build: Path, name: str) -> str | None:
    """A value from build/CMakeCache.txt, None where there is none."""
    try:
        text = (build / "CMakeCache.txt").read_text(errors="replace")
    except OSError:
        return None
    match = re.search(rf"^{name}:\w+=(.*)$", text, re.MULTILINE)
    return match.group(1) if match else None


def generator_changed(build: Path, args: list[str]) -> bool:
    """Whether an earlier try configured `build` with another generator than args name (ninja
    installed or removed since): cmake refuses to configure that folder again."""
    made = _cache_entry(build, "CMAKE_GENERATOR")
    return made is not None and made != ("Ninja" if "Ninja" in args else "Unix Makefiles")


def build_command(build: Path, jobs: int) -> list[str]:
    """The configured build tool (ninja or make) run directly: on SIGTERM it stops its
    compilers, where `cmake --build` would die alone and leave them running."""
    tool = _cache_entry(build, "CMAKE_MAKE_PROGRAM")
    if not tool:
        return ["cmake", "--build", str(build), "--target", "llama-server", "-j", str(jobs)]
    return [tool, "-C", str(build), "-j", str(jobs), "llama-server"]


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
    """Parallel compile jobs: one per core, but never more than free memory holds.

    BEECODE_BUILD_JOBS overrides the count (e.g. 1 after the compiler was killed for memory)."""
    override = os.environ.get("BEECODE_BUILD_JOBS", "")
    if override.isdigit() and int(override) > 0:
        return int(override)
    cores = cores or len(os.sched_getaffinity(0))
    mem_bytes = mem_bytes if mem_bytes is not None else mem_available_bytes()
    if mem_bytes is None:
        return cores
    per_job = CUDA_JOB_BYTES if options.backend == "cuda" else CPU_JOB_BYTES
    return max(1, min(cores, mem_bytes // per_job))


_STEP = re.compile(r"^\[(\d+)/(\d+)\]\s*(.*)")  # ninja
_PERCENT = re.compile(r"^\[\s*(\d+)%\]\s*(.*)")  # make


ETA_MIN_STEPS = 5  # steps counted before an estimate: the first ones are the quick C files
ETA_MIN_S = 10.0


def progress_lines(report: Callable[[BuildProgress], None] | None) -> Callable[[str], None] | None:
    """A build-output line handler that reports ninja's [N/M] (or make's [ P%]) steps, with
    the time left at the rate of the steps this build has done (a resumed build's done steps
    are not counted in its rate)."""
    if report is None:
        return None
    first: list[tuple[float, int]] = []  # (when, done) at the first counted line

    def on_line(line: str) -> None:
        if m := _STEP.match(line):
            done, total, what = int(m.group(1)), int(m.group(2)), m.group(3)
        elif m := _PERCENT.match(line):
            done, total, what = int(m.group(1)), 100, m.group(2)
        else:
            return
        now = time.monotonic()
        if not first:
            first.append((now, done))
        start, start_done = first[0]
        steps, seconds = done - start_done, now - start
        eta = None
        if steps >= ETA_MIN_STEPS and seconds >= ETA_MIN_S:
            eta = round(seconds / steps * (total - done), 1)
        report(BuildProgress(done, total, what, eta))

    return on_line
