"""Run by tests/faults/test_kill.py: rewrites one file through the write path forever, each
time wholly A's or wholly B's (4 MiB), until it is SIGKILLed. argv: the file."""

from __future__ import annotations

import sys
from pathlib import Path

from tools.files import atomic_write
from tools.textcodec import UTF8

SIZE = 4 << 20

if __name__ == "__main__":
    target = Path(sys.argv[1])
    for n in range(10**9):
        atomic_write(target, "AB"[n % 2] * SIZE, UTF8, target.name)
        target.with_suffix(".count").write_text(str(n))
