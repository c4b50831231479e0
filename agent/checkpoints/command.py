"""``beecode undo [N] | --list | --redo``: the checkpoints of the current workspace."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agent.checkpoints.shadow import CheckpointError
from agent.checkpoints.store import CANNOT_RESTORE, Checkpoints, describe
from server.cli.parser import bounded


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="beecode undo",
        description="Restore this workspace's files as they were before the last N turns that "
        "changed them (by write, edit, bash or git). " + CANNOT_RESTORE,
    )
    parser.add_argument("steps", nargs="?", type=bounded(int, 1, 10**6), default=1, metavar="N")
    choice = parser.add_mutually_exclusive_group()
    choice.add_argument("--list", action="store_true", help="list the checkpoints, newest first")
    choice.add_argument("--redo", action="store_true", help="undo the last undo")
    return parser


def main(argv: list[str], workspace: Path | None = None) -> int:
    try:
        options = _parser().parse_args(argv)
    except SystemExit as exit_:
        return 0 if exit_.code == 0 else 2
    checkpoints = Checkpoints(workspace or Path.cwd())
    try:
        if options.list:
            lines = checkpoints.listing()
            print("\n".join(lines) if lines else "no checkpoints in this workspace yet")
            return 0
        restored = checkpoints.redo() if options.redo else checkpoints.undo(options.steps)
    except CheckpointError as error:
        print(f"beecode undo: {error}", file=sys.stderr)
        return 1
    print(describe(restored))
    return 0
