"""The argument parser of `beecode server ...`: argparse, built for the one subcommand that runs.

`server up` parses its arguments before it can spawn llama-server, so the parser costs what it
must: no shutil for the terminal's width, no parsers for the other subcommands.
"""

from __future__ import annotations

import argparse
import os
import sys


class _Parser(argparse.ArgumentParser):
    """argparse's, with the terminal's width read here: argparse makes a help formatter for every
    argument added, and one not given a width imports shutil (3 ms of CPU, before `server up` can
    spawn llama-server)."""

    def _get_formatter(self) -> argparse.HelpFormatter:
        return argparse.HelpFormatter(self.prog, width=_columns() - 2)  # as argparse sizes it


def _columns() -> int:
    """The terminal's width as shutil.get_terminal_size says it: $COLUMNS, the terminal, or 80."""
    try:
        if (columns := int(os.environ.get("COLUMNS", ""))) > 0:
            return columns
    except ValueError:
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):  # no stdout, or not a terminal
        return 80


TYPE_CHECKING = False  # typing's, without importing typing before the spawn (server up)
if TYPE_CHECKING:
    from collections.abc import Callable


def bounded(kind: type[float], low: float, high: float) -> Callable[[str], float]:
    """An argparse type: a number of ``kind`` within [low, high], else argparse's one-line usage
    error naming the range (``--vram -3``, ``--port 0``, ``-n nan`` are mistakes, not values)."""

    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not low <= value <= high:  # nan is within nothing
            raise argparse.ArgumentTypeError(f"{text} is not within {low}..{high}")
        return value

    parse.__name__ = kind.__name__  # argparse names the type in some messages
    return parse


PORT = bounded(int, 1, 65535)
SUBCOMMANDS = {  # what `beecode server -h` lists, in its order
    "up": "build, fetch, fit and start the server; wait until healthy",
    "plan": "print the launch command and memory budget; start nothing",
    "status": "what runs, where, and whether it is healthy",
    "logs": "the server's log",
    "down": "stop the server and its supervisor",
    "build": "build (or reuse) an engine; `up` then uses it",
    "fetch": "download a profile's model files",
}


def parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``only``, that subcommand's alone: each parser argparse makes costs
    ~0.2 ms of CPU (gettext's lookups), which `server up` would spend before the spawn."""
    top = _Parser(prog="beecode server", description="the local llama-server")
    listed = "{" + ",".join(SUBCOMMANDS) + "}"  # the usage line lists them all either way
    sub = top.add_subparsers(dest="command", required=True, metavar=listed if only else None)
    made = {
        name: sub.add_parser(name, help=text)
        for name, text in SUBCOMMANDS.items()
        if only in (None, name)
    }
    for name in ("up", "plan"):
        if p := made.get(name):
            p.add_argument(
                "--profile", help="profile name (default: the one that fits this machine)"
            )
            p.add_argument("--port", type=PORT, help="port to listen on (default 8080)")
            p.add_argument(
                "--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)"
            )
            p.add_argument("--api-key", help="required when --host is not a loopback address")
    if plan := made.get("plan"):
        plan.add_argument("--engine", choices=("llama", "sglang", "vllm"), default="llama")
        plan.add_argument("--gpu", metavar="NAME", help="plan for this card, e.g. 'RTX 4090'")
        plan.add_argument(
            "--vram",
            type=bounded(float, 1, 1024),
            metavar="GiB",
            help="plan for a card with this memory",
        )
    if logs := made.get("logs"):
        logs.add_argument(
            "-n", type=bounded(int, 1, 10**6), default=40, help="lines to show (default 40)"
        )
        logs.add_argument("-f", "--follow", action="store_true", help="keep printing new lines")
    if build := made.get("build"):
        build.add_argument(
            "--source",
            default=None,
            help="pypi, beellama, upstream, KIND@TAG (e.g. beellama@v0.4.4), or a llama.cpp "
            "source directory",
        )
        backend = build.add_mutually_exclusive_group()
        backend.add_argument("--cuda", dest="cuda", action="store_true", default=None)
        backend.add_argument("--cpu", dest="cuda", action="store_false")
    for name in ("build", "plan"):
        if p := made.get(name):
            p.add_argument(
                "--cuda-archs",
                metavar="LIST",
                help="CUDA architectures to build for, e.g. 89 or 86;89",
            )
    if fetch := made.get("fetch"):
        fetch.add_argument("--profile")
    return top
