"""The ``beecode`` command: dispatches to the server commands, headless mode or the TUI."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("server", "doctor"):
        from server.cli import main as server_main

        return server_main(args)
    print("beecode: the agent is not built yet; try `beecode server up`", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
