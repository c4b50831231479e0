"""List the working tree's changes and flag what should not be committed as it is."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

BIG = 1_000_000
FLAGS = {
    "conflict marker": re.compile(r"^(<<<<<<<|>>>>>>>) ", re.M),
    "debug print": re.compile(r"^\+.*\b(breakpoint\(\)|pdb\.set_trace|console\.log)", re.M),
}


def main() -> None:
    status = subprocess.run(
        ["git", "status", "--porcelain"], capture_output=True, text=True, check=True
    ).stdout
    for line in status.splitlines():
        path = Path(line[3:].split(" -> ")[-1])
        notes = []
        if path.is_file() and path.stat().st_size > BIG:
            notes.append("large file")
        diff = subprocess.run(
            ["git", "diff", "HEAD", "--", str(path)], capture_output=True, text=True
        )
        notes += [name for name, pattern in FLAGS.items() if pattern.search(diff.stdout)]
        print(f"{line[:2]} {path}" + (f"  <- {', '.join(notes)}" if notes else ""))
    if not status.strip():
        print("nothing to commit")


if __name__ == "__main__":
    main()
