"""Lines of a file in bounded memory: a 1 GB file on one line costs a buffer, never a gigabyte.

Each line is read in pieces of ``PIECE_CHARS``; only its first ``keep`` characters are kept, and
its full length is counted.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from tools.nofollow import open_file

PIECE_CHARS = 1 << 16
_BLOCK = 1 << 20
_ENDINGS = ("\n", "\r")


def bounded_lines(file: TextIO, keep: int) -> Iterator[tuple[str, int]]:
    """(the line's first ``keep`` characters, its full length), both without the line ending."""
    while True:
        piece = file.readline(PIECE_CHARS)
        if not piece:
            return
        kept, length = piece[:keep], len(piece)
        while not piece.endswith(_ENDINGS):
            piece = file.readline(PIECE_CHARS)
            if not piece:
                break
            length += len(piece)
            if len(kept) < keep:
                kept += piece[: keep - len(kept)]
        ending = len(piece) - len(piece.rstrip("\r\n"))
        yield kept.rstrip("\r\n"), length - ending


def count_lines(path: Path) -> int:
    """Lines in a file, counted in fixed blocks (a last line without a newline counts)."""
    total, last = 0, b"\n"
    with open(open_file(path), "rb") as file:
        while block := file.read(_BLOCK):
            total += block.count(b"\n")
            last = block[-1:]
    return total + (last != b"\n")


def text_lines(text: str) -> int:
    """``count_lines`` of a text held in memory."""
    return text.count("\n") + (bool(text) and not text.endswith("\n"))
