"""`beecode doctor`: what this machine has for building and running the engine, and what to do next.

Returns data only; the CLI prints it. A check that fails names the next step. Optional checks
(GPU, CUDA, ninja, ccache, git) only make things faster or enable more; the CPU path works without.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass

from server.engine.build import cached_engines
from server.engine.gpu import Gpu, find_nvcc, gpus
from server.engine.sources import engine_label
from server.paths import cache_dir

GIB = 1024**3
# The 31B DFlash profile needs ~22.6 GiB at 32K context with f16 KV (llama-server.md §4); the
# fitter steps context and cache types down from there, so 20 GiB is where it still runs well.
GPU_PROFILE_FREE_MIB = 20 * 1024
# An engine build needs ~0.5 GiB of scratch; the CPU models ~0.5 GiB; the GPU models ~20 GiB.
CPU_DISK_BYTES = 3 * GIB
GPU_DISK_BYTES = 25 * GIB


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str  # what was found
    next_step: str  # what to do when not ok ("" when ok)
    optional: bool = False  # a failed optional check only costs speed or a feature


def _output(argv: list[str]) -> str | None:
    """What a version command prints, or None when it cannot run."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (done.stdout + done.stderr).strip()
    return text if done.returncode == 0 and text else None


def _first_line(argv: list[str]) -> str | None:
    text = _output(argv)
    return text.splitlines()[0].strip() if text else None


def _tool(name: str, argv: list[str], install: str, why: str, optional: bool) -> Check:
    path = shutil.which(argv[0])
    version = _first_line([path, *argv[1:]]) if path else None
    if path is None or version is None:
        found = "not found" if path is None else f"{path} does not run"
        return Check(name, False, found, f"{install} ({why})", optional)
    return Check(name, True, f"{version} ({path})", "", optional)


def _gpu_checks(found: list[Gpu]) -> list[Check]:
    if not found:
        return [
            Check(
                "gpu",
                False,
                "no NVIDIA GPU (nvidia-smi absent or failing)",
                "none needed for the CPU profile 'tiny'; for speed install the NVIDIA driver",
                optional=True,
            )
        ]
    best = max(found, key=lambda g: g.memory_free_mib)
    listed = "; ".join(f"{g.index}: {g.name}, compute {g.compute_cap}" for g in found)
    vram = f"{best.memory_free_mib} MiB free of {best.memory_total_mib} MiB on GPU {best.index}"
    enough = best.memory_free_mib >= GPU_PROFILE_FREE_MIB
    return [
        Check("gpu", True, listed, ""),
        Check(
            "free VRAM",
            enough,
            vram,
            ""
            if enough
            else "close other GPU programs, or let `beecode server plan` pick a smaller "
            "context/cache type",
            optional=True,
        ),
    ]


def _cuda_check(have_gpu: bool) -> Check:
    nvcc = find_nvcc()
    text = _output([nvcc, "--version"]) if nvcc else None
    if nvcc is None or text is None:
        why = "needed to build the CUDA engine" if have_gpu else "only needed with an NVIDIA GPU"
        return Check(
            "CUDA toolkit",
            False,
            "nvcc not found",
            f"apt-get install nvidia-cuda-toolkit, or NVIDIA's CUDA toolkit ({why})",
            optional=not have_gpu,
        )
    release = re.search(r"release ([\d.]+)", text)
    version = f"CUDA {release.group(1)}" if release else text.splitlines()[-1]
    return Check("CUDA toolkit", True, f"{version} ({nvcc})", "", optional=not have_gpu)


def _compiler_check() -> Check:
    for name in ("c++", "g++", "clang++"):
        if shutil.which(name):
            return _tool(
                "compiler",
                [name, "--version"],
                "apt-get install g++",
                "builds the engine",
                optional=False,
            )
    return Check(
        "compiler",
        False,
        "no C++ compiler (c++, g++, clang++)",
        "apt-get install g++ (builds the engine)",
    )


def _pip_check() -> Check:
    version = _first_line([sys.executable, "-m", "pip", "--version"])
    if version is None:
        return Check(
            "pip",
            False,
            f"{sys.executable} -m pip does not run",
            f"{sys.executable} -m ensurepip (fetches the engine source and CPU models)",
        )
    return Check("pip", True, version.split(" from ")[0], "")


def _engine_check() -> Check:
    engines = cached_engines()
    if not engines:
        return Check(
            "engine builds",
            False,
            "none cached",
            "beecode server build (about 5 minutes on 2 cores)",
        )
    listed = "; ".join(
        f"{engine_label(e.source.kind, e.source.ref, e.options.backend, e.commit)}"
        f" built in {e.build_s:.0f} s"
        for e in engines
    )
    return Check("engine builds", True, listed, "")


def _model_check() -> Check:
    models = cache_dir() / "models"
    files = sorted(models.rglob("*.gguf")) if models.is_dir() else []
    if not files:
        return Check("model files", False, f"no GGUF files under {models}", "beecode server fetch")
    total = sum(f.stat().st_size for f in files)
    names = ", ".join(f.name for f in files[:4]) + (" ..." if len(files) > 4 else "")
    return Check("model files", True, f"{len(files)} GGUF, {total / GIB:.1f} GiB: {names}", "")


def _disk_check(have_gpu: bool) -> Check:
    where = cache_dir()
    free = shutil.disk_usage(where).free
    need = GPU_DISK_BYTES if have_gpu else CPU_DISK_BYTES
    detail = f"{free / GIB:.1f} GiB free in {where}"
    if free >= need:
        return Check("free disk", True, detail, "")
    return Check(
        "free disk",
        False,
        detail,
        f"free {need / GIB:.0f} GiB there, or point BEECODE_CACHE_DIR at a bigger disk",
    )


def run_checks() -> list[Check]:
    found = gpus()
    have_gpu = bool(found)
    return [
        *_gpu_checks(found),
        _cuda_check(have_gpu),
        _tool("cmake", ["cmake", "--version"], "apt-get install cmake", "builds the engine", False),
        _compiler_check(),
        _tool(
            "ninja", ["ninja", "--version"], "apt-get install ninja-build", "faster builds", True
        ),
        _tool(
            "ccache",
            ["ccache", "--version"],
            "apt-get install ccache",
            "rebuilds in ~30 s instead of ~5 min",
            True,
        ),
        _tool(
            "git",
            ["git", "--version"],
            "apt-get install git",
            "needed for the beellama and upstream sources",
            True,
        ),
        _pip_check(),
        _engine_check(),
        _model_check(),
        _disk_check(have_gpu),
    ]


def problems(checks: list[Check]) -> list[Check]:
    """The failed checks that stop beecode from working (optional ones excluded)."""
    return [c for c in checks if not c.ok and not c.optional]
