"""NVIDIA GPUs as nvidia-smi reports them; an empty list where there is none."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass

QUERY_FIELDS = "index,name,memory.total,memory.free,compute_cap"


@dataclass(frozen=True)
class Gpu:
    index: int
    name: str
    memory_total_mib: int
    memory_free_mib: int
    compute_cap: str  # "8.9"

    @property
    def cuda_arch(self) -> str:
        """The CMAKE_CUDA_ARCHITECTURES spelling of compute_cap: "8.9" -> "89"."""
        return self.compute_cap.replace(".", "")


def parse_query(csv_text: str) -> list[Gpu]:
    """Parse `nvidia-smi --query-gpu=<QUERY_FIELDS> --format=csv,noheader,nounits` output."""
    found: list[Gpu] = []
    for line in csv_text.splitlines():
        cells = [c.strip() for c in line.split(",")]
        if len(cells) != 5:
            continue
        index, name, total, free, cap = cells
        try:
            found.append(Gpu(int(index), name, int(float(total)), int(float(free)), cap))
        except ValueError:
            continue  # "[N/A]" fields on some virtualised cards: skip the card rather than guess
    return found


def gpus() -> list[Gpu]:
    """Every visible NVIDIA GPU; [] when nvidia-smi is absent, fails or hangs."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return []
    try:
        done = subprocess.run(
            [smi, f"--query-gpu={QUERY_FIELDS}", "--format=csv,noheader,nounits"],
            capture_output=True,
            text=True,
            timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    return parse_query(done.stdout) if done.returncode == 0 else []


def find_nvcc() -> str | None:
    """nvcc on PATH, else the CUDA toolkit's default install location (often not on PATH)."""
    found = shutil.which("nvcc")
    if found is not None:
        return found
    default = "/usr/local/cuda/bin/nvcc"
    return default if shutil.which(default) else None
