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


# Cards a plan can be made for without owning one: memory as sold and compute capability
# (NVIDIA's CUDA GPU list). nvidia-smi reports a little less total memory than the nominal size.
KNOWN_CARDS: dict[str, tuple[int, str]] = {
    "RTX 3060": (12, "8.6"),
    "RTX 3090": (24, "8.6"),
    "RTX 3090 Ti": (24, "8.6"),
    "RTX 4060 Ti": (16, "8.9"),
    "RTX 4070 Ti Super": (16, "8.9"),
    "RTX 4080": (16, "8.9"),
    "RTX 4090": (24, "8.9"),
    "RTX 5080": (16, "12.0"),
    "RTX 5090": (32, "12.0"),
    "RTX A6000": (48, "8.6"),
    "RTX 6000 Ada": (48, "8.9"),
    "L4": (24, "8.9"),
    "L40S": (48, "8.9"),
    "A100 40GB": (40, "8.0"),
    "A100 80GB": (80, "8.0"),
    "H100": (80, "9.0"),
    "H200": (141, "9.0"),
}


def _card_key(name: str) -> str:
    key = name.lower().replace("nvidia", "").replace("geforce", "")
    return "".join(ch for ch in key if ch.isalnum())


def planned_card(name: str | None, vram_gib: float | None, cuda_archs: str | None) -> Gpu | None:
    """The card a plan is made for (`--gpu NAME`, `--vram GiB`), with all its memory free; None
    when neither is given. ValueError names the known cards for an unknown name."""
    if name is None and vram_gib is None:
        return None
    gib = float(vram_gib or 0)
    arch = cuda_archs.split(";")[0] if cuda_archs else ""
    cap = f"{arch[:-1]}.{arch[-1]}" if len(arch) >= 2 and arch.isdigit() else ""
    if name is not None:
        keys = {_card_key(known): known for known in KNOWN_CARDS}
        endings = [known for key, known in keys.items() if key.endswith(_card_key(name))]
        found = keys.get(_card_key(name)) or (endings[0] if len(endings) == 1 else None)
        if found is None:
            raise ValueError(f"unknown card '{name}' (known: {', '.join(KNOWN_CARDS)}); or --vram")
        # A card's memory as the user states it (--vram) overrides the table's.
        gib, cap = gib or KNOWN_CARDS[found][0], cap or KNOWN_CARDS[found][1]
        name = found
    mib = int(gib * 1024)
    return Gpu(-1, name or "given by --vram", mib, mib, cap)
