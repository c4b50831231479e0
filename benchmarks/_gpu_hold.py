"""A smaller card on a bigger one: holds all of the GPU's free memory but FREE_MIB until killed,
so beecode's fit plans (which read the free memory) meet what a 24 GB card has. Writes what it
holds to READY as JSON once it holds it, or why it cannot. Needs PyTorch (the GPU machine's image
has it; beecode does not depend on it).

    python benchmarks/_gpu_hold.py FREE_MIB READY
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path


def main() -> int:
    keep_mib, ready = float(sys.argv[1]), Path(sys.argv[2])
    try:
        import torch

        free, total = torch.cuda.mem_get_info()
        hold = max(0, free - int(keep_mib * 2**20))
        block = torch.empty(hold, dtype=torch.uint8, device="cuda")
        after, _ = torch.cuda.mem_get_info()
    except Exception as exc:  # no torch, no card, no memory: the check runs on the whole card
        ready.write_text(json.dumps({"error": f"{type(exc).__name__}: {exc}"}) + "\n")
        return 1
    report = {"held_mib": hold // 2**20, "free_mib": after // 2**20, "total_mib": total // 2**20}
    ready.write_text(json.dumps(report) + "\n")
    print(f"holding {report}", flush=True)
    while block.numel() >= 0:  # until killed, the block referenced
        time.sleep(3600)
    return 0


if __name__ == "__main__":
    sys.exit(main())
